package quorum

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

// MetadataTopic is the metadata log's name, as in Kafka.
const MetadataTopic = "__cluster_metadata"

// Record headers of a raft entry stored in the segment log.
const (
	headerTerm       = "raft.term"
	headerType       = "raft.type"
	headerExtensions = "raft.ext"
)

// logStartCheckpoint is the file holding the first raft entry still in the
// log, in the format of Kafka's log-start-offset-checkpoint:
//
//	0                          version
//	1                          number of entries
//	__cluster_metadata 0 47    topic, partition, log start offset
const logStartCheckpoint = "log-start-offset-checkpoint"

// segmentStore is a raft.LogStore kept in a Kafka segment log (engine/log),
// as Kafka's KafkaMetadataLog keeps the KRaft log in __cluster_metadata-0:
//
//   - raft entry i is the record at offset i-1, alone in its own RecordBatch
//     (so that truncating a conflicting suffix, which Kafka does by whole
//     batches, removes exactly the entries raft asks for);
//   - the batch's partitionLeaderEpoch is the entry's term, so the segment's
//     leader-epoch-checkpoint lists where each raft term began, as Kafka's
//     metadata log does with its epochs;
//   - the record's value is the entry's Data (the JSON entry, see entry),
//     its timestamp the entry's AppendedAt in milliseconds, and headers
//     raft.term (decimal), raft.type (raft.LogType's name) and raft.ext
//     (the Extensions bytes, when there are any);
//   - DeleteRange from the front, after a snapshot, moves the log start
//     forward (log-start-offset-checkpoint) and deletes the segments that
//     lie wholly below it, as Kafka's log start offset and retention do;
//     from the back it truncates; everything at once (raft does that after
//     installing a snapshot, since the store says it is monotonic) removes
//     the whole directory, and the next entry starts a fresh log. That
//     fresh log's first segment is still named 00000000000000000000 and
//     begins with a gap up to the entry's offset: engine/log has no way yet
//     to start a log at a given offset (Kafka's truncateFullyAndStartAt).
//
// Every StoreLogs is flushed (fsync) before it returns, as raft requires:
// a vote or an acknowledged entry must survive a power cut.
type segmentStore struct {
	mu          sync.Mutex
	fs          storage.FS
	dir         string // the controller's directory
	cfg         log.Config
	log         *log.Log
	first, last uint64 // 0, 0 when empty
	buf         []byte
}

var (
	_ raft.LogStore          = (*segmentStore)(nil)
	_ raft.MonotonicLogStore = (*segmentStore)(nil)
)

// metadataLogConfig is the segment log's configuration: Kafka's defaults
// except for the segment size (Kafka's metadata.log.segment.bytes is 1 GiB,
// loglab's is small so that a lesson sees segments roll and, after a
// snapshot, go), no retention (only snapshots delete metadata), and room
// for large entries.
func metadataLogConfig(segmentBytes int64) log.Config {
	cfg := log.DefaultConfig()
	cfg.SegmentBytes = segmentBytes
	cfg.RetentionMs, cfg.RetentionBytes = -1, -1
	cfg.MaxMessageBytes = 64 << 20
	return cfg
}

