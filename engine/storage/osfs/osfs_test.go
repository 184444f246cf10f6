package osfs

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loglab/loglab/engine/storage"
)

// The real-file backend keeps the contract engine/log relies on: appends
// land at the tracked size whatever the descriptor's offset, a truncation
// moves the size back, a reopened file knows its size, and missing files
// are storage.ErrNotExist, so recovery can tell "absent" from "broken".
func TestAppendTruncateReopen(t *testing.T) {
	fsys := New(t.TempDir())
	if err := fsys.MkdirAll("t-0"); err != nil {
		t.Fatal(err)
	}
	f, err := fsys.Create("t-0/00000000000000000000.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []string{"hello ", "world"} {
		if _, err := f.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	// Moving the descriptor's offset (as a careless sendfile would) must
	// not move where the next append lands.
	if _, err := f.(*File).OSFile().Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("!")); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(5); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(", log")); err != nil {
		t.Fatal(err)
	}
	if got := f.Size(); got != 10 {
		t.Fatalf("size %d after appends and a truncation, want 10", got)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	onDisk, err := os.ReadFile(filepath.Join(fsys.root, "t-0", "00000000000000000000.log"))
	if err != nil || string(onDisk) != "hello, log" {
		t.Fatalf("file holds %q (err %v), want \"hello, log\"", onDisk, err)
	}
	g, err := fsys.Open("t-0/00000000000000000000.log")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.Size() != 10 {
		t.Fatalf("reopened size %d, want 10", g.Size())
	}
	buf := make([]byte, 3)
	if _, err := g.ReadAt(buf, 7); err != nil || string(buf) != "log" {
		t.Fatalf("ReadAt(7) = %q (err %v), want \"log\"", buf, err)
	}
}

func TestDirectoryOperations(t *testing.T) {
	fsys := New(t.TempDir())
	if err := fsys.MkdirAll("p/sub"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"p/b.index", "p/a.log", "p/c.cleaned"} {
		f, err := fsys.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := fsys.Rename("p/c.cleaned", "p/c.log"); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Remove("p/b.index"); err != nil {
		t.Fatal(err)
	}
	// Sorted, files only: a directory in a partition is not a segment.
	names, err := fsys.ReadDir("p")
	if err != nil || !slices.Equal(names, []string{"a.log", "c.log"}) {
		t.Fatalf("ReadDir = %v (err %v), want [a.log c.log]", names, err)
	}
	_, openErr := fsys.Open("p/missing.log")
	_, readDirErr := fsys.ReadDir("nowhere")
	for _, c := range []struct {
		what string
		err  error
	}{{"Open", openErr}, {"Remove", fsys.Remove("p/missing.log")}, {"ReadDir", readDirErr}} {
		if !errors.Is(c.err, storage.ErrNotExist) {
			t.Errorf("%s of a missing name: %v, want storage.ErrNotExist", c.what, c.err)
		}
	}
	if err := fsys.RemoveAll("p"); err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.ReadDir("p"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("ReadDir after RemoveAll: %v, want storage.ErrNotExist", err)
	}
}
