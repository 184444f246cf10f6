package log

import (
	"slices"
	"testing"

	"github.com/loglab/loglab/engine/storage"
)

// The checkpoint text is Kafka's: version, count, "epoch offset" lines.
func TestEpochCheckpointFormat(t *testing.T) {
	entries := []EpochEntry{{0, 0}, {3, 120}}
	if got := string(FormatEpochCheckpoint(entries)); got != "0\n2\n0 0\n3 120\n" {
		t.Fatalf("checkpoint text %q", got)
	}
	back, err := ParseEpochCheckpoint([]byte("0\n2\n0 0\n3 120\n"))
	if err != nil || !slices.Equal(back, entries) {
		t.Fatalf("parsed %v, %v", back, err)
	}
	for _, bad := range []string{"", "1\n0\n", "0\nx\n", "0\n2\n0 0\n", "0\n1\n0\n"} {
		if _, err := ParseEpochCheckpoint([]byte(bad)); err == nil {
			t.Errorf("checkpoint %q accepted", bad)
		}
	}
}

func TestEpochCacheFollowsTheLog(t *testing.T) {
	fs := storage.NewMem()
	l := openLog(t, fs, smallConfig())
	for epoch, n := range []int{3, 4, 2} {
		for range n {
			l.AppendAsLeader(mkBatch(0, rec("k", "v")), int32(epoch))
		}
	}
	want := []EpochEntry{{0, 0}, {1, 3}, {2, 7}}
	if got := l.Epochs().Entries(); !slices.Equal(got, want) {
		t.Fatalf("epochs %v, want %v", got, want)
	}
	// OffsetForLeaderEpoch: where did each epoch end? As in Kafka's
	// LeaderEpochFileCache.endOffsetFor, an epoch newer than any known has no
	// answer, and one older than the history ends where the history begins.
	for _, c := range []struct {
		ask    int32
		epoch  int32
		endsAt int64
	}{{0, 0, 3}, {1, 1, 7}, {2, 2, 9}, {5, UndefinedEpoch, UndefinedOffset}, {UndefinedEpoch, UndefinedEpoch, UndefinedOffset}, {-2, -2, 0}} {
		e, off := l.Epochs().EndOffsetFor(c.ask, l.EndOffset())
		if e != c.epoch || off != c.endsAt {
			t.Errorf("EndOffsetFor(%d) = (%d, %d), want (%d, %d)", c.ask, e, off, c.epoch, c.endsAt)
		}
	}
	// Truncation forgets epochs that started after the new end, on disk too.
	if err := l.TruncateTo(5); err != nil {
		t.Fatal(err)
	}
	re, _, err := Open(fs, "orders-0", smallConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := re.Epochs().Entries(); !slices.Equal(got, []EpochEntry{{0, 0}, {1, 3}}) {
		t.Fatalf("after truncating to 5 and reopening: %v", got)
	}
}

// UnifiedLog.truncateFullyAndStartAt: a follower whose log ends before the
// leader's log start drops everything, epochs included, and starts empty
// at the leader's log start, on disk too.
func TestTruncateFullyAndStartAt(t *testing.T) {
	fs := storage.NewMem()
	l := openLog(t, fs, smallConfig())
	for range 5 {
		l.AppendAsLeader(mkBatch(0, rec("k", "v")), 0)
	}
	if err := l.TruncateFullyAndStartAt(11); err != nil {
		t.Fatal(err)
	}
	if l.StartOffset() != 11 || l.EndOffset() != 11 || len(l.Epochs().Entries()) != 0 {
		t.Fatalf("start %d end %d epochs %v, want 11, 11, none", l.StartOffset(), l.EndOffset(), l.Epochs().Entries())
	}
	// Fetched batches (the leader's offsets, from 11 on) append after it.
	b := mkBatch(0, rec("k", "w"))
	b.BaseOffset = 11
	raw, err := b.AppendEncoded(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.AppendEncoded(raw); err != nil {
		t.Fatalf("appending the leader's offset 11: %v", err)
	}
	l.Close()
	re, _, err := Open(fs, "orders-0", smallConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if re.StartOffset() != 11 || re.EndOffset() != 12 || len(re.Segments()) != 1 {
		t.Fatalf("reopened: start %d end %d, %d segments; want 11, 12, 1", re.StartOffset(), re.EndOffset(), len(re.Segments()))
	}
}
