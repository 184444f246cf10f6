package coordinator

import (
	"testing"

	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/protocol"
)

var tp1 = protocol.TopicPartition{Topic: "t", Partition: 1}

func txnCommitReq(pid int64, gen int32, member string, offset int64) protocol.TxnOffsetCommitRequest {
	return protocol.TxnOffsetCommitRequest{TransactionalID: "tx", GroupID: "g", ProducerID: pid, ProducerEpoch: 0,
		GenerationID: gen, MemberID: member, Offsets: []protocol.OffsetCommitPartition{{TP: tp0, Offset: offset, LeaderEpoch: -1}}}
}

func (h *harness) txnCommit(pid int64, gen int32, member string, offset int64) protocol.ErrorCode {
	ref := h.do("producer", txnCommitReq(pid, gen, member, offset))
	r := h.replies[ref].(protocol.TxnOffsetCommitResponse)
	if len(r.Partitions) != 1 {
		h.t.Fatalf("response %+v", r)
	}
	return r.Partitions[0].Error
}

// fetchOne is an OffsetFetch of t-0 as a consumer sends it.
func (h *harness) fetchOne(requireStable bool) protocol.OffsetFetchPartition {
	ref := h.do("c1", protocol.OffsetFetchRequest{GroupID: "g", MemberEpoch: -1, TPs: []protocol.TopicPartition{tp0}, RequireStable: requireStable})
	r := h.replies[ref].(protocol.OffsetFetchResponse)
	if r.Error != protocol.None || len(r.Partitions) != 1 {
		h.t.Fatalf("fetch: %+v", r)
	}
	return r.Partitions[0]
}

func (h *harness) committedOffset() int64 {
	return h.fetchOne(false).Offset
}

// TestTxnOffsetCommitValidation mirrors OffsetMetadataManager.validateTransactionalOffsetCommit
// (with ClassicGroup/ConsumerGroup.validateOffsetCommit, isTransactional)
// and GroupCoordinatorService.commitTransactionalOffsets' group id check:
// KIP-447's fencing of a zombie consumer's offsets.
func TestTxnOffsetCommitValidation(t *testing.T) {
	cases := []struct {
		name  string
		group string
		setup func(h *harness) (member string, gen int32)
		want  protocol.ErrorCode
	}{
		{"empty group id: INVALID_GROUP_ID", "",
			func(h *harness) (string, int32) { return "", -1 }, protocol.InvalidGroupID},
		{"unknown group, generation -1: a simple group", "g",
			func(h *harness) (string, int32) { return "", -1 }, protocol.None},
		{"unknown group with a generation: ILLEGAL_GENERATION (not GROUP_ID_NOT_FOUND)", "g",
			func(h *harness) (string, int32) { return "m", 1 }, protocol.IllegalGeneration},
		{"classic member at its generation", "g",
			func(h *harness) (string, int32) { m1, _ := h.stableGroupOfTwo(); return m1, 1 }, protocol.None},
		{"classic zombie of generation 0", "g",
			func(h *harness) (string, int32) { m1, _ := h.stableGroupOfTwo(); return m1, 0 }, protocol.IllegalGeneration},
		{"classic member the group removed", "g",
			func(h *harness) (string, int32) { h.stableGroupOfTwo(); return "gone", 1 }, protocol.UnknownMemberID},
		{"classic group with members, no membership sent: accepted", "g",
			func(h *harness) (string, int32) { h.stableGroupOfTwo(); return "", -1 }, protocol.None},
		{"classic CompletingRebalance: accepted", "g",
			func(h *harness) (string, int32) {
				m1 := h.join("c1", "").MemberID
				h.join("c1", m1)
				h.tick(3000)
				return m1, 1
			}, protocol.None},
		{"consumer member at its epoch", "g",
			func(h *harness) (string, int32) { r := h.cgJoin("m1"); return "m1", r.MemberEpoch }, protocol.None},
		{"consumer stale epoch: ILLEGAL_GENERATION, not STALE_MEMBER_EPOCH", "g",
			func(h *harness) (string, int32) { r := h.cgJoin("m1"); return "m1", r.MemberEpoch - 1 }, protocol.IllegalGeneration},
		{"consumer unknown member", "g",
			func(h *harness) (string, int32) { h.cgJoin("m1"); return "m9", 1 }, protocol.UnknownMemberID},
	}
	for _, c := range cases {
		h := newHarness(t)
		member, gen := c.setup(h)
		before := len(h.log)
		req := txnCommitReq(1000, gen, member, 7)
		req.GroupID = c.group
		ref := h.do("producer", req)
		r := h.replies[ref].(protocol.TxnOffsetCommitResponse)
		if len(r.Partitions) != 1 || r.Partitions[0].Error != c.want {
			t.Errorf("%s: got %+v, want %s", c.name, r, c.want.Name())
			continue
		}
		if wrote := len(h.log) - before; (c.want == protocol.None) != (wrote == 1) {
			t.Errorf("%s: %d records written", c.name, wrote)
		}
		if c.want == protocol.None {
			if got := h.s.PendingTxnOffsets("g"); len(got) != 1 || got[0] != (PendingOffset{1000, tp0, 7}) {
				t.Errorf("%s: pending %+v", c.name, got)
			}
			if off := h.committedOffset(); off != -1 {
				t.Errorf("%s: committed before the marker: %d", c.name, off)
			}
		}
	}
}

