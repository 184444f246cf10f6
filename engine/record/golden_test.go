package record

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// The golden batches are assembled field by field from the schema in Kafka's
// DefaultRecordBatch.java and DefaultRecord.java (and, for the control
// batch, ControlRecordType.java, EndTransactionMarker.java and
// MemoryRecords.withEndTransactionMarker). Varints follow ByteUtils. The CRC
// fields were derived with bitwiseCRC32C, and the test checks them again.

// unhex joins hex fragments, ignoring spaces.
func unhex(t *testing.T, parts ...string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(strings.Join(parts, ""), " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func goldenHeadersBatch(t *testing.T) []byte {
	return unhex(t,
		"0000000000000064", // baseOffset 100
		"0000005f",         // batchLength 95 = 107 - 12
		"00000003",         // partitionLeaderEpoch 3
		"02",               // magic
		"a4553881",         // crc
		"0000",             // attributes: none, CreateTime
		"00000002",         // lastOffsetDelta 2
		"0000018bcfe56800", // baseTimestamp 1700000000000
		"0000018bcfe56807", // maxTimestamp 1700000000007
		"0000000000000007", // producerId 7
		"0000",             // producerEpoch 0
		"0000000a",         // baseSequence 10
		"00000003",         // recordCount 3
		// record 0
		"38",            // length 28
		"00",            // attributes
		"00",            // timestampDelta 0
		"00",            // offsetDelta 0
		"02 6b",         // key: length 1, "k"
		"0a 68656c6c6f", // value: length 5, "hello"
		"04",            // headerCount 2
		"0a 7472616365", // header key: length 5, "trace"
		"06 616263",     // header value: length 3, "abc"
		"08 6e756c6c",   // header key: length 4, "null"
		"01",            // header value: length -1, null
		// record 1
		"10", // length 8
		"00", // attributes
		"0a", // timestampDelta 5
		"02", // offsetDelta 1
		"00", // key: length 0, empty (not null)
		"00", // value: length 0, empty
		"02", // headerCount 1
		"00", // header key: length 0, ""
		"00", // header value: length 0, empty
		// record 2
		"0e",    // length 7
		"00",    // attributes
		"0e",    // timestampDelta 7
		"04",    // offsetDelta 2
		"02 6b", // key: length 1, "k"
		"01",    // value: length -1, null (a tombstone)
		"00",    // headerCount 0
	)
}

func goldenControlBatch(t *testing.T) []byte {
	return unhex(t,
		"000000000000002a", // baseOffset 42
		"00000042",         // batchLength 66 = 78 - 12
		"00000003",         // partitionLeaderEpoch 3
		"02",               // magic
		"9d50fe03",         // crc
		"0030",             // attributes: isControl | isTransactional
		"00000000",         // lastOffsetDelta 0
		"0000018bcfe56800", // baseTimestamp 1700000000000
		"0000018bcfe56800", // maxTimestamp, the same
		"0000000000000007", // producerId 7
		"0001",             // producerEpoch 1
		"ffffffff",         // baseSequence -1 (NO_SEQUENCE)
		"00000001",         // recordCount 1
		"20",               // length 16 (EndTransactionMarker.CURRENT_END_TXN_SCHEMA_RECORD_SIZE is 17 with it)
		"00",               // attributes
		"00",               // timestampDelta 0
		"00",               // offsetDelta 0
		"08 0000 0001",     // key, 4 bytes: version 0, type 1 (COMMIT)
		"0c 0000 00000005", // value, 6 bytes: version 0, coordinatorEpoch 5
		"00",               // headerCount 0
	)
}

func TestGoldenBatchWithHeaders(t *testing.T) {
	golden := goldenHeadersBatch(t)
	if got := bitwiseCRC32C(golden[attributesOffset:]); got != 0xa4553881 {
		t.Fatalf("golden CRC field is stale: bytes give %#08x", got)
	}
	want := sampleBatches()["headers"]
	want.CRC = 0xa4553881

	b := sampleBatches()["headers"]
	enc, err := b.AppendEncoded(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, golden) {
		t.Errorf("encoded\n%x\nwant\n%x", enc, golden)
	}
	if b.CRC != want.CRC {
		t.Errorf("AppendEncoded left CRC %#08x, want %#08x", b.CRC, want.CRC)
	}
	got, n, err := Decode(golden)
	if err != nil || n != len(golden) {
		t.Fatalf("Decode = %d, %v; want %d, nil", n, err, len(golden))
	}
	sameBatch(t, got, want)
}

func TestGoldenControlBatch(t *testing.T) {
	golden := goldenControlBatch(t)
	if got := bitwiseCRC32C(golden[attributesOffset:]); got != 0x9d50fe03 {
		t.Fatalf("golden CRC field is stale: bytes give %#08x", got)
	}
	b := NewControlBatch(42, 1700000000000, 7, 1, 3, EndTxnMarker{Type: Commit, CoordinatorEpoch: 5})
	if enc := mustEncode(t, b); !bytes.Equal(enc, golden) {
		t.Errorf("encoded\n%x\nwant\n%x", enc, golden)
	}
	got, _, err := Decode(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !got.IsControl() || !got.IsTransactional() || got.Compression() != None || got.TimestampType() != CreateTime {
		t.Errorf("control batch attributes %#04x", got.Attributes)
	}
	if len(got.Records) != 1 {
		t.Fatalf("%d records, want 1", len(got.Records))
	}
	m, err := ParseControlRecord(got.Records[0])
	if err != nil || m != (EndTxnMarker{Type: Commit, CoordinatorEpoch: 5}) {
		t.Errorf("ParseControlRecord = %+v, %v", m, err)
	}
}

// An empty batch is just the 61-byte header, batchLength 49, as the log
// cleaner leaves behind to keep a producer's sequence state
// (DefaultRecordBatch.writeEmptyHeader).
func TestGoldenEmptyBatch(t *testing.T) {
	b := Batch{BaseOffset: 5, LastOffsetDelta: 2, BaseTimestamp: NoTimestamp, MaxTimestamp: 9,
		ProducerID: 4, ProducerEpoch: 0, BaseSequence: 7, PartitionLeaderEpoch: 1}
	enc, err := b.AppendEncoded(nil)
	if err != nil {
		t.Fatal(err)
	}
	head := unhex(t,
		"0000000000000005", // baseOffset 5
		"00000031",         // batchLength 49
		"00000001",         // partitionLeaderEpoch 1
		"02",               // magic
	)
	tail := unhex(t,
		"0000",             // attributes
		"00000002",         // lastOffsetDelta 2
		"ffffffffffffffff", // baseTimestamp -1 (NO_TIMESTAMP)
		"0000000000000009", // maxTimestamp 9
		"0000000000000004", // producerId 4
		"0000",             // producerEpoch 0
		"00000007",         // baseSequence 7
		"00000000",         // recordCount 0
	)
	if len(enc) != HeaderSize || !bytes.Equal(enc[:17], head) || !bytes.Equal(enc[21:], tail) {
		t.Errorf("empty batch\n%x\nwant\n%x........%x", enc, head, tail)
	}
	if got := bitwiseCRC32C(tail); b.CRC != got {
		t.Errorf("CRC %#08x, reference %#08x", b.CRC, got)
	}
}
