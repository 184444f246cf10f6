// Package log is a partition's log, stored as Kafka stores it: a directory
// "<topic>-<partition>" of segments, each a .log file of RecordBatch v2
// bytes named by its first offset, with a sparse .index from offsets to
// file positions and a .timeindex from timestamps to offsets, plus the
// leader-epoch-checkpoint. Kafka reduces a message queue to exactly this:
// an append-only file that readers scan from positions they keep
// themselves; nothing is removed by reading, only by retention or the
// cleaner, and always a whole segment or a rewritten one at a time.
package log

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"

	"github.com/loglab/loglab/engine/producerstate"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

// Kafka's error names for log requests.
var (
	ErrOffsetOutOfRange = errors.New("OFFSET_OUT_OF_RANGE")
	ErrMessageTooLarge  = errors.New("MESSAGE_TOO_LARGE")
	// ErrRecordBatchTooLarge: a batch that could never fit in a segment
	// (Kafka's RecordBatchTooLargeException, error code 18,
	// RECORD_LIST_TOO_LARGE on the wire).
	ErrRecordBatchTooLarge = errors.New("RECORD_LIST_TOO_LARGE")
	ErrInvalidRecord       = errors.New("INVALID_RECORD")
	ErrCorruptMessage      = errors.New("CORRUPT_MESSAGE")
)

// Log is one partition's log.
type Log struct {
	fs          storage.FS
	dir         string
	cfg         Config
	segments    []*segment // ascending base offsets; the last is active
	startOffset int64
	epochs      *EpochCache
	// recoveryPoint is the offset below which everything is known to be
	// synced to disk; recovery re-validates only what lies beyond it.
	recoveryPoint int64
	encodeBuf     []byte // reused by AppendAsLeader
	// cleanedUpTo is where the last cleaning stopped: everything from here
	// on is "dirty". Kafka keeps it in cleaner-offset-checkpoint; loglab
	// keeps it in memory, so after a restart the whole log counts as dirty.
	cleanedUpTo int64

	// producers is the idempotent and transactional producers' state
	// (producers.go); unreplicated are transactions a marker completed but
	// the high watermark has not passed yet (Kafka's unreplicatedTxns),
	// which still hold the last stable offset back.
	producers    *producerstate.Manager
	expirationMs int64
	unreplicated []producerstate.CompletedTxn
	snapshots    []int64 // offsets of the producer snapshot files, ascending
	// lastSnapOffset is ProducerStateManager.lastSnapOffset: the state has
	// a snapshot up to here, so taking one at or below it is skipped.
	lastSnapOffset int64
	// diskFailure is the disk's failure of a write (disk_failure.go): the
	// log refuses appends from then on.
	diskFailure error
}

