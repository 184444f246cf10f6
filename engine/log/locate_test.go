package log

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

// Locate names the file and region a Read would return, so the bytes read
// back from that file by name are the same batches.
func TestLocateNamesTheSegmentFileAndRegionOfARead(t *testing.T) {
	fs := storage.NewMem()
	l := openLog(t, fs, smallConfig())
	// Three-record batches: offset 4 lies inside the batch 3..5.
	for i := range 12 {
		b := mkBatch(int64(1000+i), rec("a", "x"), rec("b", "y"), rec("c", "z"))
		if _, err := l.AppendAsLeader(b, 0); err != nil {
			t.Fatal(err)
		}
	}
	if len(l.Segments()) < 3 {
		t.Fatalf("want several segments, got %d", len(l.Segments()))
	}
	for _, tc := range []struct {
		from, maxBytes, maxOffset int64
		wantFirst                 int64
	}{
		{from: 4, maxBytes: 1 << 20, maxOffset: 36, wantFirst: 3},   // mid-batch: from the batch holding it
		{from: 0, maxBytes: 1, maxOffset: 36, wantFirst: 0},         // maxBytes below one batch: still one (KIP-74)
		{from: 20, maxBytes: 1 << 20, maxOffset: 27, wantFirst: 18}, // bounded by a high watermark
	} {
		loc, err := l.Locate(tc.from, tc.maxBytes, tc.maxOffset)
		if err != nil {
			t.Fatal(err)
		}
		fd, err := l.Read(tc.from, tc.maxBytes, tc.maxOffset)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fd.Slices[0].Bytes()
		if err != nil {
			t.Fatal(err)
		}
		f, err := fs.Open(loc.Path)
		if err != nil {
			t.Fatalf("Locate(%d) named %q: %v", tc.from, loc.Path, err)
		}
		got := make([]byte, loc.Length)
		if _, err := f.ReadAt(got, loc.Position); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) || loc.FirstBatchOffset != tc.wantFirst {
			t.Errorf("Locate(%d): first batch %d, %d bytes; want first %d and the Read's %d bytes", tc.from, loc.FirstBatchOffset, len(got), tc.wantFirst, len(want))
		}
		b, _, err := record.Decode(got)
		if err != nil || b.BaseOffset != tc.wantFirst {
			t.Errorf("Locate(%d): region decodes to base %d, %v", tc.from, b.BaseOffset, err)
		}
		var last int64
		for raw := got; len(raw) > 0; {
			b, n, err := record.Decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			last, raw = b.LastOffset(), raw[n:]
		}
		if last >= tc.maxOffset {
			t.Errorf("Locate(%d) returned offset %d, at or beyond the bound %d", tc.from, last, tc.maxOffset)
		}
	}
	if loc, err := l.Locate(36, 1<<20, 36); err != nil || loc.Path != "" {
		t.Errorf("at the log end: %+v %v, want nothing", loc, err)
	}
	if _, err := l.Locate(37, 1<<20, 36); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Errorf("past the log end: %v, want OFFSET_OUT_OF_RANGE", err)
	}
}

// Locate answers exactly Read's region for every start, byte budget and
// bound: over segments of batches of different sizes, with a dense and a
// sparse offset index (the scan after an index entry then crosses several
// batches).
func TestLocateIsReadsRegion(t *testing.T) {
	for _, interval := range []int64{1, 100, 4096} {
		fs := storage.NewMem()
		cfg := smallConfig()
		cfg.SegmentBytes = 1200
		cfg.IndexIntervalBytes = interval
		l := openLog(t, fs, cfg)
		for i := range 40 {
			kvs := make([]kv, 1+i%4)
			for j := range kvs {
				kvs[j] = rec("k", strings.Repeat("v", 1+(i*7+j)%23))
			}
			if _, err := l.AppendAsLeader(mkBatch(int64(1000+i), kvs...), 0); err != nil {
				t.Fatal(err)
			}
		}
		if len(l.Segments()) < 3 {
			t.Fatalf("want several segments, got %d", len(l.Segments()))
		}
		end := l.EndOffset()
		for from := l.StartOffset(); from <= end; from++ {
			for _, maxBytes := range []int64{0, 1, 60, 100, 150, 333, 700, 1 << 20} {
				for _, maxOffset := range []int64{from, from + 1, from + 3, from + 10, end - 2, end} {
					fd, err := l.Read(from, maxBytes, maxOffset)
					if err != nil {
						t.Fatal(err)
					}
					loc, err := l.Locate(from, maxBytes, maxOffset)
					if err != nil {
						t.Fatal(err)
					}
					var want Location
					want.FirstBatchOffset = fd.FirstBatchOffset
					if len(fd.Slices) > 0 && fd.Bytes > 0 {
						want.Position, want.Length = fd.Slices[0].Pos, fd.Slices[0].Len
						want.Path = loc.Path // checked by TestLocateNamesTheSegmentFileAndRegionOfARead
					}
					if loc != want {
						t.Fatalf("index interval %d: Locate(%d, %d, %d) = %+v, Read's region %+v", interval, from, maxBytes, maxOffset, loc, want)
					}
				}
			}
		}
	}
}

// countingFS counts the reads of every file it opens.
type countingFS struct {
	storage.FS
	reads *int
}

type countingFile struct {
	storage.File
	reads *int
}

func (c countingFS) Open(name string) (storage.File, error) {
	f, err := c.FS.Open(name)
	return countingFile{f, c.reads}, err
}

func (c countingFS) Create(name string) (storage.File, error) {
	f, err := c.FS.Create(name)
	return countingFile{f, c.reads}, err
}

func (c countingFile) ReadAt(p []byte, off int64) (int, error) {
	*c.reads++
	return c.File.ReadAt(p, off)
}

// A fetch of many batches costs Locate a few header reads, not one per
// batch: Kafka's LogSegment.read does not walk the region either. (Read's
// walk took 200 reads here.)
func TestLocateReadsAFewHeadersNotTheRegion(t *testing.T) {
	reads := 0
	fs := countingFS{storage.NewMem(), &reads}
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes = 4096
	l := openLog(t, fs, cfg)
	for i := range 200 {
		b := mkBatch(int64(1000+i), rec("k", strings.Repeat("v", 1000)))
		if _, err := l.AppendAsLeader(b, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, maxBytes := range []int64{1 << 20, 100_000} {
		reads = 0
		loc, err := l.Locate(0, maxBytes, l.EndOffset())
		if err != nil || loc.Length == 0 {
			t.Fatalf("Locate: %+v, %v", loc, err)
		}
		if reads > 10 {
			t.Errorf("Locate of %d bytes (max %d) read headers %d times", loc.Length, maxBytes, reads)
		}
	}
}
