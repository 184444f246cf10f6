package offsets

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// Every version of each value survives Encode then Decode; fields the
// version lacks come back as the schema's defaults.
func TestRoundTripAllVersions(t *testing.T) {
	full := &OffsetCommitValue{Offset: 99, LeaderEpoch: 3, Metadata: "meta", CommitTimestamp: 5, ExpireTimestamp: 6}
	for v := int16(0); v <= 4; v++ {
		want := *full
		if v < 3 {
			want.LeaderEpoch = -1
		}
		if v != 1 {
			want.ExpireTimestamp = -1
		}
		roundTrip(t, &OffsetCommitKey{Group: "g", Topic: "t", Partition: 1}, v, full, &want)
	}
	gm := &GroupMetadataValue{ProtocolType: "consumer", Generation: 4, Protocol: strp("sticky"), Leader: strp("a"),
		CurrentStateTimestamp: 77, Members: []MemberMetadata{
			{MemberID: "a", GroupInstanceID: strp("i-1"), ClientID: "c", ClientHost: "/10.0.0.1", RebalanceTimeout: 9, SessionTimeout: 8, Subscription: []byte{1}, Assignment: []byte{2, 3}},
			{MemberID: "b", ClientID: "c2", ClientHost: "/10.0.0.2", RebalanceTimeout: 9, SessionTimeout: 8, Subscription: []byte{}, Assignment: []byte{}},
		}}
	for v := int16(0); v <= 4; v++ {
		want := *gm
		want.Members = append([]MemberMetadata(nil), gm.Members...)
		if v < 2 {
			want.CurrentStateTimestamp = -1
		}
		for i := range want.Members {
			if v < 3 {
				want.Members[i].GroupInstanceID = nil
			}
			if v < 1 {
				want.Members[i].RebalanceTimeout = -1
			}
		}
		roundTrip(t, &GroupMetadataKey{Group: "g"}, v, gm, &want)
	}
	roundTrip(t, &ConsumerGroupMetadataKey{GroupID: "g"}, 0, &ConsumerGroupMetadataValue{Epoch: 3}, &ConsumerGroupMetadataValue{Epoch: 3})
}

func roundTrip(t *testing.T, k Key, version int16, v, want Value) {
	t.Helper()
	kb, err := EncodeKey(k)
	if err != nil {
		t.Fatal(err)
	}
	vb, err := EncodeValue(version, v)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Decode(kb, vb)
	if err != nil {
		t.Fatalf("version %d: %v", version, err)
	}
	if !reflect.DeepEqual(rec.Key, k) || !reflect.DeepEqual(rec.Value, want) || rec.ValueVersion != version {
		t.Errorf("version %d: got %+v v%d %+v, want %+v %+v", version, rec.Key, rec.ValueVersion, rec.Value, k, want)
	}
}

// A null value is a tombstone: compaction deletes the committed offset or
// the group. It encodes to nil, never to an empty value.
func TestTombstone(t *testing.T) {
	b, err := EncodeValue(OffsetCommitValueVersion, nil)
	if b != nil || err != nil {
		t.Fatalf("EncodeValue(nil) = %v, %v; want nil, nil", b, err)
	}
	kb, _ := EncodeKey(&GroupMetadataKey{Group: "gone"})
	rec, err := Decode(kb, nil)
	if err != nil || rec.Value != nil || !reflect.DeepEqual(rec.Key, &GroupMetadataKey{Group: "gone"}) {
		t.Fatalf("Decode tombstone = %+v, %v", rec, err)
	}
	// An empty (not null) value is not a tombstone: it has no version.
	if _, err := Decode(kb, []byte{}); err == nil || err.Error() != "Could not read version from value's buffer." {
		t.Fatalf("Decode empty value: %v", err)
	}
}

// Type 0 is the OffsetCommitKey of old brokers; Kafka still reads it.
func TestLegacyOffsetCommitKeyType(t *testing.T) {
	rec, err := Decode([]byte{0x00, 0x00, 0x00, 0x01, 'g', 0x00, 0x01, 't', 0, 0, 0, 3}, nil)
	if err != nil || rec.KeyType != 0 || !reflect.DeepEqual(rec.Key, &OffsetCommitKey{Group: "g", Topic: "t", Partition: 3}) {
		t.Fatalf("Decode type 0 = %+v, %v", rec, err)
	}
}

