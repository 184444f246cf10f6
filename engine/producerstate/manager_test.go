package producerstate

import (
	"errors"
	"slices"
	"testing"
)

// TestFindDuplicateBatch mirrors ProducerStateEntry.findDuplicateBatch as
// UnifiedLog uses it (UnifiedLogTest.testDuplicateAppends): a retry of one
// of the last NumBatchesToRetain batches is acknowledged with the offsets
// and timestamp of the original and nothing is written; an older one is
// out of order.
func TestFindDuplicateBatch(t *testing.T) {
	m := NewManager(DefaultProducerIDExpirationMs)
	// Six batches of two records: seqs 0-1, 2-3, ..., 10-11 at offsets
	// 100-101, 110-111, ...
	for i := range int32(6) {
		off := 100 + int64(i)*10
		if r := m.Append(data(3, 2*i, 2*i+1, off, off+1, off, false), Client); r.Err != nil {
			t.Fatalf("batch %d: %v", i, r.Err)
		}
	}
	cases := []struct {
		name    string
		b       Batch
		dup     bool
		first   int64
		wantErr error
	}{
		{name: "retry of the last batch", b: data(3, 10, 11, 999, 1000, 7, false), dup: true, first: 150},
		{name: "retry of the oldest batch kept", b: data(3, 2, 3, 999, 1000, 7, false), dup: true, first: 110},
		{name: "retry of a batch no longer kept", b: data(3, 0, 1, 999, 1000, 7, false), wantErr: OutOfOrderSequenceNumber},
		{name: "same first sequence, other last sequence", b: data(3, 10, 12, 999, 1001, 7, false), wantErr: OutOfOrderSequenceNumber},
		{name: "same sequences under an older epoch", b: data(2, 10, 11, 999, 1000, 7, false), wantErr: InvalidProducerEpoch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, _ := m.Entry(pid)
			r := m.Append(c.b, Client)
			after, _ := m.Entry(pid)
			if !equalEntry(before, after) {
				t.Fatalf("state changed: %+v -> %+v", before, after)
			}
			if r.Duplicate != c.dup || !errors.Is(r.Err, c.wantErr) || (c.wantErr == nil && r.Err != nil) {
				t.Fatalf("duplicate %v err %v, want duplicate %v err %v", r.Duplicate, r.Err, c.dup, c.wantErr)
			}
			if c.dup && (r.Original.FirstOffset() != c.first || r.Original.LastOffset != c.first+1 || r.Original.Timestamp != c.first) {
				t.Fatalf("original %+v, want offsets %d..%d with timestamp %d", r.Original, c.first, c.first+1, c.first)
			}
		})
	}
	// A replicated copy is never a duplicate: followers apply what the
	// leader wrote (the lookup is for the CLIENT origin only).
	if r := m.Check(data(3, 10, 11, 160, 161, 7, false), Replication); r.Duplicate || r.Err != nil {
		t.Fatalf("replication: duplicate %v err %v, want applied", r.Duplicate, r.Err)
	}
}

// TestNoProducerID: a batch without a producer id (idempotence off) is
// neither checked nor remembered (UnifiedLog skips !batch.hasProducerId).
func TestNoProducerID(t *testing.T) {
	m := NewManager(DefaultProducerIDExpirationMs)
	b := one(NoProducerEpoch, NoSequence, 0, false)
	b.ProducerID = NoProducerID
	for range 2 {
		if r := m.Append(b, Client); r.Err != nil || r.Duplicate {
			t.Fatalf("err %v duplicate %v, want accepted", r.Err, r.Duplicate)
		}
	}
	if len(m.Producers()) != 0 {
		t.Fatalf("producers %+v, want none", m.Producers())
	}
}

// TestRemoveExpiredProducers mirrors testPidExpirationTimeout and
// testProducersWithOngoingTransactionsDontExpire: an idle producer is
// forgotten after producer.id.expiration.ms (then any sequence is
// accepted from it), one with an open transaction never is.
func TestRemoveExpiredProducers(t *testing.T) {
	const exp = DefaultProducerIDExpirationMs
	m := NewManager(exp)
	idle := one(0, 0, 0, false) // timestamp 1000
	m.Append(idle, Client)
	open := one(0, 0, 1, true)
	open.ProducerID = 2
	m.Append(open, Client)

	if gone := m.RemoveExpired(1000 + exp - 1); len(gone) != 0 {
		t.Fatalf("expired %v one ms early", gone)
	}
	if gone := m.RemoveExpired(1000 + exp + 1000); !slices.Equal(gone, []int64{1}) {
		t.Fatalf("expired %v, want [1] (2 has an open transaction)", gone)
	}
	if r := m.Append(one(0, 5, 2, false), Client); r.Err != nil {
		t.Fatalf("after expiration: %v, want any sequence accepted", r.Err)
	}
}

// TestReplay mirrors rebuilding the state from the log
// (UnifiedLog.rebuildProducerState): replaying what the leader accepted
// gives the leader's state, whatever the sequences.
func TestReplay(t *testing.T) {
	leader := NewManager(DefaultProducerIDExpirationMs)
	var written []Batch
	for _, b := range []Batch{
		one(0, 0, 0, false), one(0, 1, 1, false), one(0, 1, 2, false) /* duplicate: not written */, one(0, 2, 2, true),
		marker(1, Abort, 3, 3), one(1, 0, 4, false), data(1, 1, 3, 5, 7, 9, false),
	} {
		r := leader.Append(b, b.originForTest())
		if r.Err == nil && !r.Duplicate {
			written = append(written, b)
		}
	}
	if len(written) != 6 {
		t.Fatalf("leader wrote %d batches, want 6", len(written))
	}
	follower := NewManager(DefaultProducerIDExpirationMs)
	if err := follower.Replay(written); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(leader.Producers(), follower.Producers(), equalEntry) {
		t.Fatalf("replayed %+v, leader has %+v", follower.Producers(), leader.Producers())
	}

	bad := NewManager(DefaultProducerIDExpirationMs)
	err := bad.Replay([]Batch{one(0, 0, 0, true), one(0, 1, 1, false)})
	var re *ReplayError
	if !errors.As(err, &re) || re.Offset != 1 || !errors.Is(err, InvalidTxnState) {
		t.Fatalf("replay error %v, want INVALID_TXN_STATE at offset 1", err)
	}
}

func (b Batch) originForTest() Origin {
	if b.Marker != nil {
		return Coordinator
	}
	return Client
}

// TestFirstUndecidedOffset mirrors firstUndecidedOffset: the oldest open
// transaction bounds the last stable offset.
func TestFirstUndecidedOffset(t *testing.T) {
	m := NewManager(DefaultProducerIDExpirationMs)
	if _, ok := m.FirstUndecidedOffset(); ok {
		t.Fatal("undecided offset with no transaction")
	}
	a := one(0, 0, 10, true)
	b := one(0, 0, 5, true)
	b.ProducerID = 9
	m.Append(a, Client)
	m.Append(b, Client)
	if off, ok := m.FirstUndecidedOffset(); !ok || off != 5 {
		t.Fatalf("first undecided %d %v, want 5", off, ok)
	}
	c := marker(0, Commit, 0, 11)
	c.ProducerID = 9
	m.Append(c, Coordinator)
	if off, ok := m.FirstUndecidedOffset(); !ok || off != 10 {
		t.Fatalf("first undecided %d %v, want 10", off, ok)
	}
}
