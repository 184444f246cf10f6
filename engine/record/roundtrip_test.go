package record

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func TestRoundTripEveryCodec(t *testing.T) {
	batches := sampleBatches()
	for _, name := range sortedNames(batches) {
		for _, c := range codecs {
			t.Run(name+"/"+c.String(), func(t *testing.T) {
				b := withCodec(batches[name], c)
				enc, err := b.AppendEncoded(nil)
				if err != nil {
					t.Fatal(err)
				}
				if b.CRC != CRC32C(enc[attributesOffset:]) {
					t.Errorf("b.CRC %#08x is not the CRC written", b.CRC)
				}
				got, n, err := Decode(enc)
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if n != len(enc) {
					t.Errorf("Decode took %d of %d bytes", n, len(enc))
				}
				sameBatch(t, got, b)
				// Encoding is deterministic: the same batch, the same bytes.
				again, err := got.AppendEncoded(nil)
				if err != nil || !bytes.Equal(again, enc) {
					t.Errorf("re-encoding gave different bytes (%v)", err)
				}
				if err := VerifyCRC(enc); err != nil {
					t.Errorf("VerifyCRC: %v", err)
				}
			})
		}
	}
}

// Compressed batches are smaller than their records when the records are
// compressible, and every codec writes its own framing.
func TestCompressionShrinksAndFrames(t *testing.T) {
	b := sampleBatches()["large"]
	b.Records = b.Records[:1] // the compressible text only
	plain := mustEncode(t, b)
	magic := map[Compression][]byte{
		Gzip:   {0x1f, 0x8b, 0x08},                                              // RFC 1952 ID1 ID2, CM=deflate
		Snappy: {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}, // snappy-java header, versions 1 and 1
		LZ4:    {0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82},                      // frame magic, FLG, BD 64 KiB, HC
		Zstd:   {0x28, 0xb5, 0x2f, 0xfd},                                        // RFC 8878 magic
	}
	for _, c := range codecs[1:] {
		enc := mustEncode(t, withCodec(b, c))
		if len(enc) >= len(plain)/2 {
			t.Errorf("%s: %d bytes, uncompressed %d", c, len(enc), len(plain))
		}
		if !bytes.HasPrefix(enc[HeaderSize:], magic[c]) {
			t.Errorf("%s records start %x, want %x", c, enc[HeaderSize:HeaderSize+16], magic[c])
		}
	}
}

// Decode copies the records out of buf, so the caller may reuse buf.
func TestDecodeDoesNotAliasInput(t *testing.T) {
	enc := mustEncode(t, sampleBatches()["headers"])
	got, _, err := Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	for i := range enc {
		enc[i] = 0xee
	}
	sameBatch(t, got, func() Batch { b := sampleBatches()["headers"]; b.CRC = got.CRC; return b }())
	// Appending to one field must not overwrite the next.
	k := append(got.Records[0].Key, 'X')
	if string(got.Records[0].Value) != "hello" || string(k) != "kX" {
		t.Errorf("append to Key clobbered Value: %q", got.Records[0].Value)
	}
}

// Decode reads one batch and leaves what follows: a segment is batches back
// to back.
func TestDecodeConsecutiveBatches(t *testing.T) {
	var log []byte
	var want []Batch
	for i, c := range codecs {
		b := withCodec(sampleBatches()["headers"], c)
		b.BaseOffset = int64(i * 3)
		var err error
		if log, err = b.AppendEncoded(log); err != nil {
			t.Fatal(err)
		}
		want = append(want, b)
	}
	for i := 0; len(log) > 0; i++ {
		h, err := ReadHeader(log)
		if err != nil {
			t.Fatal(err)
		}
		got, n, err := Decode(log)
		if err != nil {
			t.Fatal(err)
		}
		if n != h.Size() {
			t.Errorf("batch %d: Decode took %d, header says %d", i, n, h.Size())
		}
		sameBatch(t, got, want[i])
		log = log[n:]
	}
}

func TestEncodeAppendsAndFailsCleanly(t *testing.T) {
	prefix := []byte("prefix")
	b := sampleBatches()["headers"]
	out, err := b.AppendEncoded(prefix)
	if err != nil || !bytes.HasPrefix(out, prefix) {
		t.Fatalf("AppendEncoded(prefix) = %q…, %v", out[:6], err)
	}
	if _, n, err := Decode(out[len(prefix):]); err != nil || n != len(out)-len(prefix) {
		t.Errorf("Decode after prefix: %d, %v", n, err)
	}
	for _, bad := range []int16{5, 6, 7} {
		b.Attributes = bad
		out, err := b.AppendEncoded(prefix)
		if !errors.Is(err, ErrUnsupportedCompression) || !bytes.Equal(out, prefix) {
			t.Errorf("codec %d: %q, %v; want prefix unchanged, ErrUnsupportedCompression", bad, out, err)
		}
	}
}

