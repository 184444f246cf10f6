package txnlog

import (
	"errors"
	"fmt"
)

// KeyVersion is the int16 that starts every key: TransactionLogKey has only
// version 0, and TransactionCoordinatorRecordSerde reads it as the record
// type (the only one).
const KeyVersion int16 = 0

// The value versions: 0 is the classic encoding; 1 (KIP-890, Kafka 4.0) is
// flexible and adds the tagged fields PreviousProducerId, NextProducerId and
// ClientTransactionVersion. TransactionVersion.transactionLogValueVersion
// picks 1 once the cluster's transaction.version feature is 1 or more (a new
// Kafka 4.x cluster's default is 2), so an older broker never meets a record
// it cannot read.
const (
	ValueVersionClassic  int16 = 0
	ValueVersionFlexible int16 = 1
	maxValueVersion            = ValueVersionFlexible
)

// ValueVersionFor is TransactionVersion.transactionLogValueVersion.
func ValueVersionFor(transactionVersion int16) int16 {
	if transactionVersion >= 1 {
		return ValueVersionFlexible
	}
	return ValueVersionClassic
}

// Key is TransactionLogKey: records of one transactional id compact
// together.
type Key struct {
	TransactionalID string
}

// TopicPartitions is TransactionLogValue.PartitionsSchema: the partitions
// of one topic in the transaction.
type TopicPartitions struct {
	Topic        string
	PartitionIDs []int32
}

// Value is TransactionLogValue: the coordinator's state of one
// transactional id. Use NewValue for the schema's defaults.
type Value struct {
	ProducerID int64
	// PreviousProducerID (tag 0, v1+, default -1): the producer id of the
	// last committed transaction, kept across a KIP-890 epoch overflow.
	PreviousProducerID int64
	// NextProducerID (tag 1, v1+, default -1): the producer id handed to
	// the client when the epoch overflowed at the end of a transaction.
	NextProducerID       int64
	ProducerEpoch        int16
	TransactionTimeoutMs int32
	TransactionStatus    TransactionState
	// TransactionPartitions is nil (null on the wire) in state Empty, as
	// TransactionLog.valueToBytes writes it.
	TransactionPartitions            []TopicPartitions
	TransactionLastUpdateTimestampMs int64
	TransactionStartTimestampMs      int64
	// ClientTransactionVersion (tag 2, v1+, default 0): the
	// transaction.version the client's transaction runs with.
	ClientTransactionVersion int16
}

// NewValue is a Value holding the schema's defaults (tagged producer ids -1).
func NewValue() *Value { return &Value{PreviousProducerID: -1, NextProducerID: -1} }

// Record is a decoded __transaction_state record.
type Record struct {
	Key Key
	// ValueVersion is the value's int16 prefix; meaningless for a tombstone.
	ValueVersion int16
	// Value is nil for a tombstone: the transactional id was removed
	// (after Dead).
	Value *Value
}

// UnknownTypeError is a key whose int16 prefix is not 0: Kafka's
// CoordinatorLoader.UnknownRecordTypeException.
type UnknownTypeError struct{ Type int16 }

func (e *UnknownTypeError) Error() string { return fmt.Sprintf("Unknown record type %d", e.Type) }

// EncodeKey is TransactionLog.keyToBytes: MessageUtil.toVersionPrefixedBytes
// of TransactionLogKey v0.
func EncodeKey(k Key) ([]byte, error) {
	w := &writer{}
	w.Int16(KeyVersion)
	w.Str("transactionalId", k.TransactionalID)
	return w.Buf, w.Err
}

