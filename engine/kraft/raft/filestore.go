package raft

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

// FileStore is a Store in files on a storage.FS, laid out as Kafka's
// KafkaMetadataLog and FileQuorumStateStore lay out a controller's
// metadata directory:
//
//	<dir>/quorum-state
//	<dir>/__cluster_metadata-0/00000000000000000000.log  (.index, .timeindex)
//	<dir>/__cluster_metadata-0/leader-epoch-checkpoint
//	<dir>/__cluster_metadata-0/00000000000000000064-0000000003.checkpoint
//
// The log is a segment log (engine/log): entry at offset o is one
// RecordBatch v2 with baseOffset o and partitionLeaderEpoch the entry's
// epoch, holding one record without a key whose value is the JSON of the
// protocol.MetadataRecord (Offset included). Batches are uncompressed,
// carry no producer id and no timestamp (-1: the store has no clock).
// Difference from Kafka: Kafka's records are its generated
// ApiMessageAndVersion bytes, not JSON, and it writes the LeaderChange
// record at an epoch's start as a control batch holding a
// LeaderChangeMessage; loglab writes it like every other record, a data
// batch whose JSON has Type "LeaderChange". Every Append and TruncateTo is
// flushed (fsync) before it returns, as KafkaRaftClient flushes the log
// before it acknowledges or votes.
//
// quorum-state is one line of JSON in Kafka's data_version 1 format
// (QuorumStateData v1), written to quorum-state.tmp, synced and renamed
// over the old file, so a power cut leaves the old state or the new one:
//
//	{"leaderId":1,"leaderEpoch":3,"votedId":1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}
//
// Version 0 files (Kafka 3.x) are read too; any other data_version is
// refused. Difference from Kafka: Kafka keeps quorum-state inside
// __cluster_metadata-0/ (KafkaRaftManager's dataDir); loglab keeps it
// beside it (fileStoreQuorumState).
//
// A snapshot is <endOffset, 20 digits>-<epoch, 10 digits>.checkpoint, the
// name Kafka gives it (Snapshots.filenameFromSnapshotId), holding the
// snapshot's records as one RecordBatch v2 (baseOffset 0, offset deltas
// 0..n-1, partitionLeaderEpoch the snapshot's epoch), each record's value
// the JSON of a protocol.MetadataRecord; a snapshot of no records is an
// empty file. Difference from Kafka: Kafka's .checkpoint begins with a
// SnapshotHeader and ends with a SnapshotFooter control record and may
// hold many batches. It is written to <name>.checkpoint.part, synced and
// renamed (Kafka's FileRawSnapshotWriter freezes it the same way).
// SaveSnapshot then drops the log below the snapshot's end offset and
// deletes the other snapshots.
//
// The log start offset after a snapshot needs no log-start-offset-checkpoint:
// when the log holds nothing past the snapshot, the log restarts at its
// end offset (log.TruncateFullyAndStartAt: the new first segment is named
// by that offset, which makes the start durable); otherwise the start
// moves to the snapshot's end (MaybeIncrementLogStartOffset) and the
// segments wholly below it are deleted, and Open moves it there again from
// the latest snapshot, as Kafka's metadata log (which LogManager does not
// checkpoint) recovers it from its snapshots. Load never returns an entry
// below the latest snapshot.
type FileStore struct {
	fs  storage.FS
	dir string
	cfg log.Config
	log *log.Log
	// snapEnd is the latest snapshot's end offset (0: none): no entry
	// below it is ever returned or appended.
	snapEnd int64
	buf     []byte
}

var _ Store = (*FileStore)(nil)