func TestAttributes(t *testing.T) {
	for _, tc := range []struct {
		c             Compression
		ts            TimestampType
		txn, ctl, del bool
		want          int16
	}{
		{None, CreateTime, false, false, false, 0x00},
		{Gzip, CreateTime, false, false, false, 0x01},
		{Snappy, LogAppendTime, false, false, false, 0x0a},
		{LZ4, CreateTime, true, false, false, 0x13},
		{Zstd, CreateTime, true, true, false, 0x34},
		{None, LogAppendTime, false, false, true, 0x48},
	} {
		a := ComputeAttributes(tc.c, tc.ts, tc.txn, tc.ctl)
		if tc.del {
			a |= deleteHorizonMask
		}
		if a != tc.want {
			t.Errorf("attributes(%v) = %#04x, want %#04x", tc, a, tc.want)
		}
		b := Batch{Attributes: a}
		h := BatchHeader{Attributes: a}
		if b.Compression() != tc.c || h.Compression() != tc.c ||
			b.TimestampType() != tc.ts || h.TimestampType() != tc.ts ||
			b.IsTransactional() != tc.txn || h.IsTransactional() != tc.txn ||
			b.IsControl() != tc.ctl || h.IsControl() != tc.ctl ||
			b.HasDeleteHorizon() != tc.del || h.HasDeleteHorizon() != tc.del {
			t.Errorf("helpers disagree with %#04x", a)
		}
	}
}

func TestOffsetsSequencesTimestamps(t *testing.T) {
	b := Batch{BaseOffset: 100, LastOffsetDelta: 4, BaseSequence: 10, BaseTimestamp: 1000, MaxTimestamp: 2000}
	r := Record{OffsetDelta: 3, TimestampDelta: 7}
	if b.LastOffset() != 104 || b.NextOffset() != 105 || b.Offset(r) != 103 {
		t.Errorf("offsets %d %d %d", b.LastOffset(), b.NextOffset(), b.Offset(r))
	}
	if b.LastSequence() != 14 || b.Sequence(r) != 13 {
		t.Errorf("sequences %d %d", b.LastSequence(), b.Sequence(r))
	}
	if b.Timestamp(r) != 1007 {
		t.Errorf("CreateTime timestamp %d", b.Timestamp(r))
	}
	b.Attributes = ComputeAttributes(None, LogAppendTime, false, false)
	if b.Timestamp(r) != 2000 {
		t.Errorf("LogAppendTime timestamp %d, want maxTimestamp", b.Timestamp(r))
	}
	// Sequences wrap from MaxInt32 to 0 (DefaultRecordBatch.incrementSequence).
	for _, tc := range []struct{ base, delta, want int32 }{
		{NoSequence, 5, NoSequence},
		{0, 0, 0},
		{math.MaxInt32, 0, math.MaxInt32},
		{math.MaxInt32 - 1, 1, math.MaxInt32},
		{math.MaxInt32 - 1, 3, 1},
		{math.MaxInt32, 1, 0},
	} {
		b := Batch{BaseSequence: tc.base, LastOffsetDelta: tc.delta}
		h := BatchHeader{BaseSequence: tc.base, LastOffsetDelta: tc.delta}
		if b.LastSequence() != tc.want || h.LastSequence() != tc.want {
			t.Errorf("LastSequence(%d + %d) = %d/%d, want %d", tc.base, tc.delta, b.LastSequence(), h.LastSequence(), tc.want)
		}
	}
	if (&Batch{BaseSequence: NoSequence}).Sequence(r) != NoSequence {
		t.Error("Sequence without an idempotent producer")
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		c    Compression
		name string
	}{{None, "none"}, {Gzip, "gzip"}, {Snappy, "snappy"}, {LZ4, "lz4"}, {Zstd, "zstd"}, {5, "unknown(5)"}} {
		c, name := tc.c, tc.name
		if c.String() != name {
			t.Errorf("Compression(%d) = %q, want %q", c, c.String(), name)
		}
		if !c.Known() {
			continue
		}
		if got, err := ParseCompression(name); err != nil || got != c {
			t.Errorf("ParseCompression(%q) = %v, %v", name, got, err)
		}
	}
	for _, s := range []string{"", "GZIP", "Snappy", "producer", "uncompressed", "brotli", "unknown(5)"} {
		if _, err := ParseCompression(s); !errors.Is(err, ErrUnsupportedCompression) {
			t.Errorf("ParseCompression(%q): %v, want ErrUnsupportedCompression", s, err)
		}
	}
	if CreateTime.String() != "CreateTime" || LogAppendTime.String() != "LogAppendTime" {
		t.Error("TimestampType names")
	}
	for _, tc := range []struct {
		ct   ControlType
		name string
	}{{Abort, "ABORT"}, {Commit, "COMMIT"}, {2, "LEADER_CHANGE"}, {6, "KRAFT_VOTERS"}, {99, "UNKNOWN"}, {-1, "UNKNOWN"}} {
		if tc.ct.String() != tc.name {
			t.Errorf("ControlType(%d) = %q, want %q", tc.ct, tc.ct.String(), tc.name)
		}
	}
}
