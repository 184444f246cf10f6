package storage

import (
	"errors"
	"testing"
)

// A full disk takes what fits of the write that crosses the limit and
// answers ENOSPC, as write(2) does; once freed, writes go on.
func TestFaultyFillsAfterNBytesAndFrees(t *testing.T) {
	f := NewFaulty(NewMem())
	f.MkdirAll("d")
	file, err := f.Create("d/a")
	if err != nil {
		t.Fatal(err)
	}
	f.FillAfter(5)
	if n, err := file.Write([]byte("abc")); n != 3 || err != nil {
		t.Fatalf("write within the room: %d, %v", n, err)
	}
	n, err := file.Write([]byte("defg"))
	if n != 2 || !errors.Is(err, ErrNoSpace) || !IsDiskFailure(err) || err.Error() != "write d/a: no space left on device" {
		t.Fatalf("write past the room: %d, %v", n, err)
	}
	if _, err := file.Write([]byte("h")); !errors.Is(err, ErrNoSpace) || !f.Failing() {
		t.Fatalf("a full disk took another byte: %v", err)
	}
	f.Free()
	if _, err := file.Write([]byte("h")); err != nil {
		t.Fatal(err)
	}
	if got, _ := ReadFile(f, "d/a"); string(got) != "abcdeh" {
		t.Fatalf("file holds %q", got)
	}
	f.FailIO()
	if _, err := file.Write([]byte("x")); !errors.Is(err, ErrIO) || errors.Is(err, ErrNoSpace) {
		t.Fatalf("EIO: %v", err)
	}
	if IsDiskFailure(ErrNotExist) {
		t.Fatal("a missing file is not a failed disk")
	}
}
