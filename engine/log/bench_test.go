package log

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
	"github.com/loglab/loglab/engine/storage/osfs"
)

// Benchmarks report ratios against limits measured in the same run
// (docs/architecture.md, "Benchmarks"): absolute speeds on a shared 2-core machine mean little.

// kibBatch is 16 records of 1 KiB: a full 16 KiB producer batch.
func kibBatch() *record.Batch {
	value := make([]byte, 1024)
	for i := range value {
		value[i] = byte(i * 7)
	}
	kvs := make([]kv, 16)
	for i := range kvs {
		kvs[i] = kv{k: []byte(fmt.Sprintf("key-%02d", i)), v: value}
	}
	return mkBatch(1_700_000_000_000, kvs...)
}

// BenchmarkAppendVersusRawWrite appends 16 KiB batches to a file-backed log
// and writes the same bytes to a plain file on the same disk, alternating
// between the two so both meet the same page cache and writeback pressure;
// it reports append/raw (the budget is >= 0.7 of raw sequential write
// bandwidth).
func BenchmarkAppendVersusRawWrite(b *testing.B) {
	dir := b.TempDir()
	encoded, err := kibBatch().AppendEncoded(nil)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.Create(filepath.Join(dir, "raw.bin"))
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	cfg := DefaultConfig()
	cfg.SegmentBytes = 256 << 20
	l, _, err := Open(osfs.New(dir), "bench-0", cfg, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	batch := kibBatch()
	b.SetBytes(int64(len(encoded)))
	b.ResetTimer()
	var rawElapsed, appendElapsed time.Duration
	for range b.N {
		start := time.Now()
		if _, err := raw.Write(encoded); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := l.AppendAsLeader(batch, 0); err != nil {
			b.Fatal(err)
		}
		appendElapsed += time.Since(mid)
		rawElapsed += mid.Sub(start)
	}
	b.StopTimer()
	b.ReportMetric(rawElapsed.Seconds()/appendElapsed.Seconds(), "append/raw")
	b.ReportMetric(float64(b.N)*float64(len(encoded))/rawElapsed.Seconds()/1e6, "raw-MB/s")
	b.ReportMetric(float64(b.N)*float64(len(encoded))/appendElapsed.Seconds()/1e6, "append-MB/s")
}

// BenchmarkReadSlices reads the log back through Read's file slices (copied
// out, as the memory path does) and reports it against plain ReadAt calls
// over the same file in the same run.
func BenchmarkReadSlices(b *testing.B) {
	dir := b.TempDir()
	cfg := DefaultConfig()
	l, _, err := Open(osfs.New(dir), "bench-0", cfg, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	const batches = 2048 // 32 MiB
	for range batches {
		if _, err := l.AppendAsLeader(kibBatch(), 0); err != nil {
			b.Fatal(err)
		}
	}
	f, err := os.Open(filepath.Join(dir, "bench-0", FileName(0, LogSuffix)))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	size := l.Size()
	buf := make([]byte, 1<<20)
	b.SetBytes(size)
	b.ResetTimer()
	var rawElapsed, sliceElapsed time.Duration
	for range b.N {
		start := time.Now()
		for pos := int64(0); pos < size; pos += int64(len(buf)) {
			if _, err := f.ReadAt(buf[:min(int64(len(buf)), size-pos)], pos); err != nil {
				b.Fatal(err)
			}
		}
		rawElapsed += time.Since(start)

		start = time.Now()
		for from := int64(0); from < l.EndOffset(); {
			fd, err := l.Read(from, 1<<20, l.EndOffset())
			if err != nil {
				b.Fatal(err)
			}
			for _, s := range fd.Slices {
				if _, err := s.File.ReadAt(buf[:s.Len], s.Pos); err != nil {
					b.Fatal(err)
				}
				h, err := record.ReadHeader(buf[s.Len-lastBatchSize(buf[:s.Len]):])
				if err != nil {
					b.Fatal(err)
				}
				from = h.NextOffset()
			}
		}
		sliceElapsed += time.Since(start)
	}
	b.ReportMetric(rawElapsed.Seconds()/sliceElapsed.Seconds(), "slices/raw")
}

// lastBatchSize finds the size of the last whole batch in buf.
func lastBatchSize(buf []byte) int64 {
	var last int64
	for pos := int64(0); pos < int64(len(buf)); {
		h, err := record.ReadHeader(buf[pos:])
		if err != nil {
			break
		}
		last = int64(h.Size())
		pos += last
	}
	return last
}

// BenchmarkOffsetLookup measures a lookup (index binary search, then the
// bounded header scan) against segment size: the cost should grow with
// log2(entries), not with the segment.
func BenchmarkOffsetLookup(b *testing.B) {
	for _, mib := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("segment=%dMiB", mib), func(b *testing.B) {
			l := lookupLog(b, mib)
			end := l.EndOffset()
			b.ResetTimer()
			for i := range b.N {
				target := int64(i*7919) % end
				if _, err := l.TraceLookup(target); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func lookupLog(b *testing.B, mib int) *Log {
	cfg := DefaultConfig()
	l, _, err := Open(storage.NewMem(), "bench-0", cfg, 0)
	if err != nil {
		b.Fatal(err)
	}
	small := mkBatch(0, rec("key", string(make([]byte, 200))))
	for l.Size() < int64(mib)<<20 {
		if _, err := l.AppendAsLeader(small, 0); err != nil {
			b.Fatal(err)
		}
	}
	return l
}
