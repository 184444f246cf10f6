package log

import (
	"fmt"

	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/txn/txnindex"
)

// SegmentInfo describes a segment for `show segments` and the UI.
type SegmentInfo struct {
	BaseOffset   int64
	NextOffset   int64
	Size         int64
	MaxTimestamp int64
	Active       bool
	Index        []IndexEntry
	TimeIndex    []TimeIndexEntry
	// TxnIndex is the segment's .txnindex: the transactions aborted by a
	// marker in this segment (none, and no file, in most segments).
	TxnIndex []txnindex.AbortedTxn
}

// IndexEntry is one sparse offset index entry: offset -> byte position.
type IndexEntry struct {
	Offset   int64
	Position int64
}

// TimeIndexEntry is one time index entry: timestamp -> offset.
type TimeIndexEntry struct {
	Timestamp int64
	Offset    int64
}

func (s *segment) info(active bool) SegmentInfo {
	si := SegmentInfo{BaseOffset: s.base, NextOffset: s.nextOffset, Size: s.size(), MaxTimestamp: s.maxTimestamp, Active: active}
	for _, e := range s.index.entries {
		si.Index = append(si.Index, IndexEntry(e))
	}
	for _, e := range s.timeIndex.entries {
		si.TimeIndex = append(si.TimeIndex, TimeIndexEntry(e))
	}
	si.TxnIndex = s.txnIndex.entries()
	return si
}

// HasSegment reports whether the log still has the segment with this
// base offset: retention and truncation delete segments, and a view that
// named one (the lab's inspector) must not go on describing it.
func (l *Log) HasSegment(base int64) bool {
	for _, s := range l.segments {
		if s.base == base {
			return true
		}
	}
	return false
}

// Segments describes every segment, oldest first.
func (l *Log) Segments() []SegmentInfo {
	out := make([]SegmentInfo, len(l.segments))
	for i, s := range l.segments {
		out[i] = s.info(i == len(l.segments)-1)
	}
	return out
}

// BatchInfo is one batch as stored: where it is and its header.
type BatchInfo struct {
	Segment  int64
	Position int64
	Header   record.BatchHeader
}

// BatchesIn lists the batch headers of the segment with the given base offset.
func (l *Log) BatchesIn(base int64) ([]BatchInfo, error) {
	for _, s := range l.segments {
		if s.base != base {
			continue
		}
		bs, err := s.batches()
		out := make([]BatchInfo, len(bs))
		for i, b := range bs {
			out[i] = BatchInfo{Segment: base, Position: b.Position, Header: b.Header}
		}
		return out, err
	}
	return nil, ErrOffsetOutOfRange
}

// RawBatch returns the bytes of the batch at position in a segment, for the
// lab's "open a batch" view of decoded fields beside the hex.
func (l *Log) RawBatch(base, position int64) ([]byte, error) {
	for _, s := range l.segments {
		if s.base != base {
			continue
		}
		h, err := s.readHeader(position)
		if err != nil {
			return nil, err
		}
		raw := make([]byte, h.Size())
		_, err = s.log.ReadAt(raw, position)
		return raw, err
	}
	return nil, ErrOffsetOutOfRange
}

// Lookup is a traced offset lookup: which segment was chosen, the index
// entries the binary search probed, the entry it settled on, and the batch
// headers the forward scan read until it found the target.
type Lookup struct {
	Target   int64
	Segment  int64
	Probes   []IndexEntry
	Start    IndexEntry
	Scanned  []BatchInfo
	Found    bool
	Position int64 // the batch holding Target, when Found
}

// TraceLookup performs the lookup a read would do and records each step,
// so the lab can animate "binary search the index, then scan".
func (l *Log) TraceLookup(target int64) (Lookup, error) {
	lk := Lookup{Target: target}
	if target < l.startOffset || target >= l.EndOffset() {
		return lk, fmt.Errorf("%w: offset %d is outside the log [%d, %d)", ErrOffsetOutOfRange, target, l.startOffset, l.EndOffset())
	}
	s := l.segments[l.segmentFor(target)]
	lk.Segment = s.base
	entry, probes := s.index.lookup(target)
	for _, p := range probes {
		lk.Probes = append(lk.Probes, IndexEntry(p))
	}
	lk.Start = IndexEntry(entry)
	end := s.size()
	for pos := entry.Position; pos < end; {
		h, err := s.readHeader(pos)
		if err != nil {
			return lk, err
		}
		lk.Scanned = append(lk.Scanned, BatchInfo{Segment: s.base, Position: pos, Header: h})
		if h.LastOffset() >= target {
			lk.Found, lk.Position = true, pos
			break
		}
		pos += int64(h.Size())
	}
	return lk, nil
}

// OffsetForTimestamp is ListOffsets by time: the first offset whose record
// timestamp is at or after ts, or the log end offset when there is none.
func (l *Log) OffsetForTimestamp(ts int64) (int64, error) {
	for _, s := range l.segments {
		if s.maxTimestamp < ts {
			continue
		}
		start := s.timeIndex.lookup(ts)
		entry, _ := s.index.lookup(start.Offset)
		found, ok, err := s.translateOffset(start.Offset, entry.Position)
		if err != nil || !ok {
			return 0, err
		}
		for pos := found.Position; pos < s.size(); {
			h, err := s.readHeader(pos)
			if err != nil {
				return 0, err
			}
			if h.MaxTimestamp >= ts {
				raw := make([]byte, h.Size())
				if _, err := s.log.ReadAt(raw, pos); err != nil {
					return 0, err
				}
				b, _, err := record.Decode(raw)
				if err != nil {
					return 0, err
				}
				for _, r := range b.Records {
					if b.BaseTimestamp+r.TimestampDelta >= ts {
						return b.BaseOffset + int64(r.OffsetDelta), nil
					}
				}
			}
			pos += int64(h.Size())
		}
	}
	return l.EndOffset(), nil
}

// BatchesFrom lists the headers of every batch whose last offset is at or
// beyond from, in order across segments. It starts from the sparse index,
// so checking only what is new stays cheap however long the log grows.
func (l *Log) BatchesFrom(from int64) ([]BatchInfo, error) {
	var out []BatchInfo
	for i := l.segmentFor(max(from, l.startOffset)); i < len(l.segments); i++ {
		s := l.segments[i]
		entry, _ := s.index.lookup(from)
		end := s.size()
		for pos := entry.Position; pos < end; {
			h, err := s.readHeader(pos)
			if err != nil {
				return out, err
			}
			if h.LastOffset() >= from {
				out = append(out, BatchInfo{Segment: s.base, Position: pos, Header: h})
			}
			pos += int64(h.Size())
		}
	}
	return out, nil
}
