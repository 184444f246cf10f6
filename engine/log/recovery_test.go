package log

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/record"

	"github.com/loglab/loglab/engine/storage"
)

// reference builds a log with exactly the first n batches of the workload,
// to compare a recovered log with.
func reference(t *testing.T, n int) *Log {
	l := openLog(t, storage.NewMem(), smallConfig())
	fill(t, l, n)
	return l
}

// copyFS copies every file of the partition directory into a fresh memory FS.
func copyFS(t *testing.T, from storage.FS) *storage.Mem {
	t.Helper()
	to := storage.NewMem()
	to.MkdirAll("orders-0")
	names, _ := from.ReadDir("orders-0")
	for _, name := range names {
		src, err := from.Open(path.Join("orders-0", name))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := storage.Slice{File: src, Len: src.Size()}.Bytes()
		dst, _ := to.Create(path.Join("orders-0", name))
		dst.Write(raw)
	}
	return to
}

// TestRecoveryCutsATornTailAtEveryByte cuts the active segment at every byte
// position of its last batches, reopens, and checks that the log holds
// exactly the whole batches before the cut, with consistent indexes.
func TestRecoveryCutsATornTailAtEveryByte(t *testing.T) {
	const n = 12
	orig := storage.NewMem()
	l := openLog(t, orig, smallConfig())
	fill(t, l, n)
	active := l.Segments()[len(l.Segments())-1]
	batches, _ := l.BatchesIn(active.BaseOffset)
	logName := path.Join("orders-0", FileName(active.BaseOffset, LogSuffix))
	start := batches[max(0, len(batches)-3)].Position
	for cut := start; cut < active.Size; cut++ {
		fs := copyFS(t, orig)
		f, _ := fs.Open(logName)
		f.Truncate(cut)
		re, rep, err := Open(fs, "orders-0", smallConfig(), 0)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		// The batches that survive are those wholly before the cut.
		want := active.BaseOffset
		for _, b := range batches {
			if b.Position+int64(b.Header.Size()) <= cut {
				want = b.Header.NextOffset()
			}
		}
		if re.EndOffset() != want {
			t.Fatalf("cut at %d: log end %d, want %d (report %+v)", cut, re.EndOffset(), want, rep)
		}
		torn := cut > 0 && !slices.ContainsFunc(batches, func(b BatchInfo) bool { return b.Position == cut })
		if torn && rep.TruncatedBytes == 0 {
			t.Fatalf("cut at %d inside a batch, but recovery truncated nothing", cut)
		}
		assertSameAs(t, fmt.Sprintf("cut at %d", cut), re, reference(t, int(want)))
	}
}

func TestRecoveryStopsAtAFlippedByte(t *testing.T) {
	orig := storage.NewMem()
	l := openLog(t, orig, smallConfig())
	fill(t, l, 12)
	segs := l.Segments()
	active := segs[len(segs)-1]
	batches, _ := l.BatchesIn(active.BaseOffset)
	last := batches[len(batches)-1]
	logName := path.Join("orders-0", FileName(active.BaseOffset, LogSuffix))
	// Flip each byte of the last batch from its length field on: any change
	// must be caught by the length, magic, CRC or offset checks. The 4-byte
	// partitionLeaderEpoch (bytes 12-15) is skipped: it is deliberately
	// outside the CRC, so a leader can stamp it without re-checksumming, and
	// Kafka cannot detect a flip there either.
	for pos := last.Position + 8; pos < active.Size; pos++ {
		if rel := pos - last.Position; rel >= 12 && rel < 16 {
			continue
		}
		fs := copyFS(t, orig)
		f, _ := fs.Open(logName)
		raw, _ := storage.Slice{File: f, Len: f.Size()}.Bytes()
		raw[pos] ^= 0xff
		f.Truncate(0)
		f.Write(raw)
		re, rep, err := Open(fs, "orders-0", smallConfig(), 0)
		if err != nil {
			t.Fatalf("flip at %d: %v", pos, err)
		}
		if re.EndOffset() != last.Header.BaseOffset || rep.Problem == "" {
			t.Fatalf("flip at %d: log end %d, want %d; report %+v", pos, re.EndOffset(), last.Header.BaseOffset, rep)
		}
	}
}

