package storage

import "time"

// Linux's defaults for the kernel flusher threads (Documentation/admin-guide/
// sysctl/vm.rst): dirty data older than vm.dirty_expire_centisecs (3000) is
// written out when a flusher wakes, every vm.dirty_writeback_centisecs (500).
const (
	DirtyExpire        = 30 * time.Second
	DirtyWritebackTick = 5 * time.Second
)

// writeback models the page cache between a write and the disk: a write
// only dirties the file in memory, and the data reaches the disk when the
// file is synced or when the flusher writes it back.
//
// Like Linux, it ages dirty data per file, not per page: a file remembers
// when it went from clean to dirty (the inode's dirtied_when), and when that
// is at least DirtyExpire old at a flusher wake-up (multiples of
// DirtyWritebackTick of virtual time), the flusher writes back all of the
// file's dirty data, including bytes written a moment before, and the file is
// clean again until the next write.
//
// Between two file system calls nothing changes, so the flusher's work need
// not be scheduled: before each change (and at a crash) settle works out,
// file by file, whether a wake-up since the file was dirtied has written it
// back. That keeps the disk off the event queue, so a power cut changes
// nothing else in a run.
//
// Simplifications: no dirty_background_ratio or dirty_ratio (a lab never
// writes enough to hit them), no I/O time (a writeback is instant), and the
// flusher wakes on a fixed grid of virtual time rather than re-arming itself.
type writeback struct {
	now      func() time.Duration // virtual time; never the wall clock
	expire   time.Duration
	interval time.Duration
	// next is the earliest wake-up that may find a file expired (none
	// before it can), so that most writes skip the scan of every file.
	next     time.Duration
	hasDirty bool
}

func newWriteback(now func() time.Duration) *writeback {
	return &writeback{now: now, expire: DirtyExpire, interval: DirtyWritebackTick}
}

// dirtied marks f as written at the current time. Its age is kept from the
// first write after it was last clean, as Linux keeps dirtied_when.
func (w *writeback) dirtied(f *memFile) {
	if f.dirty {
		return
	}
	f.dirty, f.dirtiedAt = true, w.now()
	if wake := w.wakeAfter(f.dirtiedAt); !w.hasDirty || wake < w.next {
		w.next, w.hasDirty = wake, true
	}
}

// settle writes back every file a flusher wake-up up to now has found
// expired. Callers hold the file system's lock.
func (w *writeback) settle(files map[string]*memFile) {
	now := w.now()
	if !w.hasDirty || now < w.next {
		return
	}
	w.hasDirty = false
	for _, f := range files { // each file independently: order does not matter
		if !f.dirty {
			continue
		}
		if wake := w.wakeAfter(f.dirtiedAt); wake <= now {
			f.writeBack()
		} else if !w.hasDirty || wake < w.next {
			w.next, w.hasDirty = wake, true
		}
	}
}

// wakeAfter is the flusher wake-up that writes back a file dirty since
// dirtiedAt: the first at which it has been dirty for expire.
func (w *writeback) wakeAfter(dirtiedAt time.Duration) time.Duration {
	due := dirtiedAt + w.expire
	return (due + w.interval - 1) / w.interval * w.interval
}

// writeBack puts the file's current content on the disk.
//
// The disk shares the bytes rather than copying them: a file's bytes below
// its length are never changed in place (Write appends past the length,
// and after a Truncate the capacity ends at the new length, so the next
// Write moves the file to a new array), so what synced holds stays what
// was written back. Copying the whole file at each sync and each flusher
// writeback made a segment's cost grow with its size.
func (f *memFile) writeBack() {
	f.synced = f.data[:len(f.data):len(f.data)]
	if f.synced == nil {
		f.synced = []byte{} // non-nil even when empty: the file exists on disk
	}
	f.dirty = false
}
