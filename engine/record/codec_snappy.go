package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/klauspost/compress/snappy"
)

// Snappy in Kafka is not the Snappy framing format but snappy-java's own
// stream, which Kafka writes through org.xerial.snappy.SnappyOutputStream:
//
//	magic     8 bytes  0x82 'S' 'N' 'A' 'P' 'P' 'Y' 0x00
//	version   int32    1 (SnappyCodec.DEFAULT_VERSION)
//	compat    int32    1 (SnappyCodec.MINIMUM_COMPATIBLE_VERSION)
//	then blocks: int32 compressed length, a raw snappy block
//
// The writer cuts the input into 32 KiB blocks (SnappyOutputStream's
// DEFAULT_BLOCK_SIZE, which Kafka keeps as compression.snappy.block.size,
// KIP-780) and writes the header even when there is no input. Integers are
// big-endian.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

const (
	xerialHeaderSize = 16
	xerialBlockSize  = 32 << 10
	xerialVersion    = 1
)

func compressSnappy(dst, src []byte) []byte {
	dst = append(dst, xerialMagic...)
	dst = binary.BigEndian.AppendUint32(dst, xerialVersion)
	dst = binary.BigEndian.AppendUint32(dst, xerialVersion)
	for len(src) > 0 {
		n := min(len(src), xerialBlockSize)
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0) // the length, filled in below
		dst = appendSnappyBlock(dst, src[:n])
		binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
		src = src[n:]
	}
	return dst
}

// appendSnappyBlock appends one raw snappy block, encoding in place when dst
// has room.
func appendSnappyBlock(dst, src []byte) []byte {
	at := len(dst)
	need := snappy.MaxEncodedLen(len(src))
	if cap(dst)-at < need {
		grown := make([]byte, at, at+need)
		copy(grown, dst)
		dst = grown
	}
	block := snappy.Encode(dst[at:at+need], src)
	return dst[:at+len(block)]
}

// decompressSnappy reads snappy-java's stream. Like SnappyInputStream, input
// without the magic is taken as one raw snappy block (what some non-Java
// clients send), and a second header in the middle starts a concatenated
// stream.
func decompressSnappy(src []byte, limit int) ([]byte, error) {
	if !bytes.HasPrefix(src, xerialMagic) {
		return decodeSnappyBlock(nil, src, limit)
	}
	var out []byte
	for len(src) > 0 {
		if bytes.HasPrefix(src, xerialMagic) {
			if len(src) < xerialHeaderSize {
				return nil, errors.New("snappy-java header cut short")
			}
			// SnappyInputStream rejects streams from a codec version below
			// the one it still understands.
			if v := int32(binary.BigEndian.Uint32(src[8:])); v < xerialVersion {
				return nil, fmt.Errorf("snappy-java version %d is incompatible", v)
			}
			src = src[xerialHeaderSize:]
			continue
		}
		if len(src) < 4 {
			return nil, fmt.Errorf("snappy-java block length cut short: %d bytes", len(src))
		}
		size := binary.BigEndian.Uint32(src)
		src = src[4:]
		if uint64(size) > uint64(len(src)) {
			return nil, fmt.Errorf("snappy-java block of %d bytes, %d remain", size, len(src))
		}
		var err error
		if out, err = decodeSnappyBlock(out, src[:size], limit); err != nil {
			return nil, err
		}
		src = src[size:]
	}
	if out == nil {
		out = []byte{}
	}
	return out, nil
}

// decodeSnappyBlock appends one raw block to dst. The block states its
// decoded length up front; check it against the limit before allocating.
func decodeSnappyBlock(dst, block []byte, limit int) ([]byte, error) {
	n, err := snappy.DecodedLen(block)
	if err != nil {
		return nil, err
	}
	if n > limit-len(dst) {
		return nil, tooLarge(limit)
	}
	at := len(dst)
	if cap(dst)-at < n {
		grown := make([]byte, at, min(max(at+n, 2*cap(dst)), limit))
		copy(grown, dst)
		dst = grown
	}
	// DecodeStrict is standard snappy, as snappy-java decodes it; plain
	// Decode would also accept S2's extensions.
	got, err := snappy.DecodeStrict(dst[at:at+n], block)
	if err != nil {
		return nil, err
	}
	if len(got) != n {
		return nil, fmt.Errorf("snappy block decoded to %d bytes, declared %d", len(got), n)
	}
	return dst[:at+n], nil
}