func TestDamageInAnOldSegmentDropsEverythingAfter(t *testing.T) {
	orig := storage.NewMem()
	l := openLog(t, orig, smallConfig())
	fill(t, l, 30)
	segs := l.Segments()
	victim := segs[1]
	f, _ := orig.Open(path.Join("orders-0", FileName(victim.BaseOffset, LogSuffix)))
	f.Truncate(victim.Size - 1)
	re, rep, err := Open(orig, "orders-0", smallConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.SegmentsDeleted) != len(segs)-2 {
		t.Fatalf("deleted %v, want the %d segments after the damaged one", rep.SegmentsDeleted, len(segs)-2)
	}
	if re.EndOffset() >= victim.NextOffset || re.EndOffset() < victim.BaseOffset {
		t.Fatalf("log end %d, want inside segment %d", re.EndOffset(), victim.BaseOffset)
	}
	names, _ := orig.ReadDir("orders-0")
	for _, s := range segs[2:] {
		if slices.Contains(names, FileName(s.BaseOffset, LogSuffix)) {
			t.Fatalf("segment %d after the damage is still on disk", s.BaseOffset)
		}
	}
}

func TestMissingOrCorruptIndexesAreRebuilt(t *testing.T) {
	orig := storage.NewMem()
	l := openLog(t, orig, smallConfig())
	fill(t, l, 30)
	want := l.Segments()
	l.Close()
	orig.Remove(path.Join("orders-0", FileName(want[0].BaseOffset, IndexSuffix)))
	junk, _ := orig.Create(path.Join("orders-0", FileName(want[1].BaseOffset, IndexSuffix)))
	junk.Write([]byte("not an index"))
	// Recovery point past everything: only the index checks can notice.
	re, rep, err := Open(orig, "orders-0", smallConfig(), 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.IndexesRebuilt) != 2 {
		t.Fatalf("rebuilt %v, want the two damaged indexes", rep.IndexesRebuilt)
	}
	got := re.Segments()
	for i := range want {
		if !slices.Equal(got[i].Index, want[i].Index) || !slices.Equal(got[i].TimeIndex, want[i].TimeIndex) {
			t.Fatalf("segment %d: index %v / %v after rebuild, want %v / %v", want[i].BaseOffset, got[i].Index, got[i].TimeIndex, want[i].Index, want[i].TimeIndex)
		}
	}
}

