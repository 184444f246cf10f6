package storage_test

import (
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/loglab/loglab/engine/storage"
	"github.com/loglab/loglab/engine/storage/osfs"
)

// Every backend must behave the same: the engine cannot tell them apart.
func backends(t *testing.T) map[string]storage.FS {
	return map[string]storage.FS{
		"mem":       storage.NewMem(),
		"crashable": storage.NewCrashableMem(),
		"os":        osfs.New(t.TempDir()),
	}
}

func TestBackendsBehaveAlike(t *testing.T) {
	for _, name := range []string{"mem", "crashable", "os"} {
		t.Run(name, func(t *testing.T) {
			fs := backends(t)[name]
			if err := fs.MkdirAll("d/orders-0"); err != nil {
				t.Fatal(err)
			}
			f, err := fs.Create("d/orders-0/b.log")
			if err != nil {
				t.Fatal(err)
			}
			for _, chunk := range []string{"hello ", "log"} {
				if _, err := f.Write([]byte(chunk)); err != nil {
					t.Fatal(err)
				}
			}
			if f.Size() != 9 {
				t.Fatalf("size %d, want 9", f.Size())
			}
			buf := make([]byte, 3)
			if err := storage.ReadFull(f, buf, 6); err != nil || string(buf) != "log" {
				t.Fatalf("ReadAt(6) = %q, %v", buf, err)
			}
			if err := storage.ReadFull(f, buf, 8); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("reading past the end: %v, want ErrUnexpectedEOF", err)
			}
			if err := f.Truncate(5); err != nil || f.Size() != 5 {
				t.Fatalf("truncate: %v, size %d", err, f.Size())
			}
			if _, err := f.Write([]byte("!")); err != nil {
				t.Fatal(err)
			}
			got, _ := storage.Slice{File: f, Pos: 0, Len: 6}.Bytes()
			if string(got) != "hello!" {
				t.Fatalf("after truncate and append: %q", got)
			}
			f.Close()
			if _, err := fs.Create("d/orders-0/a.index"); err != nil {
				t.Fatal(err)
			}
			names, err := fs.ReadDir("d/orders-0")
			if err != nil || !slices.Equal(names, []string{"a.index", "b.log"}) {
				t.Fatalf("ReadDir = %v, %v", names, err)
			}
			if err := fs.Rename("d/orders-0/a.index", "d/orders-0/c.index"); err != nil {
				t.Fatal(err)
			}
			if _, err := fs.Open("d/orders-0/a.index"); !errors.Is(err, storage.ErrNotExist) {
				t.Fatalf("opening a renamed file: %v, want ErrNotExist", err)
			}
			reopened, err := fs.Open("d/orders-0/b.log")
			if err != nil || reopened.Size() != 6 {
				t.Fatalf("reopen: %v, size %d", err, reopened.Size())
			}
			if err := fs.RemoveAll("d"); err != nil {
				t.Fatal(err)
			}
			if _, err := fs.ReadDir("d/orders-0"); !errors.Is(err, storage.ErrNotExist) {
				t.Fatalf("ReadDir after RemoveAll: %v", err)
			}
		})
	}
}

func TestCrashKeepsOnlySyncedBytes(t *testing.T) {
	fs := storage.NewCrashableMem()
	fs.MkdirAll("p")
	f, _ := fs.Create("p/00.log")
	f.Write([]byte("durable"))
	f.Sync()
	f.Write([]byte(" and lost"))
	g, _ := fs.Create("p/never-synced.log")
	g.Write([]byte("gone"))

	after := fs.Crash()
	f2, err := after.Open("p/00.log")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := storage.Slice{File: f2, Len: f2.Size()}.Bytes()
	if string(got) != "durable" {
		t.Fatalf("after the crash the file holds %q, want only the synced %q", got, "durable")
	}
	if _, err := after.Open("p/never-synced.log"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("a never-synced file survived the crash (%v)", err)
	}
}
