package producerstate

import (
	"errors"
	"math"
	"testing"
)

const pid = int64(1)

// data is a client or replicated data batch of one producer.
func data(epoch int16, firstSeq, lastSeq int32, firstOffset, lastOffset, ts int64, txn bool) Batch {
	return Batch{ProducerID: pid, Epoch: epoch, FirstSeq: firstSeq, LastSeq: lastSeq,
		FirstOffset: firstOffset, LastOffset: lastOffset, MaxTimestamp: ts, Transactional: txn}
}

// one is a one-record batch.
func one(epoch int16, seq int32, offset int64, txn bool) Batch {
	return data(epoch, seq, seq, offset, offset, 1000+offset, txn)
}

func marker(epoch int16, typ ControlType, coordEpoch int32, offset int64) Batch {
	return Batch{ProducerID: pid, Epoch: epoch, FirstSeq: NoSequence, LastSeq: NoSequence,
		FirstOffset: offset, LastOffset: offset, MaxTimestamp: 1000 + offset,
		Marker: &Marker{Type: typ, CoordinatorEpoch: coordEpoch}}
}

// step is one append and what Kafka answers to it. raw skips the duplicate
// lookup, as Kafka's ProducerStateManagerTest does by calling
// ProducerAppendInfo directly.
type step struct {
	b      Batch
	origin Origin
	raw    bool
	want   error
}

type scenario struct {
	name  string
	steps []step
	after func(t *testing.T, e Entry)
}

