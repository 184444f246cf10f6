package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
)

// xxh32 is XXH32 for inputs under 16 bytes, from the xxHash specification;
// enough to check an LZ4 frame's header checksum independently of the lz4
// library.
func xxh32Short(b []byte, seed uint32) uint32 {
	const p1, p2, p3, p4, p5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
	h := seed + p5 + uint32(len(b))
	for ; len(b) >= 4; b = b[4:] {
		h += binary.LittleEndian.Uint32(b) * p3
		h = bits.RotateLeft32(h, 17) * p4
	}
	for _, c := range b {
		h += uint32(c) * p5
		h = bits.RotateLeft32(h, 11) * p1
	}
	h ^= h >> 15
	h *= p2
	h ^= h >> 13
	h *= p3
	h ^= h >> 16
	return h
}

// Kafka's Lz4BlockOutputStream frame: FLG = version 01, block independence,
// no block checksum, no content size, no content checksum; BD = 64 KiB
// blocks; HC = second byte of XXH32(FLG BD); blocks; a zero end mark.
func TestLZ4FrameAsKafkaWritesIt(t *testing.T) {
	raw := text(7, 150<<10) // three 64 KiB blocks
	frame, err := compressLZ4(nil, raw)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(frame, []byte{0x04, 0x22, 0x4d, 0x18}) {
		t.Fatalf("frame magic %x", frame[:4])
	}
	flg, bd, hc := frame[4], frame[5], frame[6]
	if flg != 0x60 || bd != 0x40 {
		t.Errorf("FLG %#02x BD %#02x, want 0x60 0x40", flg, bd)
	}
	if want := byte(xxh32Short(frame[4:6], 0) >> 8); hc != want {
		t.Errorf("header checksum %#02x, want %#02x", hc, want)
	}
	// Walk the blocks: each at most 64 KiB of input, then the end mark.
	p, blocks := frame[7:], 0
	for {
		size := binary.LittleEndian.Uint32(p)
		p = p[4:]
		if size == 0 {
			break
		}
		size &^= 1 << 31 // the high bit marks a stored (incompressible) block
		p = p[size:]
		blocks++
	}
	if blocks != 3 || len(p) != 0 {
		t.Errorf("%d blocks and %d trailing bytes, want 3 and 0 (no content checksum)", blocks, len(p))
	}
	if got, err := decompressLZ4(frame, 1<<20); err != nil || !bytes.Equal(got, raw) {
		t.Errorf("decompress: %v", err)
	}
	if xxh32Short(nil, 0) != 0x02CC5D05 { // the specification's empty-input value
		t.Errorf("xxh32 reference is wrong")
	}
}

func TestSnappyJavaFraming(t *testing.T) {
	raw := text(8, 100<<10)
	framed := compressSnappy(nil, raw)
	if !bytes.HasPrefix(framed, []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}) {
		t.Fatalf("header %x", framed[:16])
	}
	// Blocks of 32 KiB of input, each behind a big-endian length.
	p, blocks := framed[16:], 0
	for len(p) > 0 {
		size := binary.BigEndian.Uint32(p)
		n, err := snappy.DecodedLen(p[4 : 4+size])
		if err != nil || n > 32<<10 {
			t.Fatalf("block %d decodes to %d bytes (%v)", blocks, n, err)
		}
		p = p[4+size:]
		blocks++
	}
	if blocks != 4 { // 100 KiB = 3 × 32 KiB + 4 KiB
		t.Errorf("%d blocks, want 4", blocks)
	}
	if got, err := decompressSnappy(framed, 1<<20); err != nil || !bytes.Equal(got, raw) {
		t.Errorf("round trip: %v", err)
	}
	// SnappyOutputStream writes its header even with nothing to compress.
	if empty := compressSnappy(nil, nil); len(empty) != 16 {
		t.Errorf("empty stream is %d bytes, want the 16-byte header", len(empty))
	} else if got, err := decompressSnappy(empty, 10); err != nil || len(got) != 0 {
		t.Errorf("empty stream decodes to %d bytes, %v", len(got), err)
	}
}

