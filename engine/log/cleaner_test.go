package log

import (
	"fmt"
	"path"
	"slices"
	"testing"

	"github.com/loglab/loglab/engine/storage"
)

func compactConfig() Config {
	cfg := smallConfig()
	cfg.CleanupPolicy = "compact"
	cfg.MinCleanableDirtyRatio = 0.01
	cfg.DeleteRetentionMs = 100
	return cfg
}

// values reads the log as offset -> value, with "<tombstone>" for nulls.
func values(t *testing.T, l *Log) map[int64]string {
	t.Helper()
	out := map[int64]string{}
	fd, _ := l.Read(l.StartOffset(), 1<<30, l.EndOffset())
	for from := l.StartOffset(); from < l.EndOffset(); {
		fd, _ = l.Read(from, 1<<30, l.EndOffset())
		bs, err := fd.Batches()
		if err != nil || len(bs) == 0 {
			t.Fatalf("read at %d: %v", from, err)
		}
		for _, b := range bs {
			for _, r := range b.Records {
				v := string(r.Value)
				if r.Value == nil {
					v = "<tombstone>"
				}
				out[b.Offset(r)] = string(r.Key) + "=" + v
			}
			from = b.NextOffset()
		}
	}
	return out
}

func TestCompactionKeepsTheLatestValuePerKey(t *testing.T) {
	l := openLog(t, storage.NewMem(), compactConfig())
	fill(t, l, 30) // keys k0..k4 in turn, values v0..v29
	before := values(t, l)
	activeBase := l.Segments()[len(l.Segments())-1].BaseOffset
	c, err := l.Clean(2000)
	if err != nil || c == nil {
		t.Fatalf("Clean: %+v, %v", c, err)
	}
	after := values(t, l)
	// Below the active segment, each key keeps only its latest record
	// there; offsets are unchanged, so compaction leaves gaps.
	latest := map[string]int64{}
	for off := int64(0); off < activeBase; off++ {
		latest[before[off][:2]] = off
	}
	for off := int64(0); off < 30; off++ {
		v, kept := after[off]
		key := before[off][:2]
		superseded := off < activeBase && off < latest[key]
		switch {
		case superseded && kept:
			t.Errorf("offset %d (%s) survived although key %s is rewritten at %d", off, v, key, latest[key])
		case !superseded && !kept:
			t.Errorf("offset %d (%s) was removed but is the latest for its key", off, before[off])
		case kept && v != before[off]:
			t.Errorf("offset %d changed from %s to %s", off, before[off], v)
		}
	}
	if c.Superseded != len(before)-len(after) || len(c.Removed) != c.Superseded {
		t.Errorf("report says %d superseded (%d listed), the log lost %d records", c.Superseded, len(c.Removed), len(before)-len(after))
	}
	if c.BytesAfter >= c.BytesBefore {
		t.Errorf("cleaning did not shrink the log: %d -> %d bytes", c.BytesBefore, c.BytesAfter)
	}
	if l.EndOffset() != 30 {
		t.Errorf("log end moved to %d", l.EndOffset())
	}
	// The cleaned segments reopen cleanly from disk.
	re, rep, err := Open(l.fs, "orders-0", compactConfig(), 0)
	if err != nil || rep.TruncatedBytes != 0 {
		t.Fatalf("reopening a cleaned log: %v %+v", err, rep)
	}
	if !mapsEqual(values(t, re), after) {
		t.Fatal("the reopened log differs from the cleaned one")
	}
}

func TestTombstonesOutliveOneCleaningThenGo(t *testing.T) {
	cfg := compactConfig()
	l := openLog(t, storage.NewMem(), cfg)
	l.AppendAsLeader(mkBatch(1000, rec("a", "1"), rec("b", "1")), 0)
	l.AppendAsLeader(mkBatch(1001, tombstone("a")), 0)
	l.Roll()
	l.AppendAsLeader(mkBatch(1002, rec("c", "1")), 0)

	first, err := l.Clean(5000)
	if err != nil || first == nil {
		t.Fatalf("first cleaning: %+v %v", first, err)
	}
	got := values(t, l)
	if _, ok := got[0]; ok {
		t.Fatal("a=1 survived its tombstone")
	}
	if got[2] != "a=<tombstone>" {
		t.Fatalf("the tombstone was removed at the first cleaning: %v", got)
	}
	// More dirt, then a cleaning before the delete horizon: still there.
	l.Roll()
	l.AppendAsLeader(mkBatch(1003, rec("c", "2")), 0)
	l.Roll()
	if _, err := l.Clean(5000 + cfg.DeleteRetentionMs - 1); err != nil {
		t.Fatal(err)
	}
	if values(t, l)[2] != "a=<tombstone>" {
		t.Fatal("the tombstone went before delete.retention.ms passed")
	}
	l.AppendAsLeader(mkBatch(1004, rec("d", "1")), 0)
	l.Roll()
	last, err := l.Clean(5000 + cfg.DeleteRetentionMs)
	if err != nil || last == nil {
		t.Fatalf("last cleaning: %+v %v", last, err)
	}
	if v, ok := values(t, l)[2]; ok {
		t.Fatalf("the tombstone is still there after delete.retention.ms: %s", v)
	}
	if last.TombstonesRemoved != 1 {
		t.Fatalf("report: %d tombstones removed", last.TombstonesRemoved)
	}
}

