package producerstate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
)

// The producer snapshot file (ProducerStateManager's PID_SNAPSHOT_MAP_SCHEMA),
// big-endian:
//
//	version int16 (1) | crc uint32 | count int32 | count × entry
//	entry: producer_id int64 | epoch int16 | last_sequence int32 |
//	       last_offset int64 | offset_delta int32 | timestamp int64 |
//	       coordinator_epoch int32 | current_txn_first_offset int64
//
// The CRC32C covers everything after the CRC. Only the last batch of each
// producer is kept: after a restart duplicates older than the last batch
// are no longer recognised, as in Kafka.
const (
	SnapshotVersion   int16 = 1
	snapshotHeaderLen       = 2 + 4 + 4
	snapshotEntryLen        = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8
	entriesOffset           = 2 + 4 // PRODUCER_ENTRIES_OFFSET: where the CRC starts counting
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SnapshotFileName is the snapshot's name in the partition directory: the
// offset it was taken at, 20 digits, ".snapshot" (LogFileUtils).
func SnapshotFileName(offset int64) string { return fmt.Sprintf("%020d.snapshot", offset) }

// ErrCorruptSnapshot is what every decoding failure wraps
// (CorruptSnapshotException): Kafka deletes such a snapshot and rebuilds
// the state from the log instead.
var ErrCorruptSnapshot = errors.New("corrupt producer snapshot")

// CorruptSnapshotError says what is wrong with a snapshot.
type CorruptSnapshotError struct{ Reason string }

func (e *CorruptSnapshotError) Error() string        { return ErrCorruptSnapshot.Error() + ": " + e.Reason }
func (e *CorruptSnapshotError) Is(target error) bool { return target == ErrCorruptSnapshot }

func corrupt(format string, args ...any) error {
	return &CorruptSnapshotError{Reason: fmt.Sprintf(format, args...)}
}

// EncodeSnapshot writes entries as a snapshot file, sorted by producer id
// so the same state always gives the same bytes.
func EncodeSnapshot(entries []Entry) []byte {
	sorted := slices.Clone(entries)
	slices.SortStableFunc(sorted, func(a, b Entry) int {
		switch {
		case a.ProducerID < b.ProducerID:
			return -1
		case a.ProducerID > b.ProducerID:
			return 1
		}
		return 0
	})
	buf := make([]byte, 0, snapshotHeaderLen+len(sorted)*snapshotEntryLen)
	buf = binary.BigEndian.AppendUint16(buf, uint16(SnapshotVersion))
	buf = binary.BigEndian.AppendUint32(buf, 0) // the CRC, once the rest is written
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(sorted)))
	for _, e := range sorted {
		buf = binary.BigEndian.AppendUint64(buf, uint64(e.ProducerID))
		buf = binary.BigEndian.AppendUint16(buf, uint16(e.Epoch))
		buf = binary.BigEndian.AppendUint32(buf, uint32(e.LastSeq()))
		buf = binary.BigEndian.AppendUint64(buf, uint64(e.LastDataOffset()))
		buf = binary.BigEndian.AppendUint32(buf, uint32(e.LastOffsetDelta()))
		buf = binary.BigEndian.AppendUint64(buf, uint64(e.LastTimestamp))
		buf = binary.BigEndian.AppendUint32(buf, uint32(e.CoordinatorEpoch))
		txn := e.CurrentTxnFirstOffset
		if txn < 0 {
			txn = -1
		}
		buf = binary.BigEndian.AppendUint64(buf, uint64(txn))
	}
	binary.BigEndian.PutUint32(buf[2:], crc32.Checksum(buf[entriesOffset:], castagnoli))
	return buf
}

// DecodeSnapshot reads a snapshot file in Kafka's order of checks: the
// schema (lengths), then the version, then the CRC. Bytes after the last
// entry are ignored but covered by the CRC, as Kafka's Struct read does.
// An entry whose last offset is negative had no batch left (a producer
// known only by a marker) and gets no BatchMetadata.
func DecodeSnapshot(data []byte) ([]Entry, error) {
	if len(data) < snapshotHeaderLen {
		return nil, corrupt("snapshot failed schema validation: %d bytes, shorter than the %d-byte header", len(data), snapshotHeaderLen)
	}
	version := int16(binary.BigEndian.Uint16(data[0:]))
	stored := binary.BigEndian.Uint32(data[2:])
	count := int32(binary.BigEndian.Uint32(data[6:]))
	rest := len(data) - snapshotHeaderLen
	if count < 0 {
		return nil, corrupt("snapshot failed schema validation: array size %d cannot be negative", count)
	}
	if int64(count)*snapshotEntryLen > int64(rest) {
		return nil, corrupt("snapshot failed schema validation: %d entries need %d bytes, only %d bytes available",
			count, int64(count)*snapshotEntryLen, rest)
	}
	if version != SnapshotVersion {
		return nil, corrupt("snapshot contained an unknown file version %d", version)
	}
	if computed := crc32.Checksum(data[entriesOffset:], castagnoli); computed != stored {
		return nil, corrupt("snapshot is corrupt (CRC is no longer valid): stored crc %d, computed crc %d", stored, computed)
	}
	entries := make([]Entry, 0, count)
	p := data[snapshotHeaderLen:]
	for range count {
		e := Entry{
			ProducerID:            int64(binary.BigEndian.Uint64(p[0:])),
			Epoch:                 int16(binary.BigEndian.Uint16(p[8:])),
			LastTimestamp:         int64(binary.BigEndian.Uint64(p[26:])),
			CoordinatorEpoch:      int32(binary.BigEndian.Uint32(p[34:])),
			CurrentTxnFirstOffset: int64(binary.BigEndian.Uint64(p[38:])),
		}
		if e.CurrentTxnFirstOffset < 0 {
			e.CurrentTxnFirstOffset = -1
		}
		if lastOffset := int64(binary.BigEndian.Uint64(p[14:])); lastOffset >= 0 {
			e.Batches = []BatchMetadata{{
				LastSeq:     int32(binary.BigEndian.Uint32(p[10:])),
				LastOffset:  lastOffset,
				OffsetDelta: int32(binary.BigEndian.Uint32(p[22:])),
				Timestamp:   e.LastTimestamp,
			}}
		}
		entries = append(entries, e)
		p = p[snapshotEntryLen:]
	}
	return entries, nil
}

// Snapshot is the manager's state as a snapshot file (takeSnapshot).
func (m *Manager) Snapshot() []byte { return EncodeSnapshot(m.Producers()) }
