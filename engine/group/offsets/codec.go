package offsets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// writer appends Kafka protocol primitives. flexible selects the KIP-482
// encoding that a schema's "flexibleVersions" turns on: compact
// (uvarint length+1) strings, bytes and arrays, and a tagged-field section
// closing every struct.
type writer struct {
	buf      []byte
	flexible bool
	err      error
}

func (w *writer) int16(v int16) { w.buf = binary.BigEndian.AppendUint16(w.buf, uint16(v)) }
func (w *writer) int32(v int32) { w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(v)) }
func (w *writer) int64(v int64) { w.buf = binary.BigEndian.AppendUint64(w.buf, uint64(v)) }

func (w *writer) string(field, s string) {
	if len(s) > math.MaxInt16 {
		// Kafka's generated write throws: a string length is an int16 on
		// the wire even in flexible versions (the readers check it).
		w.fail(fmt.Errorf("'%s' field is too long to be serialized", field))
		return
	}
	w.length(len(s))
	w.buf = append(w.buf, s...)
}

// nullableString writes nil as length -1 (classic) or 0 (compact).
func (w *writer) nullableString(field string, s *string) {
	if s == nil {
		w.null()
		return
	}
	w.string(field, *s)
}

func (w *writer) bytes(b []byte) {
	if w.flexible {
		w.buf = binary.AppendUvarint(w.buf, uint64(len(b))+1)
	} else {
		w.int32(int32(len(b)))
	}
	w.buf = append(w.buf, b...)
}

// arrayLen: arrays count with an int32 (classic) or uvarint n+1 (compact).
func (w *writer) arrayLen(n int) {
	if w.flexible {
		w.buf = binary.AppendUvarint(w.buf, uint64(n)+1)
	} else {
		w.int32(int32(n))
	}
}

// length is a string's length prefix: int16 classic, uvarint n+1 compact.
func (w *writer) length(n int) {
	if w.flexible {
		w.buf = binary.AppendUvarint(w.buf, uint64(n)+1)
	} else {
		w.int16(int16(n))
	}
}

func (w *writer) null() {
	if w.flexible {
		w.buf = append(w.buf, 0)
	} else {
		w.int16(-1)
	}
}

// tags closes a struct in a flexible version: loglab writes no tagged
// fields, as Kafka 4.0 writes none in these records, so the count is 0.
func (w *writer) tags() {
	if w.flexible {
		w.buf = append(w.buf, 0)
	}
}

func (w *writer) int8(v int8) { w.buf = append(w.buf, byte(v)) }

// uuid is 16 raw bytes, most significant half first, as Kafka's Uuid.
func (w *writer) uuid(u [16]byte) { w.buf = append(w.buf, u[:]...) }

// taggedStruct closes a flexible struct whose only tagged field, tag 0,
// holds body (nil: absent, as Kafka omits a tagged field at its default).
func (w *writer) taggedStruct(body []byte) {
	if body == nil {
		w.tags()
		return
	}
	w.buf = append(w.buf, 1, 0) // one tagged field, tag 0
	w.buf = binary.AppendUvarint(w.buf, uint64(len(body)))
	w.buf = append(w.buf, body...)
}

func (w *writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// errShort is reading a number past the end. Kafka's ByteBuffer throws a
// BufferUnderflowException whose message is null, so kafka-dump-log prints
// "due to: null."; loglab names the exception instead, which says more.
var errShort = errors.New("java.nio.BufferUnderflowException")

// reader decodes the same primitives. The first error sticks and every later
// read returns zero values, so a decoder reads its fields straight through
// and checks r.err once; no input can make it panic or allocate more than
// the input's size.
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

// array is Kafka's Readable.readArray, through which strings, bytes and
// skipped tagged fields are read; its error is Kafka's text.
func (r *reader) array(n int) []byte {
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

func (r *reader) uuid() (u [16]byte) {
	copy(u[:], r.take(16))
	return u
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

// uvarint reads an unsigned varint of at most 5 bytes, as Kafka's
// ByteUtils.readUnsignedVarint does (it rejects longer ones).
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

// length reads a string or bytes length: -1 is null, in both encodings.
func (r *reader) length(classicInt32 bool) int {
	if r.flexible {
		return int(r.uvarint()) - 1
	}
	if classicInt32 {
		return int(r.int32())
	}
	return int(r.int16())
}

// string reads a non-nullable string; a null one is an error, as in Kafka's
// generated readers.
func (r *reader) string(field string) string {
	s := r.nullableString(field)
	if s == nil {
		if r.err == nil {
			r.err = fmt.Errorf("non-nullable field %s was serialized as null", field)
		}
		return ""
	}
	return *s
}

func (r *reader) nullableString(field string) *string {
	n := r.length(false)
	if r.err != nil {
		return nil
	}
	if n < 0 {
		return nil
	}
	if n > math.MaxInt16 {
		r.err = fmt.Errorf("string field %s had invalid length %d", field, n)
		return nil
	}
	b := r.array(n)
	if r.err != nil {
		return nil
	}
	s := string(b)
	return &s
}

func (r *reader) bytes(field string) []byte {
	n := r.length(true)
	if r.err != nil {
		return nil
	}
	if n < 0 {
		r.err = fmt.Errorf("non-nullable field %s was serialized as null", field)
		return nil
	}
	b := r.array(n)
	if r.err != nil {
		return nil
	}
	return append([]byte{}, b...)
}

// arrayLen reads an array's count and rejects one that cannot fit in what
// is left (each element takes at least one byte), so a corrupt count never
// makes the decoder allocate.
func (r *reader) arrayLen(field string) int {
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
		r.err = fmt.Errorf("non-nullable field %s was serialized as null", field)
		return 0
	}
	if n > len(r.buf) {
		r.err = fmt.Errorf("Tried to allocate a collection of size %d, but there are only %d bytes remaining.", n, len(r.buf))
		return 0
	}
	return n
}

// tags skips a struct's tagged-field section in a flexible version. Kafka
// keeps unknown tags as unknownTaggedFields; loglab knows no tags in these
// records and drops them.
func (r *reader) tags() { r.taggedFields(nil) }

// taggedFields reads a tagged-field section and hands each field's tag and
// bytes to known (when not nil), which ignores the tags it does not know.
func (r *reader) taggedFields(known func(tag uint32, data []byte)) {
	if !r.flexible {
		return
	}
	n := r.uvarint()
	for i := uint32(0); i < n && r.err == nil; i++ {
		tag := r.uvarint()
		// int32 as in Java: a size with the 5th byte's top bits set
		// is negative there too, and refused.
		size := int32(r.uvarint())
		data := r.array(int(size))
		if r.err == nil && known != nil {
			known(tag, data)
		}
	}
}
