package storage_test

import (
	"errors"
	"io"
	"slices"
	"testing"
	"time"

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

// contentAfterCrash reads name on the disk a crash leaves, "" with ok false
// when the file did not survive.
func contentAfterCrash(t *testing.T, fs *storage.CrashableMem, name string) (string, bool) {
	t.Helper()
	f, err := fs.Crash().Open(name)
	if errors.Is(err, storage.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	got, err := storage.Slice{File: f, Len: f.Size()}.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return string(got), true
}

// Linux's flusher (vm.dirty_writeback_centisecs=500) writes back a file
// whose data has been dirty for vm.dirty_expire_centisecs=3000 at its next
// wake-up, on a 5 s grid of virtual time; a power cut loses only what it has
// not written yet.
func TestWritebackAfterDirtyExpire(t *testing.T) {
	s := time.Second
	cases := []struct {
		name           string
		writeAt, crash time.Duration
		want           string
		survives       bool
	}{
		{"written 31 s before the cut, at a wake-up: on disk", 10 * s, 41 * s, "rec", true},
		{"written 1 s before the cut: still in the page cache", 40 * s, 41 * s, "", false},
		{"30 s old but the flusher has not woken yet", 1 * s, 34 * s, "", false},
		{"30 s old and the flusher woke at 35 s", 1 * s, 35 * s, "rec", true},
		{"minutes old", 0, 5 * time.Minute, "rec", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var now time.Duration
			fs := storage.NewCrashableMemWithWriteback(func() time.Duration { return now })
			fs.MkdirAll("p")
			now = c.writeAt
			f, _ := fs.Create("p/00.log")
			f.Write([]byte("rec"))
			now = c.crash
			got, ok := contentAfterCrash(t, fs, "p/00.log")
			if ok != c.survives || got != c.want {
				t.Fatalf("written at %v, crash at %v: survived=%v with %q, want survived=%v with %q", c.writeAt, c.crash, ok, got, c.survives, c.want)
			}
		})
	}
}

// Sync (Kafka's flush) puts data on the disk at once, whatever its age.
func TestSyncSurvivesBeforeWriteback(t *testing.T) {
	var now time.Duration
	fs := storage.NewCrashableMemWithWriteback(func() time.Duration { return now })
	fs.MkdirAll("p")
	now = 40 * time.Second
	f, _ := fs.Create("p/00.log")
	f.Write([]byte("flushed"))
	f.Sync()
	f.Write([]byte(" not yet"))
	now = 41 * time.Second
	if got, ok := contentAfterCrash(t, fs, "p/00.log"); !ok || got != "flushed" {
		t.Fatalf("after a sync 1 s before the cut: survived=%v with %q, want %q", ok, got, "flushed")
	}
}

// Linux ages dirty data per file (the inode's dirtied_when), not per write:
// an expired file is written back whole, bytes written a moment before
// included, and a write after that wake-up starts a new 30 s.
func TestWritebackAgesAFileFromItsFirstDirtyWrite(t *testing.T) {
	var now time.Duration
	fs := storage.NewCrashableMemWithWriteback(func() time.Duration { return now })
	fs.MkdirAll("p")
	f, _ := fs.Create("p/00.log")
	f.Write([]byte("old "))
	now = 29 * time.Second
	f.Write([]byte("young "))
	now = 31 * time.Second // the wake-up at 30 s wrote the whole file
	f.Write([]byte("after"))
	now = 60 * time.Second // "after" is 29 s old: not yet
	if got, _ := contentAfterCrash(t, fs, "p/00.log"); got != "old young " {
		t.Fatalf("after the cut at 60 s the file holds %q, want %q", got, "old young ")
	}
	now = 65 * time.Second // the wake-up at 65 s finds it 34 s old
	if got, _ := contentAfterCrash(t, fs, "p/00.log"); got != "old young after" {
		t.Fatalf("after the cut at 65 s the file holds %q, want %q", got, "old young after")
	}
}

// The disk a crash leaves keeps the page cache model: a restarted broker's
// writes are written back too.
func TestWritebackContinuesAfterACrash(t *testing.T) {
	var now time.Duration
	fs := storage.NewCrashableMemWithWriteback(func() time.Duration { return now })
	fs.MkdirAll("p")
	after := fs.Crash()
	f, _ := after.Create("p/01.log")
	f.Write([]byte("again"))
	now = time.Minute
	if got, ok := contentAfterCrash(t, after, "p/01.log"); !ok || got != "again" {
		t.Fatalf("a minute-old write after a restart: survived=%v with %q", ok, got)
	}
}

// Files dirtied at different times are written back at their own wake-ups.
func TestWritebackPerFile(t *testing.T) {
	var now time.Duration
	fs := storage.NewCrashableMemWithWriteback(func() time.Duration { return now })
	fs.MkdirAll("p")
	write := func(name string, at time.Duration) {
		now = at
		f, _ := fs.Create(name)
		f.Write([]byte(name))
	}
	write("p/a", 0)              // written back at 30 s
	write("p/b", 20*time.Second) // at 50 s
	write("p/c", 31*time.Second) // at 65 s
	now = 51 * time.Second
	for name, want := range map[string]bool{"p/a": true, "p/b": true, "p/c": false} {
		if _, ok := contentAfterCrash(t, fs, name); ok != want {
			t.Errorf("%s survived a cut at 51 s: %v, want %v", name, ok, want)
		}
	}
}

// A truncated tail never comes back after a power cut, even if the bytes
// written after the truncation are lost: the journal commits the new size
// long before the flusher writes data back.
func TestCrashKeepsATruncation(t *testing.T) {
	fs := storage.NewCrashableMem()
	fs.MkdirAll("p")
	f, _ := fs.Create("p/00.log")
	f.Write([]byte("kept,diverged"))
	f.Sync()
	f.Truncate(5)
	f.Write([]byte("refetched"))
	if got, ok := contentAfterCrash(t, fs, "p/00.log"); !ok || got != "kept," {
		t.Fatalf("after the crash the file holds %q (exists %v), want the truncated %q", got, ok, "kept,")
	}
}

// The disk shares a synced file's bytes with the file (writeBack): writes
// after the sync, appended into the same array's spare room, and a
// truncation below the synced length followed by new writes, must still
// leave exactly what was synced (and then truncated) after a crash.
func TestSyncedBytesSurviveLaterWrites(t *testing.T) {
	fs := storage.NewCrashableMem()
	fs.MkdirAll("p")
	f, _ := fs.Create("p/00.log")
	for _, s := range []string{"ab", "c"} { // room for a fourth byte in place
		f.Write([]byte(s))
	}
	f.Sync()
	f.Write([]byte("d"))
	if got, ok := contentAfterCrash(t, fs, "p/00.log"); !ok || got != "abc" {
		t.Fatalf("after the crash the file holds %q (exists %v), want the synced %q", got, ok, "abc")
	}
	f.Sync()
	f.Truncate(2)
	f.Write([]byte("XYZ"))
	if got, ok := contentAfterCrash(t, fs, "p/00.log"); !ok || got != "ab" {
		t.Fatalf("after the crash the file holds %q (exists %v), want the truncated %q", got, ok, "ab")
	}
}
