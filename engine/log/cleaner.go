package log

import (
	"errors"
	"fmt"
	"math"
	"path"

	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

// Cleaning reports one run of the log cleaner on a compacted log.
type Cleaning struct {
	DirtyRatio        float64 // dirty bytes / (clean + dirty bytes) before cleaning
	FirstDirtyOffset  int64
	FirstUncleanable  int64 // the active segment's base: it is never cleaned
	Segments          []int64
	BytesBefore       int64
	BytesAfter        int64
	Superseded        int // records removed because a later record has the same key
	TombstonesRemoved int // tombstones removed after delete.retention.ms
	TxnRecordsRemoved int // records of aborted transactions and markers removed
	Removed           []RemovedRecord
}

// RemovedRecord is one record the cleaner dropped, and why.
type RemovedRecord struct {
	Offset int64
	Key    string
	Reason string
}

// maxRemovedListed bounds the per-record detail a report carries.
const maxRemovedListed = 200

// DirtyRatio is what the cleaner compares with min.cleanable.dirty.ratio:
// the share of the cleanable log (everything before the active segment)
// written since the last cleaning.
func (l *Log) DirtyRatio() (ratio float64, clean, dirty int64) {
	for _, s := range l.segments[:len(l.segments)-1] {
		if s.nextOffset <= l.firstDirtyOffset() {
			clean += s.size()
		} else {
			dirty += s.size()
		}
	}
	if clean+dirty == 0 {
		return 0, 0, 0
	}
	return float64(dirty) / float64(clean+dirty), clean, dirty
}

func (l *Log) firstDirtyOffset() int64 { return max(l.cleanedUpTo, l.startOffset) }

// Clean compacts the log if it is dirty enough (Kafka's LogCleaner, one
// pass): it maps every key in the dirty part to its latest offset, then
// rewrites the segments before the active one keeping only the latest
// record per key. Offsets are preserved, so compaction leaves gaps. A
// tombstone (null value) is kept for delete.retention.ms after the cleaning
// that first sees it, so consumers have time to observe the delete; a later
// cleaning removes it (the delete horizon of KIP-534). It returns nil when
// there was nothing to do.
func (l *Log) Clean(nowMs int64) (*Cleaning, error) {
	return l.CleanUpTo(nowMs, math.MaxInt64)
}

// CleanUpTo is Clean that never touches a segment holding offsets at or
// past lastStableOffset, nor the first unstable offset (LogCleanerManager's
// cleanableOffsets: "we do not clean beyond the last stable offset"), so an
// undecided transaction is never cleaned while its fate is unknown.
func (l *Log) CleanUpTo(nowMs, lastStableOffset int64) (*Cleaning, error) {
	if !l.cfg.Compact() || len(l.segments) < 2 {
		return nil, nil
	}
	ratio, clean, dirty := l.DirtyRatio()
	// Kafka's LogCleanerManager wants the ratio above the setting, so
	// min.cleanable.dirty.ratio=1 never cleans (but for max.compaction.lag.ms).
	if dirty == 0 || ratio <= l.cfg.MinCleanableDirtyRatio {
		return nil, nil
	}
	bound := lastStableOffset
	if fuo, ok := l.FirstUnstableOffset(); ok {
		bound = min(bound, fuo)
	}
	uncleanable := l.firstUncleanableIndex(nowMs, bound)
	if uncleanable == 0 {
		return nil, nil
	}
	c := &Cleaning{DirtyRatio: ratio, FirstDirtyOffset: l.firstDirtyOffset(), FirstUncleanable: l.segments[uncleanable].base, BytesBefore: clean + dirty}
	latest, err := l.buildOffsetMap(uncleanable)
	if err != nil {
		return nil, err
	}
	var cleaned []*segment
	txns := newCleanedTxns() // carried from group to group, as in Kafka
	for _, group := range l.groupSegments(l.segments[:uncleanable]) {
		s, err := l.cleanGroup(group, latest, nowMs, c, txns)
		if err != nil {
			return nil, err
		}
		cleaned = append(cleaned, s)
		c.Segments = append(c.Segments, s.base)
		c.BytesAfter += s.size()
	}
	l.segments = append(cleaned, l.segments[uncleanable:]...)
	l.cleanedUpTo = c.FirstUncleanable
	return c, nil
}

// firstUncleanableIndex is the first segment the cleaner may not touch: the
// active one, or an earlier one holding records younger than
// min.compaction.lag.ms.
// min.compaction.lag.ms, or one holding the offset bound (the last stable
// offset) or anything after it: Kafka cleans whole segments below the
// segment of its first uncleanable offset (calculateCleanableBytes).
func (l *Log) firstUncleanableIndex(nowMs, bound int64) int {
	last := len(l.segments) - 1
	for i, s := range l.segments[:last] {
		if l.cfg.MinCompactionLagMs > 0 && s.maxTimestamp > nowMs-l.cfg.MinCompactionLagMs {
			return i
		}
		if s.nextOffset > bound {
			return i
		}
	}
	return last
}

// buildOffsetMap maps each key in the dirty segments to its latest offset.
// Records of aborted transactions are not mapped: they will go, and must
// not make an older committed value of their key look superseded.
func (l *Log) buildOffsetMap(uncleanable int) (map[string]int64, error) {
	latest := map[string]int64{}
	txns := newCleanedTxns()
	txns.addAborted(l.collectAbortedTxns(l.firstDirtyOffset(), l.segments[uncleanable].base))
	for _, s := range l.segments[:uncleanable] {
		if s.nextOffset <= l.firstDirtyOffset() {
			continue
		}
		err := s.forEachBatch(func(b *record.Batch, _ []byte) error {
			if b.IsControl() {
				txns.onControlBatch(b)
				return nil
			}
			if txns.onBatch(b) {
				return nil
			}
			for _, r := range b.Records {
				if r.Key != nil {
					latest[string(r.Key)] = b.Offset(r)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return latest, nil
}

// groupSegments batches consecutive segments whose combined size fits in
// one segment, as Kafka's cleaner does, so that compaction does not leave a
// trail of tiny files.
func (l *Log) groupSegments(segs []*segment) [][]*segment {
	var groups [][]*segment
	for i := 0; i < len(segs); {
		j, size := i+1, segs[i].size()
		for j < len(segs) && size+segs[j].size() <= l.cfg.SegmentBytes {
			size += segs[j].size()
			j++
		}
		groups = append(groups, segs[i:j])
		i = j
	}
	return groups
}

// cleanGroup writes the retained records of a group of segments into one
// new segment, then swaps it in: .cleaned, renamed to .swap, old segments
// deleted, .swap renamed to the final name. A crash at any point is
// finished or undone by Open.
func (l *Log) cleanGroup(group []*segment, latest map[string]int64, nowMs int64, c *Cleaning, txns *cleanedTxns) (*segment, error) {
	base := group[0].base
	out, err := createSegmentWithSuffix(l.fs, l.dir, base, l.cfg, CleanedSuffix)
	if err != nil {
		return nil, err
	}
	txns.cleanedIndex = out.txnIndex
	for i, s := range group {
		// The whole segment's aborted transactions, since the cleaned
		// segment's .txnindex is rebuilt from them (cleanSegments).
		upper := s.nextOffset
		if i+1 < len(group) {
			upper = group[i+1].base
		}
		txns.addAborted(l.collectAbortedTxns(s.base, upper))
		err := s.forEachBatch(func(b *record.Batch, raw []byte) error {
			kept, changed := l.retain(b, latest, nowMs, c, c.FirstUncleanable, txns)
			if kept == nil {
				return nil
			}
			if !changed {
				h, _ := record.ReadHeader(raw)
				return out.append(raw, h, l.cfg.IndexIntervalBytes)
			}
			encoded, err := kept.AppendEncoded(nil)
			if err != nil {
				return err
			}
			h, err := record.ReadHeader(encoded)
			if err != nil {
				return err
			}
			return out.append(encoded, h, l.cfg.IndexIntervalBytes)
		})
		if err != nil {
			return nil, err
		}
	}
	if err := out.onBecomeInactive(); err != nil {
		return nil, err
	}
	if err := out.sync(); err != nil {
		return nil, err
	}
	out.close()
	suffixes := []string{LogSuffix, IndexSuffix, TimeIndexSuffix, TxnIndexSuffix}
	for _, suffix := range suffixes {
		from := path.Join(l.dir, FileName(base, suffix+CleanedSuffix))
		if err := l.fs.Rename(from, path.Join(l.dir, FileName(base, suffix+SwapSuffix))); err != nil && !errors.Is(err, storage.ErrNotExist) {
			return nil, err
		}
	}
	for _, s := range group {
		if err := s.remove(l.fs); err != nil {
			return nil, err
		}
	}
	for _, suffix := range suffixes {
		from := path.Join(l.dir, FileName(base, suffix+SwapSuffix))
		if err := l.fs.Rename(from, path.Join(l.dir, FileName(base, suffix))); err != nil && !errors.Is(err, storage.ErrNotExist) {
			return nil, err
		}
	}
	var rep RecoveryReport
	return openSegment(l.fs, l.dir, base, l.cfg, false, &rep)
}

// retain filters one batch (LogCleaner.cleanInto's RecordFilter). It
// returns nil when nothing is left (except the round's last batch and an
// active producer's last batch, kept empty), and whether the batch
// changed (otherwise its original bytes are copied). Records of aborted
// transactions go; a transaction marker goes once its transaction has no
// record left and its delete horizon (set by the cleaning that first found
// it removable) has passed.
func (l *Log) retain(b *record.Batch, latest map[string]int64, nowMs int64, c *Cleaning, roundEnd int64, txns *cleanedTxns) (*record.Batch, bool) {
	horizonPassed := b.HasDeleteHorizon() && nowMs >= b.BaseTimestamp
	var canDiscard, discardRecords bool
	if b.IsControl() {
		canDiscard = txns.onControlBatch(b)
		discardRecords = canDiscard && horizonPassed
	} else {
		canDiscard = txns.onBatch(b)
		discardRecords = canDiscard
	}
	keepEmpty := l.isLastBatchOfProducer(b) || b.NextOffset() == roundEnd
	empty := func() (*record.Batch, bool) {
		if keepEmpty {
			nb := *b
			nb.Records = nil
			return &nb, true
		}
		return nil, true
	}
	if discardRecords {
		for _, r := range b.Records {
			reason := "aborted transaction"
			if b.IsControl() {
				reason = "transaction marker past delete.retention.ms"
			}
			c.note(b.Offset(r), r.Key, reason)
		}
		c.TxnRecordsRemoved += len(b.Records)
		return empty()
	}
	if b.IsControl() {
		if canDiscard && !b.HasDeleteHorizon() && len(b.Records) > 0 {
			// The marker's transaction is gone: stamp it with its delete
			// horizon; a cleaning after that removes it (KIP-534 for markers).
			return l.withDeleteHorizon(b, b.Records, nowMs), true
		}
		return b, false
	}
	var kept []record.Record
	tombstones := false
	for _, r := range b.Records {
		offset := b.Offset(r)
		latestOffset, inMap := latest[string(r.Key)]
		switch {
		case inMap && offset < latestOffset:
			c.Superseded++
			c.note(offset, r.Key, fmt.Sprintf("superseded by offset %d", latestOffset))
		case r.Value == nil && horizonPassed:
			c.TombstonesRemoved++
			c.note(offset, r.Key, "tombstone past delete.retention.ms")
		default:
			kept = append(kept, r)
			tombstones = tombstones || r.Value == nil
		}
	}
	if len(kept) == 0 {
		// Kafka keeps the last batch of a cleaning round even when it is
		// empty, so the offset it ends at is not lost, and an active
		// producer's last batch, for its sequence.
		return empty()
	}
	needsHorizon := tombstones && !b.HasDeleteHorizon()
	if len(kept) == len(b.Records) && !needsHorizon {
		return b, false
	}
	if needsHorizon {
		return l.withDeleteHorizon(b, kept, nowMs), true
	}
	nb := *b
	nb.Records = kept
	return &nb, true
}

// withDeleteHorizon is the batch holding kept, stamped by the first
// cleaning to keep a tombstone (or a removable marker) with its delete
// horizon; record timestamps are re-expressed against it so they do not
// change.
func (l *Log) withDeleteHorizon(b *record.Batch, kept []record.Record, nowMs int64) *record.Batch {
	nb := *b
	horizon := nowMs + l.cfg.DeleteRetentionMs
	nb.Records = make([]record.Record, len(kept))
	for i, r := range kept {
		r.TimestampDelta = b.Timestamp(r) - horizon
		nb.Records[i] = r
	}
	nb.BaseTimestamp = horizon
	nb.Attributes |= deleteHorizonAttribute
	return &nb
}

func (c *Cleaning) note(offset int64, key []byte, reason string) {
	if len(c.Removed) < maxRemovedListed {
		c.Removed = append(c.Removed, RemovedRecord{Offset: offset, Key: string(key), Reason: reason})
	}
}

// forEachBatch decodes every batch of the segment in order.
func (s *segment) forEachBatch(fn func(b *record.Batch, raw []byte) error) error {
	bs, err := s.batches()
	if err != nil {
		return err
	}
	for _, at := range bs {
		raw := make([]byte, at.Header.Size())
		if _, err := s.log.ReadAt(raw, at.Position); err != nil {
			return err
		}
		b, _, err := record.Decode(raw)
		if err != nil {
			return fmt.Errorf("%s at position %d: %w", s.fileName(LogSuffix), at.Position, err)
		}
		if err := fn(&b, raw); err != nil {
			return err
		}
	}
	return nil
}

// deleteHorizonAttribute is batch attribute bit 6 (KIP-534): the batch's
// base timestamp holds the time after which its tombstones may go.
const deleteHorizonAttribute int16 = 0x40