// With Kafka's defaults nothing is fsynced until a segment rolls (and the
// flush task that follows the roll has run): a power cut loses the unsynced
// tail, and only that.
func TestPowerCutLosesOnlyUnsyncedData(t *testing.T) {
	fs := storage.NewCrashableMem()
	l := openLog(t, fs, smallConfig())
	fill(t, l, 30)
	if err := l.FlushRolled(); err != nil {
		t.Fatal(err)
	}
	rolledEnd := l.Segments()[len(l.Segments())-1].BaseOffset
	if l.RecoveryPoint() != rolledEnd {
		t.Fatalf("recovery point %d after flushing rolled segments, want %d", l.RecoveryPoint(), rolledEnd)
	}
	after := fs.Crash()
	re, _, err := Open(after, "orders-0", smallConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if re.EndOffset() != rolledEnd {
		t.Fatalf("after a power cut the log ends at %d, want %d (the last roll)", re.EndOffset(), rolledEnd)
	}
	assertSameAs(t, "after power cut", re, reference(t, int(rolledEnd)))

	// After an explicit flush, nothing is lost.
	l2 := openLog(t, after, smallConfig())
	fill(t, l2, 5)
	if err := l2.Flush(); err != nil {
		t.Fatal(err)
	}
	re2, _, _ := Open(after.Crash(), "orders-0", smallConfig(), 0)
	if re2.EndOffset() != l2.EndOffset() {
		t.Fatalf("flushed log ends at %d after a crash, want %d", re2.EndOffset(), l2.EndOffset())
	}
}

// assertSameAs compares two logs' segments, indexes and records.
func assertSameAs(t *testing.T, what string, got, want *Log) {
	t.Helper()
	gs, ws := got.Segments(), want.Segments()
	// A recovered log may end with an empty active segment where the
	// reference has none (the cut removed a whole segment's contents).
	if n := len(gs); n == len(ws)+1 && gs[n-1].Size == 0 {
		gs = gs[:n-1]
	}
	if len(gs) != len(ws) {
		t.Fatalf("%s: %d segments, want %d", what, len(gs), len(ws))
	}
	for i := range ws {
		g, w := gs[i], ws[i]
		if g.BaseOffset != w.BaseOffset || g.NextOffset != w.NextOffset || g.Size != w.Size ||
			!slices.Equal(g.Index, w.Index) {
			t.Fatalf("%s: segment %d = %+v, want %+v", what, i, g, w)
		}
	}
	if fmt.Sprint(readAllRecords(t, got)) != fmt.Sprint(readAllRecords(t, want)) {
		t.Fatalf("%s: records differ", what)
	}
}

// Before the post-roll flush has run, a power cut can take rolled segments
// too: Kafka flushes them asynchronously.
func TestPowerCutBeforeTheFlushTaskLosesMore(t *testing.T) {
	fs := storage.NewCrashableMem()
	l := openLog(t, fs, smallConfig())
	fill(t, l, 30)
	re, _, err := Open(fs.Crash(), "orders-0", smallConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if re.EndOffset() != 0 {
		t.Fatalf("nothing was ever synced, yet %d records survived", re.EndOffset())
	}
}

// Kafka's flush after a roll (flushUptoOffsetExclusive) syncs every
// segment from the recovery point up to the new active segment, not just
// the one that rolled: segments a restart after a process crash reopened
// unsynced are flushed by the next roll too. Flushing only the rolled one
// let a power cut later lose an older segment while keeping newer ones: a
// gap in the log (make sim seed 928 at 200 steps, dense-offsets).
func TestFlushAfterARollCoversSegmentsReopenedUnsynced(t *testing.T) {
	fs := storage.NewCrashableMem()
	l := openLog(t, fs, smallConfig())
	fill(t, l, 30) // several rolls, none flushed: then the process dies
	l.Close()
	l = openLog(t, fs, smallConfig())
	before := len(l.Segments())
	for len(l.Segments()) == before {
		fill(t, l, 1)
	}
	if err := l.FlushRolled(); err != nil {
		t.Fatal(err)
	}
	rolledEnd := l.Segments()[len(l.Segments())-1].BaseOffset
	re, _, err := Open(fs.Crash(), "orders-0", smallConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if re.StartOffset() != 0 || re.EndOffset() < rolledEnd {
		t.Fatalf("after a power cut the log is [%d, %d), want [0, %d) at least: segments flushed by the roll were lost",
			re.StartOffset(), re.EndOffset(), rolledEnd)
	}
}

// Recovery reports each repair in Kafka's words, naming the file, the byte
// position and the offsets dropped, so that the broker can tell it.
func TestRecoveryReportsEachRepairInKafkasWords(t *testing.T) {
	orig := storage.NewMem()
	l := openLog(t, orig, smallConfig())
	fill(t, l, 30)
	segs := l.Segments()
	victim := segs[1]
	batches, _ := l.BatchesIn(victim.BaseOffset)
	bad := batches[1]
	f, _ := orig.Open(path.Join("orders-0", FileName(victim.BaseOffset, LogSuffix)))
	raw, _ := storage.Slice{File: f, Len: f.Size()}.Bytes()
	raw[bad.Position+record.HeaderSize] ^= 0xff // a record byte: the CRC catches it
	f.Truncate(0)
	f.Write(raw)
	_, rep, err := Open(orig, "orders-0", smallConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 {
		t.Fatalf("findings %v, want one truncation", rep.Findings)
	}
	want := fmt.Sprintf("Found invalid messages in log segment orders-0/%s at byte offset %d: ", FileName(victim.BaseOffset, LogSuffix), bad.Position)
	got := rep.Findings[0].String()
	if !strings.HasPrefix(got, want) || !strings.Contains(got, fmt.Sprintf("offsets %d and later are dropped, with the %d later segment(s)", bad.Header.BaseOffset, len(segs)-2)) {
		t.Fatalf("finding %q, want it to start %q and name the offsets and segments dropped", got, want)
	}

	// Indexes: one missing, one corrupt, each told.
	orig2 := storage.NewMem()
	l2 := openLog(t, orig2, smallConfig())
	fill(t, l2, 30)
	s2 := l2.Segments()
	l2.Close()
	orig2.Remove(path.Join("orders-0", FileName(s2[0].BaseOffset, IndexSuffix)))
	junk, _ := orig2.Create(path.Join("orders-0", FileName(s2[1].BaseOffset, IndexSuffix)))
	junk.Write([]byte("not an index"))
	_, rep2, err := Open(orig2, "orders-0", smallConfig(), 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep2.Findings) != 2 ||
		!strings.HasPrefix(rep2.Findings[0].String(), "Could not find offset index file corresponding to log file orders-0/"+FileName(s2[0].BaseOffset, LogSuffix)+", recovering segment and rebuilding index files") ||
		!strings.HasPrefix(rep2.Findings[1].String(), "Found a corrupted index file corresponding to log file orders-0/"+FileName(s2[1].BaseOffset, LogSuffix)+" due to ") {
		t.Fatalf("index findings %v", rep2.Findings)
	}
}
