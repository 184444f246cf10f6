package txnlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// writer appends Kafka protocol primitives; flexible is the KIP-482
// encoding TransactionLogValue v1 turns on: compact (uvarint n+1) strings and
// arrays, and a tagged-field section closing every struct.
type writer struct {
	buf      []byte
	flexible bool
	err      error
}

func (w *writer) int8(v int8)   { w.buf = append(w.buf, byte(v)) }
func (w *writer) int16(v int16) { w.buf = binary.BigEndian.AppendUint16(w.buf, uint16(v)) }
func (w *writer) int32(v int32) { w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(v)) }
func (w *writer) int64(v int64) { w.buf = binary.BigEndian.AppendUint64(w.buf, uint64(v)) }
func (w *writer) uvarint(n int) { w.buf = binary.AppendUvarint(w.buf, uint64(n)) }

func (w *writer) string(field, s string) {
	if len(s) > math.MaxInt16 {
		// Kafka's generated write throws: string lengths are int16-bounded
		// even in compact form.
		w.fail(fmt.Errorf("'%s' field is too long to be serialized", field))
		return
	}
	if w.flexible {
		w.uvarint(len(s) + 1)
	} else {
		w.int16(int16(len(s)))
	}
	w.buf = append(w.buf, s...)
}

// arrayLen writes an array's count; -1 is a null array (00 compact).
func (w *writer) arrayLen(n int) {
	if w.flexible {
		w.uvarint(n + 1)
	} else {
		w.int32(int32(n))
	}
}

func (w *writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// errShort is reading a number past the end: Kafka's ByteBuffer throws a
// BufferUnderflowException with a null message ("due to: null." in
// kafka-dump-log); loglab names the exception instead.
var errShort = errors.New("java.nio.BufferUnderflowException")

// reader decodes the same primitives. The first error sticks and later
// reads return zero values, so a decoder reads straight through and checks
// err once; no input makes it panic or allocate more than its own size.
type reader struct {
	buf      []byte
	flexible bool
	err      error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.buf) {
		r.err = errShort
		return nil
	}
	b := r.buf[:n:n]
	r.buf = r.buf[n:]
	return b
}

// bytesOf is Readable.readArray (strings, skipped tags), with its text.
func (r *reader) bytesOf(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.buf) {
		r.err = fmt.Errorf("Error reading byte array of %d byte(s): only %d byte(s) available", n, len(r.buf))
		return nil
	}
	return r.take(n)
}

func (r *reader) int8() int8 {
	if b := r.take(1); b != nil {
		return int8(b[0])
	}
	return 0
}

func (r *reader) int16() int16 {
	if b := r.take(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (r *reader) int32() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (r *reader) int64() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

// uvarint is ByteUtils.readUnsignedVarint: at most 5 bytes.
func (r *reader) uvarint() uint32 {
	if r.err != nil {
		return 0
	}
	var v uint32
	for i := 0; i < 5; i++ {
		if i >= len(r.buf) {
			r.err = errShort
			return 0
		}
		b := r.buf[i]
		v |= uint32(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			r.buf = r.buf[i+1:]
			return v
		}
	}
	r.err = fmt.Errorf("Varint is too long, the most significant bit in the 5th byte is set, converted value: %x", v)
	return 0
}

// string reads a non-nullable string as the generated readers do: null is
// an error, and so is a length above Short.MAX_VALUE.
func (r *reader) string(field string) string {
	var n int
	if r.flexible {
		n = int(r.uvarint()) - 1
	} else {
		n = int(r.int16())
	}
	if r.err != nil {
		return ""
	}
	if n < 0 {
		r.err = fmt.Errorf("non-nullable field %s was serialized as null", field)
		return ""
	}
	if n > math.MaxInt16 {
		r.err = fmt.Errorf("string field %s had invalid length %d", field, n)
		return ""
	}
	return string(r.bytesOf(n))
}

// arrayLen reads an array's count: -1 is null (only for nullable arrays,
// else an error); a count larger than the bytes left is refused before
// allocating, as Kafka's generated readers do.
func (r *reader) arrayLen(field string, nullable bool) int {
	var n int
	if r.flexible {
		n = int(r.uvarint()) - 1
	} else {
		n = int(r.int32())
	}
	if r.err != nil {
		return 0
	}
	if n < 0 {
		if !nullable {
			r.err = fmt.Errorf("non-nullable field %s was serialized as null", field)
		}
		return -1
	}
	if n > len(r.buf) {
		r.err = fmt.Errorf("Tried to allocate a collection of size %d, but there are only %d bytes remaining.", n, len(r.buf))
		return 0
	}
	return n
}

// taggedFields reads a flexible struct's tagged-field section. known reads a
// tag it knows straight from r, as Kafka's generated readers do (they do not
// hold it to the declared size), and reports whether it knew the tag; any
// other tag is skipped by its size (Kafka keeps it as an unknown tagged
// field; loglab drops it).
func (r *reader) taggedFields(known func(tag uint32) bool) {
	if !r.flexible {
		return
	}
	n := r.uvarint()
	for i := uint32(0); i < n && r.err == nil; i++ {
		tag := r.uvarint()
		// An int32 as in Java: a size with the 5th byte's top bits set is
		// negative there too, and refused by readArray.
		size := int32(r.uvarint())
		if r.err != nil {
			return
		}
		if known != nil && known(tag) {
			continue
		}
		r.bytesOf(int(size))
	}
}
