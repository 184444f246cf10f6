package log

import (
	"errors"
	"fmt"
	"path"

	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

// RecoveryReport says what opening a log found and repaired, so a lesson
// can show a torn write being cut off after a crash.
type RecoveryReport struct {
	SegmentsLoaded    int
	SegmentsRecovered int      // segments re-validated batch by batch
	IndexesRebuilt    []string // index files that were missing or corrupt
	TruncatedBytes    int64    // bytes of torn or corrupt batches cut off
	TruncatedAt       int64    // offset where the valid log ended, when bytes were cut
	SegmentsDeleted   []int64  // segments after the damage, deleted
	Problem           string   // what was wrong, when something was
	// Findings is every truncation and every rebuilt index, in the order
	// found, for the broker to report: a repair nobody hears of is how
	// acknowledged data disappears silently.
	Findings []Finding
}

// Finding is one repair recovery made.
type Finding struct {
	File     string // the segment's .log file, as the log's storage names it
	Position int64  // byte position of the first invalid batch (truncations)
	Reason   string // what was wrong
	// Truncated: the segment was cut at Position, dropping TruncatedBytes
	// bytes and every offset from FirstDroppedOffset on; DeletedSegments
	// are the later segments removed with it. Otherwise an index was rebuilt.
	Truncated          bool
	TruncatedBytes     int64
	FirstDroppedOffset int64
	DeletedSegments    []int64
	IndexMissing       bool // the index files were missing rather than corrupt
}

// String is Kafka's log line for the repair (LogSegment.recover and
// LogLoader.recoverLog for a truncation, LogLoader.loadSegmentFiles for an
// index), with the offsets dropped, which Kafka's line leaves to a second
// "Corruption found in segment ..., truncating to offset ..." warning.
func (f Finding) String() string {
	switch {
	case f.Truncated:
		s := fmt.Sprintf("Found invalid messages in log segment %s at byte offset %d: %s. Truncating %d bytes: offsets %d and later are dropped",
			f.File, f.Position, f.Reason, f.TruncatedBytes, f.FirstDroppedOffset)
		if len(f.DeletedSegments) > 0 {
			s += fmt.Sprintf(", with the %d later segment(s) from offset %d on", len(f.DeletedSegments), f.DeletedSegments[0])
		}
		return s
	case f.IndexMissing:
		return fmt.Sprintf("Could not find offset index file corresponding to log file %s, recovering segment and rebuilding index files", f.File)
	default:
		return fmt.Sprintf("Found a corrupted index file corresponding to log file %s due to %s, recovering segment and rebuilding index files", f.File, f.Reason)
	}
}

// Truncated reports whether recovery cut data off the log.
func (r RecoveryReport) Truncated() bool { return r.TruncatedBytes > 0 }

// openSegment opens an existing segment. Segments at or after the recovery
// point are re-validated batch by batch (length, magic, CRC, offsets) and
// cut at the first bad batch; older ones are trusted, as in Kafka, unless
// their index files are missing or corrupt, in which case those are rebuilt.
func openSegment(fs storage.FS, dir string, base int64, cfg Config, recover bool, rep *RecoveryReport) (*segment, error) {
	s := &segment{base: base, dir: dir, nextOffset: base, maxTimestamp: -1, offsetOfMaxTimestamp: -1, firstBatchTimestamp: -1}
	var err error
	if s.log, err = fs.Open(s.fileName(LogSuffix)); err != nil {
		return nil, err
	}
	s.index = &offsetIndex{base: base, maxSize: cfg.SegmentIndexBytes}
	s.timeIndex = &timeIndex{base: base, maxSize: cfg.SegmentIndexBytes}
	if s.txnIndex, err = openSegmentTxnIndex(fs, base, s.fileName(TxnIndexSuffix)); err != nil {
		return nil, err
	}
	indexesOK := !recover && s.loadIndexes(fs, rep)
	if indexesOK {
		// An entry ending before the segment is corrupt (sanityCheck):
		// recovery rebuilds the index from the log, as Kafka does.
		if err := s.txnIndex.idx.SanityCheck(); err != nil {
			rep.IndexesRebuilt = append(rep.IndexesRebuilt, FileName(s.base, TxnIndexSuffix)+": "+err.Error())
			rep.Findings = append(rep.Findings, Finding{File: s.fileName(LogSuffix), Reason: err.Error()})
			indexesOK = false
		}
	}
	if indexesOK {
		if err := s.rescan(); err == nil {
			return s, nil
		}
		// The headers do not add up although the indexes looked fine:
		// validate the whole segment after all.
	}
	if err := s.recover(fs, cfg, rep); err != nil {
		return nil, err
	}
	return s, nil
}

// loadIndexes reads and sanity-checks the index files; false means they
// must be rebuilt.
func (s *segment) loadIndexes(fs storage.FS, rep *RecoveryReport) bool {
	ixFile, ixErr := fs.Open(s.fileName(IndexSuffix))
	tiFile, tiErr := fs.Open(s.fileName(TimeIndexSuffix))
	if ixErr != nil || tiErr != nil {
		if ixFile != nil {
			ixFile.Close()
		}
		if tiFile != nil {
			tiFile.Close()
		}
		rep.IndexesRebuilt = append(rep.IndexesRebuilt, FileName(s.base, IndexSuffix))
		rep.Findings = append(rep.Findings, Finding{File: s.fileName(LogSuffix), IndexMissing: true})
		return false
	}
	s.index.file, s.timeIndex.file = ixFile, tiFile
	rawIx, err1 := readAll(ixFile)
	rawTi, err2 := readAll(tiFile)
	ix, err3 := decodeOffsetIndex(rawIx, s.base, s.size())
	ti, err4 := decodeTimeIndex(rawTi, s.base, 1<<62)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		rep.IndexesRebuilt = append(rep.IndexesRebuilt, FileName(s.base, IndexSuffix)+": "+err.Error())
		rep.Findings = append(rep.Findings, Finding{File: s.fileName(LogSuffix), Reason: err.Error()})
		return false
	}
	s.index.entries, s.timeIndex.entries = ix, ti
	return true
}