// TestProducerAppendInfo ports ProducerStateManagerTest's cases that go
// through ProducerAppendInfo (checkProducerEpoch, checkSequence,
// appendDataBatch, appendEndTxnMarker); each case is named after the Kafka
// test it mirrors.
func TestProducerAppendInfo(t *testing.T) {
	const maxSeq = math.MaxInt32
	scenarios := []scenario{
		{name: "testBasicIdMapping", steps: []step{
			{b: one(0, 0, 0, false)},
			{b: one(0, 1, 1, false)},
			// Without the duplicate lookup the retry is out of order.
			{b: one(0, 1, 2, false), raw: true, want: OutOfOrderSequenceNumber},
			{b: one(0, 5, 2, false), want: OutOfOrderSequenceNumber},
			{b: one(1, 0, 3, false)},
			{b: one(0, 0, 4, false), want: InvalidProducerEpoch},
		}, after: func(t *testing.T, e Entry) {
			if e.Epoch != 1 || e.LastSeq() != 0 || e.LastDataOffset() != 3 || len(e.Batches) != 1 {
				t.Errorf("entry %+v, want epoch 1 with only the batch at offset 3", e)
			}
		}},
		{name: "testAppendTxnMarkerWithNoProducerState", steps: []step{
			{b: marker(2, Commit, 0, 27), origin: Coordinator},
			// Fencing works even when the marker is all that is left.
			{b: one(0, 0, 28, false), want: InvalidProducerEpoch},
			// A non-zero sequence makes the producer reset its sequences.
			{b: one(2, 17, 28, false), want: OutOfOrderSequenceNumber},
			{b: one(2, 0, 28, false)},
		}, after: func(t *testing.T, e Entry) {
			if e.Epoch != 2 || e.LastSeq() != 0 {
				t.Errorf("entry %+v, want epoch 2 last sequence 0", e)
			}
		}},
		{name: "testProducerSequenceWrapAround", steps: []step{
			{b: one(15, maxSeq, 735, false), origin: Replication},
			{b: one(15, 0, 1235, false)},
		}, after: func(t *testing.T, e Entry) {
			if e.Epoch != 15 || e.FirstSeq() != maxSeq || e.LastSeq() != 0 {
				t.Errorf("entry %+v, want sequences Int32 max .. 0", e)
			}
		}},
		{name: "testProducerSequenceWithWrapAroundBatchRecord", steps: []step{
			{b: data(15, maxSeq-10, 9, 2000, 2020, 5, false), origin: Replication},
		}, after: func(t *testing.T, e Entry) {
			if e.FirstSeq() != maxSeq-10 || e.LastSeq() != 9 || e.FirstDataOffset() != 2000 || e.LastDataOffset() != 2020 {
				t.Errorf("entry %+v (first seq %d), want seq %d..9 at 2000..2020", e, e.FirstSeq(), maxSeq-10)
			}
		}},
		{name: "testProducerSequenceInvalidWrapAround", steps: []step{
			{b: one(15, maxSeq, 735, false), origin: Replication},
			{b: one(15, 1, 1235, false), want: OutOfOrderSequenceNumber},
		}},
		{name: "testNoValidationOnFirstEntryWhenLoadingLog", steps: []step{
			{b: one(5, 16, 735, false), origin: Replication},
		}, after: func(t *testing.T, e Entry) {
			if e.Epoch != 5 || e.FirstSeq() != 16 || e.LastSeq() != 16 || e.FirstDataOffset() != 735 {
				t.Errorf("entry %+v, want epoch 5 seq 16 at 735", e)
			}
		}},
		{name: "testControlRecordBumpsProducerEpoch", steps: []step{
			{b: one(0, 0, 0, false)},
			{b: marker(1, Abort, 0, 1), origin: Coordinator},
			{b: one(1, 0, 2, false)},
		}, after: func(t *testing.T, e Entry) {
			if e.Epoch != 1 || e.FirstSeq() != 0 || e.HasOngoingTxn() || len(e.Batches) != 1 {
				t.Errorf("entry %+v, want epoch 1 with one batch from sequence 0", e)
			}
		}},
		{name: "updateProducerTransactionState", steps: []step{
			{b: one(0, 0, 9, false)},
			{b: data(0, 1, 5, 16, 20, 1, true)},
			{b: data(0, 6, 10, 26, 30, 2, true)},
			{b: marker(0, Commit, 15, 40), origin: Coordinator},
		}, after: func(t *testing.T, e Entry) {
			// The marker keeps the batches: it does not touch sequences.
			if e.LastSeq() != 10 || e.LastDataOffset() != 30 || e.HasOngoingTxn() || e.CoordinatorEpoch != 15 || len(e.Batches) != 3 {
				t.Errorf("entry %+v, want 3 batches up to seq 10 at 30, no transaction, coordinator epoch 15", e)
			}
		}},
		{name: "testOutOfSequenceAfterControlRecordEpochBump", steps: []step{
			{b: one(0, 0, 0, true)},
			{b: one(0, 1, 1, true)},
			{b: marker(1, Abort, 0, 2), origin: Coordinator},
			{b: one(1, 2, 3, true), want: OutOfOrderSequenceNumber},
			{b: one(2, 2, 3, true), want: OutOfOrderSequenceNumber},
			{b: one(1, 0, 3, true)},
		}, after: func(t *testing.T, e Entry) {
			if e.Epoch != 1 || e.LastSeq() != 0 || e.CurrentTxnFirstOffset != 3 {
				t.Errorf("entry %+v, want epoch 1 seq 0 with a transaction from 3", e)
			}
		}},
		{name: "testNonTransactionalAppendWithOngoingTransaction", steps: []step{
			{b: one(0, 0, 0, true)},
			{b: one(0, 1, 1, false), want: InvalidTxnState},
		}, after: func(t *testing.T, e Entry) {
			if e.LastSeq() != 0 || e.CurrentTxnFirstOffset != 0 {
				t.Errorf("entry %+v: a refused batch changed the state", e)
			}
		}},
		{name: "testProducerStateAfterFencingAbortMarker", steps: []step{
			{b: one(0, 0, 0, true)},
			{b: marker(1, Abort, 0, 1), origin: Coordinator},
		}, after: func(t *testing.T, e Entry) {
			if e.HasOngoingTxn() || e.LastDataOffset() != -1 || e.FirstDataOffset() != -1 || e.Epoch != 1 {
				t.Errorf("entry %+v, want epoch 1, no batches, no transaction", e)
			}
		}},
		{name: "testAcceptAppendWithSequenceGapsOnReplica", steps: []step{
			{b: one(0, 0, 0, false)},
			{b: one(0, 3, 1, false), want: OutOfOrderSequenceNumber},
			{b: one(0, 3, 1, false), origin: Replication},
		}, after: func(t *testing.T, e Entry) {
			if e.LastSeq() != 3 {
				t.Errorf("last seq %d, want 3 (a replica accepts the gap)", e.LastSeq())
			}
		}},
		{name: "testAcceptAppendWithoutProducerStateOnReplica (and on the leader: no UNKNOWN_PRODUCER_ID since KIP-360)", steps: []step{
			{b: one(0, 2, 2, false)},
		}, after: func(t *testing.T, e Entry) {
			if e.FirstSeq() != 2 || e.LastSeq() != 2 {
				t.Errorf("entry %+v, want seq 2", e)
			}
		}},
		{name: "testOldEpochForControlRecord", steps: []step{
			{b: one(3, 0, 0, true)},
			{b: marker(1, Commit, 0, 1), origin: Coordinator, want: InvalidProducerEpoch},
		}},
		{name: "testCoordinatorFencing", steps: []step{
			{b: one(0, 0, 0, true)},
			{b: marker(0, Commit, 1, 1), origin: Coordinator},
			{b: one(0, 1, 2, true)},
			{b: marker(0, Commit, 0, 3), origin: Coordinator, want: TransactionCoordinatorFenced},
			// A follower copies what the leader wrote without refusing it.
			{b: marker(0, Commit, 0, 3), origin: Replication},
		}, after: func(t *testing.T, e Entry) {
			if e.HasOngoingTxn() || e.CoordinatorEpoch != 0 {
				t.Errorf("entry %+v, want the replicated marker applied", e)
			}
		}},
		{name: "old epoch from replication is only logged (checkProducerEpoch, REPLICATION)", steps: []step{
			{b: one(3, 0, 0, false)},
			{b: one(2, 7, 1, false), origin: Replication},
		}, after: func(t *testing.T, e Entry) {
			if e.Epoch != 2 || e.LastSeq() != 7 {
				t.Errorf("entry %+v, want the replicated batch applied", e)
			}
		}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			m := NewManager(DefaultProducerIDExpirationMs)
			for i, s := range sc.steps {
				before, _ := m.Entry(pid)
				var r Result
				if s.raw {
					r = check(before, s.b, s.origin)
				} else {
					r = m.Append(s.b, s.origin)
				}
				if !errors.Is(r.Err, s.want) || (s.want == nil && r.Err != nil) {
					t.Fatalf("step %d (%+v): err %v, want %v", i, s.b, r.Err, s.want)
				}
				if r.Duplicate {
					t.Fatalf("step %d: unexpected duplicate", i)
				}
				if after, _ := m.Entry(pid); r.Err != nil && !equalEntry(before, after) {
					t.Fatalf("step %d: refused batch changed the state from %+v to %+v", i, before, after)
				}
			}
			if sc.after != nil {
				e, ok := m.Entry(pid)
				if !ok {
					t.Fatal("no producer state")
				}
				sc.after(t, e)
			}
		})
	}
}

