package offsets

import (
	"errors"
	"fmt"
)

// Record types: the int16 that starts every key (GroupCoordinatorRecordSerde's
// apiMessageKeyFor). Kafka still reads type 0, the offset-commit key of
// Kafka 0.8.2 (the same fields), and writes 1 since 0.9 added type 2.
const (
	TypeOffsetCommitLegacy    int16 = 0
	TypeOffsetCommit          int16 = 1
	TypeGroupMetadata         int16 = 2
	TypeConsumerGroupMetadata int16 = 3
)

// The value versions Kafka 4.0 writes (MetadataVersion.offsetCommitValueVersion
// and groupMetadataValueVersion): the highest non-flexible ones, because an
// older broker reading the partition after a downgrade must still parse them
// (KIP-915). An offset commit with an explicit expire timestamp (OffsetCommit
// v1 requests) is written as version 1, the only one that carries it.
const (
	OffsetCommitValueVersion          int16 = 3
	OffsetCommitValueVersionExpire    int16 = 1
	GroupMetadataValueVersion         int16 = 3
	ConsumerGroupMetadataValueVersion int16 = 0
)

// Key is one of the record keys; its Type is the key's int16 prefix.
type Key interface {
	Type() int16
	write(w *writer)
}

// Value is one of the record values. A nil Value is a tombstone.
type Value interface {
	// maxVersion and flexibleFrom are the schema's validVersions upper
	// bound and first flexible version.
	maxVersion() int16
	flexibleFrom() int16
	write(w *writer, version int16)
}

// Record is a decoded __consumer_offsets record.
type Record struct {
	Key Key
	// KeyType is the key's int16 prefix as read: 0 or 1 for an
	// OffsetCommitKey, otherwise Key.Type().
	KeyType int16
	// ValueVersion is the value's int16 prefix; meaningless for a tombstone.
	ValueVersion int16
	// Value is nil for a tombstone: the offset or the group was deleted.
	Value Value
}

// UnknownTypeError is a key whose type loglab cannot decode, Kafka's
// CoordinatorLoader.UnknownRecordTypeException.
type UnknownTypeError struct{ Type int16 }

func (e *UnknownTypeError) Error() string {
	return fmt.Sprintf("Unknown record type %d", e.Type)
}

// EncodeKey is MessageUtil.toVersionPrefixedBytes for a key: its type, then
// its fields. Keys are never flexible.
func EncodeKey(k Key) ([]byte, error) {
	if m, ok := k.(*MemberKey); ok {
		switch m.RecordType {
		case TypeConsumerGroupMemberMetadata, TypeConsumerGroupTargetAssignmentMember, TypeConsumerGroupCurrentMemberAssignment:
		default:
			// Any other type would decode as a different record.
			return nil, fmt.Errorf("MemberKey with record type %d: want 5, 7 or 8", m.RecordType)
		}
	}
	w := &writer{}
	w.Int16(k.Type())
	k.write(w)
	return w.Buf, w.Err
}

// EncodeValue writes version then the fields of that version; a nil v is a
// tombstone and encodes to nil (a record with a null value).
func EncodeValue(version int16, v Value) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	if version < 0 || version > v.maxVersion() {
		return nil, fmt.Errorf("Can't write version %d of %s", version, valueName(v))
	}
	w := &writer{Flexible: version >= v.flexibleFrom()}
	w.Int16(version)
	v.write(w, version)
	return w.Buf, w.Err
}

// Decode is CoordinatorRecordSerde.deserialize: the key's type picks the
// schemas of key and value; a nil value is a tombstone. Errors read like
// Kafka's, so Format can print them as kafka-dump-log does. Bytes left over
// after the last field are ignored, as Kafka's generated readers ignore them.
func Decode(key, value []byte) (Record, error) {
	kr := &reader{Buf: key}
	typ := kr.Int16()
	if kr.Err != nil {
		return Record{}, errors.New("Could not read version from key's buffer.")
	}
	rec := Record{KeyType: typ}
	var val interface {
		Value
		read(r *reader, version int16)
	}
	switch typ {
	case TypeOffsetCommitLegacy, TypeOffsetCommit:
		k := &OffsetCommitKey{}
		k.read(kr)
		rec.Key, val = k, &OffsetCommitValue{}
	case TypeGroupMetadata:
		k := &GroupMetadataKey{}
		k.read(kr)
		rec.Key, val = k, &GroupMetadataValue{}
	case TypeConsumerGroupMetadata:
		k := &ConsumerGroupMetadataKey{}
		k.read(kr)
		rec.Key, val = k, &ConsumerGroupMetadataValue{}
	case TypeConsumerGroupTargetAssignmentMeta:
		k := &TargetAssignmentMetadataKey{}
		k.read(kr)
		rec.Key, val = k, &ConsumerGroupTargetAssignmentMetadataValue{}
	case TypeConsumerGroupMemberMetadata, TypeConsumerGroupTargetAssignmentMember, TypeConsumerGroupCurrentMemberAssignment:
		k := &MemberKey{RecordType: typ}
		k.read(kr)
		rec.Key = k
		switch typ {
		case TypeConsumerGroupMemberMetadata:
			val = &ConsumerGroupMemberMetadataValue{}
		case TypeConsumerGroupTargetAssignmentMember:
			val = &ConsumerGroupTargetAssignmentMemberValue{}
		default:
			val = &ConsumerGroupCurrentMemberAssignmentValue{}
		}
	default:
		return Record{}, &UnknownTypeError{Type: typ}
	}
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
	if rec.ValueVersion < 0 || rec.ValueVersion > val.maxVersion() {
		return Record{}, fmt.Errorf("Could not read record with version %d from value's buffer due to: Can't read version %d of %s.",
			rec.ValueVersion, rec.ValueVersion, valueName(val))
	}
	vr.Flexible = rec.ValueVersion >= val.flexibleFrom()
	val.read(vr, rec.ValueVersion)
	if vr.Err != nil {
		return Record{}, fmt.Errorf("Could not read record with version %d from value's buffer due to: %s.", rec.ValueVersion, vr.Err)
	}
	rec.Value = val
	return rec, nil
}

func valueName(v Value) string {
	switch v.(type) {
	case *OffsetCommitValue:
		return "OffsetCommitValue"
	case *GroupMetadataValue:
		return "GroupMetadataValue"
	case *ConsumerGroupMetadataValue:
		return "ConsumerGroupMetadataValue"
	case *ConsumerGroupMemberMetadataValue:
		return "ConsumerGroupMemberMetadataValue"
	case *ConsumerGroupTargetAssignmentMetadataValue:
		return "ConsumerGroupTargetAssignmentMetadataValue"
	case *ConsumerGroupTargetAssignmentMemberValue:
		return "ConsumerGroupTargetAssignmentMemberValue"
	case *ConsumerGroupCurrentMemberAssignmentValue:
		return "ConsumerGroupCurrentMemberAssignmentValue"
	}
	return fmt.Sprintf("%T", v)
}