// Open opens the log in dir, creating it if needed, and recovers what a
// crash may have left behind: segments from recoveryPoint on are re-read
// batch by batch and cut at the first torn or corrupt batch; missing or
// corrupt indexes are rebuilt. Pass 0 to validate everything.
func Open(fs storage.FS, dir string, cfg Config, recoveryPoint int64) (*Log, RecoveryReport, error) {
	var rep RecoveryReport
	if err := fs.MkdirAll(dir); err != nil {
		return nil, rep, err
	}
	names, err := fs.ReadDir(dir)
	if err != nil {
		return nil, rep, err
	}
	if err := finishInterruptedSwaps(fs, dir, names); err != nil {
		return nil, rep, err
	}
	if names, err = fs.ReadDir(dir); err != nil {
		return nil, rep, err
	}
	l := &Log{fs: fs, dir: dir, cfg: cfg, expirationMs: producerstate.DefaultProducerIDExpirationMs,
		snapshots: listSnapshots(names)}
	l.producers = producerstate.NewManager(l.expirationMs)
	if l.epochs, err = openEpochCache(fs, dir); err != nil {
		return nil, rep, err
	}
	var bases []int64
	for _, name := range names {
		if base, suffix, ok := ParseFileName(name); ok && suffix == LogSuffix {
			bases = append(bases, base)
		}
	}
	for i, base := range bases {
		nextBase := int64(1 << 62)
		if i+1 < len(bases) {
			nextBase = bases[i+1]
		}
		recover := nextBase > recoveryPoint // the segment holds offsets at or beyond the recovery point
		s, err := openSegment(fs, dir, base, cfg, recover, &rep)
		if err != nil {
			return nil, rep, err
		}
		rep.SegmentsLoaded++
		l.segments = append(l.segments, s)
		if rep.TruncatedBytes > 0 {
			// Everything after a damaged batch is unreachable: Kafka deletes
			// the later segments rather than leave a gap in the log.
			for _, later := range bases[i+1:] {
				doomed := &segment{base: later, dir: dir}
				if err := doomed.removeFiles(fs); err != nil {
					return nil, rep, err
				}
				rep.SegmentsDeleted = append(rep.SegmentsDeleted, later)
			}
			last := &rep.Findings[len(rep.Findings)-1]
			last.DeletedSegments = slices.Clone(rep.SegmentsDeleted)
			break
		}
	}
	if len(l.segments) == 0 {
		s, err := createSegment(fs, dir, 0, cfg)
		if err != nil {
			return nil, rep, err
		}
		l.segments = []*segment{s}
	}
	l.startOffset = l.segments[0].base
	l.recoveryPoint = min(recoveryPoint, l.EndOffset())
	if err := l.epochs.truncateFromEnd(l.EndOffset()); err != nil {
		return nil, rep, err
	}
	// The producer state as of the first recovered segment comes from a
	// snapshot no later than its base (LogLoader.recoverSegment rebuilds up
	// to there); the replay from there on rebuilds the recovered segments'
	// .txnindex on the way.
	upTo := l.EndOffset()
	for _, s := range l.segments {
		if s.recovered {
			upTo = min(upTo, s.base)
			break
		}
	}
	if err := l.reloadProducerState(upTo); err != nil {
		return nil, rep, err
	}
	// Kafka's rebuild ends with a snapshot at the log end, so the next
	// open has nothing to replay.
	if err := l.takeSnapshot(l.EndOffset()); err != nil {
		return nil, rep, err
	}
	return l, rep, nil
}

// Dir is the partition's directory.
func (l *Log) Dir() string { return l.dir }

// Config is the log's current configuration.
func (l *Log) Config() Config { return l.cfg }

// SetConfig changes the configuration; it applies from the next append,
// roll, retention or cleaning on.
func (l *Log) SetConfig(cfg Config) { l.cfg = cfg }

// StartOffset is Kafka's log start offset: the first offset still readable.
func (l *Log) StartOffset() int64 { return l.startOffset }

// EndOffset is the log end offset (LEO): the offset the next record gets.
func (l *Log) EndOffset() int64 { return l.active().nextOffset }

// Epochs is the partition's leader-epoch history.
func (l *Log) Epochs() *EpochCache { return l.epochs }

// RecoveryPoint is the offset below which the log is synced to disk.
func (l *Log) RecoveryPoint() int64 { return l.recoveryPoint }

func (l *Log) active() *segment { return l.segments[len(l.segments)-1] }

// Size is the total bytes of all segments.
func (l *Log) Size() int64 {
	var n int64
	for _, s := range l.segments {
		n += s.size()
	}
	return n
}

// AppendInfo says where an appended batch landed.
type AppendInfo struct {
	FirstOffset int64
	LastOffset  int64
	Position    int64 // byte position in its segment
	Segment     int64 // the segment's base offset
	Rolled      bool  // a new segment was started for it
	Size        int
	// Duplicate: the batch repeats one of its producer's last 5 batches
	// (a retry after a lost acknowledgement). Nothing was written;
	// FirstOffset and LastOffset are the original batch's.
	Duplicate bool
}

// AppendAsLeader assigns offsets to a batch (from the log end offset on),
// stamps it with the leader epoch, encodes it and appends it. The batch's
// records must carry offset deltas 0..n-1.
func (l *Log) AppendAsLeader(b *record.Batch, leaderEpoch int32) (AppendInfo, error) {
	return l.appendBatch(b, leaderEpoch, producerstate.Client, 0)
}

