package log

import (
	"fmt"
	"testing"

	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

// kv is a test record: key (nil for null) and value (nil for a tombstone).
type kv struct{ k, v []byte }

func rec(key, value string) kv { return kv{[]byte(key), []byte(value)} }
func tombstone(key string) kv  { return kv{k: []byte(key)} }

// mkBatch builds a batch of records all stamped ts.
func mkBatch(ts int64, kvs ...kv) *record.Batch {
	b := &record.Batch{
		BaseTimestamp: ts, MaxTimestamp: ts,
		ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		LastOffsetDelta: int32(len(kvs) - 1),
	}
	for i, x := range kvs {
		b.Records = append(b.Records, record.Record{OffsetDelta: int32(i), Key: x.k, Value: x.v})
	}
	return b
}

func smallConfig() Config {
	cfg := DefaultConfig()
	cfg.SegmentBytes = 400
	cfg.IndexIntervalBytes = 100
	return cfg
}

func openLog(t testing.TB, fs storage.FS, cfg Config) *Log {
	t.Helper()
	l, _, err := Open(fs, "orders-0", cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// fill appends n single-record batches with values v0..v(n-1), one ms apart.
func fill(t testing.TB, l *Log, n int) {
	t.Helper()
	for i := range n {
		b := mkBatch(int64(1000+i), rec(fmt.Sprintf("k%d", i%5), fmt.Sprintf("v%d", i)))
		if _, err := l.AppendAsLeader(b, 0); err != nil {
			t.Fatal(err)
		}
	}
}

// readAllRecords decodes the whole readable log as offset -> value.
func readAllRecords(t testing.TB, l *Log) map[int64]string {
	t.Helper()
	out := map[int64]string{}
	for from := l.StartOffset(); from < l.EndOffset(); {
		fd, err := l.Read(from, 1<<20, l.EndOffset())
		if err != nil {
			t.Fatal(err)
		}
		bs, err := fd.Batches()
		if err != nil {
			t.Fatal(err)
		}
		if len(bs) == 0 {
			t.Fatalf("read at %d returned nothing below the log end %d", from, l.EndOffset())
		}
		for _, b := range bs {
			for _, r := range b.Records {
				out[b.Offset(r)] = string(r.Value)
			}
			from = b.NextOffset()
		}
	}
	return out
}
