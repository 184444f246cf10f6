package log

import (
	"testing"

	"github.com/loglab/loglab/engine/storage"
)

// copyFrom appends the leader's batches in [from, to) to the follower as a
// fetch would (AppendEncoded: the leader's offsets, bytes as they are).
func copyFrom(t *testing.T, leader, follower *Log, from, to int64) {
	t.Helper()
	rb := leader.RawBatches(from, to)
	for {
		raw, err := rb.Next()
		if err != nil {
			t.Fatal(err)
		}
		if raw == nil {
			return
		}
		if _, err := follower.AppendEncoded(raw); err != nil {
			t.Fatalf("follower append: %v", err)
		}
	}
}

// A replica that holds an aborted transaction's batches but fetches its
// marker only after the leader's cleaner has emptied it keeps the
// transaction open: Kafka's ProducerAppendInfo.append skips an empty
// control batch ("the entire transaction has been cleaned from the log"),
// as ProducerStateManagerTest.testAppendEmptyControlBatch checks, and the
// leader's cleaner empties the marker in two passes once no batch of the
// transaction is left in its own log (LogCleanerTest's
// testAbortMarkerRemoval / testCleanEmptyControlBatch: the marker batch is
// retained empty as the producer's last). The replica's last stable offset
// stays at the transaction's first offset: the hanging transaction VOPR
// seed 628 found on t1/0 after a power cut took b2's copy of the marker.
func TestFollowerFetchingAnEmptiedMarkerKeepsTheTransactionOpen(t *testing.T) {
	leader := openLog(t, storage.NewMem(), txnCleanerConfig())
	follower := openLog(t, storage.NewMem(), txnCleanerConfig())
	mustAppend(t, leader, keyed(1, 0, true, "k1", "aborted")) // 0: producer 1's transaction
	mustAppend(t, leader, keyed(2, 0, false, "k2", "x"))      // 1
	copyFrom(t, leader, follower, 0, 2)                       // the follower has the transaction's data, then is cut off
	// 2: ABORT at the bumped epoch (KIP-890's transaction version 2): the
	// producer's entry starts afresh at epoch 1, so no data batch is its
	// last any more and the cleaner may drop the aborted one entirely.
	if _, err := leader.AppendMarker(marker(1, 1, false, 0), 0, 2); err != nil {
		t.Fatal(err)
	}
	leader.Roll()
	mustAppend(t, leader, keyed(2, 1, false, "k3", "y")) // 3
	leader.LastStableOffset(leader.EndOffset())
	if e, _ := leader.Producer(1); e.HasOngoingTxn() {
		t.Fatalf("the leader's producer 1 %+v: its ABORT marker ended the transaction", e)
	}

	// First pass: the aborted record goes, the marker stays (its batch was
	// traversed); second: the marker gets its delete horizon; third, past
	// it: the marker's record goes, its batch kept empty.
	for i, now := range []int64{1000, 2000, 2200} {
		leader.Roll()
		mustAppend(t, leader, mkBatch(3000, rec("z", string(rune('0'+i)))))
		if _, err := leader.Clean(now); err != nil {
			t.Fatal(err)
		}
	}
	bs, err := leader.BatchesFrom(2)
	if err != nil {
		t.Fatal(err)
	}
	if h := bs[0].Header; h.BaseOffset != 2 || !h.IsControl() || h.RecordCount != 0 {
		t.Fatalf("the leader's batch at 2 is %+v, want the ABORT marker kept as an empty control batch", h)
	}

	copyFrom(t, leader, follower, 2, leader.EndOffset()) // the follower fetches again
	follower.LastStableOffset(leader.EndOffset())
	e, ok := follower.Producer(1)
	if !ok || !e.HasOngoingTxn() || e.CurrentTxnFirstOffset != 0 {
		t.Fatalf("the follower's producer 1 %+v (known %v), want its transaction still open from offset 0", e, ok)
	}
	if got := follower.LastStableOffset(follower.EndOffset()); got != 0 {
		t.Fatalf("the follower's last stable offset %d, want 0: the transaction hangs there", got)
	}
}