// AppendAsCoordinator appends a batch written by a coordinator (origin
// COORDINATOR): a transaction marker, or the group coordinator's
// transactional offset commit. Producer epochs are checked, sequences not.
func (l *Log) AppendAsCoordinator(b *record.Batch, leaderEpoch int32) (AppendInfo, error) {
	return l.appendBatch(b, leaderEpoch, producerstate.Coordinator, 0)
}

// AppendMarker appends a transaction marker written with
// transactionVersion (WriteTxnMarkers' TransactionVersion): with version 2
// the coordinator bumped the producer epoch, so a marker of the current
// epoch is refused while a transaction is open.
func (l *Log) AppendMarker(b *record.Batch, leaderEpoch int32, transactionVersion int16) (AppendInfo, error) {
	return l.appendBatch(b, leaderEpoch, producerstate.Coordinator, transactionVersion)
}

func (l *Log) appendBatch(b *record.Batch, leaderEpoch int32, origin producerstate.Origin, tv int16) (AppendInfo, error) {
	b.LastOffsetDelta = int32(len(b.Records) - 1)
	encoded, err := b.AppendEncoded(l.encodeBuf[:0])
	if err != nil {
		return AppendInfo{}, err
	}
	l.encodeBuf = encoded[:0] // reuse the buffer: appends copy it into the file
	if err := l.Validate(b, len(encoded)); err != nil {
		return AppendInfo{}, err
	}
	h, err := record.ReadHeader(encoded)
	if err != nil {
		return AppendInfo{}, fmt.Errorf("%w: %v", ErrCorruptMessage, err)
	}
	return l.appendValidated(encoded, h, leaderEpoch, origin, tv)
}

// Validate reports whether the log would accept a batch that encodes to
// encodedSize bytes, without writing anything, so that a request touching
// several partitions can be refused before any of them changes.
func (l *Log) Validate(b *record.Batch, encodedSize int) error {
	if len(b.Records) == 0 {
		return fmt.Errorf("%w: a batch needs at least one record", ErrInvalidRecord)
	}
	if l.cfg.Compact() && !b.IsControl() {
		for _, r := range b.Records {
			if r.Key == nil {
				return fmt.Errorf("%w: compacted topic cannot accept message without key", ErrInvalidRecord)
			}
		}
	}
	return l.checkSize(encodedSize)
}

// checkSize is UnifiedLog's two size checks on a leader append, in Kafka's
// order: max.message.bytes (RecordTooLargeException), then segment.bytes
// (RecordBatchTooLargeException: no segment could ever hold the batch).
func (l *Log) checkSize(encodedSize int) error {
	if int64(encodedSize) > l.cfg.MaxMessageBytes {
		return fmt.Errorf("%w: the batch is %d bytes, max.message.bytes is %d", ErrMessageTooLarge, encodedSize, l.cfg.MaxMessageBytes)
	}
	if int64(encodedSize) > l.cfg.SegmentBytes {
		return fmt.Errorf("%w: the batch is %d bytes, segment.bytes is %d", ErrRecordBatchTooLarge, encodedSize, l.cfg.SegmentBytes)
	}
	return nil
}

// AppendEncodedAsLeader appends one encoded batch after writing the log
// end offset and the leader epoch into its header. Both fields lie outside
// the CRC precisely so that a broker can assign them without re-encoding or
// re-checksumming what the producer sent. h is the batch's header as the
// caller read it from encoded (the broker reads it once, to check the CRC
// and whether a transaction must be verified first); the log assigns its
// offset and epoch in both.
//
// The producer state is checked first, with the CLIENT origin
// (UnifiedLog.analyzeAndValidateProducerState): a retried batch already in
// the log is a Duplicate and writes nothing; a refusal is a
// producerstate.Error and writes nothing either.
func (l *Log) AppendEncodedAsLeader(encoded []byte, h record.BatchHeader, leaderEpoch int32) (AppendInfo, error) {
	if len(encoded) < record.HeaderSize || h.Size() != len(encoded) {
		return AppendInfo{}, fmt.Errorf("%w: %d bytes is not a batch", ErrCorruptMessage, len(encoded))
	}
	if l.cfg.Compact() {
		// Kafka's LogValidator decodes batches bound for a compacted topic:
		// a record without a key could never be compacted away.
		b, _, err := record.Decode(encoded)
		if err != nil {
			return AppendInfo{}, fmt.Errorf("%w: %v", ErrCorruptMessage, err)
		}
		if err := l.Validate(&b, len(encoded)); err != nil {
			return AppendInfo{}, err
		}
	} else if err := l.checkSize(len(encoded)); err != nil {
		return AppendInfo{}, err
	}
	return l.appendValidated(encoded, h, leaderEpoch, producerstate.Client, 0)
}

