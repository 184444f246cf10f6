package check

import (
	"testing"

	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

// A follower holding fewer of the batches below the high watermark than
// the leader does not agree with it, whichever of the two is walked
// first: the walk of the shorter log ends while the other still has
// batches (a follower with a hole in its offsets, or a read that returns
// no batch, ends its walk early).
func TestSameBatchesBelowCountsMissingBatches(t *testing.T) {
	leader, f := threeBatchLog(t), threeBatchLog(t)
	hw := leader.EndOffset()
	if same, err := sameBatchesBelow(leader, f, 0, hw, &leaderWalk{}); err != nil || !same {
		t.Fatalf("before truncating: same %v, err %v; want the replicas to agree", same, err)
	}
	first, err := leader.RawBatches(0, hw).Next()
	if err != nil || first == nil {
		t.Fatalf("the leader's first batch: %v", err)
	}
	h, err := record.ReadHeader(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.TruncateTo(h.LastOffset() + 1); err != nil {
		t.Fatal(err)
	}
	if same, err := sameBatchesBelow(leader, f, 0, hw, &leaderWalk{}); err != nil || same {
		t.Errorf("leader walked first, follower missing batches: same %v, err %v; want false", same, err)
	}
	if same, err := sameBatchesBelow(f, leader, 0, hw, &leaderWalk{}); err != nil || same {
		t.Errorf("follower walked first: same %v, err %v; want false", same, err)
	}
}

// threeBatchLog is a log in memory holding the same three batches of
// three records each as every other log it makes.
func threeBatchLog(t *testing.T) *log.Log {
	t.Helper()
	l, _, err := log.Open(storage.NewMem(), "orders-0", log.DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"a", "b", "c"} {
		b := &record.Batch{BaseTimestamp: 1000, MaxTimestamp: 1000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, LastOffsetDelta: 2}
		for i := range 3 {
			b.Records = append(b.Records, record.Record{OffsetDelta: int32(i), Value: []byte(prefix + string(rune('0'+i)))})
		}
		if _, err := l.AppendAsLeader(b, 0); err != nil {
			t.Fatal(err)
		}
	}
	return l
}
