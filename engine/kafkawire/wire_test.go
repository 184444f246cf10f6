package kafkawire

import "testing"

// Classic and compact strings and arrays read back what was written, and a
// corrupt length is refused with the text Kafka's generated readers throw.
func TestRoundTripAndKafkasErrorTexts(t *testing.T) {
	for _, flexible := range []bool{false, true} {
		w := &Writer{Flexible: flexible}
		w.Str("topic", "orders")
		w.NullableStr("rack", nil)
		w.ArrayLen(2)
		w.Int32(7)
		w.Int32(9)
		w.ArrayLen(-1)
		r := &Reader{Buf: w.Buf, Flexible: flexible}
		s, rack, n := r.Str("topic"), r.NullableStr("rack"), r.ArrayLen("partitions")
		a, b := r.Int32(), r.Int32()
		null := r.NullableArrayLen("replicas")
		if r.Err != nil || s != "orders" || rack != nil || n != 2 || a != 7 || b != 9 || null != -1 || len(r.Buf) != 0 {
			t.Fatalf("flexible=%v: read %q %v %d %d %d %d, err %v, %d bytes left", flexible, s, rack, n, a, b, null, r.Err, len(r.Buf))
		}
	}
	for _, c := range []struct {
		name string
		buf  []byte
		read func(*Reader)
		want string
	}{
		{"null string", []byte{0xff, 0xff}, func(r *Reader) { r.Str("topic") }, "non-nullable field topic was serialized as null"},
		{"string past the end", []byte{0, 5, 'a'}, func(r *Reader) { r.Str("topic") }, "Error reading byte array of 5 byte(s): only 1 byte(s) available"},
		{"array larger than the rest", []byte{0, 0, 0, 9}, func(r *Reader) { r.ArrayLen("partitions") }, "Tried to allocate a collection of size 9, but there are only 0 bytes remaining."},
		{"int past the end", []byte{1}, func(r *Reader) { r.Int32() }, "java.nio.BufferUnderflowException"},
	} {
		r := &Reader{Buf: c.buf}
		c.read(r)
		if r.Err == nil || r.Err.Error() != c.want {
			t.Errorf("%s: err %v, want %q", c.name, r.Err, c.want)
		}
	}
}