// EncodeValue writes version then the value's fields in that version; a nil
// v is a tombstone and encodes to nil. Like Kafka's generated write, version
// 0 refuses tagged fields that differ from their defaults rather than
// silently dropping them.
func EncodeValue(version int16, v *Value) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	if version < 0 || version > maxValueVersion {
		return nil, fmt.Errorf("Can't write version %d of TransactionLogValue", version)
	}
	w := &writer{Flexible: version >= ValueVersionFlexible}
	if !w.Flexible {
		switch {
		case v.PreviousProducerID != -1:
			return nil, fmt.Errorf("Attempted to write a non-default previousProducerId at version %d", version)
		case v.NextProducerID != -1:
			return nil, fmt.Errorf("Attempted to write a non-default nextProducerId at version %d", version)
		case v.ClientTransactionVersion != 0:
			return nil, fmt.Errorf("Attempted to write a non-default clientTransactionVersion at version %d", version)
		}
	}
	w.Int16(version)
	w.Int64(v.ProducerID)
	w.Int16(v.ProducerEpoch)
	w.Int32(v.TransactionTimeoutMs)
	w.Int8(int8(v.TransactionStatus))
	if v.TransactionPartitions == nil {
		w.ArrayLen(-1)
	} else {
		w.ArrayLen(len(v.TransactionPartitions))
		for _, tp := range v.TransactionPartitions {
			w.Str("topic", tp.Topic)
			w.ArrayLen(len(tp.PartitionIDs))
			for _, p := range tp.PartitionIDs {
				w.Int32(p)
			}
			if w.Flexible {
				w.Uvarint(0) // PartitionsSchema has no tagged fields
			}
		}
	}
	w.Int64(v.TransactionLastUpdateTimestampMs)
	w.Int64(v.TransactionStartTimestampMs)
	if w.Flexible {
		// Tagged fields in ascending tag order, each only when it is not
		// its default, as the generated write does.
		n := 0
		if v.PreviousProducerID != -1 {
			n++
		}
		if v.NextProducerID != -1 {
			n++
		}
		if v.ClientTransactionVersion != 0 {
			n++
		}
		w.Uvarint(n)
		if v.PreviousProducerID != -1 {
			w.Uvarint(0)
			w.Uvarint(8)
			w.Int64(v.PreviousProducerID)
		}
		if v.NextProducerID != -1 {
			w.Uvarint(1)
			w.Uvarint(8)
			w.Int64(v.NextProducerID)
		}
		if v.ClientTransactionVersion != 0 {
			w.Uvarint(2)
			w.Uvarint(2)
			w.Int16(v.ClientTransactionVersion)
		}
	}
	return w.Buf, w.Err
}

// Decode is TransactionCoordinatorRecordSerde.deserialize: a key of type
// 0, then a value of version 0 or 1, or a tombstone for a nil value. Errors
// read like Kafka's so Format can print them as kafka-dump-log does; bytes
// left after the last field are ignored, as Kafka's generated readers ignore
// them. Decode does not check the status byte (the serde does not either):
// Value.TransactionStatus.Known says whether it names a state.
func Decode(key, value []byte) (Record, error) {
	kr := &reader{Buf: key}
	typ := kr.Int16()
	if kr.Err != nil {
		return Record{}, errors.New("Could not read version from key's buffer.")
	}
	if typ != KeyVersion {
		return Record{}, &UnknownTypeError{Type: typ}
	}
	var rec Record
	rec.Key.TransactionalID = kr.Str("transactionalId")
	if kr.Err != nil {
		return Record{}, fmt.Errorf("Could not read record with version %d from key's buffer due to: %s.", typ, kr.Err)
	}
	if value == nil {
		return rec, nil
	}
	vr := &reader{Buf: value}
	rec.ValueVersion = vr.Int16()
	if vr.Err != nil {
		return Record{}, errors.New("Could not read version from value's buffer.")
	}
	if rec.ValueVersion < 0 || rec.ValueVersion > maxValueVersion {
		return Record{}, fmt.Errorf("Could not read record with version %d from value's buffer due to: Can't read version %d of TransactionLogValue.",
			rec.ValueVersion, rec.ValueVersion)
	}
	vr.Flexible = rec.ValueVersion >= ValueVersionFlexible
	v := readValue(vr)
	if vr.Err != nil {
		return Record{}, fmt.Errorf("Could not read record with version %d from value's buffer due to: %s.", rec.ValueVersion, vr.Err)
	}
	rec.Value = v
	return rec, nil
}

func readValue(r *reader) *Value {
	v := NewValue()
	v.ProducerID = r.Int64()
	v.ProducerEpoch = r.Int16()
	v.TransactionTimeoutMs = r.Int32()
	v.TransactionStatus = TransactionState(r.Int8())
	if n := r.NullableArrayLen("transactionPartitions"); n >= 0 && r.Err == nil {
		v.TransactionPartitions = make([]TopicPartitions, 0, n)
		for i := 0; i < n && r.Err == nil; i++ {
			var tp TopicPartitions
			tp.Topic = r.Str("topic")
			m := r.ArrayLen("partitionIds")
			tp.PartitionIDs = make([]int32, 0, max(m, 0))
			for j := 0; j < m && r.Err == nil; j++ {
				tp.PartitionIDs = append(tp.PartitionIDs, r.Int32())
			}
			r.TaggedFieldsInline(nil)
			v.TransactionPartitions = append(v.TransactionPartitions, tp)
		}
	}
	v.TransactionLastUpdateTimestampMs = r.Int64()
	v.TransactionStartTimestampMs = r.Int64()
	r.TaggedFieldsInline(func(tag uint32) bool {
		switch tag {
		case 0:
			v.PreviousProducerID = r.Int64()
		case 1:
			v.NextProducerID = r.Int64()
		case 2:
			v.ClientTransactionVersion = r.Int16()
		default:
			return false
		}
		return true
	})
	return v
}
