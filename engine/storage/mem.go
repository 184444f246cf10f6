package storage

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// Mem is an in-memory file system for the browser and for tests.
type Mem struct {
	mu    sync.Mutex
	dirs  map[string]bool
	files map[string]*memFile
	// pageCache, when set, lets unsynced writes reach the disk the way
	// Linux's flusher does (see writeback); nil: only Sync does.
	pageCache *writeback
}

// NewMem returns an empty in-memory file system.
func NewMem() *Mem {
	return &Mem{dirs: map[string]bool{".": true, "/": true}, files: map[string]*memFile{}}
}

type memFile struct {
	fs     *Mem
	name   string
	data   []byte
	synced []byte // the content a crash would leave (see CrashableMem)
	// dirty: data differs from synced; dirtiedAt: virtual time it became so.
	dirty     bool
	dirtiedAt time.Duration
}

// changing is called, under the lock, before f changes: the flusher's
// writebacks due so far happen first, then f is dirty.
func (m *Mem) changing(f *memFile) {
	if m.pageCache == nil {
		return
	}
	m.pageCache.settle(m.files)
	m.pageCache.dirtied(f)
}

// memHandle is an open file; writes go to the shared memFile.
type memHandle struct {
	f      *memFile
	closed bool
}

func clean(name string) string { return path.Clean(name) }

func (m *Mem) MkdirAll(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for d := clean(dir); d != "." && d != "/"; d = path.Dir(d) {
		if _, isFile := m.files[d]; isFile {
			return fmt.Errorf("mkdir %s: %s is a file", dir, d)
		}
		m.dirs[d] = true
	}
	return nil
}

func (m *Mem) ReadDir(dir string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir = clean(dir)
	if !m.dirs[dir] {
		return nil, fmt.Errorf("readdir %s: %w", dir, ErrNotExist)
	}
	var names []string
	for name := range m.files { // collected, then sorted below
		if path.Dir(name) == dir {
			names = append(names, path.Base(name))
		}
	}
	slices.Sort(names)
	return names, nil
}

func (m *Mem) Create(name string) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = clean(name)
	if !m.dirs[path.Dir(name)] {
		return nil, fmt.Errorf("create %s: directory %w", name, ErrNotExist)
	}
	f := &memFile{fs: m, name: name}
	m.changing(f) // a new file is dirty: its name reaches the disk with its data
	m.files[name] = f
	return &memHandle{f: f}, nil
}

func (m *Mem) Open(name string) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[clean(name)]
	if !ok {
		return nil, fmt.Errorf("open %s: %w", name, ErrNotExist)
	}
	return &memHandle{f: f}, nil
}

func (m *Mem) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = clean(name)
	if _, ok := m.files[name]; !ok {
		return fmt.Errorf("remove %s: %w", name, ErrNotExist)
	}
	delete(m.files, name)
	return nil
}

func (m *Mem) RemoveAll(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir = clean(dir)
	prefix := dir + "/"
	for name := range m.files {
		if strings.HasPrefix(name, prefix) {
			delete(m.files, name)
		}
	}
	for d := range m.dirs {
		if d == dir || strings.HasPrefix(d, prefix) {
			delete(m.dirs, d)
		}
	}
	return nil
}

func (m *Mem) Rename(from, to string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	from, to = clean(from), clean(to)
	f, ok := m.files[from]
	if !ok {
		return fmt.Errorf("rename %s: %w", from, ErrNotExist)
	}
	if !m.dirs[path.Dir(to)] {
		return fmt.Errorf("rename to %s: directory %w", to, ErrNotExist)
	}
	delete(m.files, from)
	f.name = to
	m.files[to] = f
	return nil
}

func (h *memHandle) ReadAt(p []byte, off int64) (int, error) {
	h.f.fs.mu.Lock()
	defer h.f.fs.mu.Unlock()
	if h.closed {
		return 0, fmt.Errorf("read %s: file closed", h.f.name)
	}
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", h.f.name, off)
	}
	if off >= int64(len(h.f.data)) {
		return 0, io.EOF
	}
	n := copy(p, h.f.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (h *memHandle) Write(p []byte) (int, error) {
	h.f.fs.mu.Lock()
	defer h.f.fs.mu.Unlock()
	if h.closed {
		return 0, fmt.Errorf("write %s: file closed", h.f.name)
	}
	h.f.fs.changing(h.f)
	// Double the room when it runs out: append grows a large slice by a
	// quarter, which copied a segment file written in small appends five
	// or six times over (in WASM, garbage its collector pays for).
	if d := h.f.data; len(d)+len(p) > cap(d) {
		grown := make([]byte, len(d), max(len(d)+len(p), 2*cap(d)))
		copy(grown, d)
		h.f.data = grown
	}
	h.f.data = append(h.f.data, p...)
	return len(p), nil
}

func (h *memHandle) Size() int64 {
	h.f.fs.mu.Lock()
	defer h.f.fs.mu.Unlock()
	return int64(len(h.f.data))
}

func (h *memHandle) Truncate(size int64) error {
	h.f.fs.mu.Lock()
	defer h.f.fs.mu.Unlock()
	if size < 0 || size > int64(len(h.f.data)) {
		return fmt.Errorf("truncate %s to %d: file has %d bytes", h.f.name, size, len(h.f.data))
	}
	h.f.fs.changing(h.f)
	// Capped: the next Write moves the file to a new array rather than
	// overwrite bytes past size that synced may share (see writeBack).
	h.f.data = h.f.data[:size:size]
	// A truncation is durable at once, like a removal or a rename (see
	// CrashableMem): on ext4 or XFS it is a metadata change the journal
	// commits within seconds, not dirty data waiting 30 s for the flusher.
	// Modelled as dirty data, a power cut brought back a tail a follower
	// had truncated as diverging, under a leader-epoch checkpoint (synced
	// at once, as Kafka's LeaderEpochFileCache.assign does) that had
	// already moved on: the follower's log then ended inside a batch of
	// its leader's and it could never fetch again (VOPR seed 16).
	if int64(len(h.f.synced)) > size {
		h.f.synced = h.f.synced[:size:size]
	}
	return nil
}

func (h *memHandle) Sync() error {
	h.f.fs.mu.Lock()
	defer h.f.fs.mu.Unlock()
	h.f.writeBack()
	return nil
}

func (h *memHandle) Close() error {
	h.closed = true
	return nil
}

func (h *memHandle) Name() string { return h.f.name }