// openSegmentStore opens (or creates) the metadata log in dir.
func openSegmentStore(fs storage.FS, dir string, segmentBytes int64) (*segmentStore, error) {
	s := &segmentStore{fs: fs, dir: dir, cfg: metadataLogConfig(segmentBytes)}
	if err := fs.MkdirAll(dir); err != nil {
		return nil, err
	}
	if err := s.open(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *segmentStore) logDir() string { return path.Join(s.dir, log.PartitionDir(MetadataTopic, 0)) }

// open opens the segment log (recovering it: every batch is re-validated,
// the metadata log is small) and works out the first and last entries.
func (s *segmentStore) open() error {
	l, _, err := log.Open(s.fs, s.logDir(), s.cfg, 0)
	if err != nil {
		return err
	}
	s.log = l
	s.first, s.last = 0, 0
	if l.Size() == 0 {
		return nil
	}
	start, err := s.readCheckpoint()
	if err != nil {
		return err
	}
	from := max(start, l.StartOffset())
	if from >= l.EndOffset() {
		return nil
	}
	fd, err := l.Read(from, 1, l.EndOffset())
	if err != nil {
		return err
	}
	s.first = uint64(max(fd.FirstBatchOffset, from)) + 1
	s.last = uint64(l.EndOffset())
	return nil
}

func (s *segmentStore) readCheckpoint() (int64, error) {
	f, err := s.fs.Open(path.Join(s.dir, logStartCheckpoint))
	if errors.Is(err, storage.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	raw := make([]byte, f.Size())
	if err := storage.ReadFull(f, raw, 0); err != nil {
		return 0, err
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) < 2 || lines[0] != "0" {
		return 0, fmt.Errorf("%s: not a version 0 checkpoint", logStartCheckpoint)
	}
	for _, line := range lines[2:] {
		fields := strings.Fields(line)
		if len(fields) == 3 && fields[0] == MetadataTopic && fields[1] == "0" {
			return strconv.ParseInt(fields[2], 10, 64)
		}
	}
	return 0, nil
}

// writeCheckpoint records the log start offset through a temporary file and
// a rename, so a crash leaves the old or the new file.
func (s *segmentStore) writeCheckpoint(start int64) error {
	name := path.Join(s.dir, logStartCheckpoint)
	f, err := s.fs.Create(name + ".tmp")
	if err != nil {
		return err
	}
	body := fmt.Sprintf("0\n1\n%s 0 %d\n", MetadataTopic, start)
	if _, err := f.Write([]byte(body)); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	f.Close()
	return s.fs.Rename(name+".tmp", name)
}

// IsMonotonic tells raft that entries are never stored with gaps, so it
// removes all of them after installing a snapshot rather than leaving a gap.
func (s *segmentStore) IsMonotonic() bool { return true }

func (s *segmentStore) FirstIndex() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.first, nil
}

func (s *segmentStore) LastIndex() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, nil
}

func (s *segmentStore) GetLog(index uint64, out *raft.Log) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == 0 || index < s.first || index > s.last {
		return raft.ErrLogNotFound
	}
	offset := int64(index - 1)
	fd, err := s.log.Read(offset, 1, s.log.EndOffset())
	if err != nil {
		return err
	}
	batches, err := fd.Batches()
	if err != nil {
		return err
	}
	if len(batches) == 0 || batches[0].BaseOffset != offset || len(batches[0].Records) != 1 {
		return raft.ErrLogNotFound
	}
	return decodeRaftLog(&batches[0], out)
}

func (s *segmentStore) StoreLog(l *raft.Log) error { return s.StoreLogs([]*raft.Log{l}) }

func (s *segmentStore) StoreLogs(logs []*raft.Log) error {
	if len(logs) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	buf := s.buf[:0]
	next := s.last + 1
	if s.last == 0 {
		next = logs[0].Index
	}
	for _, l := range logs {
		if l.Index != next || l.Index == 0 {
			return fmt.Errorf("metadata log: entry %d does not follow %d", l.Index, next-1)
		}
		next++
		var err error
		if buf, err = encodeRaftLog(buf, l); err != nil {
			return err
		}
	}
	s.buf = buf[:0]
	if _, err := s.log.AppendEncoded(buf); err != nil {
		return err
	}
	if err := s.log.Flush(); err != nil {
		return err
	}
	if s.last == 0 {
		s.first = logs[0].Index
	}
	s.last = logs[len(logs)-1].Index
	return nil
}

