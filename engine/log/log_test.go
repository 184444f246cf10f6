package log

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

func TestAppendRollsSegmentsNamedByBaseOffset(t *testing.T) {
	fs := storage.NewMem()
	l := openLog(t, fs, smallConfig())
	fill(t, l, 30)
	if l.EndOffset() != 30 {
		t.Fatalf("log end offset %d, want 30", l.EndOffset())
	}
	segs := l.Segments()
	if len(segs) < 3 {
		t.Fatalf("only %d segments with segment.bytes=400", len(segs))
	}
	names, _ := fs.ReadDir("orders-0")
	for i, s := range segs {
		if s.Size > 400 {
			t.Errorf("segment %d is %d bytes, over segment.bytes", s.BaseOffset, s.Size)
		}
		if i > 0 && s.BaseOffset != segs[i-1].NextOffset {
			t.Errorf("segment %d does not start where %d ended (%d)", s.BaseOffset, segs[i-1].BaseOffset, segs[i-1].NextOffset)
		}
		for _, suffix := range []string{".log", ".index", ".timeindex"} {
			if !slices.Contains(names, fmt.Sprintf("%020d%s", s.BaseOffset, suffix)) {
				t.Errorf("no file %020d%s in %v", s.BaseOffset, suffix, names)
			}
		}
		if s.Active != (i == len(segs)-1) {
			t.Errorf("segment %d active=%v", s.BaseOffset, s.Active)
		}
	}
	got := readAllRecords(t, l)
	for i := range 30 {
		if got[int64(i)] != fmt.Sprintf("v%d", i) {
			t.Fatalf("offset %d holds %q", i, got[int64(i)])
		}
	}
}

func TestSparseIndexEveryIndexIntervalBytes(t *testing.T) {
	l := openLog(t, storage.NewMem(), smallConfig())
	fill(t, l, 8)
	s := l.Segments()[0]
	if len(s.Index) == 0 {
		t.Fatal("no index entries with index.interval.bytes=100")
	}
	batches, _ := l.BatchesIn(s.BaseOffset)
	// Kafka's rule: an entry is written for a batch when more than
	// index.interval.bytes were appended since the previous entry.
	var want []IndexEntry
	since := int64(0)
	for _, b := range batches {
		if since > 100 {
			want = append(want, IndexEntry{Offset: b.Header.LastOffset(), Position: b.Position})
			since = 0
		}
		since += int64(b.Header.Size())
	}
	if !slices.Equal(s.Index, want) {
		t.Fatalf("index entries %v, want %v", s.Index, want)
	}
}

func TestLookupBinarySearchesThenScans(t *testing.T) {
	cfg := smallConfig()
	cfg.SegmentBytes = 1 << 20
	l := openLog(t, storage.NewMem(), cfg)
	fill(t, l, 40)
	for target := int64(0); target < 40; target++ {
		lk, err := l.TraceLookup(target)
		if err != nil {
			t.Fatal(err)
		}
		if !lk.Found || len(lk.Scanned) == 0 {
			t.Fatalf("offset %d not found: %+v", target, lk)
		}
		last := lk.Scanned[len(lk.Scanned)-1].Header
		if target < last.BaseOffset || target > last.LastOffset() {
			t.Fatalf("lookup of %d ended on batch %d-%d", target, last.BaseOffset, last.LastOffset())
		}
		if lk.Start.Offset > target && lk.Start.Position != 0 {
			t.Fatalf("lookup of %d started past it, at index entry %+v", target, lk.Start)
		}
		// The scan is bounded: it never reads more batches than lie between
		// two index entries (plus the one it lands on).
		if len(lk.Scanned) > 4 {
			t.Fatalf("lookup of %d scanned %d batches; the sparse index should bound it", target, len(lk.Scanned))
		}
	}
	if _, err := l.TraceLookup(40); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Fatalf("lookup past the end: %v", err)
	}
}