// TestReplayEndTransactionMarker mirrors OffsetMetadataManager.replayEndTransactionMarker
// (OffsetMetadataManagerTest's testReplayTransactionEndMarkerWithCommit,
// ...WithAbort, ...KeepsTheMostRecentCommittedOffset): the COMMIT marker
// makes the producer's pending offsets the committed ones where they were
// written after the committed one, the ABORT marker drops them. A new
// coordinator replaying the log reaches the same state.
func TestReplayEndTransactionMarker(t *testing.T) {
	cases := []struct {
		name   string
		script func(h *harness)
		want   int64
	}{
		{"commit", func(h *harness) {
			h.txnCommit(1000, -1, "", 7)
			h.marker(1000, true)
		}, 7},
		{"abort keeps the committed offset", func(h *harness) {
			h.do("c1", commitReq(-1, "")) // 7
			h.txnCommit(1000, -1, "", 9)
			h.marker(1000, false)
		}, 7},
		{"commit over an older plain commit", func(h *harness) {
			h.do("c1", commitReq(-1, "")) // 7
			h.txnCommit(1000, -1, "", 9)
			h.marker(1000, true)
		}, 9},
		{"a plain commit written after the transactional one wins", func(h *harness) {
			h.do("c1", protocol.OffsetCommitRequest{GroupID: "g", GenerationIDOrMemberEpoch: -1,
				Offsets: []protocol.OffsetCommitPartition{{TP: tp1, Offset: 3, LeaderEpoch: -1}}})
			h.txnCommit(1000, -1, "", 9)
			h.do("c1", commitReq(-1, "")) // 7
			h.marker(1000, true)
		}, 7},
		{"another producer's marker leaves it pending", func(h *harness) {
			h.txnCommit(1000, -1, "", 9)
			h.marker(2000, true)
		}, -1},
		{"the latest of two commits in one transaction", func(h *harness) {
			h.txnCommit(1000, -1, "", 8)
			h.txnCommit(1000, -1, "", 9)
			h.marker(1000, true)
		}, 9},
		{"two producers, the later written wins whatever the marker order", func(h *harness) {
			h.txnCommit(1000, -1, "", 8)
			h.txnCommit(2000, -1, "", 9)
			h.marker(2000, true)
			h.marker(1000, true)
		}, 9},
		{"a tombstone deletes the pending offset", func(h *harness) {
			h.txnCommit(1000, -1, "", 9)
			h.s.ExpireOffsets(h.now) // nothing: the offset is pending
			tomb := tombstone(offsetKey("g", tp0))
			h.apply(Result{Records: []offsetsRecord{tomb}})
			h.s.ReplayRecord(int64(len(h.entries)-1), -1, tomb)
			h.marker(1000, true)
		}, -1},
	}
	for _, c := range cases {
		h := newHarness(t)
		c.script(h)
		if got := h.committedOffset(); got != c.want {
			t.Errorf("%s: committed %d, want %d", c.name, got, c.want)
		}
		h.reload()
		if got := h.committedOffset(); got != c.want {
			t.Errorf("%s: after reload committed %d, want %d", c.name, got, c.want)
		}
	}
}

