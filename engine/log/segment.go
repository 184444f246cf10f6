package log

import (
	"errors"
	"fmt"
	"io"
	"path"

	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

// segment is one .log file with its .index and .timeindex: a run of whole
// record batches starting at baseOffset. Only the newest (active) segment
// is appended to; older ones are immutable until retention deletes them or
// the cleaner replaces them.
type segment struct {
	base      int64
	dir       string
	log       storage.File
	index     *offsetIndex
	timeIndex *timeIndex
	txnIndex  *segmentTxnIndex

	nextOffset               int64 // one past the last offset stored here
	bytesSinceLastIndexEntry int64
	maxTimestamp             int64 // largest batch max timestamp so far, -1 when empty
	offsetOfMaxTimestamp     int64
	// firstBatchTimestamp is the max timestamp of the first batch: segment.ms
	// measures from here, using record time rather than the wall clock, so a
	// replayed script rolls at the same place.
	firstBatchTimestamp int64
	// needsFlush marks a segment rolled but not yet synced.
	needsFlush bool
	// recovered: Open re-validated this segment and must rebuild its
	// .txnindex while replaying the producer state.
	recovered bool
}

func (s *segment) fileName(suffix string) string { return path.Join(s.dir, FileName(s.base, suffix)) }

func (s *segment) size() int64 { return s.log.Size() }

// createSegment makes the three empty files of a new segment.
func createSegment(fs storage.FS, dir string, base int64, cfg Config) (*segment, error) {
	return createSegmentWithSuffix(fs, dir, base, cfg, "")
}

// createSegmentWithSuffix names the files with an extra suffix, for the
// cleaner's .cleaned segments.
func createSegmentWithSuffix(fs storage.FS, dir string, base int64, cfg Config, extra string) (*segment, error) {
	s := &segment{base: base, dir: dir, nextOffset: base, maxTimestamp: -1, offsetOfMaxTimestamp: -1, firstBatchTimestamp: -1}
	var err error
	if s.log, err = fs.Create(s.fileName(LogSuffix + extra)); err != nil {
		return nil, err
	}
	ixFile, err := fs.Create(s.fileName(IndexSuffix + extra))
	if err != nil {
		return nil, err
	}
	tiFile, err := fs.Create(s.fileName(TimeIndexSuffix + extra))
	if err != nil {
		return nil, err
	}
	s.index = &offsetIndex{file: ixFile, base: base, maxSize: cfg.SegmentIndexBytes}
	s.timeIndex = &timeIndex{file: tiFile, base: base, maxSize: cfg.SegmentIndexBytes}
	s.txnIndex = newSegmentTxnIndex(fs, base, s.fileName(TxnIndexSuffix+extra))
	return s, nil
}

// append writes one encoded batch and, every index.interval.bytes, a sparse
// index entry pointing at it (Kafka's LogSegment.append).
func (s *segment) append(batch []byte, h record.BatchHeader, indexInterval int64) error {
	position := s.size()
	if _, err := s.log.Write(batch); err != nil {
		return err
	}
	return s.reindex(batch, h, position, indexInterval)
}

// onBecomeInactive runs when the log rolls past this segment: the time index
// gets its final entry so that a time lookup can find the newest record.
func (s *segment) onBecomeInactive() error {
	if s.maxTimestamp >= 0 {
		return s.timeIndex.maybeAppend(s.maxTimestamp, s.offsetOfMaxTimestamp)
	}
	return nil
}

// readHeader reads the batch header at position.
func (s *segment) readHeader(position int64) (record.BatchHeader, error) {
	var buf [record.HeaderSize]byte
	if err := storage.ReadFull(s.log, buf[:], position); err != nil {
		return record.BatchHeader{}, err
	}
	return record.ReadHeader(buf[:])
}

// batchAt is a batch located in a segment.
type batchAt struct {
	Position int64
	Header   record.BatchHeader
}

// translateOffset finds the first batch whose last offset is at or beyond
// target, starting the scan at a position the index gave. This is the
// "then a bounded forward scan" half of a lookup: only headers are read.
func (s *segment) translateOffset(target, startPosition int64) (batchAt, bool, error) {
	end := s.size()
	for pos := startPosition; pos < end; {
		h, err := s.readHeader(pos)
		if err != nil {
			return batchAt{}, false, fmt.Errorf("%s at position %d: %w", s.fileName(LogSuffix), pos, err)
		}
		if h.LastOffset() >= target {
			return batchAt{Position: pos, Header: h}, true, nil
		}
		pos += int64(h.Size())
	}
	return batchAt{}, false, nil
}

// batches lists every batch header in the segment, in order.
func (s *segment) batches() ([]batchAt, error) {
	var out []batchAt
	end := s.size()
	for pos := int64(0); pos < end; {
		h, err := s.readHeader(pos)
		if err != nil {
			return nil, fmt.Errorf("%s at position %d: %w", s.fileName(LogSuffix), pos, err)
		}
		out = append(out, batchAt{Position: pos, Header: h})
		pos += int64(h.Size())
	}
	return out, nil
}

// truncateTo removes every batch whose last offset is at or beyond offset,
// as Kafka does: truncation works on whole batches. It returns the bytes
// removed. The segment then ends at offset, as Kafka's LocalLog.truncateTo
// sets the log end offset to the target, even when compaction left no
// record just below it; only a batch straddling offset, cut whole, ends it
// earlier, at that batch's base.
func (s *segment) truncateTo(offset int64) (int64, error) {
	start := int64(0)
	if e, _ := s.index.lookup(offset); e.Position > 0 {
		start = e.Position
	}
	found, ok, err := s.translateOffset(offset, start)
	if err != nil {
		return 0, err
	}
	if !ok {
		s.nextOffset = max(s.nextOffset, offset)
		return 0, nil
	}
	defer func() { s.nextOffset = max(s.nextOffset, min(offset, found.Header.BaseOffset)) }()
	removed := s.size() - found.Position
	if err := s.log.Truncate(found.Position); err != nil {
		return 0, err
	}
	if err := s.index.truncateEntries(countBelow(s.index.entries, found.Position)); err != nil {
		return 0, err
	}
	if err := s.timeIndex.truncateTo(found.Header.BaseOffset); err != nil {
		return 0, err
	}
	// A transaction whose marker is cut off is open again (LogSegment.truncateTo).
	if err := s.txnIndex.truncateTo(offset); err != nil {
		return 0, err
	}
	return removed, s.rescan()
}

// countBelow counts index entries pointing before position.
func countBelow(entries []indexEntry, position int64) int {
	n := 0
	for n < len(entries) && entries[n].Position < position {
		n++
	}
	return n
}

// rescan recomputes the in-memory summary (next offset, timestamps) from
// the batch headers, after the segment's contents changed underneath it.
func (s *segment) rescan() error {
	s.nextOffset, s.maxTimestamp, s.offsetOfMaxTimestamp, s.firstBatchTimestamp = s.base, -1, -1, -1
	bs, err := s.batches()
	if err != nil {
		return err
	}
	for _, b := range bs {
		if b.Header.MaxTimestamp > s.maxTimestamp {
			s.maxTimestamp, s.offsetOfMaxTimestamp = b.Header.MaxTimestamp, b.Header.LastOffset()
		}
		if s.firstBatchTimestamp < 0 {
			s.firstBatchTimestamp = b.Header.MaxTimestamp
		}
		s.nextOffset = b.Header.LastOffset() + 1
	}
	return nil
}

// flushIndexes writes buffered index entries to their files.
func (s *segment) flushIndexes() error {
	return errors.Join(s.index.pending.flush(s.index.file), s.timeIndex.pending.flush(s.timeIndex.file))
}

func (s *segment) sync() error {
	if err := s.flushIndexes(); err != nil {
		return err
	}
	return errors.Join(s.log.Sync(), s.index.file.Sync(), s.timeIndex.file.Sync(), s.txnIndex.sync())
}

func (s *segment) close() error {
	flushErr := s.flushIndexes()
	return errors.Join(flushErr, s.log.Close(), s.index.file.Close(), s.timeIndex.file.Close(), s.txnIndex.close())
}

// remove closes and deletes the segment's files. Kafka first renames them
// to .deleted and removes them file.delete.delay.ms later so that in-flight
// reads can finish; loglab's reads complete before the next command, so it
// deletes at once.
func (s *segment) remove(fs storage.FS) error {
	s.close()
	return s.removeFiles(fs)
}

// readAll reads a whole small file (an index) into memory.
func readAll(f storage.File) ([]byte, error) {
	raw := make([]byte, f.Size())
	if err := storage.ReadFull(f, raw, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return raw, nil
}
