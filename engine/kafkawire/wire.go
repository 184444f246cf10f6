// Package kafkawire is Kafka's message serialization primitives
// (org.apache.kafka.common.protocol's Readable and Writable, as the
// generated message classes use them): big-endian integers, classic and
// KIP-482 compact strings, bytes and arrays, and tagged-field sections,
// with the error texts Kafka's generated readers throw. The internal
// topics' record codecs (engine/group/offsets, engine/txn/txnlog) are
// written on it.
package kafkawire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Writer appends Kafka protocol primitives. flexible selects the KIP-482
// encoding that a schema's "flexibleVersions" turns on: compact
// (uvarint length+1) strings, bytes and arrays, and a tagged-field section
// closing every struct.
type Writer struct {
	Buf      []byte
	Flexible bool
	Err      error
}

func (w *Writer) Int16(v int16) { w.Buf = binary.BigEndian.AppendUint16(w.Buf, uint16(v)) }
func (w *Writer) Int32(v int32) { w.Buf = binary.BigEndian.AppendUint32(w.Buf, uint32(v)) }
func (w *Writer) Int64(v int64) { w.Buf = binary.BigEndian.AppendUint64(w.Buf, uint64(v)) }

func (w *Writer) Str(field, s string) {
	if len(s) > math.MaxInt16 {
		// Kafka's generated write throws: a string length is an int16 on
		// the wire even in flexible versions (the readers check it).
		w.Fail(fmt.Errorf("'%s' field is too long to be serialized", field))
		return
	}
	w.Length(len(s))
	w.Buf = append(w.Buf, s...)
}

// NullableStr writes nil as length -1 (classic) or 0 (compact).
func (w *Writer) NullableStr(field string, s *string) {
	if s == nil {
		w.Null()
		return
	}
	w.Str(field, *s)
}

func (w *Writer) Bytes(b []byte) {
	if w.Flexible {
		w.Buf = binary.AppendUvarint(w.Buf, uint64(len(b))+1)
	} else {
		w.Int32(int32(len(b)))
	}
	w.Buf = append(w.Buf, b...)
}

// ArrayLen: arrays count with an int32 (classic) or uvarint n+1 (compact).
func (w *Writer) ArrayLen(n int) {
	if w.Flexible {
		w.Buf = binary.AppendUvarint(w.Buf, uint64(n)+1)
	} else {
		w.Int32(int32(n))
	}
}

// Length is a string's length prefix: int16 classic, uvarint n+1 compact.
func (w *Writer) Length(n int) {
	if w.Flexible {
		w.Buf = binary.AppendUvarint(w.Buf, uint64(n)+1)
	} else {
		w.Int16(int16(n))
	}
}

func (w *Writer) Null() {
	if w.Flexible {
		w.Buf = append(w.Buf, 0)
	} else {
		w.Int16(-1)
	}
}

// Tags closes a struct in a flexible version with no tagged field: the
// count is 0 (Kafka omits tagged fields at their defaults).
func (w *Writer) Tags() {
	if w.Flexible {
		w.Buf = append(w.Buf, 0)
	}
}

func (w *Writer) Int8(v int8) { w.Buf = append(w.Buf, byte(v)) }

// UUID is 16 raw bytes, most significant half first, as Kafka's Uuid.
func (w *Writer) UUID(u [16]byte) { w.Buf = append(w.Buf, u[:]...) }

// TaggedStruct closes a flexible struct whose only tagged field, tag 0,
// holds body (nil: absent, as Kafka omits a tagged field at its default).
func (w *Writer) TaggedStruct(body []byte) {
	if body == nil {
		w.Tags()
		return
	}
	w.Buf = append(w.Buf, 1, 0) // one tagged field, tag 0
	w.Buf = binary.AppendUvarint(w.Buf, uint64(len(body)))
	w.Buf = append(w.Buf, body...)
}

func (w *Writer) Fail(err error) {
	if w.Err == nil {
		w.Err = err
	}
}

// ErrShort is reading a number past the end. Kafka's ByteBuffer throws a
// BufferUnderflowException whose message is null, so kafka-dump-log prints
// "due to: null."; loglab names the exception instead, which says more.
var ErrShort = errors.New("java.nio.BufferUnderflowException")

// Reader decodes the same primitives. The first error sticks and every later
// read returns zero values, so a decoder reads its fields straight through
// and checks r.Err once; no input can make it panic or allocate more than
// the input's size.
type Reader struct {
	Buf      []byte
	Flexible bool
	Err      error
}

func (r *Reader) Take(n int) []byte {
	if r.Err != nil {
		return nil
	}
	if n < 0 || n > len(r.Buf) {
		r.Err = ErrShort
		return nil
	}
	b := r.Buf[:n:n]
	r.Buf = r.Buf[n:]
	return b
}

// Array is Kafka's Readable.readArray, through which strings, bytes and
// skipped tagged fields are read; its error is Kafka's text.
func (r *Reader) Array(n int) []byte {
	if r.Err != nil {
		return nil
	}
	if n < 0 || n > len(r.Buf) {
		r.Err = fmt.Errorf("Error reading byte array of %d byte(s): only %d byte(s) available", n, len(r.Buf))
		return nil
	}
	return r.Take(n)
}

func (r *Reader) Int8() int8 {
	if b := r.Take(1); b != nil {
		return int8(b[0])
	}
	return 0
}

func (r *Reader) UUID() (u [16]byte) {
	copy(u[:], r.Take(16))
	return u
}