// DeleteRange removes entries min..max (inclusive).
func (s *segmentStore) DeleteRange(min, max uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == 0 || max < s.first || min > s.last {
		return nil
	}
	switch {
	case min <= s.first && max >= s.last:
		// Everything: start a fresh log.
		if err := s.log.Delete(); err != nil {
			return err
		}
		if err := s.writeCheckpoint(0); err != nil {
			return err
		}
		return s.open()
	case min <= s.first:
		// A prefix, after a snapshot.
		s.first = max + 1
		if err := s.writeCheckpoint(int64(s.first - 1)); err != nil {
			return err
		}
		return s.deleteSegmentsBelow(int64(s.first - 1))
	case max >= s.last:
		// A suffix that conflicts with the leader's log.
		if err := s.log.TruncateTo(int64(min - 1)); err != nil {
			return err
		}
		if err := s.log.Flush(); err != nil {
			return err
		}
		s.last = min - 1
		return nil
	default:
		return fmt.Errorf("metadata log: cannot delete entries %d..%d from the middle of %d..%d", min, max, s.first, s.last)
	}
}

// deleteSegmentsBelow deletes the segments whose every offset is below
// offset. engine/log deletes segments only through retention, so this asks
// retention.bytes to drop exactly their bytes.
func (s *segmentStore) deleteSegmentsBelow(offset int64) error {
	segs := s.log.Segments()
	var doomed int64
	n := 0
	for i := 0; i+1 < len(segs) && segs[i+1].BaseOffset <= offset; i++ {
		doomed += segs[i].Size
		n++
	}
	if n == 0 {
		return nil
	}
	cfg := s.cfg
	cfg.CleanupPolicy, cfg.RetentionMs, cfg.RetentionBytes = "delete", -1, s.log.Size()-doomed
	s.log.SetConfig(cfg)
	_, err := s.log.DeleteOldSegments(0, s.log.EndOffset())
	s.log.SetConfig(s.cfg)
	return err
}

// Segments describes the metadata log's segments (for `show segments`).
func (s *segmentStore) Segments() []log.SegmentInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.Segments()
}

func (s *segmentStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.Close()
}

func encodeRaftLog(dst []byte, l *raft.Log) ([]byte, error) {
	ts := int64(-1)
	if !l.AppendedAt.IsZero() {
		ts = l.AppendedAt.UnixMilli()
	}
	headers := []record.Header{
		{Key: headerTerm, Value: []byte(strconv.FormatUint(l.Term, 10))},
		{Key: headerType, Value: []byte(l.Type.String())},
	}
	if l.Extensions != nil {
		headers = append(headers, record.Header{Key: headerExtensions, Value: l.Extensions})
	}
	b := record.Batch{
		BaseOffset:           int64(l.Index - 1),
		PartitionLeaderEpoch: int32(l.Term),
		BaseTimestamp:        ts,
		MaxTimestamp:         ts,
		ProducerID:           record.NoProducerID,
		ProducerEpoch:        record.NoProducerEpoch,
		BaseSequence:         record.NoSequence,
		Records:              []record.Record{{Value: l.Data, Headers: headers}},
	}
	return b.AppendEncoded(dst)
}

func decodeRaftLog(b *record.Batch, out *raft.Log) error {
	r := b.Records[0]
	*out = raft.Log{Index: uint64(b.BaseOffset) + 1, Data: r.Value}
	var haveTerm, haveType bool
	for _, h := range r.Headers {
		switch h.Key {
		case headerTerm:
			t, err := strconv.ParseUint(string(h.Value), 10, 64)
			if err != nil {
				return fmt.Errorf("metadata log offset %d: bad %s header: %w", b.BaseOffset, headerTerm, err)
			}
			out.Term, haveTerm = t, true
		case headerType:
			t, ok := parseLogType(h.Value)
			if !ok {
				return fmt.Errorf("metadata log offset %d: unknown entry type %q", b.BaseOffset, h.Value)
			}
			out.Type, haveType = t, true
		case headerExtensions:
			out.Extensions = h.Value
		}
	}
	if !haveTerm || !haveType {
		return fmt.Errorf("metadata log offset %d: not a raft entry (headers missing)", b.BaseOffset)
	}
	if ts := b.Timestamp(r); ts >= 0 {
		out.AppendedAt = time.UnixMilli(ts)
	}
	return nil
}

func parseLogType(name []byte) (raft.LogType, bool) {
	for t := raft.LogCommand; t <= raft.LogConfiguration; t++ {
		if bytes.Equal([]byte(t.String()), name) {
			return t, true
		}
	}
	return 0, false
}
