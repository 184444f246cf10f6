package log

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/loglab/loglab/engine/storage"
)

// timeIndex is a segment's .timeindex file: 12-byte entries (8-byte
// timestamp, 4-byte relative offset) that let a consumer seek by time
// (offsetsForTimes). An entry is added only when the segment's largest
// timestamp grows, so timestamps in the file strictly increase even when
// producers send records out of time order.
type timeIndex struct {
	file    storage.File
	base    int64
	entries []timeEntry
	maxSize int64
	pending pendingWrites
}

type timeEntry struct {
	Timestamp int64
	Offset    int64 // absolute
}

const timeIndexEntrySize = 12

func (ti *timeIndex) isFull() bool {
	return int64(len(ti.entries)+1)*timeIndexEntrySize > ti.maxSize
}

func (ti *timeIndex) last() (timeEntry, bool) {
	if len(ti.entries) == 0 {
		return timeEntry{}, false
	}
	return ti.entries[len(ti.entries)-1], true
}

// maybeAppend records (timestamp, offset) unless it would not move the
// index forward, as Kafka's TimeIndex.maybeAppend does.
func (ti *timeIndex) maybeAppend(timestamp, offset int64) error {
	if last, ok := ti.last(); ok && (timestamp <= last.Timestamp || offset < last.Offset) {
		return nil
	}
	var b [timeIndexEntrySize]byte
	binary.BigEndian.PutUint64(b[0:8], uint64(timestamp))
	binary.BigEndian.PutUint32(b[8:12], uint32(offset-ti.base))
	if err := ti.pending.add(ti.file, b[:]); err != nil {
		return err
	}
	ti.entries = append(ti.entries, timeEntry{Timestamp: timestamp, Offset: offset})
	return nil
}

// lookup returns the entry with the greatest timestamp at or below target,
// or (-1, base) when there is none: the scan then starts at the segment start.
func (ti *timeIndex) lookup(target int64) timeEntry {
	i := sort.Search(len(ti.entries), func(i int) bool { return ti.entries[i].Timestamp > target })
	if i == 0 {
		return timeEntry{Timestamp: -1, Offset: ti.base}
	}
	return ti.entries[i-1]
}

func (ti *timeIndex) truncateTo(offset int64) error {
	i := sort.Search(len(ti.entries), func(i int) bool { return ti.entries[i].Offset >= offset })
	if i == len(ti.entries) {
		return nil
	}
	if err := ti.pending.flush(ti.file); err != nil {
		return err
	}
	if err := ti.file.Truncate(int64(i) * timeIndexEntrySize); err != nil {
		return err
	}
	ti.entries = ti.entries[:i]
	return nil
}

func decodeTimeIndex(raw []byte, base, nextOffset int64) ([]timeEntry, error) {
	if len(raw)%timeIndexEntrySize != 0 {
		return nil, fmt.Errorf("time index size %d is not a multiple of %d", len(raw), timeIndexEntrySize)
	}
	entries := make([]timeEntry, 0, len(raw)/timeIndexEntrySize)
	for i := 0; i < len(raw); i += timeIndexEntrySize {
		e := timeEntry{
			Timestamp: int64(binary.BigEndian.Uint64(raw[i:])),
			Offset:    base + int64(binary.BigEndian.Uint32(raw[i+8:])),
		}
		if n := len(entries); n > 0 && (e.Timestamp <= entries[n-1].Timestamp || e.Offset < entries[n-1].Offset) {
			return nil, fmt.Errorf("time index entry %d (%d, offset %d) does not follow the one before", n, e.Timestamp, e.Offset)
		}
		if e.Offset >= nextOffset {
			return nil, fmt.Errorf("time index entry %d names offset %d, past the segment's end %d", len(entries), e.Offset, nextOffset)
		}
		entries = append(entries, e)
	}
	return entries, nil
}
