package log

import (
	"fmt"
	"path"
	"sort"
)

// Location is where a fetch's bytes lie in one segment file, so that a
// server can hand the region to sendfile(2) instead of copying it: Kafka's
// FileRecords.slice, which the network layer then writes with
// FileChannel.transferTo.
type Location struct {
	// Path is the segment's .log file, relative to the log's storage.FS;
	// empty when there is nothing to read (FirstBatchOffset then says
	// where the next batch will start).
	Path string
	// Position and Length are the byte region of whole batches.
	Position, Length int64
	// FirstBatchOffset is the base offset of the first batch in the
	// region; it may be below the offset asked for.
	FirstBatchOffset int64
}

// Locate is Read without touching the bytes: the segment file and region
// holding whole batches from the one holding from, at most maxBytes of
// them (but at least one), entirely below maxOffset. It answers the same
// region as Read, without Read's walk over every batch header of the
// region (one read per batch, hundreds for a fetch of megabytes, which
// made the record fetch endpoint spend about 30% of its CPU there): both
// ends come from the offset index, as Kafka's LogSegment.read finds its
// start with translateOffset and its end from the high watermark's cached
// file position, then a short scan of the headers after the index entry.
// Unlike Kafka, which cuts at maxBytes even inside a batch (its consumers
// drop a partial last batch), the region ends on a whole batch, as Read's
// (README, Differences from Kafka).
func (l *Log) Locate(from, maxBytes, maxOffset int64) (Location, error) {
	if from < l.startOffset || from > l.EndOffset() {
		return Location{}, fmt.Errorf("%w: offset %d is outside the log [%d, %d]", ErrOffsetOutOfRange, from, l.startOffset, l.EndOffset())
	}
	for i := l.segmentFor(from); i < len(l.segments); i++ {
		s := l.segments[i]
		entry, _ := s.index.lookup(from)
		first, ok, err := s.translateOffset(from, entry.Position)
		if err != nil {
			return Location{}, err
		}
		if !ok {
			continue // everything here is below from (or compacted away): try the next segment
		}
		if first.Header.LastOffset() >= maxOffset {
			return Location{FirstBatchOffset: first.Header.BaseOffset}, nil
		}
		end, err := s.regionEnd(first, maxBytes, maxOffset)
		if err != nil {
			return Location{}, err
		}
		return Location{
			Path:     path.Join(s.dir, FileName(s.base, LogSuffix)),
			Position: first.Position, Length: end - first.Position,
			FirstBatchOffset: first.Header.BaseOffset,
		}, nil
	}
	return Location{FirstBatchOffset: l.EndOffset()}, nil
}

// regionEnd is where Read's walk from first would stop: at the first
// batch after first that reaches maxOffset or would take the region past
// maxBytes, or at the segment's end. Both bounds grow along the walk, so
// the walk stops at the nearer of the two, each found from the index.
func (s *segment) regionEnd(first batchAt, maxBytes, maxOffset int64) (int64, error) {
	size := s.size()
	// The first batch whose last offset reaches maxOffset starts the
	// part of the segment a fetch may not read yet (the high watermark's
	// position, in Kafka).
	entry, _ := s.index.lookup(maxOffset)
	bound, ok, err := s.translateOffset(maxOffset, max(entry.Position, first.Position))
	if err != nil {
		return 0, err
	}
	end := size
	if ok {
		end = bound.Position
	}
	// The batch holding byte first.Position+maxBytes ends the region
	// before it, unless that is the first batch (KIP-74: at least one).
	if maxBytes < end-first.Position {
		at, err := s.batchHolding(first.Position+maxBytes, first.Position)
		if err != nil {
			return 0, err
		}
		end = max(at, first.Position+int64(first.Header.Size()))
	}
	return end, nil
}

// batchHolding is the position of the batch holding byte position pos
// (pos below the segment's size), scanning headers from the last index
// entry at or below pos, and not from before from.
func (s *segment) batchHolding(pos, from int64) (int64, error) {
	entries := s.index.entries
	i := sort.Search(len(entries), func(i int) bool { return entries[i].Position > pos })
	start := from
	if i > 0 {
		start = max(start, entries[i-1].Position)
	}
	for p := start; ; {
		h, err := s.readHeader(p)
		if err != nil {
			return 0, fmt.Errorf("%s at position %d: %w", s.fileName(LogSuffix), p, err)
		}
		next := p + int64(h.Size())
		if next > pos {
			return p, nil
		}
		p = next
	}
}