func TestReadRespectsBoundsAndLimits(t *testing.T) {
	l := openLog(t, storage.NewMem(), smallConfig())
	fill(t, l, 10)
	for _, off := range []int64{-1, 11} {
		if _, err := l.Read(off, 1000, 10); !errors.Is(err, ErrOffsetOutOfRange) {
			t.Errorf("Read(%d): %v, want OFFSET_OUT_OF_RANGE", off, err)
		}
	}
	if fd, err := l.Read(10, 1000, 10); err != nil || len(fd.Slices) != 0 {
		t.Errorf("reading at the log end: %+v %v, want nothing", fd, err)
	}
	fd, err := l.Read(0, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if bs, _ := fd.Batches(); len(bs) != 1 {
		t.Errorf("maxBytes=1 returned %d batches, want exactly one (KIP-74)", len(bs))
	}
	fd, _ = l.Read(0, 1<<20, 3) // a high watermark of 3
	bs, _ := fd.Batches()
	if len(bs) == 0 || bs[len(bs)-1].LastOffset() >= 3 {
		t.Errorf("read bounded by offset 3 returned up to %d", bs[len(bs)-1].LastOffset())
	}
}

func TestRollOnSegmentMsUsesRecordTime(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SegmentMs = 1000
	l := openLog(t, storage.NewMem(), cfg)
	for _, ts := range []int64{0, 500, 1000, 1001, 1500, 2100} {
		if _, err := l.AppendAsLeader(mkBatch(ts, rec("k", "v")), 0); err != nil {
			t.Fatal(err)
		}
	}
	var bases []int64
	for _, s := range l.Segments() {
		bases = append(bases, s.BaseOffset)
	}
	// 1001 is more than 1000 ms after the first batch (0); 2100 after 1001.
	if !slices.Equal(bases, []int64{0, 3, 5}) {
		t.Fatalf("segments start at %v, want [0 3 5]", bases)
	}
}

func TestRollWhenTheIndexIsFull(t *testing.T) {
	cfg := smallConfig()
	cfg.SegmentBytes = 1 << 20
	cfg.IndexIntervalBytes = 0
	cfg.SegmentIndexBytes = 24 // room for three offset entries (and two time entries)
	l := openLog(t, storage.NewMem(), cfg)
	fill(t, l, 10)
	if n := len(l.Segments()); n < 2 {
		t.Fatalf("%d segments; a full index must roll", n)
	}
	for _, s := range l.Segments() {
		if len(s.Index)*8 > 24 || len(s.TimeIndex)*12 > 24 {
			t.Fatalf("segment %d has %d index and %d time index entries, over segment.index.bytes", s.BaseOffset, len(s.Index), len(s.TimeIndex))
		}
	}
}

func TestOffsetForTimestamp(t *testing.T) {
	l := openLog(t, storage.NewMem(), smallConfig())
	fill(t, l, 30) // offset i has timestamp 1000+i
	for _, c := range []struct{ ts, want int64 }{{0, 0}, {1000, 0}, {1017, 17}, {1029, 29}, {5000, 30}} {
		got, err := l.OffsetForTimestamp(c.ts)
		if err != nil || got != c.want {
			t.Errorf("OffsetForTimestamp(%d) = %d, %v; want %d", c.ts, got, err, c.want)
		}
	}
}

func TestRetentionDeletesWholeSegments(t *testing.T) {
	cfg := smallConfig()
	cfg.RetentionMs = 10
	l := openLog(t, storage.NewMem(), cfg)
	fill(t, l, 30) // timestamps 1000..1029
	segs := l.Segments()
	// At 1025, only segments whose newest record is older than 1015 expire.
	dels, err := l.DeleteOldSegments(1025, l.EndOffset())
	if err != nil {
		t.Fatal(err)
	}
	if len(dels) != 1 || dels[0].Reason != "retention.ms" {
		t.Fatalf("deletions %+v", dels)
	}
	for _, d := range dels[0].Segments {
		if d.MaxTimestamp >= 1015 {
			t.Errorf("deleted segment %d with records at %d, younger than retention.ms", d.BaseOffset, d.MaxTimestamp)
		}
	}
	if l.StartOffset() != l.Segments()[0].BaseOffset || l.StartOffset() == 0 {
		t.Fatalf("log start offset %d, first segment %d", l.StartOffset(), l.Segments()[0].BaseOffset)
	}
	if _, err := l.Read(0, 100, l.EndOffset()); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Fatalf("reading a deleted offset: %v, want OFFSET_OUT_OF_RANGE", err)
	}
	// Much later, everything expires, the active segment included: Kafka
	// rolls first, so one empty segment remains at the log end.
	if _, err := l.DeleteOldSegments(1_000_000, l.EndOffset()); err != nil {
		t.Fatal(err)
	}
	if n := len(l.Segments()); n != 1 || l.StartOffset() != 30 || l.EndOffset() != 30 {
		t.Fatalf("after full expiry: %d segments, log [%d, %d); had %d segments", n, l.StartOffset(), l.EndOffset(), len(segs))
	}
}