const (
	// fileStoreTopic is the metadata log's name, as in Kafka.
	fileStoreTopic = "__cluster_metadata"
	// fileStoreQuorumState is Kafka's quorum-state (FileQuorumStateStore).
	fileStoreQuorumState = "quorum-state"
	fileStoreTmpSuffix   = ".tmp"
	// Kafka's snapshot file suffixes (Snapshots.SUFFIX, PARTIAL_SUFFIX,
	// DELETE_SUFFIX).
	fileStoreCheckpointSuffix = ".checkpoint"
	fileStorePartSuffix       = ".part"
	fileStoreDeletedSuffix    = ".deleted"
	// fileStoreQuorumStateVersion is the data_version written; 0 is read too.
	fileStoreQuorumStateVersion = 1
	// fileStoreZeroDirectoryID is Uuid.ZERO_UUID in Kafka's base64: no directory id.
	fileStoreZeroDirectoryID = "AAAAAAAAAAAAAAAAAAAAAA"
	// fileStoreSegmentBytes is the metadata log's segment size. Kafka's
	// metadata.log.segment.bytes is 1 GiB; loglab's is small so that a
	// lesson sees segments roll and, after a snapshot, go.
	fileStoreSegmentBytes = 1 << 20
)

// fileStoreLogConfig is Kafka's log defaults but for the segment size, no
// retention (only snapshots delete metadata) and room for large records.
func fileStoreLogConfig() log.Config {
	cfg := log.DefaultConfig()
	cfg.SegmentBytes = fileStoreSegmentBytes
	cfg.RetentionMs, cfg.RetentionBytes = -1, -1
	cfg.MaxMessageBytes = 64 << 20
	return cfg
}

// OpenFileStore opens (or creates) the store in dir. It recovers what a
// crash may have left: the segment log re-validates every batch and cuts
// a torn tail (log.Open with recovery point 0), leftover quorum-state.tmp
// and .checkpoint.part files are deleted, only the latest snapshot is
// kept, and the log is cut to start at that snapshot's end (Kafka's
// truncateToLatestSnapshot when the snapshot is past the log's end, as
// after a crash between fetching a snapshot and truncating the log).
func OpenFileStore(fs storage.FS, dir string) (*FileStore, error) {
	s := &FileStore{fs: fs, dir: dir, cfg: fileStoreLogConfig()}
	if err := fs.MkdirAll(s.LogDir()); err != nil {
		return nil, err
	}
	if err := fileStoreRemove(fs, path.Join(dir, fileStoreQuorumState+fileStoreTmpSuffix)); err != nil {
		return nil, err
	}
	snaps, err := s.snapshotIDs()
	if err != nil {
		return nil, err
	}
	l, _, err := log.Open(fs, s.LogDir(), s.cfg, 0)
	if err != nil {
		return nil, fmt.Errorf("metadata log: %w", err)
	}
	s.log = l
	if len(snaps) > 0 {
		latest := snaps[len(snaps)-1]
		s.snapEnd = latest.EndOffset
		err := s.startAtSnapshot(latest)
		if err == nil {
			err = s.removeSnapshotsBut(latest)
		}
		if err != nil {
			l.Close()
			return nil, err
		}
	}
	return s, nil
}

// LogDir is the metadata log's directory, <dir>/__cluster_metadata-0.
func (s *FileStore) LogDir() string { return path.Join(s.dir, log.PartitionDir(fileStoreTopic, 0)) }

// Segments describes the metadata log's segments (for `show segments`).
func (s *FileStore) Segments() []log.SegmentInfo { return s.log.Segments() }

// Load reads the quorum state, the latest snapshot and the entries from
// the snapshot's end (or the log start) to the log end.
func (s *FileStore) Load() (QuorumState, *Snapshot, []protocol.MetadataEntry, error) {
	st, err := s.readState()
	if err != nil {
		return QuorumState{}, nil, nil, err
	}
	snaps, err := s.snapshotIDs()
	if err != nil {
		return QuorumState{}, nil, nil, err
	}
	var snap *Snapshot
	from := s.log.StartOffset()
	if len(snaps) > 0 {
		latest := snaps[len(snaps)-1]
		if snap, err = s.readSnapshot(latest); err != nil {
			return QuorumState{}, nil, nil, err
		}
		from = max(from, latest.EndOffset)
	} else if from > 0 {
		// The log starts past offset 0 only after a snapshot: without one
		// the records below are nowhere, and this controller's image would
		// silently lack them.
		return QuorumState{}, nil, nil, fmt.Errorf("%s starts at offset %d but no .checkpoint snapshot holds the records below it: restore the snapshot from a backup", s.LogDir(), from)
	}
	entries, err := s.readEntries(from)
	if err != nil {
		return QuorumState{}, nil, nil, err
	}
	return st, snap, entries, nil
}