// TestFetchRequireStable mirrors OffsetMetadataManager.fetchOffsets with
// requireStable: UNSTABLE_OFFSET_COMMIT while a transaction has a pending
// offset for the partition, the committed offset without it or once the
// transaction is decided; a new coordinator knows the open transaction.
func TestFetchRequireStable(t *testing.T) {
	h := newHarness(t)
	h.do("c1", commitReq(-1, "")) // 7
	if c := h.txnCommit(1000, -1, "", 9); c != protocol.None {
		t.Fatalf("txn commit: %s", c.Name())
	}
	if p := h.fetchOne(true); p.Error != protocol.UnstableOffsetCommit || p.Offset != -1 {
		t.Fatalf("require stable: %+v", p)
	}
	if p := h.fetchOne(false); p.Error != protocol.None || p.Offset != 7 {
		t.Fatalf("not require stable: %+v", p)
	}
	// Another partition of the group is stable.
	ref := h.do("c1", protocol.OffsetFetchRequest{GroupID: "g", MemberEpoch: -1, TPs: []protocol.TopicPartition{tp1}, RequireStable: true})
	if r := h.replies[ref].(protocol.OffsetFetchResponse); r.Partitions[0].Error != protocol.None {
		t.Fatalf("t-1: %+v", r)
	}
	h.reload()
	if p := h.fetchOne(true); p.Error != protocol.UnstableOffsetCommit {
		t.Fatalf("after reload: %+v", p)
	}
	h.marker(1000, false)
	if p := h.fetchOne(true); p.Error != protocol.None || p.Offset != 7 {
		t.Fatalf("after the abort: %+v", p)
	}
}

// TestExpiryKeepsPendingTxnOffsets mirrors OffsetMetadataManager.cleanupExpiredOffsets:
// an expired offset with a pending transactional offset is kept, and a
// group with an open transaction is not deleted.
func TestExpiryKeepsPendingTxnOffsets(t *testing.T) {
	h := newHarness(t)
	h.s.cfg.OffsetsRetentionMs = 1
	h.do("c1", commitReq(-1, "")) // a simple group with t-0=7
	h.txnCommit(1000, -1, "", 9)
	h.now += 10
	if r := h.s.ExpireOffsets(h.now); len(r.Records) != 0 {
		t.Fatalf("expired with a transaction open: %+v", r.Records)
	}
	h.marker(1000, true)
	h.now += 10
	r := h.s.ExpireOffsets(h.now)
	if len(r.Records) != 2 {
		t.Fatalf("once decided, the offset and the group expire: %+v", r.Records)
	}
	// A group whose only offsets are pending is not deleted either.
	h2 := newHarness(t)
	h2.s.cfg.OffsetsRetentionMs = 1
	h2.txnCommit(1000, -1, "", 9)
	h2.now += 10
	if r := h2.s.ExpireOffsets(h2.now); len(r.Records) != 0 {
		t.Fatalf("group deleted with a transaction open: %+v", r.Records)
	}
	h2.marker(1000, true)
	if got := h2.committedOffset(); got != 9 {
		t.Fatalf("committed %d", got)
	}
}

type offsetsRecord = offsets.Record

func offsetKey(group string, tp protocol.TopicPartition) *offsets.OffsetCommitKey {
	return &offsets.OffsetCommitKey{Group: group, Topic: tp.Topic, Partition: tp.Partition}
}