func TestRetentionBytesAndTheHighWatermark(t *testing.T) {
	cfg := smallConfig()
	cfg.RetentionMs = -1
	cfg.RetentionBytes = 500
	l := openLog(t, storage.NewMem(), cfg)
	fill(t, l, 30)
	// Nothing below a high watermark of 0 may go, however big the log.
	if dels, _ := l.DeleteOldSegments(0, 0); len(dels) != 0 {
		t.Fatalf("deleted %+v although the high watermark is 0", dels)
	}
	if _, err := l.DeleteOldSegments(0, l.EndOffset()); err != nil {
		t.Fatal(err)
	}
	if l.Size() > 500+400 {
		t.Fatalf("log is %d bytes after retention.bytes=500", l.Size())
	}
	if l.Size() <= 500-400 {
		t.Fatalf("retention deleted too much: %d bytes left", l.Size())
	}
}

func TestTruncateToRemovesWholeBatches(t *testing.T) {
	l := openLog(t, storage.NewMem(), smallConfig())
	fill(t, l, 30)
	if err := l.TruncateTo(17); err != nil {
		t.Fatal(err)
	}
	if l.EndOffset() != 17 {
		t.Fatalf("log end %d after TruncateTo(17)", l.EndOffset())
	}
	for _, s := range l.Segments() {
		for _, e := range s.Index {
			if e.Offset >= 17 {
				t.Fatalf("index entry %+v survived truncation", e)
			}
		}
	}
	fill(t, l, 3)
	got := readAllRecords(t, l)
	if len(got) != 20 || got[17] != "v0" {
		t.Fatalf("after truncating and appending: %v", got)
	}
	if err := l.TruncateTo(0); err != nil || l.EndOffset() != 0 || len(l.Segments()) != 1 {
		t.Fatalf("truncate to 0: %v, end %d, %d segments", err, l.EndOffset(), len(l.Segments()))
	}
}

func TestCompactedTopicsRejectNullKeys(t *testing.T) {
	cfg := smallConfig()
	cfg.CleanupPolicy = "compact"
	l := openLog(t, storage.NewMem(), cfg)
	if _, err := l.AppendAsLeader(mkBatch(0, kv{v: []byte("x")}), 0); !errors.Is(err, ErrInvalidRecord) {
		t.Fatalf("null key on a compacted topic: %v, want INVALID_RECORD", err)
	}
}

func TestMaxMessageBytes(t *testing.T) {
	cfg := smallConfig()
	cfg.MaxMessageBytes = 100
	l := openLog(t, storage.NewMem(), cfg)
	big := make([]byte, 200)
	if _, err := l.AppendAsLeader(mkBatch(0, kv{k: []byte("k"), v: big}), 0); !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("a 200-byte value with max.message.bytes=100: %v", err)
	}
	if l.EndOffset() != 0 {
		t.Fatal("a rejected batch moved the log end offset")
	}
}

// UnifiedLog.append: a batch larger than segment.bytes could never fit in a
// segment (RecordBatchTooLargeException); max.message.bytes is checked first.
func TestBatchLargerThanSegmentBytes(t *testing.T) {
	cfg := smallConfig()
	cfg.SegmentBytes = 150
	cfg.MaxMessageBytes = 1000
	l := openLog(t, storage.NewMem(), cfg)
	big, bigHeader := encodedWithHeader(t, mkBatch(0, kv{k: []byte("k"), v: make([]byte, 200)}))
	if _, err := l.AppendEncodedAsLeader(big, bigHeader, 0); !errors.Is(err, ErrRecordBatchTooLarge) {
		t.Fatalf("a 200-byte value with segment.bytes=150: %v, want RECORD_LIST_TOO_LARGE", err)
	}
	cfg.MaxMessageBytes = 100
	l = openLog(t, storage.NewMem(), cfg)
	if _, err := l.AppendEncodedAsLeader(big, bigHeader, 0); !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("over both limits: %v, want MESSAGE_TOO_LARGE (checked first)", err)
	}
	if l.EndOffset() != 0 {
		t.Fatal("a rejected batch moved the log end offset")
	}
}

