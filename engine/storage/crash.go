package storage

import "maps"

// CrashableMem is a memory file system that can simulate a power cut, after
// pebble's vfs.NewCrashableMem: Crash returns the disk as it would be found
// after a reboot, where every file holds only the bytes it had at its last
// Sync, and a file never synced is gone. This is what makes "Kafka relies on
// replication, not fsync" testable.
//
// Simplification: a synced file's name is durable (as if its directory had
// been synced too), and renames and removals are durable at once.
type CrashableMem struct {
	*Mem
}

// NewCrashableMem returns an empty crashable file system.
func NewCrashableMem() *CrashableMem { return &CrashableMem{Mem: NewMem()} }

// Crash returns what survives a power cut: a new file system holding each
// file's synced content. The old one should no longer be used, as after a
// real crash every open handle is gone.
func (c *CrashableMem) Crash() *CrashableMem {
	c.mu.Lock()
	defer c.mu.Unlock()
	after := &Mem{dirs: maps.Clone(c.dirs), files: make(map[string]*memFile, len(c.files))}
	for name, f := range c.files {
		if f.synced == nil {
			continue // never synced: the file itself is lost
		}
		survived := append([]byte{}, f.synced...)
		after.files[name] = &memFile{fs: after, name: name, data: survived, synced: append([]byte(nil), survived...)}
	}
	return &CrashableMem{Mem: after}
}
