package storage

import (
	"fmt"
	"sync"
)

// Faulty is a file system over another whose writes can be made to fail
// as a full or failing disk fails them: FillAfter lets n more bytes in
// and then answers ENOSPC (the write that crosses the limit writes what
// fits, as write(2) does, then fails); FailIO answers EIO to every write;
// Free makes it a healthy disk again. Reads, renames, removals and
// truncations keep working, as they do on a full disk.
//
// It is how tests and the lab fill a broker's or a controller's disk
// without a real one (a tmpfs needs root); the engine cannot tell it from
// osfs reporting the kernel's ENOSPC.
type Faulty struct {
	inner FS

	mu sync.Mutex
	// room is how many bytes may still be written; negative: no limit.
	room int64
	// kind is what a failing write answers: ErrNoSpace or ErrIO.
	kind error
}

// NewFaulty wraps fs, healthy until told otherwise.
func NewFaulty(fs FS) *Faulty { return &Faulty{inner: fs, room: -1} }

// Inner is the file system underneath.
func (f *Faulty) Inner() FS { return f.inner }

// SetInner puts another disk underneath (what a power cut left of it),
// keeping the fault: a full disk is still full after a reboot.
func (f *Faulty) SetInner(fs FS) { f.inner = fs }

// FillAfter lets n more bytes be written, then fails writes with ENOSPC.
func (f *Faulty) FillAfter(n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.room, f.kind = max(n, 0), ErrNoSpace
}

// FailIO fails every write from now on with EIO.
func (f *Faulty) FailIO() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.room, f.kind = 0, ErrIO
}

// Free makes every write succeed again: space was freed, the disk replaced.
func (f *Faulty) Free() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.room, f.kind = -1, nil
}

// Failing says whether the next write of any size fails.
func (f *Faulty) Failing() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.room == 0
}

// allow says how much of a write of n bytes goes in and, when not all of
// it, the error the write answers.
func (f *Faulty) allow(name string, n int) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.room < 0 || int64(n) <= f.room {
		if f.room >= 0 {
			f.room -= int64(n)
		}
		return n, nil
	}
	fits := int(f.room)
	f.room = 0
	return fits, DiskError(f.kind, fmt.Errorf("write %s: %w", name, f.kind))
}

func (f *Faulty) MkdirAll(dir string) error            { return f.inner.MkdirAll(dir) }
func (f *Faulty) ReadDir(dir string) ([]string, error) { return f.inner.ReadDir(dir) }
func (f *Faulty) Remove(name string) error             { return f.inner.Remove(name) }
func (f *Faulty) RemoveAll(dir string) error           { return f.inner.RemoveAll(dir) }
func (f *Faulty) Rename(from, to string) error         { return f.inner.Rename(from, to) }

func (f *Faulty) Create(name string) (File, error) {
	file, err := f.inner.Create(name)
	if err != nil {
		return nil, err
	}
	return &faultyFile{File: file, fs: f}, nil
}

func (f *Faulty) Open(name string) (File, error) {
	file, err := f.inner.Open(name)
	if err != nil {
		return nil, err
	}
	return &faultyFile{File: file, fs: f}, nil
}

// faultyFile writes through its Faulty's budget.
type faultyFile struct {
	File
	fs *Faulty
}

func (h *faultyFile) Write(p []byte) (int, error) {
	n, failed := h.fs.allow(h.Name(), len(p))
	if n == 0 && failed != nil {
		return 0, failed
	}
	written, err := h.File.Write(p[:n])
	if err != nil {
		return written, err
	}
	return written, failed
}