// appendValidated is a leader's append of a batch that passed the log's
// checks (Validate or checkSize): offsets and epoch assigned, the producer
// state checked, then written.
func (l *Log) appendValidated(encoded []byte, h record.BatchHeader, leaderEpoch int32, origin producerstate.Origin, tv int16) (AppendInfo, error) {
	h.BaseOffset, h.PartitionLeaderEpoch = l.EndOffset(), leaderEpoch
	binary.BigEndian.PutUint64(encoded[0:8], uint64(h.BaseOffset))
	binary.BigEndian.PutUint32(encoded[12:16], uint32(leaderEpoch))
	if origin == producerstate.Client && h.IsControl() {
		// LogValidator: only coordinators write transaction markers.
		return AppendInfo{}, fmt.Errorf("%w: clients are not allowed to write control records", ErrInvalidRecord)
	}
	pb, track, err := producerBatch(h, encoded, tv)
	if err != nil {
		return AppendInfo{}, err
	}
	if track {
		r := l.producers.Check(pb, origin)
		switch {
		case r.Err != nil:
			return AppendInfo{}, r.Err
		case r.Duplicate:
			return AppendInfo{FirstOffset: r.Original.FirstOffset(), LastOffset: r.Original.LastOffset, Duplicate: true}, nil
		}
	}
	info, err := l.appendEncoded(encoded, h)
	if err != nil || !track {
		return info, err
	}
	return info, l.noteDiskFailure(l.applyProducerBatch(l.active(), pb, origin, true))
}

// AppendEncoded appends batches that already have their offsets, as a
// follower does with what it fetched from the leader. Each batch is checked
// (CRC, offsets following the log end) before anything is written.
func (l *Log) AppendEncoded(batches []byte) ([]AppendInfo, error) {
	var infos []AppendInfo
	var headers []record.BatchHeader // read once, used by the passes below
	next := l.EndOffset()
	for rest := batches; len(rest) > 0; {
		h, err := record.ReadHeader(rest)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorruptMessage, err)
		}
		if h.Size() > len(rest) {
			return nil, fmt.Errorf("%w: batch at offset %d is cut short", ErrCorruptMessage, h.BaseOffset)
		}
		if err := record.VerifyCRC(rest[:h.Size()]); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorruptMessage, err)
		}
		if h.BaseOffset < next {
			return nil, fmt.Errorf("%w: batch at offset %d is below the log end offset %d", ErrInvalidRecord, h.BaseOffset, next)
		}
		next = h.LastOffset() + 1
		headers = append(headers, h)
		rest = rest[h.Size():]
	}
	// The producer state of the whole fetch is checked on a scratch copy
	// first (REPLICATION origin: only a plain batch inside the producer's
	// open transaction is refused), so a refused fetch writes nothing.
	var scratch *producerstate.Manager // copied only when a batch has a producer id
	var pbs []producerstate.Batch
	var tracked []bool
	for i, rest := 0, batches; len(rest) > 0; i++ {
		h := headers[i]
		pb, track, err := producerBatch(h, rest[:h.Size()], 0)
		if err != nil {
			return nil, err
		}
		if track {
			if scratch == nil {
				scratch = cloneManager(l.producers, l.expirationMs)
			}
			if r := scratch.Append(pb, producerstate.Replication); r.Err != nil {
				return nil, fmt.Errorf("batch at offset %d: %w", h.BaseOffset, r.Err)
			}
		}
		pbs, tracked = append(pbs, pb), append(tracked, track)
		rest = rest[h.Size():]
	}
	for i, rest := 0, batches; len(rest) > 0; i++ {
		h := headers[i]
		info, err := l.appendEncoded(rest[:h.Size()], h)
		if err != nil {
			return infos, err
		}
		if tracked[i] {
			if err := l.applyProducerBatch(l.active(), pbs[i], producerstate.Replication, true); err != nil {
				return infos, l.noteDiskFailure(err)
			}
		}
		infos = append(infos, info)
		rest = rest[h.Size():]
	}
	return infos, nil
}

