package log

import (
	"fmt"
	"path"

	"github.com/loglab/loglab/engine/record"
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
	if !l.cfg.Compact() || len(l.segments) < 2 {
		return nil, nil
	}
	ratio, clean, dirty := l.DirtyRatio()
	// Kafka's LogCleanerManager wants the ratio above the setting, so
	// min.cleanable.dirty.ratio=1 never cleans (but for max.compaction.lag.ms).
	if dirty == 0 || ratio <= l.cfg.MinCleanableDirtyRatio {
		return nil, nil
	}
	uncleanable := l.firstUncleanableIndex(nowMs)
	if uncleanable == 0 {
		return nil, nil
	}
	c := &Cleaning{DirtyRatio: ratio, FirstDirtyOffset: l.firstDirtyOffset(), FirstUncleanable: l.segments[uncleanable].base, BytesBefore: clean + dirty}
	latest, err := l.buildOffsetMap(uncleanable)
	if err != nil {
		return nil, err
	}
	var cleaned []*segment
	for _, group := range l.groupSegments(l.segments[:uncleanable]) {
		s, err := l.cleanGroup(group, latest, nowMs, c)
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
func (l *Log) firstUncleanableIndex(nowMs int64) int {
	last := len(l.segments) - 1
	for i, s := range l.segments[:last] {
		if l.cfg.MinCompactionLagMs > 0 && s.maxTimestamp > nowMs-l.cfg.MinCompactionLagMs {
			return i
		}
	}
	return last
}

// buildOffsetMap maps each key in the dirty segments to its latest offset.
func (l *Log) buildOffsetMap(uncleanable int) (map[string]int64, error) {
	latest := map[string]int64{}
	for _, s := range l.segments[:uncleanable] {
		if s.nextOffset <= l.firstDirtyOffset() {
			continue
		}
		err := s.forEachBatch(func(b *record.Batch, _ []byte) error {
			if b.IsControl() {
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
func (l *Log) cleanGroup(group []*segment, latest map[string]int64, nowMs int64, c *Cleaning) (*segment, error) {
	base := group[0].base
	out, err := createSegmentWithSuffix(l.fs, l.dir, base, l.cfg, CleanedSuffix)
	if err != nil {
		return nil, err
	}
	for _, s := range group {
		err := s.forEachBatch(func(b *record.Batch, raw []byte) error {
			kept, changed := l.retain(b, latest, nowMs, c, c.FirstUncleanable)
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
	suffixes := []string{LogSuffix, IndexSuffix, TimeIndexSuffix}
	for _, suffix := range suffixes {
		from := path.Join(l.dir, FileName(base, suffix+CleanedSuffix))
		if err := l.fs.Rename(from, path.Join(l.dir, FileName(base, suffix+SwapSuffix))); err != nil {
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
		if err := l.fs.Rename(from, path.Join(l.dir, FileName(base, suffix))); err != nil {
			return nil, err
		}
	}
	var rep RecoveryReport
	return openSegment(l.fs, l.dir, base, l.cfg, false, &rep)
}

// retain filters one batch. It returns nil when nothing is left (except
// for the round's last batch, kept empty), and
// whether the batch changed (otherwise its original bytes are copied).
// Control batches (transaction markers) are kept as they are.
func (l *Log) retain(b *record.Batch, latest map[string]int64, nowMs int64, c *Cleaning, roundEnd int64) (*record.Batch, bool) {
	if b.IsControl() {
		return b, false
	}
	horizonPassed := b.HasDeleteHorizon() && nowMs >= b.BaseTimestamp
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
		if b.NextOffset() == roundEnd {
			// Kafka keeps the last batch of a cleaning round even when it
			// is empty, so the offset it ends at is not lost.
			nb := *b
			nb.Records = nil
			return &nb, true
		}
		return nil, true
	}
	needsHorizon := tombstones && !b.HasDeleteHorizon()
	if len(kept) == len(b.Records) && !needsHorizon {
		return b, false
	}
	nb := *b
	nb.Records = kept
	if needsHorizon {
		// The first cleaning to keep a tombstone stamps the batch with its
		// delete horizon; record timestamps are re-expressed against it so
		// they do not change.
		horizon := nowMs + l.cfg.DeleteRetentionMs
		nb.Records = make([]record.Record, len(kept))
		for i, r := range kept {
			r.TimestampDelta = b.Timestamp(r) - horizon
			nb.Records[i] = r
		}
		nb.BaseTimestamp = horizon
		nb.Attributes |= deleteHorizonAttribute
	}
	return &nb, true
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
