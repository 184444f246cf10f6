package offsets

import (
	"bytes"
	"reflect"
	"testing"
)

func strp(s string) *string { return &s }

// Golden bytes written out by hand from the JSON schemas and the protocol's
// primitive types: int16/int32/int64 big-endian; a non-flexible string is an
// int16 length then UTF-8 (null = FF FF); non-flexible bytes and arrays an
// int32 length; in a flexible version strings, bytes and arrays are
// prefixed by the unsigned varint length+1 (null = 00) and every struct
// ends with its tagged-field count (00 when none).
var golden = []struct {
	name    string
	key     Key
	version int16
	value   Value
	keyHex  []byte
	valHex  []byte
}{
	{
		// OffsetCommitKey, written with type 1:
		//   00 01                    type 1 (OffsetCommitKey)
		//   00 02 'g' '1'            group "g1"
		//   00 06 'orders'           topic "orders"
		//   00 00 00 02              partition 2
		// OffsetCommitValue v3 (the version Kafka 4.0 writes):
		//   00 03                    version 3
		//   00 00 00 00 00 00 00 2A  offset 42
		//   00 00 00 05              leaderEpoch 5 (v3+)
		//   00 00                    metadata ""
		//   00 00 01 8B CF E5 68 00  commitTimestamp 1700000000000
		// (no expireTimestamp: v1 only; no tags: not flexible)
		name:    "OffsetCommit v3",
		key:     &OffsetCommitKey{Group: "g1", Topic: "orders", Partition: 2},
		version: 3,
		value:   &OffsetCommitValue{Offset: 42, LeaderEpoch: 5, Metadata: "", CommitTimestamp: 1700000000000, ExpireTimestamp: -1},
		keyHex: []byte{0x00, 0x01, 0x00, 0x02, 'g', '1', 0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's',
			0x00, 0x00, 0x00, 0x02},
		valHex: []byte{0x00, 0x03,
			0, 0, 0, 0, 0, 0, 0, 0x2A,
			0, 0, 0, 5,
			0x00, 0x00,
			0x00, 0x00, 0x01, 0x8B, 0xCF, 0xE5, 0x68, 0x00},
	},
	{
		// OffsetCommitValue v1 carries expireTimestamp and no leaderEpoch:
		//   00 01 | offset 7 | 00 01 'm' | commitTimestamp 1000 (03 E8) |
		//   expireTimestamp 2000 (07 D0)
		name:    "OffsetCommit v1",
		key:     &OffsetCommitKey{Group: "g", Topic: "t", Partition: 0},
		version: 1,
		value:   &OffsetCommitValue{Offset: 7, LeaderEpoch: -1, Metadata: "m", CommitTimestamp: 1000, ExpireTimestamp: 2000},
		keyHex:  []byte{0x00, 0x01, 0x00, 0x01, 'g', 0x00, 0x01, 't', 0, 0, 0, 0},
		valHex: []byte{0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 7, 0x00, 0x01, 'm',
			0, 0, 0, 0, 0, 0, 0x03, 0xE8, 0, 0, 0, 0, 0, 0, 0x07, 0xD0},
	},
	{
		// OffsetCommitValue v4, the first flexible version:
		//   00 04 | offset 42 | leaderEpoch 5 | 01 (compact "") |
		//   commitTimestamp | 00 (no tagged fields)
		name:    "OffsetCommit v4 flexible",
		key:     &OffsetCommitKey{Group: "g1", Topic: "orders", Partition: 2},
		version: 4,
		value:   &OffsetCommitValue{Offset: 42, LeaderEpoch: 5, CommitTimestamp: 1700000000000, ExpireTimestamp: -1},
		keyHex: []byte{0x00, 0x01, 0x00, 0x02, 'g', '1', 0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's',
			0x00, 0x00, 0x00, 0x02},
		valHex: []byte{0x00, 0x04, 0, 0, 0, 0, 0, 0, 0, 0x2A, 0, 0, 0, 5, 0x01,
			0x00, 0x00, 0x01, 0x8B, 0xCF, 0xE5, 0x68, 0x00, 0x00},
	},
	{
		// GroupMetadataKey: 00 02 (type 2) | 00 02 'g' '1'
		// GroupMetadataValue v3 (what Kafka 4.0 writes):
		//   00 03                    version 3
		//   00 08 'consumer'         protocolType
		//   00 00 00 01              generation 1
		//   00 05 'range'            protocol (nullable, set)
		//   00 03 'm-1'              leader (nullable, set)
		//   00 00 01 8B CF E5 68 00  currentStateTimestamp (v2+)
		//   00 00 00 01              members: int32 count 1
		//     00 03 'm-1'            memberId
		//     FF FF                  groupInstanceId null (v3+)
		//     00 01 'c'              clientId
		//     00 02 '/h'             clientHost
		//     00 04 93 E0            rebalanceTimeout 300000 (v1+)
		//     00 00 AF C8            sessionTimeout 45000
		//     00 00 00 02 01 02      subscription: int32 length, bytes
		//     00 00 00 00            assignment: empty
		name:    "GroupMetadata v3",
		key:     &GroupMetadataKey{Group: "g1"},
		version: 3,
		value: &GroupMetadataValue{ProtocolType: "consumer", Generation: 1, Protocol: strp("range"),
			Leader: strp("m-1"), CurrentStateTimestamp: 1700000000000,
			Members: []MemberMetadata{{MemberID: "m-1", ClientID: "c", ClientHost: "/h",
				RebalanceTimeout: 300000, SessionTimeout: 45000, Subscription: []byte{1, 2}, Assignment: []byte{}}}},
		keyHex: []byte{0x00, 0x02, 0x00, 0x02, 'g', '1'},
		valHex: []byte{0x00, 0x03,
			0x00, 0x08, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r',
			0, 0, 0, 1,
			0x00, 0x05, 'r', 'a', 'n', 'g', 'e',
			0x00, 0x03, 'm', '-', '1',
			0x00, 0x00, 0x01, 0x8B, 0xCF, 0xE5, 0x68, 0x00,
			0, 0, 0, 1,
			0x00, 0x03, 'm', '-', '1',
			0xFF, 0xFF,
			0x00, 0x01, 'c',
			0x00, 0x02, '/', 'h',
			0x00, 0x04, 0x93, 0xE0,
			0x00, 0x00, 0xAF, 0xC8,
			0, 0, 0, 2, 1, 2,
			0, 0, 0, 0},
	},
	{
		// GroupMetadataValue v4, flexible, an empty group:
		//   00 04 | 09 'consumer' (compact: len+1) | 00 00 00 02 |
		//   00 (protocol null) | 00 (leader null) | currentStateTimestamp -1 |
		//   01 (compact array, 0 members) | 00 (tags)
		name:    "GroupMetadata v4 flexible empty",
		key:     &GroupMetadataKey{Group: "g1"},
		version: 4,
		value:   &GroupMetadataValue{ProtocolType: "consumer", Generation: 2, CurrentStateTimestamp: -1, Members: []MemberMetadata{}},
		keyHex:  []byte{0x00, 0x02, 0x00, 0x02, 'g', '1'},
		valHex: []byte{0x00, 0x04, 0x09, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', 0, 0, 0, 2,
			0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00},
	},
	{
		// ConsumerGroupMetadataKey: 00 03 | 00 05 'group' (keys are never
		// flexible); value v0 is flexible: 00 00 | epoch 10 | 00 (tags).
		name:    "ConsumerGroupMetadata v0",
		key:     &ConsumerGroupMetadataKey{GroupID: "group"},
		version: 0,
		value:   &ConsumerGroupMetadataValue{Epoch: 10},
		keyHex:  []byte{0x00, 0x03, 0x00, 0x05, 'g', 'r', 'o', 'u', 'p'},
		valHex:  []byte{0x00, 0x00, 0, 0, 0, 10, 0x00},
	},
}

func TestGoldenBytes(t *testing.T) {
	for _, tc := range golden {
		t.Run(tc.name, func(t *testing.T) {
			k, err := EncodeKey(tc.key)
			if err != nil || !bytes.Equal(k, tc.keyHex) {
				t.Errorf("EncodeKey = % X, %v\nwant        % X", k, err, tc.keyHex)
			}
			v, err := EncodeValue(tc.version, tc.value)
			if err != nil || !bytes.Equal(v, tc.valHex) {
				t.Errorf("EncodeValue = % X, %v\nwant          % X", v, err, tc.valHex)
			}
			rec, err := Decode(tc.keyHex, tc.valHex)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if rec.KeyType != tc.key.Type() || rec.ValueVersion != tc.version {
				t.Errorf("Decode type/version = %d/%d, want %d/%d", rec.KeyType, rec.ValueVersion, tc.key.Type(), tc.version)
			}
			if !reflect.DeepEqual(rec.Key, tc.key) || !reflect.DeepEqual(rec.Value, tc.value) {
				t.Errorf("Decode = %+v %+v, want %+v %+v", rec.Key, rec.Value, tc.key, tc.value)
			}
		})
	}
}
