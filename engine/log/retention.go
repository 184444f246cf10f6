package log

// Deletion says what retention removed, so the lab can show whole segments
// disappearing and the log start offset jumping forward.
type Deletion struct {
	Segments       []SegmentInfo
	Reason         string // "retention.ms" or "retention.bytes"
	NewStartOffset int64
}

// DeleteOldSegments applies the log start offset, retention.ms and
// retention.bytes (Kafka's UnifiedLog.deleteOldSegments). Retention only ever removes whole segments,
// oldest first, and only those wholly below highWatermark; an expired
// active segment is first rolled so that it can go too. nowMs is the
// (virtual) time retention.ms is measured against.
func (l *Log) DeleteOldSegments(nowMs, highWatermark int64) ([]Deletion, error) {
	var out []Deletion
	// First the segments wholly below the log start offset, whatever the
	// policy (deleteLogStartOffsetBreachedSegments): a follower's log start
	// follows its leader's, and what lies below it is unreadable.
	d, err := l.deleteSegments("log start offset breach", highWatermark, func(s *segment) bool {
		i := l.segmentFor(s.base)
		return i+1 < len(l.segments) && l.segments[i+1].base <= l.startOffset
	})
	if err != nil {
		return out, err
	}
	if d != nil {
		out = append(out, *d)
	}
	if !l.cfg.Delete() {
		return out, nil
	}
	if l.cfg.RetentionMs >= 0 {
		d, err := l.deleteSegments("retention.ms", highWatermark, func(s *segment) bool {
			return s.maxTimestamp >= 0 && nowMs-s.maxTimestamp > l.cfg.RetentionMs
		})
		if err != nil {
			return out, err
		}
		if d != nil {
			out = append(out, *d)
		}
	}
	if l.cfg.RetentionBytes >= 0 {
		excess := l.Size() - l.cfg.RetentionBytes
		d, err := l.deleteSegments("retention.bytes", highWatermark, func(s *segment) bool {
			if excess-s.size() < 0 {
				return false
			}
			excess -= s.size()
			return true
		})
		if err != nil {
			return out, err
		}
		if d != nil {
			out = append(out, *d)
		}
	}
	return out, nil
}

// deleteSegments deletes the oldest segments while expired says so.
func (l *Log) deleteSegments(reason string, highWatermark int64, expired func(*segment) bool) (*Deletion, error) {
	n := 0
	for n < len(l.segments) {
		s := l.segments[n]
		upper := l.EndOffset()
		if n+1 < len(l.segments) {
			upper = l.segments[n+1].base
		}
		lastAndEmpty := n == len(l.segments)-1 && s.size() == 0
		if highWatermark < upper || lastAndEmpty || !expired(s) {
			break
		}
		n++
	}
	if n == 0 {
		return nil, nil
	}
	if n == len(l.segments) {
		// A log always keeps one segment: roll so the expired active one can go.
		if err := l.roll(l.EndOffset()); err != nil {
			return nil, err
		}
	}
	d := &Deletion{Reason: reason}
	for _, s := range l.segments[:n] {
		d.Segments = append(d.Segments, s.info(false))
		if err := s.remove(l.fs); err != nil {
			return nil, err
		}
	}
	// Each deleted segment's producer snapshot goes with it
	// (UnifiedLog.deleteProducerSnapshots); its .txnindex went with its files.
	for _, s := range l.segments[:n] {
		if err := l.deleteSnapshot(s.base); err != nil {
			return nil, err
		}
	}
	l.segments = append([]*segment(nil), l.segments[n:]...)
	l.startOffset = max(l.startOffset, l.segments[0].base)
	d.NewStartOffset = l.startOffset
	l.onHighWatermarkUpdated(l.startOffset) // onLogStartOffsetIncremented
	return d, l.epochs.truncateFromStart(l.startOffset)
}

// MaybeIncrementLogStartOffset moves the log start offset up to
// newStart, never down and never past the log end (Kafka's
// UnifiedLog.maybeIncrementLogStartOffset): what a follower does with the
// log start offset of each fetch response (LeaderOffsetIncremented), so
// that records its leader's retention deleted are gone here too. The
// epoch history then starts there (truncateFromStart); the segments wholly
// below it go at the next retention check.
func (l *Log) MaybeIncrementLogStartOffset(newStart int64) error {
	if newStart <= l.startOffset || newStart > l.EndOffset() {
		return nil
	}
	l.startOffset = newStart
	l.onHighWatermarkUpdated(newStart) // onLogStartOffsetIncremented
	return l.epochs.truncateFromStart(newStart)
}