// Like snappy-java's SnappyInputStream: no magic means one raw snappy block,
// as some clients send; a second header mid-stream starts a concatenated
// stream; bad framing fails.
func TestSnappyJavaReader(t *testing.T) {
	a, b := text(9, 5000), text(10, 70000)
	if got, err := decompressSnappy(snappy.Encode(nil, a), 1<<20); err != nil || !bytes.Equal(got, a) {
		t.Errorf("raw block: %v", err)
	}
	concatenated := compressSnappy(compressSnappy(nil, a), b)
	if got, err := decompressSnappy(concatenated, 1<<20); err != nil || !bytes.Equal(got, append(a[:len(a):len(a)], b...)) {
		t.Errorf("concatenated streams: %v", err)
	}
	framed := compressSnappy(nil, a)
	old := bytes.Clone(framed)
	binary.BigEndian.PutUint32(old[8:], 0)
	for _, tc := range []struct {
		name string
		bad  []byte
	}{
		{"cut in a block length", framed[:18]},
		{"cut in a block", framed[:len(framed)-1]},
		{"cut in the header", framed[:12]},
		{"version 0", old},
		{"not snappy", []byte("definitely not snappy")},
	} {
		if _, err := decompressSnappy(tc.bad, 1<<20); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// Kafka's zstd-jni stream has no content checksum; neither does ours (the
// batch CRC already covers the bytes).
func TestZstdFrameHasNoChecksum(t *testing.T) {
	frame, err := compressZstd(nil, text(11, 1000))
	if err != nil {
		t.Fatal(err)
	}
	if fhd := frame[4]; fhd&0x04 != 0 {
		t.Errorf("frame header descriptor %#02x sets Content_Checksum_flag", fhd)
	}
}

// A zip bomb: a record of zeros that inflates far beyond the batch. Every
// codec must stop at the limit rather than allocate the lot.
func TestDecompressionLimit(t *testing.T) {
	bomb := Batch{Records: []Record{{Value: make([]byte, 4<<20)}}, BaseSequence: NoSequence}
	for _, c := range codecs[1:] {
		enc := mustEncode(t, withCodec(bomb, c))
		if len(enc) > 300<<10 {
			t.Fatalf("%s: the bomb is %d bytes, not much of a bomb", c, len(enc))
		}
		if _, _, err := decode(enc, 1<<20); !errors.Is(err, ErrDecompressedTooLarge) {
			t.Errorf("%s: %v, want ErrDecompressedTooLarge", c, err)
		}
		if _, _, err := decode(enc, 8<<20); err != nil {
			t.Errorf("%s under the limit: %v", c, err)
		}
	}
}

// The package limit itself, through the shared zstd decoder: zstd writes the
// content size in the frame, so the decoder refuses before allocating.
func TestMaxDecompressedSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 64 MiB input")
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	frame := enc.EncodeAll(make([]byte, MaxDecompressedSize+1), nil)
	buf := withRecordsSection(t, mustEncode(t, Batch{}), Zstd, 1, frame)
	if _, _, err := Decode(buf); !errors.Is(err, ErrDecompressedTooLarge) {
		t.Errorf("Decode: %v, want ErrDecompressedTooLarge", err)
	}
}

func TestGarbageCompressedRecords(t *testing.T) {
	header := mustEncode(t, Batch{})
	for _, c := range codecs[1:] {
		for _, garbage := range [][]byte{{}, {0}, []byte("not compressed at all, not even a little")} {
			buf := withRecordsSection(t, header, c, 1, garbage)
			if _, _, err := Decode(buf); !errors.Is(err, ErrCorruptRecord) {
				t.Errorf("%s %q: %v, want ErrCorruptRecord", c, garbage, err)
			}
		}
	}
}
