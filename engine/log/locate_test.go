package log

import (
	"bytes"
	"errors"
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
