package log

import (
	"errors"
	"testing"
)

func TestAppendAssignsDenseOffsets(t *testing.T) {
	l := New()
	for i, v := range []string{"a", "b", "c"} {
		if got := l.Append(int64(i), nil, []byte(v)); got != int64(i) {
			t.Fatalf("record %q got offset %d, want %d", v, got, i)
		}
	}
	if l.StartOffset() != 0 || l.EndOffset() != 3 {
		t.Fatalf("log spans [%d, %d), want [0, 3)", l.StartOffset(), l.EndOffset())
	}
	recs, err := l.Read(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Offset != 1 || string(recs[0].Value) != "b" {
		t.Fatalf("Read(1, 1) = %+v, want the single record b at offset 1", recs)
	}
	if recs, err := l.Read(3, 0); err != nil || len(recs) != 0 {
		t.Fatalf("reading at the end offset = %v, %v; want nothing and no error", recs, err)
	}
}

func TestReadOutsideTheLogIsOffsetOutOfRange(t *testing.T) {
	l := New()
	l.Append(0, []byte("k"), []byte("v"))
	for _, off := range []int64{-1, 2} {
		if _, err := l.Read(off, 0); !errors.Is(err, ErrOffsetOutOfRange) {
			t.Errorf("Read(%d) error = %v, want OFFSET_OUT_OF_RANGE", off, err)
		}
	}
}

func TestNullKeyStaysDistinctFromEmpty(t *testing.T) {
	l := New()
	l.Append(0, nil, []byte("v"))
	l.Append(0, []byte{}, []byte("v"))
	recs, _ := l.Read(0, 0)
	if recs[0].Key != nil {
		t.Error("a null key came back non-null")
	}
	if recs[1].Key == nil {
		t.Error("an empty key came back null")
	}
}

func TestAppendCopiesCallerBytes(t *testing.T) {
	l := New()
	v := []byte("before")
	l.Append(0, nil, v)
	copy(v, "AFTER!")
	recs, _ := l.Read(0, 0)
	if string(recs[0].Value) != "before" {
		t.Fatalf("the log shares the caller's buffer: value is now %q", recs[0].Value)
	}
}