func (l *Log) appendEncoded(batch []byte, h record.BatchHeader) (AppendInfo, error) {
	if l.diskFailure != nil {
		return AppendInfo{}, l.offlineError()
	}
	info, err := l.writeEncoded(batch, h)
	return info, l.noteDiskFailure(err)
}

// writeEncoded writes one batch, whose header is h, at the log end: a
// roll first if it is due, the segment's bytes and indexes, the leader
// epoch. Sizes were checked before, on a leader's append only: a follower
// takes what its leader accepted even past its own max.message.bytes, as
// Kafka's appendAsFollower does (ignoreRecordSize).
func (l *Log) writeEncoded(batch []byte, h record.BatchHeader) (AppendInfo, error) {
	info := AppendInfo{FirstOffset: h.BaseOffset, LastOffset: h.LastOffset(), Size: len(batch)}
	if l.shouldRoll(int64(len(batch)), h) {
		if err := l.roll(h.BaseOffset); err != nil {
			return AppendInfo{}, err
		}
		info.Rolled = true
	}
	s := l.active()
	info.Position, info.Segment = s.size(), s.base
	if err := s.append(batch, h, l.cfg.IndexIntervalBytes); err != nil {
		return AppendInfo{}, err
	}
	if h.PartitionLeaderEpoch >= 0 {
		if err := l.epochs.Assign(h.PartitionLeaderEpoch, h.BaseOffset); err != nil {
			return AppendInfo{}, err
		}
	}
	return info, nil
}

// shouldRoll is Kafka's LogSegment.shouldRoll: start a new segment when
// this batch would push the active one past segment.bytes, when its records
// span more than segment.ms, when an index is full, or when an offset would
// no longer fit the index's 4-byte relative offsets.
func (l *Log) shouldRoll(batchSize int64, h record.BatchHeader) bool {
	s := l.active()
	if s.size() == 0 {
		return false // an empty segment takes any batch, however large
	}
	return s.size() > l.cfg.SegmentBytes-batchSize ||
		(s.firstBatchTimestamp >= 0 && h.MaxTimestamp-s.firstBatchTimestamp > l.cfg.SegmentMs) ||
		s.index.isFull() || s.timeIndex.isFull() ||
		h.LastOffset()-s.base > int64(^uint32(0)>>1)
}

// roll closes the active segment to appends and starts a new one at
// newBase. Kafka then flushes the finished segment from a background task
// (scheduleOnce "flush-log"), not on the append path; loglab marks it and
// FlushRolled does the flush, which the cluster runs on its next tick.
func (l *Log) roll(newBase int64) error {
	old := l.active()
	if err := old.onBecomeInactive(); err != nil {
		return err
	}
	old.needsFlush = true
	s, err := createSegment(l.fs, l.dir, newBase, l.cfg)
	if err != nil {
		return err
	}
	l.segments = append(l.segments, s)
	// A snapshot at the new segment's base lets recovery of that segment
	// start from it and scan only the segment (UnifiedLog.roll).
	return l.takeSnapshot(newBase)
}

// Roll starts a new segment now (at the log end offset), if the active one
// holds anything.
func (l *Log) Roll() error {
	if l.active().size() == 0 {
		return nil
	}
	return l.roll(l.EndOffset())
}