func (r *Reader) Int16() int16 {
	if b := r.Take(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (r *Reader) Int32() int32 {
	if b := r.Take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (r *Reader) Int64() int64 {
	if b := r.Take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

// Uvarint reads an unsigned varint of at most 5 bytes, as Kafka's
// ByteUtils.readUnsignedVarint does (it rejects longer ones).
func (r *Reader) Uvarint() uint32 {
	if r.Err != nil {
		return 0
	}
	var v uint32
	for i := 0; i < 5; i++ {
		if i >= len(r.Buf) {
			r.Err = ErrShort
			return 0
		}
		b := r.Buf[i]
		v |= uint32(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			r.Buf = r.Buf[i+1:]
			return v
		}
	}
	r.Err = fmt.Errorf("Varint is too long, the most significant bit in the 5th byte is set, converted value: %x", v)
	return 0
}

// Length reads a string or bytes length: -1 is null, in both encodings.
func (r *Reader) Length(classicInt32 bool) int {
	if r.Flexible {
		return int(r.Uvarint()) - 1
	}
	if classicInt32 {
		return int(r.Int32())
	}
	return int(r.Int16())
}

// Str reads a non-nullable string; a null one is an error, as in Kafka's
// generated readers.
func (r *Reader) Str(field string) string {
	s := r.NullableStr(field)
	if s == nil {
		if r.Err == nil {
			r.Err = fmt.Errorf("non-nullable field %s was serialized as null", field)
		}
		return ""
	}
	return *s
}

func (r *Reader) NullableStr(field string) *string {
	n := r.Length(false)
	if r.Err != nil {
		return nil
	}
	if n < 0 {
		return nil
	}
	if n > math.MaxInt16 {
		r.Err = fmt.Errorf("string field %s had invalid length %d", field, n)
		return nil
	}
	b := r.Array(n)
	if r.Err != nil {
		return nil
	}
	s := string(b)
	return &s
}

func (r *Reader) Bytes(field string) []byte {
	n := r.Length(true)
	if r.Err != nil {
		return nil
	}
	if n < 0 {
		r.Err = fmt.Errorf("non-nullable field %s was serialized as null", field)
		return nil
	}
	b := r.Array(n)
	if r.Err != nil {
		return nil
	}
	return append([]byte{}, b...)
}

// ArrayLen reads an array's count and rejects one that cannot fit in what
// is left (each element takes at least one byte), so a corrupt count never
// makes the decoder allocate.
func (r *Reader) ArrayLen(field string) int {
	var n int
	if r.Flexible {
		n = int(r.Uvarint()) - 1
	} else {
		n = int(r.Int32())
	}
	if r.Err != nil {
		return 0
	}
	if n < 0 {
		r.Err = fmt.Errorf("non-nullable field %s was serialized as null", field)
		return 0
	}
	if n > len(r.Buf) {
		r.Err = fmt.Errorf("Tried to allocate a collection of size %d, but there are only %d bytes remaining.", n, len(r.Buf))
		return 0
	}
	return n
}

// Tags skips a struct's tagged-field section in a flexible version. Kafka
// keeps unknown tags as unknownTaggedFields; loglab drops them (the caller
// reads the tags it knows with TaggedFields or TaggedFieldsInline).
func (r *Reader) Tags() { r.TaggedFields(nil) }

// TaggedFields reads a tagged-field section and hands each field's tag and
// Bytes to known (when not nil), which ignores the tags it does not know.
func (r *Reader) TaggedFields(known func(tag uint32, data []byte)) {
	if !r.Flexible {
		return
	}
	n := r.Uvarint()
	for i := uint32(0); i < n && r.Err == nil; i++ {
		tag := r.Uvarint()
		// int32 as in Java: a size with the 5th byte's top bits set
		// is negative there too, and refused.
		size := int32(r.Uvarint())
		data := r.Array(int(size))
		if r.Err == nil && known != nil {
			known(tag, data)
		}
	}
}

// Uvarint appends an unsigned varint (a compact length, a tag, a size).
func (w *Writer) Uvarint(n int) { w.Buf = binary.AppendUvarint(w.Buf, uint64(n)) }

// NullableArrayLen is ArrayLen for a nullable array: -1 for null.
func (r *Reader) NullableArrayLen(field string) int {
	var n int
	if r.Flexible {
		n = int(r.Uvarint()) - 1
	} else {
		n = int(r.Int32())
	}
	if r.Err != nil {
		return 0
	}
	if n < 0 {
		return -1
	}
	if n > len(r.Buf) {
		r.Err = fmt.Errorf("Tried to allocate a collection of size %d, but there are only %d bytes remaining.", n, len(r.Buf))
		return 0
	}
	return n
}

// TaggedFieldsInline reads a tagged-field section where known reads a tag
// it knows straight from r, as Kafka's generated readers do (they do not
// hold it to the declared size), and reports whether it knew the tag; any
// other tag is skipped by its size.
func (r *Reader) TaggedFieldsInline(known func(tag uint32) bool) {
	if !r.Flexible {
		return
	}
	n := r.Uvarint()
	for i := uint32(0); i < n && r.Err == nil; i++ {
		tag := r.Uvarint()
		// An int32 as in Java: a size with the 5th byte's top bits set is
		// negative there too, and refused by readArray.
		size := int32(r.Uvarint())
		if r.Err != nil {
			return
		}
		if known != nil && known(tag) {
			continue
		}
		r.Array(int(size))
	}
}
