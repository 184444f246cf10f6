package record

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var codecs = []Compression{None, Gzip, Snappy, LZ4, Zstd}

// mustEncode encodes b or fails the test.
func mustEncode(t testing.TB, b Batch) []byte {
	t.Helper()
	enc, err := b.AppendEncoded(nil)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return enc
}

// withCodec returns b with its compression bits set to c.
func withCodec(b Batch, c Compression) Batch {
	b.Attributes = b.Attributes&^compressionMask | int16(c)
	return b
}

// fixCRC recomputes the CRC of an encoded batch after a test edited it, so
// the edit reaches the checks behind the CRC.
func fixCRC(buf []byte) []byte {
	binary.BigEndian.PutUint32(buf[crcOffset:], CRC32C(buf[attributesOffset:]))
	return buf
}

// setBatchLength rewrites batchLength to match len(buf).
func setBatchLength(buf []byte) []byte {
	binary.BigEndian.PutUint32(buf[lengthOffset:], uint32(len(buf)-LogOverhead))
	return buf
}

// withRecordsSection replaces the records section of an encoded batch,
// fixing batchLength and the CRC: a batch with hand-made records bytes.
func withRecordsSection(t testing.TB, header []byte, c Compression, count int32, records []byte) []byte {
	t.Helper()
	buf := append(append([]byte(nil), header[:HeaderSize]...), records...)
	binary.BigEndian.PutUint16(buf[attributesOffset:], uint16(ComputeAttributes(c, CreateTime, false, false)))
	binary.BigEndian.PutUint32(buf[recordCountOffset:], uint32(count))
	return fixCRC(setBatchLength(buf))
}

// text makes n bytes of deterministic, compressible, word-like data.
func text(seed uint64, n int) []byte {
	words := strings.Fields("the log is the truth replica leader follower offset partition " +
		"segment index producer consumer epoch fetch commit abort isr watermark")
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.Bytes()[:n]
}

// noise makes n bytes of deterministic incompressible data.
func noise(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// sampleBatches are the shapes every codec must carry: null versus empty
// keys and values, null header values, tombstones, negative deltas, extreme
// header fields, no records, and records big enough to span several
// compression blocks (snappy-java's are 32 KiB, Kafka's lz4 ones 64 KiB).
func sampleBatches() map[string]Batch {
	return map[string]Batch{
		"headers": {
			BaseOffset: 100, PartitionLeaderEpoch: 3, LastOffsetDelta: 2,
			BaseTimestamp: 1700000000000, MaxTimestamp: 1700000000007,
			ProducerID: 7, ProducerEpoch: 0, BaseSequence: 10,
			Records: []Record{
				{Key: []byte("k"), Value: []byte("hello"), Headers: []Header{{Key: "trace", Value: []byte("abc")}, {Key: "null", Value: nil}}},
				{TimestampDelta: 5, OffsetDelta: 1, Key: []byte{}, Value: []byte{}, Headers: []Header{{Key: "", Value: []byte{}}}},
				{TimestampDelta: 7, OffsetDelta: 2, Key: []byte("k"), Value: nil},
			},
		},
		"nulls": {
			BaseOffset: 0, PartitionLeaderEpoch: NoPartitionLeaderEpoch, LastOffsetDelta: 3,
			BaseTimestamp: 5, MaxTimestamp: 5,
			ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch, BaseSequence: NoSequence,
			Records: []Record{
				{Key: nil, Value: nil},
				{OffsetDelta: 1, Key: []byte{}, Value: nil},
				{OffsetDelta: 2, Key: nil, Value: []byte{}},
				{OffsetDelta: 3, Key: []byte{}, Value: []byte{}, Headers: []Header{{Key: "a", Value: nil}, {Key: "b", Value: []byte{}}}},
			},
		},
		"extremes": {
			BaseOffset: 1<<63 - 1<<40, PartitionLeaderEpoch: 1<<31 - 1,
			Attributes:      ComputeAttributes(None, LogAppendTime, true, false) | deleteHorizonMask,
			LastOffsetDelta: 1<<31 - 1, BaseTimestamp: -1, MaxTimestamp: 1<<63 - 1,
			ProducerID: 1<<63 - 1, ProducerEpoch: 1<<15 - 1, BaseSequence: 1<<31 - 2,
			Records: []Record{
				{Attributes: -1, TimestampDelta: -1 << 63, OffsetDelta: -1 << 31, Key: []byte{0}, Value: []byte{0xff}},
				{TimestampDelta: 1<<63 - 1, OffsetDelta: 1<<31 - 1, Key: []byte("x"), Value: []byte("y")},
			},
		},
		"empty": {
			BaseOffset: 9, LastOffsetDelta: 4, BaseTimestamp: NoTimestamp, MaxTimestamp: 42,
			ProducerID: 3, ProducerEpoch: 1, BaseSequence: 0,
		},
		"control": NewControlBatch(42, 1700000000000, 7, 1, 3, EndTxnMarker{Type: Abort, CoordinatorEpoch: 9}),
		"large": {
			BaseOffset: 1000, LastOffsetDelta: 2, BaseTimestamp: 1, MaxTimestamp: 3,
			ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch, BaseSequence: NoSequence,
			Records: []Record{
				{Key: []byte("text"), Value: text(1, 200<<10)},
				{TimestampDelta: 1, OffsetDelta: 1, Key: []byte("noise"), Value: noise(2, 100<<10)},
				{TimestampDelta: 2, OffsetDelta: 2, Key: text(3, 1000), Value: text(4, 70<<10), Headers: []Header{{Key: string(text(5, 300)), Value: noise(6, 300)}}},
			},
		},
	}
}

// sortedNames keeps test order deterministic: never range over a map to
// produce output.
func sortedNames(m map[string]Batch) []string { return slices.Sorted(maps.Keys(m)) }

// sameBatch compares two batches, telling nil from empty slices apart, which
// reflect.DeepEqual does.
func sameBatch(t testing.TB, got, want Batch) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("batches differ\n got: %s\nwant: %s", describe(got), describe(want))
	}
}

// describe prints a batch with its slices' nil-ness visible, trimming big
// values.
func describe(b Batch) string {
	var s strings.Builder
	r := b.Records
	b.Records = nil
	s.WriteString(strings.TrimSpace(fmt.Sprintf("%+v", b)))
	for i, rec := range r {
		s.WriteString(fmt.Sprintf("\n  [%d] attr=%d ts=%d off=%d key=%s value=%s headers=",
			i, rec.Attributes, rec.TimestampDelta, rec.OffsetDelta, short(rec.Key), short(rec.Value)))
		if rec.Headers == nil {
			s.WriteString("nil")
		}
		for _, h := range rec.Headers {
			s.WriteString(fmt.Sprintf("{%q %s}", trim(h.Key), short(h.Value)))
		}
	}
	return s.String()
}

func short(b []byte) string {
	if b == nil {
		return "null"
	}
	return fmt.Sprintf("%q(len %d)", trim(string(b)), len(b))
}

func trim(s string) string {
	if len(s) > 16 {
		return s[:16] + "…"
	}
	return s
}