// recover re-reads every batch, rebuilding both indexes from scratch, and
// truncates the log at the first batch that is torn or corrupt.
func (s *segment) recover(fs storage.FS, cfg Config, rep *RecoveryReport) error {
	rep.SegmentsRecovered++
	// The aborted-transaction index is rebuilt from the producer state
	// replayed over this segment (LogSegment.recover resets it); Open does
	// that once every segment is loaded.
	s.recovered = true
	if err := s.txnIndex.reset(); err != nil {
		return err
	}
	for _, ix := range []*storage.File{&s.index.file, &s.timeIndex.file} {
		if *ix != nil {
			(*ix).Close()
		}
	}
	var err error
	if s.index.file, err = fs.Create(s.fileName(IndexSuffix)); err != nil {
		return err
	}
	if s.timeIndex.file, err = fs.Create(s.fileName(TimeIndexSuffix)); err != nil {
		return err
	}
	s.index.entries, s.timeIndex.entries = nil, nil
	s.nextOffset, s.maxTimestamp, s.offsetOfMaxTimestamp, s.firstBatchTimestamp = s.base, -1, -1, -1
	s.bytesSinceLastIndexEntry = 0

	end := s.size()
	pos := int64(0)
	reason := ""
	for pos < end {
		batch, h, problem := s.validBatchAt(pos, end)
		if problem != "" {
			rep.Problem = fmt.Sprintf("%s: %s", FileName(s.base, LogSuffix), problem)
			reason = problem
			break
		}
		if err := s.reindex(batch, h, pos, cfg.IndexIntervalBytes); err != nil {
			return err
		}
		pos += int64(len(batch))
	}
	if pos < end {
		rep.TruncatedBytes += end - pos
		rep.TruncatedAt = s.nextOffset
		rep.Findings = append(rep.Findings, Finding{File: s.fileName(LogSuffix), Position: pos, Reason: reason,
			Truncated: true, TruncatedBytes: end - pos, FirstDroppedOffset: s.nextOffset})
		if err := s.log.Truncate(pos); err != nil {
			return err
		}
	}
	return nil
}

