package log

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

// wholeReads is what BatchReader replaces: each Read's regions copied out
// whole and cut into batches by their headers.
func wholeReads(l *Log, from, to int64) ([][]byte, error) {
	var out [][]byte
	for from < to {
		fd, err := l.Read(from, 1<<20, to)
		if err != nil {
			return out, err
		}
		got := false
		for _, sl := range fd.Slices {
			raw, err := sl.Bytes()
			if err != nil {
				return out, err
			}
			for len(raw) > 0 {
				h, err := record.ReadHeader(raw)
				if err != nil || h.Size() > len(raw) {
					return append(out, raw), nil
				}
				out, raw, got = append(out, raw[:h.Size()]), raw[h.Size():], true
				from = h.NextOffset()
			}
		}
		if !got {
			break
		}
	}
	return out, nil
}

// BatchReader gives the batches whole reads gave, from anywhere in a log of
// several segments whose batches range from a few bytes to more than a
// read chunk, bounded anywhere.
func TestBatchReaderGivesWhatWholeReadsGave(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SegmentBytes = 300_000
	l := openLog(t, storage.NewMem(), cfg)
	for i := range 60 {
		var kvs []kv
		switch i % 3 {
		case 0:
			kvs = []kv{rec("k", "v")}
		case 1:
			for j := range 20 {
				kvs = append(kvs, rec(fmt.Sprint(j), strings.Repeat("m", 1000)))
			}
		case 2:
			kvs = []kv{rec("big", strings.Repeat("b", readChunk+1000*i))}
		}
		if _, err := l.AppendAsLeader(mkBatch(int64(i), kvs...), 0); err != nil {
			t.Fatal(err)
		}
	}
	if len(l.Segments()) < 3 {
		t.Fatalf("want several segments, got %d", len(l.Segments()))
	}
	end := l.EndOffset()
	for _, from := range []int64{0, 1, 5, 21, 300, end - 1, end} {
		for _, to := range []int64{from + 1, from + 30, end} {
			want, err := wholeReads(l, from, to)
			if err != nil {
				t.Fatal(err)
			}
			var got [][]byte
			rb := l.RawBatches(from, to)
			for {
				raw, err := rb.Next()
				if err != nil {
					t.Fatal(err)
				}
				if raw == nil {
					break
				}
				got = append(got, bytes.Clone(raw))
			}
			if len(got) != len(want) {
				t.Fatalf("[%d, %d): %d batches, whole reads gave %d", from, to, len(got), len(want))
			}
			for i := range got {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("[%d, %d): batch %d differs", from, to, i)
				}
			}
		}
	}
	if _, err := l.RawBatches(end+1, end+2).Next(); err == nil {
		t.Fatal("a read past the log end did not fail")
	}
}

// A region whose bytes stop holding whole batches (cut short, or a header
// that is garbage) comes out whole from there, so decoding it fails as
// decoding the whole region did.
func TestBatchReaderHandsOverABrokenRest(t *testing.T) {
	good, err := mkBatch(1, rec("k", "v")).AppendEncoded(nil)
	if err != nil {
		t.Fatal(err)
	}
	big, err := mkBatch(1, rec("k", strings.Repeat("x", 2*readChunk))).AppendEncoded(nil)
	if err != nil {
		t.Fatal(err)
	}
	garbage := bytes.Repeat([]byte{0xff}, record.HeaderSize+5)
	for name, region := range map[string][]byte{
		"cut inside a header":      append(bytes.Clone(good), good[:20]...),
		"cut inside a big batch":   append(bytes.Clone(good), big[:len(big)-1]...),
		"garbage after a batch":    append(bytes.Clone(good), garbage...),
		"a few bytes of garbage":   append(bytes.Clone(good), 1, 2, 3),
		"whole batches, one large": append(append(bytes.Clone(good), big...), good...),
	} {
		fs := storage.NewMem()
		f, err := fs.Create("region")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(append([]byte("prefix"), region...)); err != nil {
			t.Fatal(err)
		}
		sl := storage.Slice{File: f, Pos: 6, Len: int64(len(region))}
		var want []string
		raw, _ := sl.Bytes()
		for len(raw) > 0 {
			b, n, err := record.Decode(raw)
			if err != nil {
				want = append(want, err.Error())
				break
			}
			want, raw = append(want, fmt.Sprint(b.BaseOffset, len(b.Records))), raw[n:]
		}
		var got []string
		r := sliceReader{sl: sl, p: sl.Pos}
		for {
			raw, err := r.next()
			if err != nil {
				t.Fatal(err)
			}
			if raw == nil {
				break
			}
			b, _, err := record.Decode(raw)
			if err != nil {
				got = append(got, err.Error())
				break
			}
			got = append(got, fmt.Sprint(b.BaseOffset, len(b.Records)))
		}
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("%s: %q, whole region: %q", name, got, want)
		}
	}
}
