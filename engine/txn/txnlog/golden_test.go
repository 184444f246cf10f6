package txnlog

import (
	"bytes"
	"reflect"
	"testing"
)

// Golden bytes written out by hand from TransactionLogKey.json and
// TransactionLogValue.json: int16/int32/int64 big-endian, int8 one byte;
// classic strings are an int16 length then the bytes, classic arrays an
// int32 count (null = FF FF FF FF); in flexible v1 strings and arrays are
// prefixed by the unsigned varint n+1 (null = 00) and every struct ends with
// its tagged fields: a count, then per field its tag, size and bytes.
//
// 1700000000000 = 0x018BCFE56800; 1699999999000 = 0x018BCFE56418;
// 60000 = 0xEA60; 1000 = 0x3E8; 999 = 0x3E7.
var golden = []struct {
	name    string
	key     Key
	version int16
	value   *Value
	keyHex  []byte
	valHex  []byte
}{
	{
		// TransactionLogKey: 00 00 (version 0) | 00 05 't' 'x' 'n' '-' '1'
		// TransactionLogValue v0, an Ongoing transaction on orders-0, -2:
		//   00 00                    version 0
		//   00.. 03 E8               producerId 1000
		//   00 03                    producerEpoch 3
		//   00 00 EA 60              transactionTimeoutMs 60000
		//   01                       transactionStatus Ongoing
		//   00 00 00 01              one PartitionsSchema
		//   00 06 'orders'           topic
		//   00 00 00 02 | 0 | 2      partitionIds [0, 2]
		//   00 00 01 8B CF E5 68 00  lastUpdate 1700000000000
		//   00 00 01 8B CF E5 64 18  start 1699999999000
		name: "v0 Ongoing",
		key:  Key{TransactionalID: "txn-1"},
		value: &Value{ProducerID: 1000, PreviousProducerID: -1, NextProducerID: -1, ProducerEpoch: 3,
			TransactionTimeoutMs: 60000, TransactionStatus: Ongoing,
			TransactionPartitions:            []TopicPartitions{{Topic: "orders", PartitionIDs: []int32{0, 2}}},
			TransactionLastUpdateTimestampMs: 1700000000000, TransactionStartTimestampMs: 1699999999000},
		version: 0,
		keyHex:  []byte{0x00, 0x00, 0x00, 0x05, 't', 'x', 'n', '-', '1'},
		valHex: []byte{0x00, 0x00,
			0, 0, 0, 0, 0, 0, 0x03, 0xE8,
			0x00, 0x03,
			0x00, 0x00, 0xEA, 0x60,
			0x01,
			0x00, 0x00, 0x00, 0x01,
			0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's',
			0x00, 0x00, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 2,
			0x00, 0x00, 0x01, 0x8B, 0xCF, 0xE5, 0x68, 0x00,
			0x00, 0x00, 0x01, 0x8B, 0xCF, 0xE5, 0x64, 0x18},
	},
	{
		// v0 Empty: partitions null (FF FF FF FF), no start (-1).
		name: "v0 Empty",
		key:  Key{TransactionalID: "t"},
		value: &Value{ProducerID: 7, PreviousProducerID: -1, NextProducerID: -1, ProducerEpoch: 0,
			TransactionTimeoutMs: 60000, TransactionStatus: Empty,
			TransactionLastUpdateTimestampMs: 1700000000000, TransactionStartTimestampMs: -1},
		version: 0,
		keyHex:  []byte{0x00, 0x00, 0x00, 0x01, 't'},
		valHex: []byte{0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 7, 0x00, 0x00, 0x00, 0x00, 0xEA, 0x60, 0x00,
			0xFF, 0xFF, 0xFF, 0xFF,
			0x00, 0x00, 0x01, 0x8B, 0xCF, 0xE5, 0x68, 0x00,
			0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF},
	},
	{
		// TransactionLogValue v1, CompleteCommit over two topics, with
		// two of the three tagged fields set:
		//   00 01 | producerId 1000 | 00 04 epoch | 00 00 EA 60 | 04
		//   03                       compact array of 2
		//   07 'orders' 03 0 2 00    topic, compact [0, 2], no tags
		//   09 'payments' 02 1 00    topic, compact [1], no tags
		//   lastUpdate | start
		//   02                       two tagged fields
		//   00 08 <999>              tag 0 previousProducerId, 8 bytes
		//   02 02 00 02              tag 2 clientTransactionVersion 2
		// (nextProducerId is -1, its default: omitted)
		name: "v1 CompleteCommit with tags",
		key:  Key{TransactionalID: "txn-1"},
		value: &Value{ProducerID: 1000, PreviousProducerID: 999, NextProducerID: -1, ProducerEpoch: 4,
			TransactionTimeoutMs: 60000, TransactionStatus: CompleteCommit,
			TransactionPartitions: []TopicPartitions{
				{Topic: "orders", PartitionIDs: []int32{0, 2}},
				{Topic: "payments", PartitionIDs: []int32{1}}},
			TransactionLastUpdateTimestampMs: 1700000000000, TransactionStartTimestampMs: 1699999999000,
			ClientTransactionVersion: 2},
		version: 1,
		keyHex:  []byte{0x00, 0x00, 0x00, 0x05, 't', 'x', 'n', '-', '1'},
		valHex: []byte{0x00, 0x01,
			0, 0, 0, 0, 0, 0, 0x03, 0xE8,
			0x00, 0x04,
			0x00, 0x00, 0xEA, 0x60,
			0x04,
			0x03,
			0x07, 'o', 'r', 'd', 'e', 'r', 's', 0x03, 0, 0, 0, 0, 0, 0, 0, 2, 0x00,
			0x09, 'p', 'a', 'y', 'm', 'e', 'n', 't', 's', 0x02, 0, 0, 0, 1, 0x00,
			0x00, 0x00, 0x01, 0x8B, 0xCF, 0xE5, 0x68, 0x00,
			0x00, 0x00, 0x01, 0x8B, 0xCF, 0xE5, 0x64, 0x18,
			0x02,
			0x00, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0xE7,
			0x02, 0x02, 0x00, 0x02},
	},
	{
		// v1 PrepareEpochFence with nextProducerId only (tag 1), and a
		// null partition list (00) to show the compact null.
		name: "v1 nextProducerId only",
		key:  Key{TransactionalID: "t"},
		value: &Value{ProducerID: 5, PreviousProducerID: -1, NextProducerID: 6, ProducerEpoch: 32766,
			TransactionTimeoutMs: 1000, TransactionStatus: PrepareEpochFence,
			TransactionLastUpdateTimestampMs: 0, TransactionStartTimestampMs: 0},
		version: 1,
		keyHex:  []byte{0x00, 0x00, 0x00, 0x01, 't'},
		valHex: []byte{0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 5, 0x7F, 0xFE, 0x00, 0x00, 0x03, 0xE8, 0x07,
			0x00,
			0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			0x01, 0x01, 0x08, 0, 0, 0, 0, 0, 0, 0, 6},
	},
}

