package record

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzDecode feeds Decode arbitrary bytes. It must never panic, and whatever
// it accepts must survive a round trip: re-encoding gives a batch that
// decodes to the same Batch (apart from the CRC, since compressed bytes or
// overlong varints may be written differently), and encoding is stable from
// then on.
func FuzzDecode(f *testing.F) {
	batches := sampleBatches()
	for _, name := range sortedNames(batches) {
		if name == "large" {
			continue // seeds should be small for the mutator to work with
		}
		for _, c := range codecs {
			f.Add(mustEncode(f, withCodec(batches[name], c)))
		}
	}
	f.Add(snappyRawSeed(f))
	f.Add([]byte{})

	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, data)
		// Almost every mutation breaks the CRC, which hides the record
		// parser and the decompressors from the fuzzer; try each input
		// again with its CRC made right.
		if h, err := ReadHeader(data); err == nil && h.Size() <= len(data) {
			fixed := bytes.Clone(data[:h.Size()])
			binary.BigEndian.PutUint32(fixed[crcOffset:], CRC32C(fixed[attributesOffset:]))
			checkDecode(t, fixed)
		}
	})
}

func checkDecode(t *testing.T, data []byte) {
	b, n, err := decode(data, 1<<20) // a small limit keeps the fuzzer fast
	if _, _, verr := parse(data, 1<<20, false); (verr == nil) != (err == nil) || (err != nil && verr.Error() != err.Error()) {
		t.Fatalf("Validate: %v; Decode: %v", verr, err)
	}
	if err != nil {
		if n != 0 {
			t.Fatalf("error %v but %d bytes used", err, n)
		}
		return
	}
	h, herr := ReadHeader(data)
	if herr != nil || n != h.Size() || n > len(data) {
		t.Fatalf("Decode used %d bytes; header %+v, %v", n, h, herr)
	}
	if err := VerifyCRC(data); err != nil {
		t.Fatalf("Decode accepted what VerifyCRC rejects: %v", err)
	}
	enc, err := b.AppendEncoded(nil)
	if err != nil {
		t.Fatalf("re-encoding a decoded batch: %v", err)
	}
	b2, n2, err := decode(enc, 1<<20)
	if err != nil || n2 != len(enc) {
		t.Fatalf("decoding the re-encoded batch: %d of %d, %v", n2, len(enc), err)
	}
	if b2.CRC != b.CRC && bytes.Equal(enc, data[:n]) {
		t.Fatalf("same bytes, different CRC")
	}
	b2.CRC = b.CRC
	sameBatch(t, b2, b)
	enc2, err := b2.AppendEncoded(nil)
	if err != nil || !bytes.Equal(enc2, enc) {
		t.Fatalf("encoding is not stable: %v", err)
	}
}

// snappyRawSeed is a snappy batch whose records are one raw block, without
// snappy-java's framing, as some non-Java clients write.
func snappyRawSeed(f *testing.F) []byte {
	b := sampleBatches()["headers"]
	raw, err := b.appendRecords(nil)
	if err != nil {
		f.Fatal(err)
	}
	return withRecordsSection(f, mustEncode(f, Batch{}), Snappy, int32(len(b.Records)), appendSnappyBlock(nil, raw))
}