// validBatchAt returns the batch at pos if it is whole and intact, or a
// description of what is wrong with it.
func (s *segment) validBatchAt(pos, end int64) ([]byte, record.BatchHeader, string) {
	if end-pos < record.HeaderSize {
		return nil, record.BatchHeader{}, fmt.Sprintf("torn batch header at position %d (%d bytes left)", pos, end-pos)
	}
	h, err := s.readHeader(pos)
	if err != nil {
		return nil, h, fmt.Sprintf("bad batch header at position %d: %v", pos, err)
	}
	size := int64(h.Size())
	if size < record.HeaderSize || pos+size > end {
		return nil, h, fmt.Sprintf("batch at position %d claims %d bytes, %d remain", pos, size, end-pos)
	}
	if h.BaseOffset < s.nextOffset || h.LastOffset() < h.BaseOffset {
		return nil, h, fmt.Sprintf("batch at position %d has offsets %d-%d, expected at least %d", pos, h.BaseOffset, h.LastOffset(), s.nextOffset)
	}
	batch := make([]byte, size)
	if err := storage.ReadFull(s.log, batch, pos); err != nil {
		return nil, h, err.Error()
	}
	if err := record.VerifyCRC(batch); err != nil {
		return nil, h, fmt.Sprintf("batch at position %d (offset %d): %v", pos, h.BaseOffset, err)
	}
	return batch, h, ""
}

// reindex is append's bookkeeping without the write: it rebuilds the index
// entries a batch already in the file would have produced.
func (s *segment) reindex(batch []byte, h record.BatchHeader, position, indexInterval int64) error {
	if h.MaxTimestamp > s.maxTimestamp {
		s.maxTimestamp, s.offsetOfMaxTimestamp = h.MaxTimestamp, h.LastOffset()
	}
	if s.bytesSinceLastIndexEntry > indexInterval {
		if err := s.index.append(h.LastOffset(), position); err != nil {
			return err
		}
		if err := s.timeIndex.maybeAppend(s.maxTimestamp, s.offsetOfMaxTimestamp); err != nil {
			return err
		}
		s.bytesSinceLastIndexEntry = 0
	}
	s.bytesSinceLastIndexEntry += int64(len(batch))
	if s.firstBatchTimestamp < 0 {
		s.firstBatchTimestamp = h.MaxTimestamp
	}
	s.nextOffset = h.LastOffset() + 1
	return nil
}

// finishInterruptedSwaps completes a cleaner run that crashed between
// writing its .swap files and renaming them: the old segments the swap
// covers are deleted and the swap takes their place (Kafka does the same on
// startup). Half-written .cleaned files are simply removed.
func finishInterruptedSwaps(fs storage.FS, dir string, names []string) error {
	for _, name := range names {
		if len(name) > len(CleanedSuffix) && name[len(name)-len(CleanedSuffix):] == CleanedSuffix {
			if err := fs.Remove(path.Join(dir, name)); err != nil {
				return err
			}
		}
	}
	for _, name := range names {
		base, suffix, ok := ParseFileName(name)
		if !ok || suffix != LogSuffix+SwapSuffix {
			continue
		}
		swapLog, err := fs.Open(path.Join(dir, name))
		if err != nil {
			return err
		}
		probe := &segment{base: base, dir: dir, log: swapLog}
		err = probe.rescan()
		end := probe.nextOffset
		swapLog.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for _, other := range names {
			ob, osuf, ok := ParseFileName(other)
			if ok && ob >= base && ob < end && (osuf == LogSuffix || osuf == IndexSuffix || osuf == TimeIndexSuffix || osuf == TxnIndexSuffix) {
				if err := fs.Remove(path.Join(dir, other)); err != nil && !errors.Is(err, storage.ErrNotExist) {
					return err
				}
			}
		}
		for _, suffix := range []string{LogSuffix, IndexSuffix, TimeIndexSuffix, TxnIndexSuffix} {
			from := path.Join(dir, FileName(base, suffix+SwapSuffix))
			if err := fs.Rename(from, path.Join(dir, FileName(base, suffix))); err != nil && !errors.Is(err, storage.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}