func TestGoldenEncode(t *testing.T) {
	for _, g := range golden {
		t.Run(g.name, func(t *testing.T) {
			kb, err := EncodeKey(g.key)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(kb, g.keyHex) {
				t.Errorf("key\n got % X\nwant % X", kb, g.keyHex)
			}
			vb, err := EncodeValue(g.version, g.value)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(vb, g.valHex) {
				t.Errorf("value\n got % X\nwant % X", vb, g.valHex)
			}
		})
	}
}

func TestGoldenDecode(t *testing.T) {
	for _, g := range golden {
		t.Run(g.name, func(t *testing.T) {
			rec, err := Decode(g.keyHex, g.valHex)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Key != g.key || rec.ValueVersion != g.version || !reflect.DeepEqual(rec.Value, g.value) {
				t.Errorf("decoded %+v v%d %+v\nwant    %+v v%d %+v", rec.Key, rec.ValueVersion, rec.Value, g.key, g.version, g.value)
			}
		})
	}
}

// A v0 record carries no tagged fields, so it decodes to their defaults.
func TestDecodeV0Defaults(t *testing.T) {
	rec, err := Decode(golden[0].keyHex, golden[0].valHex)
	if err != nil {
		t.Fatal(err)
	}
	if v := rec.Value; v.PreviousProducerID != -1 || v.NextProducerID != -1 || v.ClientTransactionVersion != 0 {
		t.Errorf("v0 tagged defaults: %+v", v)
	}
}