// Corrupt or short input gives an error naming what went wrong, in
// Kafka's words where Kafka has words for it.
func TestDecodeErrors(t *testing.T) {
	okKey := golden[0].keyHex
	for _, tc := range []struct {
		name       string
		key, value []byte
		want       string
	}{
		{"no key bytes", []byte{}, nil, "Could not read version from key's buffer."},
		{"one key byte", []byte{0}, nil, "Could not read version from key's buffer."},
		{"unknown type", []byte{0x7F, 0xFF}, nil, "Unknown record type 32767"},
		{"KIP-848 partition metadata unsupported", []byte{0x00, 0x04}, nil, "Unknown record type 4"},
		{"share group records unsupported", []byte{0x00, 0x09}, nil, "Unknown record type 9"},
		{"key string cut", []byte{0x00, 0x01, 0x00, 0x05, 'g'}, nil,
			"Could not read record with version 1 from key's buffer due to: Error reading byte array of 5 byte(s): only 1 byte(s) available."},
		{"null group", []byte{0x00, 0x02, 0xFF, 0xFF}, nil,
			"Could not read record with version 2 from key's buffer due to: non-nullable field group was serialized as null."},
		{"partition cut", []byte{0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00}, nil,
			"Could not read record with version 1 from key's buffer due to: java.nio.BufferUnderflowException."},
		{"value version too new", okKey, []byte{0x00, 0x05}, "Could not read record with version 5 from value's buffer due to: Can't read version 5 of OffsetCommitValue."},
		{"negative value version", okKey, []byte{0xFF, 0xFF}, "Can't read version -1 of OffsetCommitValue."},
		{"value cut", okKey, golden[0].valHex[:10], "from value's buffer due to: java.nio.BufferUnderflowException."},
		// 36 bytes: version 2 + protocolType 10 + generation 4 + protocol 7 + leader 5 + timestamp 8.
		{"member count too large", golden[3].keyHex, append(append([]byte{}, golden[3].valHex[:36]...), 0x7F, 0xFF, 0xFF, 0xFF),
			"Tried to allocate a collection of size 2147483647, but there are only 0 bytes remaining."},
		{"tagged field larger than the value", []byte{0x00, 0x03, 0x00, 0x01, 'g'}, []byte{0, 0, 0, 0, 0, 1, 0x01, 0x00, 0x0A},
			"Error reading byte array of 10 byte(s): only 0 byte(s) available."},
		{"varint too long", []byte{0x00, 0x03, 0x00, 0x01, 'g'}, []byte{0, 0, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF},
			"Varint is too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.key, tc.value)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Decode error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// An unknown tagged field is skipped, as Kafka's reader keeps it aside.
func TestUnknownTaggedFieldSkipped(t *testing.T) {
	// ConsumerGroupMetadataValue v0: epoch 7, then 1 tagged field, tag 5,
	// size 2, data AB CD.
	rec, err := Decode([]byte{0x00, 0x03, 0x00, 0x01, 'g'}, []byte{0, 0, 0, 0, 0, 7, 0x01, 0x05, 0x02, 0xAB, 0xCD})
	if err != nil || !reflect.DeepEqual(rec.Value, &ConsumerGroupMetadataValue{Epoch: 7}) {
		t.Fatalf("Decode = %+v, %v", rec, err)
	}
}

func TestEncodeErrors(t *testing.T) {
	if _, err := EncodeValue(5, &OffsetCommitValue{}); err == nil || err.Error() != "Can't write version 5 of OffsetCommitValue" {
		t.Errorf("EncodeValue(5) error = %v", err)
	}
	if _, err := EncodeKey(&MemberKey{RecordType: TypeGroupMetadata, GroupID: "g", MemberID: "m"}); err == nil {
		t.Errorf("EncodeKey of a MemberKey typed as GroupMetadata: no error")
	}
	if _, err := EncodeKey(&GroupMetadataKey{Group: strings.Repeat("x", 32768)}); err == nil {
		t.Errorf("EncodeKey with a 32768-byte group: no error")
	}
	// The longest string that fits an int16 length still encodes.
	if b, err := EncodeKey(&GroupMetadataKey{Group: strings.Repeat("x", 32767)}); err != nil || !bytes.Equal(b[2:4], []byte{0x7F, 0xFF}) {
		t.Errorf("EncodeKey with a 32767-byte group: %v", err)
	}
}
