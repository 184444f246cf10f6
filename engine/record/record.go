package record

import (
	"fmt"
	"math"
)

// minRecordSize is the smallest record on the wire: a one-byte length, then
// attributes, timestampDelta, offsetDelta, keyLength, valueLength and
// headerCount at one byte each. It bounds how many records a number of bytes
// can hold, so a hostile recordCount cannot make us allocate.
const minRecordSize = 7

// recordBodySize is the size of everything after the record's length varint
// (Kafka's DefaultRecord.sizeOfBodyInBytes).
func recordBodySize(r *Record) int {
	n := 1 + VarintSize(r.TimestampDelta) + VarintSize(int64(r.OffsetDelta))
	n += bytesSize(r.Key) + bytesSize(r.Value)
	n += VarintSize(int64(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		n += VarintSize(int64(len(h.Key))) + len(h.Key) + bytesSize(h.Value)
	}
	return n
}

// SizeInBytes is the record's size on the wire, its length varint included
// (Kafka's DefaultRecord.sizeInBytes): what a producer counts against
// batch.size.
func (r *Record) SizeInBytes() int {
	body := recordBodySize(r)
	return VarintSize(int64(body)) + body
}

// bytesSize is a nullable byte field's size: nil is the length -1, one byte.
func bytesSize(b []byte) int {
	if b == nil {
		return 1
	}
	return VarintSize(int64(len(b))) + len(b)
}

// appendRecord writes one record as Kafka's DefaultRecord.writeTo does.
func appendRecord(dst []byte, r *Record) ([]byte, error) {
	body := recordBodySize(r)
	if body > math.MaxInt32 {
		return dst, fmt.Errorf("%w: record at offset delta %d is %d bytes, over int32", ErrBadLength, r.OffsetDelta, body)
	}
	dst = AppendVarint(dst, int64(body))
	dst = append(dst, byte(r.Attributes))
	dst = AppendVarint(dst, r.TimestampDelta)
	dst = AppendVarint(dst, int64(r.OffsetDelta))
	dst = appendBytes(dst, r.Key)
	dst = appendBytes(dst, r.Value)
	dst = AppendVarint(dst, int64(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		dst = AppendVarint(dst, int64(len(h.Key)))
		dst = append(dst, h.Key...)
		dst = appendBytes(dst, h.Value)
	}
	return dst, nil
}

func appendBytes(dst, b []byte) []byte {
	if b == nil {
		return AppendVarint(dst, -1)
	}
	dst = AppendVarint(dst, int64(len(b)))
	return append(dst, b...)
}

// scanRecords parses exactly count records that must fill data, as Kafka's
// record iterator does: too few bytes is "premature EOF", bytes left over
// are "records still remaining". The records' byte fields alias data. It
// returns the records only when keep is set: Validate checks them without
// keeping them.
func scanRecords(data []byte, count int32, keep bool) ([]Record, error) {
	if count == 0 {
		return nil, nil
	}
	var records []Record
	if keep {
		records = make([]Record, 0, min(int(count), len(data)/minRecordSize))
	}
	for i := range count {
		r, n, err := readRecord(data)
		if err != nil {
			return nil, fmt.Errorf("record %d of %d: %w", i, count, err)
		}
		if keep {
			records = append(records, r)
		}
		data = data[n:]
	}
	if len(data) != 0 {
		return nil, fmt.Errorf("%w: %d bytes remain after the %d records the batch declares", ErrCorruptRecord, len(data), count)
	}
	return records, nil
}

// readRecord parses one record from the front of data and returns the bytes
// it took. Like Kafka's DefaultRecord.readFrom, the fields must use exactly
// the length the record declares.
func readRecord(data []byte) (Record, int, error) {
	var r Record
	length, n, err := varint32(data)
	if err != nil {
		return r, 0, corrupt("record length", err)
	}
	if length < 0 || int(length) > len(data)-n {
		return r, 0, fmt.Errorf("%w: record length %d, %d bytes remain", ErrCorruptRecord, length, len(data)-n)
	}
	p := parser{buf: data[n : n+int(length)]}
	r.Attributes = int8(p.byte("attributes"))
	r.TimestampDelta = p.varlong("timestampDelta")
	r.OffsetDelta = p.varint("offsetDelta")
	r.Key = p.nullableBytes("key length", "key")
	r.Value = p.nullableBytes("value length", "value")
	if headerCount := p.varint("headerCount"); p.err == nil {
		// Each header is at least two bytes (key and value lengths), so the
		// remaining bytes bound the count before anything is allocated.
		if headerCount < 0 || int(headerCount) > len(p.buf)-p.pos {
			return r, 0, fmt.Errorf("%w: header count %d with %d bytes left", ErrCorruptRecord, headerCount, len(p.buf)-p.pos)
		}
		if headerCount > 0 {
			r.Headers = make([]Header, 0, min(int(headerCount), (len(p.buf)-p.pos)/2))
		}
		for range headerCount {
			var h Header
			keyLength := p.varint("header key length")
			if p.err == nil && keyLength < 0 {
				return r, 0, fmt.Errorf("%w: header key length %d; header keys cannot be null", ErrCorruptRecord, keyLength)
			}
			h.Key = string(p.bytes(int(keyLength), "header key"))
			h.Value = p.nullableBytes("header value length", "header value")
			if p.err != nil {
				break
			}
			r.Headers = append(r.Headers, h)
		}
	}
	if p.err != nil {
		return r, 0, p.err
	}
	if p.pos != len(p.buf) {
		return r, 0, fmt.Errorf("%w: record declares %d bytes but its fields take %d", ErrCorruptRecord, length, p.pos)
	}
	return r, n + int(length), nil
}

// parser reads one record's fields from a bounded buffer. The first error
// sticks and later reads return zero values, so readRecord reads straight
// through and checks once.
type parser struct {
	buf []byte
	pos int
	err error
}

func (p *parser) byte(field string) byte {
	if p.err != nil {
		return 0
	}
	if p.pos >= len(p.buf) {
		p.err = fmt.Errorf("%w: record ends before its %s", ErrCorruptRecord, field)
		return 0
	}
	p.pos++
	return p.buf[p.pos-1]
}

func (p *parser) varlong(field string) int64 {
	if p.err != nil {
		return 0
	}
	v, n, err := Varint(p.buf[p.pos:])
	if err != nil {
		p.err = corrupt(field, err)
		return 0
	}
	p.pos += n
	return v
}

func (p *parser) varint(field string) int32 {
	if p.err != nil {
		return 0
	}
	v, n, err := varint32(p.buf[p.pos:])
	if err != nil {
		p.err = corrupt(field, err)
		return 0
	}
	p.pos += n
	return v
}

// nullableBytes reads a length and that many bytes. Any negative length is
// null, as in Kafka's Utils.readBytes; we write null as -1.
func (p *parser) nullableBytes(lengthField, field string) []byte {
	n := p.varint(lengthField)
	if p.err != nil || n < 0 {
		return nil
	}
	return p.bytes(int(n), field)
}

// bytes returns the next n bytes, capped so that appending to the result
// cannot overwrite the field after it.
func (p *parser) bytes(n int, field string) []byte {
	if p.err != nil {
		return nil
	}
	if n > len(p.buf)-p.pos {
		p.err = fmt.Errorf("%w: %s of %d bytes with %d left in the record", ErrCorruptRecord, field, n, len(p.buf)-p.pos)
		return nil
	}
	b := p.buf[p.pos : p.pos+n : p.pos+n]
	p.pos += n
	return b
}

// corrupt reports a bad varint inside a record. Inside the batch's bounds a
// varint that runs out is corruption, not truncation.
func corrupt(field string, err error) error {
	return fmt.Errorf("%w: %s: %v", ErrCorruptRecord, field, err)
}