func TestTombstone(t *testing.T) {
	b, err := EncodeValue(1, nil)
	if err != nil || b != nil {
		t.Fatalf("EncodeValue(nil) = %v, %v; want nil, nil", b, err)
	}
	rec, err := Decode(golden[0].keyHex, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Value != nil || rec.Key.TransactionalID != "txn-1" {
		t.Errorf("tombstone decoded to %+v", rec)
	}
}

// Version 0 has no place for the tagged fields: Kafka's generated write
// throws rather than lose them, and so does EncodeValue.
func TestEncodeV0RefusesTaggedFields(t *testing.T) {
	for _, tc := range []struct {
		mutate func(*Value)
		want   string
	}{
		{func(v *Value) { v.PreviousProducerID = 1 }, "Attempted to write a non-default previousProducerId at version 0"},
		{func(v *Value) { v.NextProducerID = 1 }, "Attempted to write a non-default nextProducerId at version 0"},
		{func(v *Value) { v.ClientTransactionVersion = 2 }, "Attempted to write a non-default clientTransactionVersion at version 0"},
	} {
		v := NewValue()
		tc.mutate(v)
		if _, err := EncodeValue(0, v); err == nil || err.Error() != tc.want {
			t.Errorf("EncodeValue(0) error = %v, want %q", err, tc.want)
		}
		if _, err := EncodeValue(1, v); err != nil {
			t.Errorf("EncodeValue(1): %v", err)
		}
	}
	if _, err := EncodeValue(2, NewValue()); err == nil || err.Error() != "Can't write version 2 of TransactionLogValue" {
		t.Errorf("EncodeValue(2) error = %v", err)
	}
}

func TestValueVersionFor(t *testing.T) {
	for tv, want := range map[int16]int16{0: 0, 1: 1, 2: 1} {
		if got := ValueVersionFor(tv); got != want {
			t.Errorf("ValueVersionFor(transaction.version=%d) = %d, want %d", tv, got, want)
		}
	}
}

// An unknown tagged field is skipped by its size; the known ones around
// it still decode.
func TestDecodeSkipsUnknownTag(t *testing.T) {
	val := append([]byte{}, golden[3].valHex[:len(golden[3].valHex)-11]...)
	val = append(val, 0x02,
		0x01, 0x08, 0, 0, 0, 0, 0, 0, 0, 6, // tag 1 nextProducerId 6
		0x05, 0x03, 0xAA, 0xBB, 0xCC) // tag 5, unknown, 3 bytes
	rec, err := Decode(golden[3].keyHex, val)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rec.Value, golden[3].value) {
		t.Errorf("got %+v, want %+v", rec.Value, golden[3].value)
	}
}

// Corrupt input is named, never a panic; the texts are Kafka's
// (CoordinatorRecordSerde and the generated readers).
func TestDecodeErrors(t *testing.T) {
	key := golden[0].keyHex
	v0 := golden[0].valHex
	for _, tc := range []struct {
		name       string
		key, value []byte
		want       string
	}{
		{"empty key", []byte{}, nil, "Could not read version from key's buffer."},
		{"one-byte key", []byte{0x00}, nil, "Could not read version from key's buffer."},
		{"unknown key type", []byte{0x00, 0x01, 0x00, 0x00}, nil, "Unknown record type 1"},
		{"null transactional id", []byte{0x00, 0x00, 0xFF, 0xFF}, nil,
			"Could not read record with version 0 from key's buffer due to: non-nullable field transactionalId was serialized as null."},
		{"truncated transactional id", []byte{0x00, 0x00, 0x00, 0x05, 't'}, nil,
			"Could not read record with version 0 from key's buffer due to: Error reading byte array of 5 byte(s): only 1 byte(s) available."},
		{"short value version", key, []byte{0x00}, "Could not read version from value's buffer."},
		{"value version 2", key, []byte{0x00, 0x02}, "Could not read record with version 2 from value's buffer due to: Can't read version 2 of TransactionLogValue."},
		{"negative value version", key, []byte{0xFF, 0xFF}, "Could not read record with version -1 from value's buffer due to: Can't read version -1 of TransactionLogValue."},
		{"truncated value", key, v0[:20], "Could not read record with version 0 from value's buffer due to: java.nio.BufferUnderflowException."},
		// Kafka's message ends in a period and the serde adds one: "..".
		{"huge partition count", key, append(append([]byte{}, v0[:17]...), 0x7F, 0xFF, 0xFF, 0xFF),
			"Could not read record with version 0 from value's buffer due to: Tried to allocate a collection of size 2147483647, but there are only 0 bytes remaining.."},
		{"null partitionIds", key, append(append([]byte{}, v0[:29]...), 0xFF, 0xFF, 0xFF, 0xFF),
			"Could not read record with version 0 from value's buffer due to: non-nullable field partitionIds was serialized as null."},
		{"overlong varint", key, append(append([]byte{}, golden[3].valHex[:17]...), 0xFF, 0xFF, 0xFF, 0xFF, 0xFF),
			"Could not read record with version 1 from value's buffer due to: Varint is too long, the most significant bit in the 5th byte is set, converted value: ffffffff."},
		{"tag larger than the value", key, append(append([]byte{}, golden[3].valHex[:34]...), 0x01, 0x09, 0x20),
			"Could not read record with version 1 from value's buffer due to: Error reading byte array of 32 byte(s): only 0 byte(s) available."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.key, tc.value)
			if err == nil || err.Error() != tc.want {
				t.Errorf("Decode error = %v\nwant %q", err, tc.want)
			}
		})
	}
}