func encodeBatch(t *testing.T, b *record.Batch) []byte {
	t.Helper()
	b.LastOffsetDelta = int32(len(b.Records) - 1)
	raw, err := b.AppendEncoded(nil)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// UnifiedLog.truncateTo: a target below the first segment (retention moved
// the log start past it) empties the log and starts it at the target
// (truncateFullyAndStartAt). Clamping to the log start instead left a
// follower of an unclean leader whose log ends below our start asking
// again forever (VOPR seed 25).
func TestTruncateToBelowTheLogStartStartsAfresh(t *testing.T) {
	cfg := smallConfig()
	cfg.RetentionMs = 10
	l := openLog(t, storage.NewMem(), cfg)
	fill(t, l, 30)
	if _, err := l.DeleteOldSegments(1025, l.EndOffset()); err != nil {
		t.Fatal(err)
	}
	start := l.StartOffset()
	if start <= 2 {
		t.Fatalf("retention left the log start at %d", start)
	}
	if err := l.TruncateTo(2); err != nil {
		t.Fatal(err)
	}
	if l.StartOffset() != 2 || l.EndOffset() != 2 || len(l.Segments()) != 1 || len(l.Epochs().Entries()) != 0 {
		t.Fatalf("after TruncateTo(2) below the log start %d: log [%d, %d), %d segments, epochs %v",
			start, l.StartOffset(), l.EndOffset(), len(l.Segments()), l.Epochs().Entries())
	}
	fill(t, l, 1)
	if got := readAllRecords(t, l); len(got) != 1 || got[2] != "v0" {
		t.Fatalf("after appending: %v", got)
	}
}

// UnifiedLog.maybeIncrementLogStartOffset, as a follower applies its
// leader's log start offset from each fetch response: offsets below it
// are no longer readable, the epoch history starts there, and retention
// then deletes the segments wholly below it (deleteLogStartOffsetBreachedSegments),
// whatever the cleanup policy. Without it a follower kept records its
// leader's retention had deleted, and if they diverged from the leader's
// (written by an old leader that lost them in an unclean election) they
// came back when it was elected (VOPR seed 916 at 200 steps).
func TestFollowerTakesTheLeadersLogStartOffset(t *testing.T) {
	cfg := smallConfig()
	cfg.RetentionMs = -1
	l := openLog(t, storage.NewMem(), cfg)
	fill(t, l, 30)
	second := l.Segments()[1].BaseOffset
	target := second + 1
	if err := l.MaybeIncrementLogStartOffset(target); err != nil {
		t.Fatal(err)
	}
	if l.StartOffset() != target {
		t.Fatalf("log start %d, want %d", l.StartOffset(), target)
	}
	if e := l.Epochs().Entries(); len(e) != 1 || e[0].StartOffset != target {
		t.Fatalf("epochs %v, want one entry starting at %d", e, target)
	}
	if _, err := l.Read(target-1, 100, l.EndOffset()); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Fatalf("reading below the new log start: %v, want OFFSET_OUT_OF_RANGE", err)
	}
	if err := l.MaybeIncrementLogStartOffset(2); err != nil || l.StartOffset() != target {
		t.Fatalf("a smaller log start moved it back to %d (%v)", l.StartOffset(), err)
	}
	dels, err := l.DeleteOldSegments(0, l.EndOffset())
	if err != nil {
		t.Fatal(err)
	}
	if len(dels) != 1 || len(dels[0].Segments) != 1 || l.Segments()[0].BaseOffset != second || l.StartOffset() != target {
		t.Fatalf("deletions %+v: first segment %d, log start %d; want only the segment below %d deleted", dels, l.Segments()[0].BaseOffset, l.StartOffset(), second)
	}
}

// encodedWithHeader is b's bytes and the header a broker reads from them.
func encodedWithHeader(t *testing.T, b *record.Batch) ([]byte, record.BatchHeader) {
	t.Helper()
	raw := encodeBatch(t, b)
	h, err := record.ReadHeader(raw)
	if err != nil {
		t.Fatal(err)
	}
	return raw, h
}

// A follower takes a batch its leader accepted even when it is larger than
// the follower's own max.message.bytes (a topic config changed between
// them): UnifiedLog.appendAsFollower passes ignoreRecordSize. Only the
// leader's append checks the size.
func TestAFollowerTakesABatchPastItsOwnMaxMessageBytes(t *testing.T) {
	cfg := smallConfig()
	cfg.MaxMessageBytes = 100
	l := openLog(t, storage.NewMem(), cfg)
	big, bigHeader := encodedWithHeader(t, mkBatch(0, kv{k: []byte("k"), v: make([]byte, 200)}))
	if _, err := l.AppendEncodedAsLeader(slices.Clone(big), bigHeader, 0); !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("as the leader: %v, want MESSAGE_TOO_LARGE", err)
	}
	if _, err := l.AppendEncoded(big); err != nil {
		t.Fatalf("as a follower: %v, want the batch appended", err)
	}
	if l.EndOffset() != 1 {
		t.Fatalf("log end offset %d after the follower's append, want 1", l.EndOffset())
	}
}
