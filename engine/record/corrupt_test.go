package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"
)

// Every prefix of a valid batch is a truncated batch, never a panic and never
// a success: a fetch or a segment read can stop anywhere.
func TestEveryTruncation(t *testing.T) {
	for _, c := range codecs {
		enc := mustEncode(t, withCodec(sampleBatches()["headers"], c))
		for n := range len(enc) {
			_, used, err := Decode(enc[:n])
			sameVerdict(t, enc[:n], err)
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrBadLength) {
				t.Errorf("%s cut to %d of %d: %v, want ErrTruncated or ErrBadLength", c, n, len(enc), err)
			}
			if used != 0 {
				t.Errorf("%s cut to %d: Decode says it used %d bytes", c, n, used)
			}
			if err := VerifyCRC(enc[:n]); err == nil {
				t.Errorf("%s cut to %d: VerifyCRC passed", c, n)
			}
		}
	}
}

// The CRC covers attributes to the end: flipping any bit there is caught.
// It does not cover baseOffset, batchLength, partitionLeaderEpoch or magic,
// so a leader can stamp its epoch and assign offsets without recomputing it.
func TestEveryFlippedByte(t *testing.T) {
	for _, c := range codecs {
		enc := mustEncode(t, withCodec(sampleBatches()["headers"], c))
		for i := range len(enc) {
			for _, bit := range []byte{0x01, 0x80} {
				buf := bytes.Clone(enc)
				buf[i] ^= bit
				got, _, err := Decode(buf)
				sameVerdict(t, buf, err)
				switch {
				case i >= crcOffset:
					if !errors.Is(err, ErrCRCMismatch) {
						t.Errorf("%s byte %d ^ %#02x: %v, want ErrCRCMismatch", c, i, bit, err)
					}
					if err := VerifyCRC(buf); !errors.Is(err, ErrCRCMismatch) {
						t.Errorf("%s byte %d ^ %#02x: VerifyCRC %v", c, i, bit, err)
					}
				case i == magicOffset:
					if !errors.Is(err, ErrUnknownMagic) {
						t.Errorf("%s magic ^ %#02x: %v, want ErrUnknownMagic", c, bit, err)
					}
				case i >= partitionLeaderEpochOffset:
					if err != nil || got.PartitionLeaderEpoch == 3 {
						t.Errorf("%s epoch byte %d ^ %#02x: %v, epoch %d", c, i, bit, err, got.PartitionLeaderEpoch)
					}
				case i >= lengthOffset:
					if err == nil {
						t.Errorf("%s batchLength byte %d ^ %#02x: decoded", c, i, bit)
					}
				default:
					if err != nil || got.BaseOffset == 100 {
						t.Errorf("%s baseOffset byte %d ^ %#02x: %v, base %d", c, i, bit, err, got.BaseOffset)
					}
				}
			}
		}
	}
}

func TestHeaderChecks(t *testing.T) {
	valid := mustEncode(t, sampleBatches()["headers"])
	edit := func(f func(b []byte)) []byte { b := bytes.Clone(valid); f(b); return b }
	for _, tc := range []struct {
		name string
		buf  []byte
		want error
	}{
		{"magic 0", edit(func(b []byte) { b[magicOffset] = 0 }), ErrUnknownMagic},
		{"magic 1", edit(func(b []byte) { b[magicOffset] = 1 }), ErrUnknownMagic},
		{"magic 3", edit(func(b []byte) { b[magicOffset] = 3 }), ErrUnknownMagic},
		{"magic -1", edit(func(b []byte) { b[magicOffset] = 0xff }), ErrUnknownMagic},
		{"length 48", edit(func(b []byte) { binary.BigEndian.PutUint32(b[lengthOffset:], 48) }), ErrBadLength},
		{"length 4", edit(func(b []byte) { binary.BigEndian.PutUint32(b[lengthOffset:], 4) }), ErrBadLength},
		{"length 0", edit(func(b []byte) { binary.BigEndian.PutUint32(b[lengthOffset:], 0) }), ErrBadLength},
		{"length -1", edit(func(b []byte) { binary.BigEndian.PutUint32(b[lengthOffset:], 0xffffffff) }), ErrBadLength},
		{"length max", edit(func(b []byte) { binary.BigEndian.PutUint32(b[lengthOffset:], 0x7fffffff) }), ErrTruncated},
		{"length one short", edit(func(b []byte) { binary.BigEndian.PutUint32(b[lengthOffset:], uint32(len(b)-LogOverhead-1)) }), ErrCRCMismatch},
		{"codec 5", fixCRC(edit(func(b []byte) { b[attributesOffset+1] = 5 })), ErrUnsupportedCompression},
		{"codec 7", fixCRC(edit(func(b []byte) { b[attributesOffset+1] = 7 })), ErrUnsupportedCompression},
		{"count -1", fixCRC(edit(func(b []byte) { binary.BigEndian.PutUint32(b[recordCountOffset:], 0xffffffff) })), ErrCorruptRecord},
		{"count 2 of 3", fixCRC(edit(func(b []byte) { binary.BigEndian.PutUint32(b[recordCountOffset:], 2) })), ErrCorruptRecord},
		{"count 4 of 3", fixCRC(edit(func(b []byte) { binary.BigEndian.PutUint32(b[recordCountOffset:], 4) })), ErrCorruptRecord},
	} {
		if _, n, err := Decode(tc.buf); !errors.Is(err, tc.want) || n != 0 {
			t.Errorf("%s: %d, %v; want 0, %v", tc.name, n, err, tc.want)
		}
		sameVerdict(t, tc.buf, tc.want)
	}
	// A legacy (magic 0 or 1) message set is reported by its magic even when
	// it is shorter than a v2 header.
	legacy := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 0, 1}
	if _, err := ReadHeader(legacy); !errors.Is(err, ErrUnknownMagic) {
		t.Errorf("legacy message: %v, want ErrUnknownMagic", err)
	}
}