// SaveState writes quorum-state through quorum-state.tmp, synced, then
// renamed over the old file (FileQuorumStateStore.writeElectionStateToFile).
func (s *FileStore) SaveState(st QuorumState) error {
	body, err := json.Marshal(fileStoreQuorumStateV1{LeaderID: st.LeaderID, LeaderEpoch: st.LeaderEpoch, VotedID: st.VotedID,
		VotedDirectoryID: fileStoreZeroDirectoryID, DataVersion: fileStoreQuorumStateVersion})
	if err != nil {
		return err
	}
	if err := fileStoreWriteAtomically(s.fs, path.Join(s.dir, fileStoreQuorumState), fileStoreTmpSuffix, body); err != nil {
		return fmt.Errorf("quorum-state: %w", err)
	}
	return nil
}

// Append writes entries, which must follow the log end offset one by one,
// and flushes them. On an empty log (after a snapshot) the first entry may
// start past the log end: the log then restarts at it.
func (s *FileStore) Append(entries []protocol.MetadataEntry) error {
	if len(entries) == 0 {
		return nil
	}
	first, end := entries[0].Record.Offset, s.log.EndOffset()
	if first != end {
		if s.log.StartOffset() != end || first < s.snapEnd || first < end {
			return fmt.Errorf("metadata log: entry %d does not follow the log end offset %d", first, end)
		}
		if err := s.log.TruncateFullyAndStartAt(first); err != nil {
			return fmt.Errorf("metadata log: %w", err)
		}
	}
	buf := s.buf[:0]
	for i, e := range entries {
		if want := first + int64(i); e.Record.Offset != want {
			return fmt.Errorf("metadata log: entry %d does not follow %d", e.Record.Offset, want-1)
		}
		var err error
		if buf, err = fileStoreEncodeEntry(buf, e); err != nil {
			return err
		}
	}
	s.buf = buf[:0]
	_, err := s.log.AppendEncoded(buf)
	if err == nil {
		err = s.log.Flush()
	}
	if err != nil {
		// The caller forgets these entries: so must the file, or a restart
		// would bring back what was never acknowledged.
		return errors.Join(fmt.Errorf("metadata log: %w", err), s.log.TruncateTo(first))
	}
	return nil
}

// TruncateTo removes every entry at offset and above. Truncating to the
// log start or below empties the log, which keeps its start.
func (s *FileStore) TruncateTo(offset int64) error {
	var err error
	if start, end := s.log.StartOffset(), s.log.EndOffset(); offset <= start && end > start {
		// engine/log would cut into the segment below the start offset
		// (what MaybeIncrementLogStartOffset left), or restart the log
		// below the start, moving the start back under the snapshot.
		err = s.log.TruncateFullyAndStartAt(start)
	} else if offset >= start {
		err = s.log.TruncateTo(offset)
	}
	if err == nil {
		err = s.log.Flush()
	}
	if err != nil {
		return fmt.Errorf("metadata log: %w", err)
	}
	return nil
}

// SaveSnapshot writes snap's .checkpoint (through a .checkpoint.part file,
// synced and renamed), then drops the log below its end offset and
// deletes every other snapshot.
func (s *FileStore) SaveSnapshot(snap Snapshot) error {
	body, err := fileStoreEncodeSnapshot(snap)
	if err != nil {
		return err
	}
	name := path.Join(s.LogDir(), fileStoreSnapshotName(snap.ID))
	if err := fileStoreWriteAtomically(s.fs, name, fileStorePartSuffix, body); err != nil {
		return fmt.Errorf("metadata snapshot: %w", err)
	}
	s.snapEnd = snap.ID.EndOffset
	if err := s.startAtSnapshot(snap.ID); err != nil {
		return err
	}
	return s.removeSnapshotsBut(snap.ID)
}

