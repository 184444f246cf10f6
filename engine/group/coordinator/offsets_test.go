package coordinator

import (
	"testing"

	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/protocol"
)

var tp0 = protocol.TopicPartition{Topic: "t", Partition: 0}

func commitReq(gen int32, member string) protocol.OffsetCommitRequest {
	return protocol.OffsetCommitRequest{GroupID: "g", GenerationIDOrMemberEpoch: gen, MemberID: member,
		Offsets: []protocol.OffsetCommitPartition{{TP: tp0, Offset: 7, LeaderEpoch: -1}}}
}

// TestOffsetCommitValidation mirrors OffsetMetadataManager.validateOffsetCommit
// with ClassicGroup.validateOffsetCommit and ConsumerGroup.validateOffsetCommit.
func TestOffsetCommitValidation(t *testing.T) {
	cases := []struct {
		name  string
		setup func(h *harness) (member string, gen int32)
		want  protocol.ErrorCode
	}{
		{"simple commit (-1, no member) to an unknown group creates a simple group",
			func(h *harness) (string, int32) { return "", -1 }, protocol.None},
		{"generation 1 to an unknown group: GROUP_ID_NOT_FOUND (v9)",
			func(h *harness) (string, int32) { return "m", 1 }, protocol.GroupIDNotFound},
		{"classic member at its generation",
			func(h *harness) (string, int32) { m1, _ := h.stableGroupOfTwo(); return m1, 1 }, protocol.None},
		{"classic: unknown member",
			func(h *harness) (string, int32) { h.stableGroupOfTwo(); return "nobody", 1 }, protocol.UnknownMemberID},
		{"classic: ILLEGAL_GENERATION",
			func(h *harness) (string, int32) { m1, _ := h.stableGroupOfTwo(); return m1, 0 }, protocol.IllegalGeneration},
		{"classic: admin commit while the group has members",
			func(h *harness) (string, int32) { h.stableGroupOfTwo(); return "", -1 }, protocol.UnknownMemberID},
		{"classic: REBALANCE_IN_PROGRESS while CompletingRebalance",
			func(h *harness) (string, int32) {
				m1 := h.join("c1", "").MemberID
				h.join("c1", m1)
				h.tick(3000)
				return m1, 1
			}, protocol.RebalanceInProgress},
		{"consumer: member at its epoch",
			func(h *harness) (string, int32) { r := h.cgJoin("m1"); return "m1", r.MemberEpoch }, protocol.None},
		{"consumer: STALE_MEMBER_EPOCH",
			func(h *harness) (string, int32) { r := h.cgJoin("m1"); return "m1", r.MemberEpoch + 1 }, protocol.StaleMemberEpoch},
		{"consumer: UNKNOWN_MEMBER_ID",
			func(h *harness) (string, int32) { h.cgJoin("m1"); return "m9", 1 }, protocol.UnknownMemberID},
		{"consumer: admin commit while the group has members",
			func(h *harness) (string, int32) { h.cgJoin("m1"); return "", -1 }, protocol.UnknownMemberID},
	}
	for _, c := range cases {
		h := newHarness(t)
		member, gen := c.setup(h)
		before := len(h.log)
		ref := h.do("c1", commitReq(gen, member))
		r := h.replies[ref].(protocol.OffsetCommitResponse)
		if len(r.Partitions) != 1 || r.Partitions[0].Error != c.want {
			t.Errorf("%s: got %+v, want %s", c.name, r, c.want.Name())
			continue
		}
		wrote := len(h.log) - before
		if (c.want == protocol.None) != (wrote == 1) {
			t.Errorf("%s: %d records written", c.name, wrote)
		}
	}
}

// TestOffsetRetention mirrors GroupMetadataManager.cleanupGroupMetadata
// with OffsetExpirationConditionImpl: an Empty classic group's offsets
// expire offsets.retention.minutes after it became Empty, then the group
// is deleted; a group with members keeps them.
func TestOffsetRetention(t *testing.T) {
	h := newHarness(t)
	h.s.cfg.OffsetsRetentionMs = 60_000
	m1, _ := h.stableGroupOfTwo()
	h.do("c1", commitReq(1, m1))
	h.tick(120_000 - 1) // nobody heartbeats: both sessions (45 s) expire
	// Both sessions expired at 45 s: the group went Empty then.
	if d, _ := h.s.Describe("g"); d.State != "Empty" {
		t.Fatalf("state %s", d.State)
	}
	emptySince := h.s.classic["g"].g.StateSince()
	h.now = emptySince + 60_000 - 1
	if r := h.s.ExpireOffsets(h.now); len(r.Records) != 0 {
		t.Fatalf("expired early: %+v", r.Records)
	}
	h.now++
	r := h.s.ExpireOffsets(h.now)
	h.apply(r)
	if len(r.Records) != 2 || r.Records[0].Value != nil || r.Records[1].KeyType != offsets.TypeGroupMetadata || r.Records[1].Value != nil {
		t.Fatalf("want an offset tombstone then the group's: %+v", r.Records)
	}
	if _, ok := h.s.Describe("g"); ok {
		t.Fatal("group still there")
	}
	// Replaying the tombstones leaves nothing.
	h.reload()
	if len(h.s.Groups()) != 0 {
		t.Fatalf("after reload: %+v", h.s.Groups())
	}

	// A Stable group's offsets stay.
	h2 := newHarness(t)
	h2.s.cfg.OffsetsRetentionMs = 1
	m1, _ = h2.stableGroupOfTwo()
	h2.do("c1", commitReq(1, m1))
	if r := h2.s.ExpireOffsets(h2.now + 10); len(r.Records) != 0 {
		t.Fatalf("a live group's offsets expired: %+v", r.Records)
	}
}