// Records inside a batch whose CRC is right can still be malformed; Kafka's
// DefaultRecord.readFrom turns each of these into InvalidRecordException.
func TestCorruptRecords(t *testing.T) {
	header := mustEncode(t, Batch{})
	good := func(tail ...byte) []byte {
		// attributes, timestampDelta 0, offsetDelta 0, key "k", value "v", then tail
		return append([]byte{0, 0, 0, 2, 'k', 2, 'v'}, tail...)
	}
	withLength := func(body []byte) []byte { return append(AppendVarint(nil, int64(len(body))), body...) }
	for _, tc := range []struct {
		name    string
		records []byte
	}{
		{"no records at all", nil},
		{"length negative", append(AppendVarint(nil, -2), good(0)...)},
		{"length past the end", append(AppendVarint(nil, 100), good(0)...)},
		{"length longer than fields", append(AppendVarint(nil, int64(len(good(0))+1)), append(good(0), 0)...)},
		{"length shorter than fields", append(AppendVarint(nil, int64(len(good(0))-1)), good(0)...)},
		{"empty body", withLength(nil)},
		{"no header count", withLength(good())},
		{"header count negative", withLength(good(3))},
		{"header count beyond the bytes", withLength(good(20, 0, 0))},
		{"null header key", withLength(good(2, 1, 0))},
		{"header key past the end", withLength(good(2, 10, 'a'))},
		{"header value past the end", withLength(good(2, 2, 'a', 10))},
		{"key past the end", withLength([]byte{0, 0, 0, 20, 'k'})},
		{"varint offsetDelta of six bytes", withLength([]byte{0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 1, 1, 0})},
		{"varint runs off the record", withLength([]byte{0, 0x80})},
		{"a second record the count does not declare", append(withLength(good(0)), withLength(good(0))...)},
	} {
		buf := withRecordsSection(t, header, None, 1, tc.records)
		if _, n, err := Decode(buf); !errors.Is(err, ErrCorruptRecord) || n != 0 {
			t.Errorf("%s: %d, %v; want ErrCorruptRecord", tc.name, n, err)
		}
		sameVerdict(t, buf, ErrCorruptRecord)
	}
	// The same record, well formed, decodes: the cases above differ only in
	// what they break.
	buf := withRecordsSection(t, header, None, 1, withLength(good(0)))
	if b, _, err := Decode(buf); err != nil || string(b.Records[0].Key) != "k" {
		t.Errorf("the well-formed record: %v", err)
	}
	// Kafka reads any negative length as null, not only -1.
	buf = withRecordsSection(t, header, None, 1, withLength([]byte{0, 0, 0, 0x03, 0x05, 0}))
	if b, _, err := Decode(buf); err != nil || b.Records[0].Key != nil || b.Records[0].Value != nil {
		t.Errorf("lengths -2 and -3: %+v, %v", b.Records, err)
	}
}

// Like Kafka, a batch whose recordCount is 0 has nothing to read: the
// records section is not parsed (the log cleaner's empty batches have none).
func TestZeroCountSkipsRecords(t *testing.T) {
	header := mustEncode(t, Batch{})
	buf := withRecordsSection(t, header, Gzip, 0, []byte("whatever"))
	if b, n, err := Decode(buf); err != nil || n != len(buf) || b.Records != nil {
		t.Errorf("Decode = %v, %d, %v", b.Records, n, err)
	}
}

// A hostile recordCount or header count must not size an allocation: what
// Decode allocates stays in proportion to the bytes it was given.
func TestHostileCountsDoNotAllocate(t *testing.T) {
	header := mustEncode(t, Batch{})
	for _, tc := range []struct {
		name    string
		count   int32
		records []byte
	}{
		{"recordCount max", 1<<31 - 1, []byte{12, 0, 0, 0, 1, 1, 0}},
		{"header count max", 1, append(AppendVarint(nil, 10), 0, 0, 0, 1, 1, 0xfe, 0xff, 0xff, 0xff, 0x0f)},
	} {
		buf := withRecordsSection(t, header, None, tc.count, tc.records)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _, err := Decode(buf)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrCorruptRecord) {
			t.Errorf("%s: %v, want ErrCorruptRecord", tc.name, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<10 {
			t.Errorf("%s: Decode allocated %d bytes for a %d-byte batch", tc.name, grew, len(buf))
		}
	}
}

// sameVerdict checks that Validate rejects buf exactly when Decode does
// (decodeErr is Decode's error), with the same error: the checker trusts
// Validate to stand for a decode.
func sameVerdict(t *testing.T, buf []byte, decodeErr error) {
	t.Helper()
	err := Validate(buf)
	if (err == nil) != (decodeErr == nil) || (err != nil && !errors.Is(err, decodeErr) && err.Error() != decodeErr.Error()) {
		t.Errorf("Validate: %v; Decode: %v", err, decodeErr)
	}
}
