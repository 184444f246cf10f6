package log

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/loglab/loglab/engine/storage"
)

// offsetIndex is a segment's .index file: a sparse map from offsets to byte
// positions in the .log, one 8-byte entry (4-byte offset relative to the
// segment's base, 4-byte position) every index.interval.bytes. It is sparse
// because it only has to land a reader near its record: a binary search
// finds the last entry at or below the target, then a short forward scan of
// batch headers finds the batch itself.
type offsetIndex struct {
	file    storage.File
	base    int64
	entries []indexEntry
	maxSize int64 // segment.index.bytes
	pending pendingWrites
}

// pendingWrites buffers small index appends and writes them in chunks.
// Kafka memory-maps its index files; loglab writes through a buffer so an
// 8-byte entry does not cost a system call. The entries in memory are the
// truth for lookups; the file catches up at every 4 KiB, sync, roll, close
// and truncation, and recovery rebuilds it if a crash left it behind.
type pendingWrites struct {
	buf []byte
}

const pendingFlushBytes = 4096

func (p *pendingWrites) add(f storage.File, b []byte) error {
	p.buf = append(p.buf, b...)
	if len(p.buf) >= pendingFlushBytes {
		return p.flush(f)
	}
	return nil
}

func (p *pendingWrites) flush(f storage.File) error {
	if len(p.buf) == 0 {
		return nil
	}
	_, err := f.Write(p.buf)
	p.buf = p.buf[:0]
	return err
}

type indexEntry struct {
	Offset   int64 // absolute
	Position int64
}

const offsetIndexEntrySize = 8

func (ix *offsetIndex) isFull() bool {
	return int64(len(ix.entries)+1)*offsetIndexEntrySize > ix.maxSize
}

func (ix *offsetIndex) append(offset, position int64) error {
	if n := len(ix.entries); n > 0 && offset <= ix.entries[n-1].Offset {
		return fmt.Errorf("index entry for offset %d is not after the last entry %d", offset, ix.entries[n-1].Offset)
	}
	var b [offsetIndexEntrySize]byte
	binary.BigEndian.PutUint32(b[0:4], uint32(offset-ix.base))
	binary.BigEndian.PutUint32(b[4:8], uint32(position))
	if err := ix.pending.add(ix.file, b[:]); err != nil {
		return err
	}
	ix.entries = append(ix.entries, indexEntry{Offset: offset, Position: position})
	return nil
}

// lookup returns the greatest entry at or below target, or the segment
// start (base, 0) when the target precedes every entry. steps counts the
// probes of the binary search, for the lab's animation.
func (ix *offsetIndex) lookup(target int64) (entry indexEntry, steps []indexEntry) {
	i := sort.Search(len(ix.entries), func(i int) bool {
		steps = append(steps, ix.entries[i])
		return ix.entries[i].Offset > target
	})
	if i == 0 {
		return indexEntry{Offset: ix.base, Position: 0}, steps
	}
	return ix.entries[i-1], steps
}

// truncateTo drops entries for offsets at or beyond offset.
func (ix *offsetIndex) truncateTo(offset int64) error {
	i := sort.Search(len(ix.entries), func(i int) bool { return ix.entries[i].Offset >= offset })
	return ix.truncateEntries(i)
}

// truncateEntries keeps the first n entries.
func (ix *offsetIndex) truncateEntries(n int) error {
	if n == len(ix.entries) {
		return nil
	}
	if err := ix.pending.flush(ix.file); err != nil {
		return err
	}
	if err := ix.file.Truncate(int64(n) * offsetIndexEntrySize); err != nil {
		return err
	}
	ix.entries = ix.entries[:n]
	return nil
}

// decodeOffsetIndex reads a .index file's entries. A file whose length is
// not a whole number of entries, or whose entries do not increase, or which
// points past the end of the log, is corrupt and will be rebuilt.
func decodeOffsetIndex(raw []byte, base, logSize int64) ([]indexEntry, error) {
	if len(raw)%offsetIndexEntrySize != 0 {
		return nil, fmt.Errorf("index size %d is not a multiple of %d", len(raw), offsetIndexEntrySize)
	}
	entries := make([]indexEntry, 0, len(raw)/offsetIndexEntrySize)
	for i := 0; i < len(raw); i += offsetIndexEntrySize {
		e := indexEntry{
			Offset:   base + int64(binary.BigEndian.Uint32(raw[i:])),
			Position: int64(binary.BigEndian.Uint32(raw[i+4:])),
		}
		if n := len(entries); n > 0 && (e.Offset <= entries[n-1].Offset || e.Position <= entries[n-1].Position) {
			return nil, fmt.Errorf("index entry %d (offset %d, position %d) does not follow the one before", n, e.Offset, e.Position)
		}
		if e.Position >= logSize {
			return nil, fmt.Errorf("index entry %d points at position %d, past the log's %d bytes", len(entries), e.Position, logSize)
		}
		entries = append(entries, e)
	}
	return entries, nil
}