// FlushRolled is Kafka's flush after a roll (flushUptoOffsetExclusive of
// the new segment's base): once a segment has rolled since the last call,
// it syncs every inactive segment from the recovery point on, not only the
// rolled one, and moves the recovery point to the active segment. Segments
// a restart reopened unsynced (after a process crash their bytes were
// still only in the page cache) are flushed by the next roll too; syncing
// only the rolled one let a power cut keep newer segments and lose an
// older one, a gap in the log.
func (l *Log) FlushRolled() error {
	inactive := l.segments[:len(l.segments)-1]
	rolled := false
	for _, s := range inactive {
		rolled = rolled || s.needsFlush
	}
	if !rolled {
		return nil
	}
	for _, s := range inactive {
		if !s.needsFlush && s.nextOffset <= l.recoveryPoint {
			continue
		}
		if err := s.sync(); err != nil {
			return err
		}
		s.needsFlush = false
		l.recoveryPoint = max(l.recoveryPoint, s.nextOffset)
	}
	l.recoveryPoint = max(l.recoveryPoint, l.active().base)
	return nil
}

// Flush syncs every segment to disk and moves the recovery point to the
// log end. By default Kafka never calls this on its own (flush.messages and
// flush.ms are "never"): durability comes from replication, not fsync.
func (l *Log) Flush() error {
	for _, s := range l.segments {
		if err := s.sync(); err != nil {
			return err
		}
		s.needsFlush = false
	}
	l.recoveryPoint = l.EndOffset()
	return nil
}

// segmentFor returns the index of the segment that would hold offset.
func (l *Log) segmentFor(offset int64) int {
	i := sort.Search(len(l.segments), func(i int) bool { return l.segments[i].base > offset })
	return max(i-1, 0)
}

// FetchData is what a read returns: regions of segment files holding whole
// batches, never a copy of their bytes.
type FetchData struct {
	Slices []storage.Slice
	// FirstBatchOffset is the base offset of the first batch returned; it
	// may be below the requested offset, as in Kafka, and the reader skips
	// the records before the one it asked for.
	FirstBatchOffset int64
	Bytes            int64
}

// Read returns whole batches starting with the one holding offset from, up
// to maxBytes, but always at least one batch so that a batch larger than
// maxBytes cannot block a reader forever (KIP-74); only batches entirely
// below maxOffset (the high watermark, for consumers) are returned.
func (l *Log) Read(from int64, maxBytes int64, maxOffset int64) (FetchData, error) {
	if from < l.startOffset || from > l.EndOffset() {
		return FetchData{}, fmt.Errorf("%w: offset %d is outside the log [%d, %d]", ErrOffsetOutOfRange, from, l.startOffset, l.EndOffset())
	}
	for i := l.segmentFor(from); i < len(l.segments); i++ {
		s := l.segments[i]
		entry, _ := s.index.lookup(from)
		first, ok, err := s.translateOffset(from, entry.Position)
		if err != nil {
			return FetchData{}, err
		}
		if !ok {
			continue // everything here is below from (or compacted away): try the next segment
		}
		if first.Header.LastOffset() >= maxOffset {
			return FetchData{FirstBatchOffset: first.Header.BaseOffset}, nil
		}
		end, pos := s.size(), first.Position
		for pos < end {
			h, err := s.readHeader(pos)
			if err != nil {
				return FetchData{}, err
			}
			size := int64(h.Size())
			if h.LastOffset() >= maxOffset || (pos > first.Position && pos-first.Position+size > maxBytes) {
				break
			}
			pos += size
		}
		return FetchData{
			Slices:           []storage.Slice{{File: s.log, Pos: first.Position, Len: pos - first.Position}},
			FirstBatchOffset: first.Header.BaseOffset,
			Bytes:            pos - first.Position,
		}, nil
	}
	return FetchData{FirstBatchOffset: l.EndOffset()}, nil
}

// Batches decodes the batches of a read.
func (f FetchData) Batches() ([]record.Batch, error) {
	var out []record.Batch
	for _, sl := range f.Slices {
		raw, err := sl.Bytes()
		if err != nil {
			return nil, err
		}
		for len(raw) > 0 {
			b, n, err := record.Decode(raw)
			if err != nil {
				return out, err
			}
			out = append(out, b)
			raw = raw[n:]
		}
	}
	return out, nil
}