// Close closes the segment log.
func (s *FileStore) Close() error { return s.log.Close() }

// startAtSnapshot makes the log start at the snapshot's end offset. A log
// that does not reach past the snapshot, or whose last epoch is older than
// the snapshot's (it diverges from it), is emptied and restarted there
// (Kafka's truncateToLatestSnapshot); otherwise the log start moves up
// and the segments wholly below it go (deleteBeforeSnapshot).
func (s *FileStore) startAtSnapshot(id protocol.SnapshotID) error {
	start, end := s.log.StartOffset(), s.log.EndOffset()
	if start == id.EndOffset && end == id.EndOffset {
		return nil // already an empty log at the snapshot
	}
	lastEpoch := int32(-1)
	if end > start {
		e, err := s.readEntries(end - 1)
		if err != nil {
			return err
		}
		if len(e) > 0 {
			lastEpoch = e[0].Epoch
		}
	}
	if id.EndOffset >= end || id.Epoch > lastEpoch {
		if err := s.log.TruncateFullyAndStartAt(id.EndOffset); err != nil {
			return fmt.Errorf("metadata log: %w", err)
		}
		// Sync the new empty segment, so that the start survives a crash.
		return s.log.Flush()
	}
	if id.EndOffset <= start {
		return nil
	}
	if err := s.log.MaybeIncrementLogStartOffset(id.EndOffset); err != nil {
		return fmt.Errorf("metadata log: %w", err)
	}
	// Only the segments below the log start go: retention is off.
	if _, err := s.log.DeleteOldSegments(0, s.log.EndOffset()); err != nil {
		return fmt.Errorf("metadata log: %w", err)
	}
	return nil
}