func equalEntry(a, b Entry) bool {
	if a.ProducerID != b.ProducerID || a.Epoch != b.Epoch || a.CoordinatorEpoch != b.CoordinatorEpoch ||
		a.LastTimestamp != b.LastTimestamp || a.CurrentTxnFirstOffset != b.CurrentTxnFirstOffset || len(a.Batches) != len(b.Batches) {
		return false
	}
	for i := range a.Batches {
		if a.Batches[i] != b.Batches[i] {
			return false
		}
	}
	return true
}

// TestCompletedTxn mirrors updateProducerTransactionState and
// testRecoverFromSnapshotEmptyTransaction: a marker completes the
// transaction that has data here, and only that one.
func TestCompletedTxn(t *testing.T) {
	m := NewManager(DefaultProducerIDExpirationMs)
	m.Append(data(0, 0, 4, 16, 20, 1, true), Client)
	r := m.Append(marker(0, Abort, 15, 40), Coordinator)
	want := CompletedTxn{ProducerID: pid, FirstOffset: 16, LastOffset: 40, Aborted: true}
	if r.Err != nil || r.Completed == nil || *r.Completed != want {
		t.Fatalf("completed %+v err %v, want %+v", r.Completed, r.Err, want)
	}
	if r := m.Append(marker(0, Abort, 15, 41), Coordinator); r.Err != nil || r.Completed != nil {
		t.Fatalf("a marker without data completed %+v (err %v), want nothing", r.Completed, r.Err)
	}
}

// TestTransactionVersion2Markers mirrors checkProducerEpoch with
// transaction version 2: the coordinator bumps the epoch for each marker,
// so a marker of the current epoch is stale while the transaction is open
// and an idempotent retry once it is closed (KAFKA-19999).
func TestTransactionVersion2Markers(t *testing.T) {
	tv2 := func(epoch int16, offset int64) Batch {
		b := marker(epoch, Commit, 0, offset)
		b.Marker.TransactionVersion = 2
		return b
	}
	m := NewManager(DefaultProducerIDExpirationMs)
	m.Append(one(4, 0, 0, true), Client)
	if r := m.Append(tv2(4, 1), Coordinator); !errors.Is(r.Err, InvalidProducerEpoch) {
		t.Fatalf("same-epoch TV2 marker on an open transaction: err %v, want INVALID_PRODUCER_EPOCH", r.Err)
	}
	if r := m.Append(tv2(5, 1), Coordinator); r.Err != nil || r.Completed == nil {
		t.Fatalf("bumped TV2 marker: err %v completed %v, want the transaction completed", r.Err, r.Completed)
	}
	if r := m.Append(tv2(5, 2), Coordinator); r.Err != nil || r.Completed != nil {
		t.Fatalf("retried TV2 marker: err %v completed %v, want accepted with nothing completed", r.Err, r.Completed)
	}
	if r := m.Append(tv2(4, 3), Coordinator); !errors.Is(r.Err, InvalidProducerEpoch) {
		t.Fatalf("older TV2 marker: err %v, want INVALID_PRODUCER_EPOCH", r.Err)
	}
}
