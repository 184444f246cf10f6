package storage

import (
	"maps"
	"time"
)

// CrashableMem is a memory file system that can simulate a power cut, after
// pebble's vfs.NewCrashableMem: Crash returns the disk as it would be found
// after a reboot, where every file holds only the bytes that had reached the
// disk, and a file that never reached it is gone. This is what makes "Kafka
// relies on replication, not fsync" testable.
//
// Bytes reach the disk when their file is synced (fsync) or, with a page
// cache (NewCrashableMemWithWriteback), when Linux's flusher writes them
// back: data dirty for vm.dirty_expire_centisecs (30 s) is written at the
// flusher's next wake-up (every vm.dirty_writeback_centisecs, 5 s). So a
// power cut loses roughly the last half-minute of unsynced writes, not
// everything since the last fsync (see writeback for the exact rule).
// A killed process loses nothing: the page cache outlives it.
//
// Simplification: a file's name is durable once its data is (as if its
// directory had been synced too), and renames, removals and truncations
// are durable at once.
type CrashableMem struct {
	*Mem
}

// NewCrashableMem returns an empty crashable file system without a page
// cache model: only Sync makes data survive a crash.
func NewCrashableMem() *CrashableMem { return &CrashableMem{Mem: NewMem()} }

// NewCrashableMemWithWriteback returns an empty crashable file system whose
// unsynced writes are also written back as Linux's flusher would with its
// default settings, on the virtual clock now.
func NewCrashableMemWithWriteback(now func() time.Duration) *CrashableMem {
	m := NewMem()
	m.pageCache = newWriteback(now)
	return &CrashableMem{Mem: m}
}

// Crash returns what survives a power cut now: a new file system holding
// each file's content on disk, with the same page cache model. The old one
// should no longer be used, as after a real crash every open handle is gone.
func (c *CrashableMem) Crash() *CrashableMem {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pageCache != nil {
		c.pageCache.settle(c.files) // what the flusher wrote before the cut
	}
	after := &Mem{dirs: maps.Clone(c.dirs), files: make(map[string]*memFile, len(c.files))}
	if c.pageCache != nil {
		after.pageCache = newWriteback(c.pageCache.now) // every file starts clean
	}
	for name, f := range c.files {
		if f.synced == nil {
			continue // never reached the disk: the file itself is lost
		}
		survived := append([]byte{}, f.synced...)
		after.files[name] = &memFile{fs: after, name: name, data: survived, synced: append([]byte{}, survived...)}
	}
	return &CrashableMem{Mem: after}
}