// readEntries decodes the entries from offset from to the log end, which
// must follow one another.
func (s *FileStore) readEntries(from int64) ([]protocol.MetadataEntry, error) {
	if from >= s.log.EndOffset() {
		return nil, nil
	}
	var out []protocol.MetadataEntry
	var bad error
	next := from
	err := s.log.EachBatch(from, s.log.EndOffset(), func(b *record.Batch) bool {
		if b.IsControl() {
			return true
		}
		for _, r := range b.Records {
			off := b.Offset(r)
			if off < from {
				continue
			}
			if off != next {
				bad = fmt.Errorf("metadata log: offset %d follows %d", off, next-1)
				return false
			}
			var rec protocol.MetadataRecord
			if err := json.Unmarshal(r.Value, &rec); err != nil {
				bad = fmt.Errorf("metadata log offset %d: not a metadata record: %w", off, err)
				return false
			}
			if rec.Offset != off {
				bad = fmt.Errorf("metadata log offset %d: the record says it is at offset %d", off, rec.Offset)
				return false
			}
			out = append(out, protocol.MetadataEntry{Epoch: b.PartitionLeaderEpoch, Record: rec})
			next++
		}
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func fileStoreEncodeEntry(dst []byte, e protocol.MetadataEntry) ([]byte, error) {
	value, err := json.Marshal(e.Record)
	if err != nil {
		return dst, err
	}
	b := record.Batch{
		BaseOffset:           e.Record.Offset,
		PartitionLeaderEpoch: e.Epoch,
		BaseTimestamp:        -1,
		MaxTimestamp:         -1,
		ProducerID:           record.NoProducerID,
		ProducerEpoch:        record.NoProducerEpoch,
		BaseSequence:         record.NoSequence,
		Records:              []record.Record{{Value: value}},
	}
	return b.AppendEncoded(dst)
}

// fileStoreQuorumStateV1 is quorum-state's data_version 1 (QuorumStateData v1),
// its fields in Kafka's order.
type fileStoreQuorumStateV1 struct {
	LeaderID         int32  `json:"leaderId"`
	LeaderEpoch      int32  `json:"leaderEpoch"`
	VotedID          int32  `json:"votedId"`
	VotedDirectoryID string `json:"votedDirectoryId"`
	DataVersion      int    `json:"data_version"`
}

// fileStoreQuorumStateAny reads data_version 0 and 1 (version 0 also had clusterId,
// appliedOffset and currentVoters, which loglab ignores).
type fileStoreQuorumStateAny struct {
	LeaderID    *int32 `json:"leaderId"`
	LeaderEpoch *int32 `json:"leaderEpoch"`
	VotedID     *int32 `json:"votedId"`
	DataVersion *int   `json:"data_version"`
}

// ReadQuorumState reads the quorum-state in dir, as OpenFileStore would,
// without opening the metadata log: a driver checks a data directory with
// it before starting anything on it. A missing file is a new node's state.
func ReadQuorumState(fs storage.FS, dir string) (QuorumState, error) {
	return (&FileStore{fs: fs, dir: dir}).readState()
}

// readState reads quorum-state; a missing file is a new node's state.
func (s *FileStore) readState() (QuorumState, error) {
	name := path.Join(s.dir, fileStoreQuorumState)
	raw, err := storage.ReadFile(s.fs, name)
	if errors.Is(err, storage.ErrNotExist) {
		return QuorumState{LeaderID: -1, VotedID: -1}, nil
	}
	if err != nil {
		return QuorumState{}, fmt.Errorf("quorum-state: %w", err)
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	if strings.TrimSpace(line) == "" {
		return QuorumState{}, fmt.Errorf("quorum-state: %s is empty", name)
	}
	var q fileStoreQuorumStateAny
	if err := json.Unmarshal([]byte(line), &q); err != nil {
		return QuorumState{}, fmt.Errorf("quorum-state: %s is not JSON: %w", name, err)
	}
	switch {
	case q.DataVersion == nil:
		return QuorumState{}, fmt.Errorf("quorum-state: %s has no data_version", name)
	case *q.DataVersion != 0 && *q.DataVersion != 1:
		return QuorumState{}, fmt.Errorf("quorum-state: %s has data_version %d; this store reads versions 0 and 1", name, *q.DataVersion)
	case q.LeaderID == nil || q.LeaderEpoch == nil || q.VotedID == nil:
		return QuorumState{}, fmt.Errorf("quorum-state: %s lacks leaderId, leaderEpoch or votedId", name)
	}
	return QuorumState{LeaderID: *q.LeaderID, LeaderEpoch: *q.LeaderEpoch, VotedID: *q.VotedID}, nil
}

// fileStoreSnapshotName is Kafka's <endOffset>-<epoch>.checkpoint.
func fileStoreSnapshotName(id protocol.SnapshotID) string {
	return fmt.Sprintf("%020d-%010d%s", id.EndOffset, id.Epoch, fileStoreCheckpointSuffix)
}

// fileStoreParseSnapshotName reads a .checkpoint file's name back.
func fileStoreParseSnapshotName(name string) (protocol.SnapshotID, bool) {
	base, ok := strings.CutSuffix(name, fileStoreCheckpointSuffix)
	if !ok || len(base) != 31 || base[20] != '-' || strings.Trim(base[:20]+base[21:], "0123456789") != "" {
		return protocol.SnapshotID{}, false
	}
	end, err1 := strconv.ParseInt(base[:20], 10, 64)
	epoch, err2 := strconv.ParseInt(base[21:], 10, 32)
	if err1 != nil || err2 != nil {
		return protocol.SnapshotID{}, false
	}
	return protocol.SnapshotID{EndOffset: end, Epoch: int32(epoch)}, true
}

// snapshotIDs lists the snapshots, oldest first, and deletes the partial
// ones a crash left (Kafka's recoverSnapshots).
func (s *FileStore) snapshotIDs() ([]protocol.SnapshotID, error) {
	names, err := s.fs.ReadDir(s.LogDir())
	if err != nil {
		return nil, err
	}
	var out []protocol.SnapshotID
	for _, name := range names {
		if strings.HasSuffix(name, fileStoreCheckpointSuffix+fileStorePartSuffix) || strings.HasSuffix(name, fileStoreCheckpointSuffix+fileStoreDeletedSuffix) {
			if err := fileStoreRemove(s.fs, path.Join(s.LogDir(), name)); err != nil {
				return nil, err
			}
			continue
		}
		if id, ok := fileStoreParseSnapshotName(name); ok {
			out = append(out, id)
		}
	}
	// The names sort by end offset, then epoch: ReadDir's order.
	return out, nil
}

// removeSnapshotsBut deletes every snapshot but keep.
func (s *FileStore) removeSnapshotsBut(keep protocol.SnapshotID) error {
	ids, err := s.snapshotIDs()
	if err != nil {
		return err
	}
	for _, id := range ids {
		if id != keep {
			if err := fileStoreRemove(s.fs, path.Join(s.LogDir(), fileStoreSnapshotName(id))); err != nil {
				return err
			}
		}
	}
	return nil
}

func fileStoreEncodeSnapshot(snap Snapshot) ([]byte, error) {
	if len(snap.Records) == 0 {
		return nil, nil
	}
	b := record.Batch{
		PartitionLeaderEpoch: snap.ID.Epoch,
		LastOffsetDelta:      int32(len(snap.Records) - 1),
		BaseTimestamp:        -1,
		MaxTimestamp:         -1,
		ProducerID:           record.NoProducerID,
		ProducerEpoch:        record.NoProducerEpoch,
		BaseSequence:         record.NoSequence,
		Records:              make([]record.Record, len(snap.Records)),
	}
	for i, r := range snap.Records {
		value, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		b.Records[i] = record.Record{OffsetDelta: int32(i), Value: value}
	}
	return b.AppendEncoded(nil)
}

func (s *FileStore) readSnapshot(id protocol.SnapshotID) (*Snapshot, error) {
	name := path.Join(s.LogDir(), fileStoreSnapshotName(id))
	raw, err := storage.ReadFile(s.fs, name)
	if err != nil {
		return nil, fmt.Errorf("metadata snapshot: %w", err)
	}
	snap := &Snapshot{ID: id}
	for len(raw) > 0 {
		b, n, err := record.Decode(raw)
		if err != nil {
			return nil, fmt.Errorf("metadata snapshot %s: %w", name, err)
		}
		for _, r := range b.Records {
			var rec protocol.MetadataRecord
			if err := json.Unmarshal(r.Value, &rec); err != nil {
				return nil, fmt.Errorf("metadata snapshot %s: record %d: %w", name, b.Offset(r), err)
			}
			snap.Records = append(snap.Records, rec)
		}
		raw = raw[n:]
	}
	return snap, nil
}

// fileStoreWriteAtomically writes body to name+suffix, syncs it and renames it
// over name: a crash leaves the old file or the new one, never half.
func fileStoreWriteAtomically(fs storage.FS, name, suffix string, body []byte) error {
	tmp := name + suffix
	f, err := fs.Create(tmp)
	if err != nil {
		return err
	}
	_, err = f.Write(body)
	if err == nil {
		err = f.Sync()
	}
	err = errors.Join(err, f.Close())
	if err == nil {
		err = fs.Rename(tmp, name)
	}
	if err != nil {
		return errors.Join(err, fileStoreRemove(fs, tmp))
	}
	return nil
}

func fileStoreRemove(fs storage.FS, name string) error {
	if err := fs.Remove(name); err != nil && !errors.Is(err, storage.ErrNotExist) {
		return err
	}
	return nil
}