func TestMinCleanableDirtyRatio(t *testing.T) {
	cfg := compactConfig()
	cfg.MinCleanableDirtyRatio = 0.9
	l := openLog(t, storage.NewMem(), cfg)
	fill(t, l, 30)
	l.Roll()
	if c, _ := l.Clean(0); c == nil {
		t.Fatal("a wholly dirty log was not cleaned")
	}
	fill(t, l, 3) // a little new dirt
	l.Roll()
	ratio, _, _ := l.DirtyRatio()
	if ratio >= 0.9 {
		t.Fatalf("dirty ratio %.2f; the test needs it below 0.9", ratio)
	}
	if c, _ := l.Clean(0); c != nil {
		t.Fatalf("cleaned at dirty ratio %.2f < min.cleanable.dirty.ratio 0.9: %+v", ratio, c)
	}
}

// Kafka's LogCleanerManager.grabFilthiestCompactedLog takes a log only when
// its cleanable ratio is above min.cleanable.dirty.ratio, not equal to it:
// with min.cleanable.dirty.ratio=1 even a wholly dirty log (ratio 1.0) is
// left alone (only max.compaction.lag.ms, not modelled, would force it).
func TestMinCleanableDirtyRatioMustBeExceeded(t *testing.T) {
	cfg := compactConfig()
	cfg.MinCleanableDirtyRatio = 1
	l := openLog(t, storage.NewMem(), cfg)
	fill(t, l, 30)
	l.Roll()
	if ratio, _, _ := l.DirtyRatio(); ratio != 1 {
		t.Fatalf("dirty ratio %.2f; the test needs a wholly dirty log", ratio)
	}
	if c, _ := l.Clean(0); c != nil {
		t.Fatalf("cleaned at dirty ratio 1.00 with min.cleanable.dirty.ratio=1: %+v", c)
	}
}

// A crash after the cleaner renamed its output to .swap but before the old
// segments were deleted is finished on open; stray .cleaned files go.
func TestInterruptedSwapIsFinishedOnOpen(t *testing.T) {
	fs := storage.NewMem()
	l := openLog(t, fs, compactConfig())
	fill(t, l, 30)
	l.Roll()
	want := values(t, l)
	old := l.Segments()
	// Build a fake swap: the first two segments' data copied as one file.
	s0, _ := fs.Open(path.Join("orders-0", FileName(old[0].BaseOffset, LogSuffix)))
	s1, _ := fs.Open(path.Join("orders-0", FileName(old[1].BaseOffset, LogSuffix)))
	b0, _ := storage.Slice{File: s0, Len: s0.Size()}.Bytes()
	b1, _ := storage.Slice{File: s1, Len: s1.Size()}.Bytes()
	swap, _ := fs.Create(path.Join("orders-0", FileName(0, LogSuffix+SwapSuffix)))
	swap.Write(append(b0, b1...))
	stray, _ := fs.Create(path.Join("orders-0", FileName(0, IndexSuffix+CleanedSuffix)))
	stray.Write([]byte("half"))

	re, _, err := Open(fs, "orders-0", compactConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := fs.ReadDir("orders-0")
	for _, n := range names {
		if _, suffix, ok := ParseFileName(n); ok && (slices.Contains([]string{SwapSuffix, CleanedSuffix}, path.Ext(suffix))) {
			t.Errorf("%s left behind", n)
		}
		if n == FileName(old[1].BaseOffset, LogSuffix) {
			t.Errorf("segment %d, covered by the swap, still exists", old[1].BaseOffset)
		}
	}
	if !mapsEqual(values(t, re), want) {
		t.Fatal("the log changed across the swap")
	}
}

func mapsEqual(a, b map[int64]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// UnifiedLog.truncateTo on a compacted log: the log end offset becomes the
// target (LocalLog.truncateTo's updateLogEndOffset), even when compaction
// left no record just below it, and the segment starting at the target
// stays. Deriving the end from the last record left instead cut a follower
// told "epoch 0 ends at 6" back to 0, below its leader's high watermark
// (VOPR seed 160).
func TestTruncateToACompactionGapKeepsTheTarget(t *testing.T) {
	l := openLog(t, storage.NewMem(), compactConfig())
	for i := range 30 {
		if _, err := l.AppendAsLeader(mkBatch(int64(1000+i), rec("same", fmt.Sprintf("v%d", i))), 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.AppendAsLeader(mkBatch(2000, rec("other", "x")), 0); err != nil {
		t.Fatal(err)
	}
	if c, err := l.Clean(3000); err != nil || c == nil {
		t.Fatalf("Clean: %+v, %v", c, err)
	}
	segs := l.Segments()
	if len(segs) < 3 {
		t.Fatalf("%d segments: the test needs a compacted segment to truncate at", len(segs))
	}
	target := segs[1].BaseOffset
	if got := values(t, l); len(got) == 0 || func() bool {
		for off := range got {
			if off < target {
				return true
			}
		}
		return false
	}() {
		t.Fatalf("records below %d survived the cleaning (%v): the test shows nothing", target, got)
	}
	if err := l.TruncateTo(target); err != nil {
		t.Fatal(err)
	}
	if l.EndOffset() != target {
		t.Fatalf("log end %d after TruncateTo(%d) into a compaction gap, want %d", l.EndOffset(), target, target)
	}
	if _, err := l.AppendAsLeader(mkBatch(4000, rec("next", "y")), 1); err != nil {
		t.Fatal(err)
	}
	if got := values(t, l); got[target] != "next=y" {
		t.Fatalf("after appending: %v", got)
	}
}
