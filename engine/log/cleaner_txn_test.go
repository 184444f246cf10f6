package log

import (
	"slices"
	"testing"

	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
	"github.com/loglab/loglab/engine/txn/txnindex"
)

func txnCleanerConfig() Config {
	cfg := DefaultConfig()
	cfg.CleanupPolicy = "compact"
	cfg.MinCleanableDirtyRatio = 0
	cfg.DeleteRetentionMs = 100
	return cfg
}

func keyed(pid int64, seq int32, txn bool, key, value string) *record.Batch {
	b := pbatch(pid, 0, seq, 1, txn)
	b.Records[0].Key, b.Records[0].Value = []byte(key), []byte(value)
	return b
}

func offsetsOf(t *testing.T, l *Log) []int64 {
	t.Helper()
	var out []int64
	for _, si := range l.Segments() {
		bs, err := l.BatchesIn(si.BaseOffset)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			if b.Header.RecordCount > 0 {
				out = append(out, b.Header.BaseOffset)
			}
		}
	}
	return out
}

// LogCleaner's transaction-aware cleaning: an aborted transaction's records
// go at once while its marker and .txnindex entry stay; the next cleaning
// finds the marker's transaction empty, drops the index entry and stamps the
// marker with a delete horizon; a cleaning after the horizon removes it. A
// committed transaction's marker stays while its records do.
func TestCleanerRemovesAbortedDataThenMarkers(t *testing.T) {
	l := openLog(t, storage.NewMem(), txnCleanerConfig())
	mustAppend(t, l, keyed(1, 0, true, "k1", "aborted")) // 0
	mustAppend(t, l, keyed(2, 0, true, "k2", "kept"))    // 1
	mustAppend(t, l, marker(1, 0, false, 0))             // 2 ABORT
	mustAppend(t, l, marker(2, 0, true, 0))              // 3 COMMIT
	l.Roll()
	mustAppend(t, l, keyed(1, 1, false, "k3", "x")) // 4: producer 1's last batch
	mustAppend(t, l, keyed(2, 1, false, "k4", "y")) // 5: producer 2's last batch
	l.LastStableOffset(l.EndOffset())

	if _, err := l.Clean(1000); err != nil {
		t.Fatal(err)
	}
	if got, want := offsetsOf(t, l), []int64{1, 2, 3, 4, 5}; !slices.Equal(got, want) {
		t.Fatalf("after the first cleaning batches with records at %v, want %v (aborted record gone, markers kept)", got, want)
	}
	if got, want := l.AbortedTxns(), []txnindex.AbortedTxn{txnindex.NewAbortedTxn(1, 0, 2, 1)}; !slices.Equal(got, want) {
		t.Fatalf("txnindex %v, want %v", got, want)
	}

	l.Roll() // the second segment becomes dirty and cleanable
	mustAppend(t, l, mkBatch(3000, rec("z", "1")))
	if _, err := l.Clean(2000); err != nil {
		t.Fatal(err)
	}
	if got := l.AbortedTxns(); len(got) != 0 {
		t.Fatalf("txnindex %v, want empty: the aborted transaction has no record left", got)
	}
	bs, _ := l.BatchesIn(0)
	if !bs[1].Header.HasDeleteHorizon() || bs[1].Header.BaseOffset != 2 {
		t.Fatalf("the ABORT marker should carry a delete horizon now: %+v", bs[1].Header)
	}

	l.Roll()
	mustAppend(t, l, mkBatch(3000, rec("z", "2")))
	if _, err := l.Clean(2100); err != nil {
		t.Fatal(err)
	}
	if got, want := offsetsOf(t, l), []int64{1, 3, 4, 5}; !slices.Equal(got[:4], want) {
		t.Fatalf("after the horizon batches with records at %v, want the ABORT marker gone, the COMMIT kept: %v", got, want)
	}
}

// The cleaner never reaches an undecided transaction (cleanableOffsets
// stops at the last stable offset).
func TestCleanerStopsAtFirstUnstableOffset(t *testing.T) {
	l := openLog(t, storage.NewMem(), txnCleanerConfig())
	mustAppend(t, l, mkBatch(1000, rec("a", "1")))
	mustAppend(t, l, keyed(1, 0, true, "a", "open")) // 1: open transaction
	l.Roll()
	mustAppend(t, l, mkBatch(1000, rec("a", "2")))
	l.Roll()
	mustAppend(t, l, mkBatch(1000, rec("b", "1")))
	c, err := l.Clean(1000)
	if err != nil {
		t.Fatal(err)
	}
	if c != nil {
		t.Fatalf("cleaned %+v across an open transaction", c)
	}
	if got := readAllRecords(t, l); got[1] != "open" || got[0] != "1" {
		t.Fatalf("records %v", got)
	}
}