// TruncateTo removes every batch at or beyond offset, as a follower does
// when its leader's history diverged from its own. Truncation is by whole
// batch, so the new end may be below offset if a batch straddled it. As in
// Kafka's UnifiedLog.truncateTo, a target below the first segment (the
// log start moved past it, by retention) empties the log and starts it at
// the target (truncateFullyAndStartAt): after an unclean election the new
// leader's log may end below ours, start included, and a log that stayed
// at its start would be out of its leader's range on every fetch.
func (l *Log) TruncateTo(offset int64) error {
	if offset >= l.EndOffset() {
		// Nothing to cut from the log, but an epoch that began at its end
		// and wrote nothing must still go, as Kafka's truncateTo does.
		return l.epochs.truncateFromEnd(offset)
	}
	if offset < l.segments[0].base {
		return l.TruncateFullyAndStartAt(max(offset, 0))
	}
	// A segment starting at the target stays, empty (Kafka deletes only
	// those starting past it): the log then ends at the target even when
	// compaction emptied the segments before it.
	for len(l.segments) > 1 && l.active().base > offset {
		if err := l.active().remove(l.fs); err != nil {
			return err
		}
		l.segments = l.segments[:len(l.segments)-1]
	}
	if _, err := l.active().truncateTo(offset); err != nil {
		return err
	}
	l.startOffset = min(l.startOffset, offset)
	l.recoveryPoint = min(l.recoveryPoint, l.EndOffset())
	// The cleaner's checkpoint follows the truncation
	// (LogCleanerManager.maybeTruncateCheckpoint).
	l.cleanedUpTo = min(l.cleanedUpTo, l.EndOffset())
	if err := l.epochs.truncateFromEnd(l.EndOffset()); err != nil {
		return err
	}
	// The producers' batches and markers past the cut are gone: rebuild
	// their state from a snapshot at or below the new end
	// (UnifiedLog.rebuildProducerState), dropping the later snapshots.
	if err := l.reloadProducerState(l.EndOffset()); err != nil {
		return err
	}
	return l.takeSnapshot(l.EndOffset())
}

// TruncateFullyAndStartAt deletes every segment and the epoch history and
// starts an empty log at offset (Kafka's UnifiedLog.truncateFullyAndStartAt):
// what a follower does when the leader's retention has deleted everything
// up to past its log end, so nothing it holds is worth keeping.
func (l *Log) TruncateFullyAndStartAt(offset int64) error {
	for _, s := range l.segments {
		if err := s.remove(l.fs); err != nil {
			return err
		}
	}
	fresh, err := createSegment(l.fs, l.dir, offset, l.cfg)
	if err != nil {
		return err
	}
	l.segments = []*segment{fresh}
	l.startOffset, l.recoveryPoint, l.cleanedUpTo = offset, offset, offset
	l.epochs.entries = nil
	// Nothing of the old log remains, producer state included
	// (ProducerStateManager.truncateFullyAndStartAt).
	for _, off := range slices.Clone(l.snapshots) {
		if err := l.deleteSnapshot(off); err != nil {
			return err
		}
	}
	l.producers = producerstate.NewManager(l.expirationMs)
	l.unreplicated = nil
	l.lastSnapOffset = 0
	return l.epochs.flush()
}

// Shutdown is a clean shutdown: a producer snapshot at the log end (so
// the next open replays nothing, UnifiedLog.close), then Close. A crash
// (Close alone) leaves the snapshots as they were.
func (l *Log) Shutdown() error {
	if err := l.takeSnapshot(l.EndOffset()); err != nil {
		return errors.Join(err, l.Close())
	}
	return l.Close()
}

// Close closes every file.
func (l *Log) Close() error {
	var errs []error
	for _, s := range l.segments {
		errs = append(errs, s.close())
	}
	return errors.Join(errs...)
}

// Delete removes the whole partition directory.
func (l *Log) Delete() error {
	l.Close()
	return l.fs.RemoveAll(l.dir)
}

// removeFiles deletes a segment's files without it being open.
func (s *segment) removeFiles(fs storage.FS) error {
	var errs []error
	for _, suffix := range []string{LogSuffix, IndexSuffix, TimeIndexSuffix, TxnIndexSuffix} {
		if err := fs.Remove(path.Join(s.dir, FileName(s.base, suffix))); err != nil && !errors.Is(err, storage.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
