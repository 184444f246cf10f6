package record

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Kafka writes record fields as zigzag varints (ByteUtils.writeVarint for
// int32 fields, writeVarlong for int64 ones): small magnitudes, positive or
// negative, take one byte, and -1 (null) is the single byte 0x01. Zigzag
// maps 0, -1, 1, -2, ... to 0, 1, 2, 3, ... and the result is written seven
// bits at a time, low group first, high bit set on every byte but the last.
// This is exactly the encoding of Go's encoding/binary Varint.
//
// An int32 field encodes to the same bytes whether it is written as a varint
// or a varlong, so one AppendVarint serves both.

// AppendVarint appends v as a zigzag varint (Kafka's writeVarint and
// writeVarlong).
func AppendVarint(dst []byte, v int64) []byte { return binary.AppendVarint(dst, v) }

// Varint reads a zigzag varint of up to 10 bytes (Kafka's readVarlong) from
// the front of buf and returns it with the number of bytes read.
func Varint(buf []byte) (int64, int, error) {
	v, n := binary.Varint(buf)
	switch {
	case n > 0:
		return v, n, nil
	case n == 0:
		return 0, 0, fmt.Errorf("%w: varint runs past the end of %d bytes", ErrTruncated, len(buf))
	default:
		return 0, 0, fmt.Errorf("%w: varint overflows 64 bits", ErrCorruptRecord)
	}
}

// AppendUvarint appends v as an unsigned varint (Kafka's writeUnsignedVarint,
// used by the flexible protocol versions for compact lengths).
func AppendUvarint(dst []byte, v uint64) []byte { return binary.AppendUvarint(dst, v) }

// Uvarint reads an unsigned varint of up to 10 bytes from the front of buf
// and returns it with the number of bytes read.
func Uvarint(buf []byte) (uint64, int, error) {
	v, n := binary.Uvarint(buf)
	switch {
	case n > 0:
		return v, n, nil
	case n == 0:
		return 0, 0, fmt.Errorf("%w: uvarint runs past the end of %d bytes", ErrTruncated, len(buf))
	default:
		return 0, 0, fmt.Errorf("%w: uvarint overflows 64 bits", ErrCorruptRecord)
	}
}

// VarintSize is how many bytes AppendVarint writes for v (Kafka's
// sizeOfVarint and sizeOfVarlong).
func VarintSize(v int64) int { return UvarintSize(uint64(v<<1) ^ uint64(v>>63)) }

// UvarintSize is how many bytes AppendUvarint writes for v.
func UvarintSize(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// varint32 reads an int32 field the way Kafka's readVarint does: at most five
// bytes. Kafka rejects a sixth byte ("Varint is too long"); the fifth may
// carry only the top four bits of 32, and anything more is rejected here
// rather than silently dropped.
func varint32(buf []byte) (int32, int, error) {
	var u uint32
	for i := range 5 {
		if i == len(buf) {
			return 0, 0, fmt.Errorf("%w: varint runs past the end of %d bytes", ErrTruncated, len(buf))
		}
		b := buf[i]
		if i == 4 && b > 0x0f {
			return 0, 0, fmt.Errorf("%w: varint overflows 32 bits", ErrCorruptRecord)
		}
		u |= uint32(b&0x7f) << (7 * i)
		if b < 0x80 {
			return int32(u>>1) ^ -int32(u&1), i + 1, nil
		}
	}
	// Not reached: a fifth byte of at most 0x0f has no continuation bit.
	return 0, 0, fmt.Errorf("%w: varint longer than 5 bytes", ErrCorruptRecord)
}
