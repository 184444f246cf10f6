package record

import (
	"encoding/binary"
	"fmt"
)

// ControlType is the type in a control record's key (Kafka's
// ControlRecordType). Transaction coordinators write ABORT and COMMIT
// markers into every partition a transaction touched; consumers never see
// them as records, and read_committed consumers use them to drop aborted
// data.
type ControlType int16

// Kafka's control types. Only ABORT and COMMIT end transactions; the rest
// belong to KRaft's own metadata log and are named for display.
const (
	Abort  ControlType = 0
	Commit ControlType = 1
)

// String is Kafka's name for the type.
func (t ControlType) String() string {
	switch t {
	case Abort:
		return "ABORT"
	case Commit:
		return "COMMIT"
	case 2:
		return "LEADER_CHANGE"
	case 3:
		return "SNAPSHOT_HEADER"
	case 4:
		return "SNAPSHOT_FOOTER"
	case 5:
		return "KRAFT_VERSION"
	case 6:
		return "KRAFT_VOTERS"
	}
	return "UNKNOWN"
}

// EndTxnMarker is a transaction marker (Kafka's EndTransactionMarker). The
// coordinator epoch lets a partition leader reject markers from a zombie
// coordinator that has since been replaced.
type EndTxnMarker struct {
	Type             ControlType
	CoordinatorEpoch int32
}

// The control key is (version int16, type int16) and the marker value is
// (version int16, coordinatorEpoch int32), big-endian like the protocol.
const (
	controlKeySize   = 4
	endTxnValueSize  = 6
	controlKeyV0     = 0
	endTxnMarkerV0   = 0
	controlKeyOffset = 2 // type after version
)

// NewControlBatch builds the batch a partition leader appends for a
// transaction marker, as Kafka's MemoryRecords.withEndTransactionMarker
// does: uncompressed, CreateTime, transactional and control, no sequence,
// and one record at offset delta 0 whose timestamp is the batch's.
func NewControlBatch(baseOffset int64, timestamp int64, producerID int64, producerEpoch int16, partitionLeaderEpoch int32, marker EndTxnMarker) Batch {
	key := binary.BigEndian.AppendUint16(make([]byte, 0, controlKeySize), controlKeyV0)
	key = binary.BigEndian.AppendUint16(key, uint16(marker.Type))
	value := binary.BigEndian.AppendUint16(make([]byte, 0, endTxnValueSize), endTxnMarkerV0)
	value = binary.BigEndian.AppendUint32(value, uint32(marker.CoordinatorEpoch))
	return Batch{
		BaseOffset:           baseOffset,
		PartitionLeaderEpoch: partitionLeaderEpoch,
		Attributes:           ComputeAttributes(None, CreateTime, true, true),
		LastOffsetDelta:      0,
		BaseTimestamp:        timestamp,
		MaxTimestamp:         timestamp,
		ProducerID:           producerID,
		ProducerEpoch:        producerEpoch,
		BaseSequence:         NoSequence,
		Records:              []Record{{Key: key, Value: value}},
	}
}

// ControlTypeOf reads a control record's type from its key, as Kafka's
// ControlRecordType.parseTypeId does: a key version above 0 is read as
// version 0, a negative one is corruption.
func ControlTypeOf(r Record) (ControlType, error) {
	if len(r.Key) < controlKeySize {
		return 0, fmt.Errorf("%w: control record key of %d bytes, want at least %d", ErrCorruptRecord, len(r.Key), controlKeySize)
	}
	if v := int16(binary.BigEndian.Uint16(r.Key)); v < 0 {
		return 0, fmt.Errorf("%w: control record key version %d", ErrCorruptRecord, v)
	}
	return ControlType(binary.BigEndian.Uint16(r.Key[controlKeyOffset:])), nil
}

// ParseControlRecord reads a transaction marker from a control batch's
// record (Kafka's EndTransactionMarker.deserialize). Other control types
// return ErrNotEndTxnMarker.
func ParseControlRecord(r Record) (EndTxnMarker, error) {
	t, err := ControlTypeOf(r)
	if err != nil {
		return EndTxnMarker{}, err
	}
	if t != Abort && t != Commit {
		return EndTxnMarker{}, fmt.Errorf("%w: type %d (%s)", ErrNotEndTxnMarker, int16(t), t)
	}
	if len(r.Value) < endTxnValueSize {
		return EndTxnMarker{}, fmt.Errorf("%w: end transaction marker value of %d bytes, want at least %d", ErrCorruptRecord, len(r.Value), endTxnValueSize)
	}
	// A newer value version is read as version 0, as Kafka does; only a
	// negative one means corruption.
	if v := int16(binary.BigEndian.Uint16(r.Value)); v < 0 {
		return EndTxnMarker{}, fmt.Errorf("%w: end transaction marker version %d", ErrCorruptRecord, v)
	}
	return EndTxnMarker{Type: t, CoordinatorEpoch: int32(binary.BigEndian.Uint32(r.Value[2:]))}, nil
}
