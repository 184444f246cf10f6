package coordinator

import (
	"testing"

	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/protocol"
)

func (h *harness) cgJoin(member string) protocol.ConsumerGroupHeartbeatResponse {
	ref := h.do("c-"+member, protocol.ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: member, MemberEpoch: 0,
		RebalanceTimeoutMs: 300000, SubscribedTopicNames: []string{"t"}, TopicPartitions: []protocol.TopicPartitions{}})
	r, _ := h.replies[ref].(protocol.ConsumerGroupHeartbeatResponse)
	if r.Error != protocol.None {
		h.t.Fatalf("join %s: %s %s", member, r.Error.Name(), r.ErrorMessage)
	}
	return r
}

// TestConsumerGroupRecords mirrors consumerGroupHeartbeat's records for
// a joining member (member metadata, group epoch, target assignment and
// its epoch, current assignment) and consumerGroupFenceMember's
// tombstones, and replay rebuilding the group from them.
func TestConsumerGroupRecords(t *testing.T) {
	h := newHarness(t)
	r := h.cgJoin("m1")
	if r.MemberEpoch != 1 || !r.HasAssignment || len(r.Assignment) != 1 || len(r.Assignment[0].Partitions) != 2 {
		t.Fatalf("join response %+v", r)
	}
	var types []int16
	for _, rec := range h.log {
		types = append(types, rec.KeyType)
	}
	want := []int16{offsets.TypeConsumerGroupMemberMetadata, offsets.TypeConsumerGroupMetadata,
		offsets.TypeConsumerGroupTargetAssignmentMember, offsets.TypeConsumerGroupTargetAssignmentMeta,
		offsets.TypeConsumerGroupCurrentMemberAssignment}
	if len(types) != len(want) {
		t.Fatalf("record types %v, want %v", types, want)
	}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("record types %v, want %v", types, want)
		}
	}
	cur := h.log[4].Value.(*offsets.ConsumerGroupCurrentMemberAssignmentValue)
	if cur.MemberEpoch != 1 || cur.State != 0 || len(cur.AssignedPartitions) != 1 || cur.AssignedPartitions[0].TopicID != TopicID("t") {
		t.Fatalf("current assignment %+v", cur)
	}
	h.reload()
	d, ok := h.s.Describe("g")
	if !ok || d.Type != "consumer" || d.State != "Stable" || d.Epoch != 1 || len(d.Members) != 1 || len(d.Members[0].Assigned) != 2 ||
		d.Members[0].ClientID != "c-m1" {
		t.Fatalf("reloaded %+v", d)
	}
	ref := h.do("c-m1", protocol.ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "m1", MemberEpoch: 1, RebalanceTimeoutMs: -1})
	if r := h.replies[ref].(protocol.ConsumerGroupHeartbeatResponse); r.Error != protocol.None || r.MemberEpoch != 1 {
		t.Fatalf("heartbeat after the load %+v", r)
	}
	// Leaving: the member's three tombstones, then the new group epoch.
	n := len(h.log)
	h.do("c-m1", protocol.ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "m1", MemberEpoch: -1, RebalanceTimeoutMs: -1})
	left := h.log[n:]
	if len(left) != 4 || left[0].Value != nil || left[2].Value != nil || left[3].KeyType != offsets.TypeConsumerGroupMetadata {
		t.Fatalf("leave records %+v", left)
	}
	h.reload()
	if d, _ := h.s.Describe("g"); d.State != "Empty" || d.Epoch != 2 || len(d.Members) != 0 {
		t.Fatalf("after leave and reload %+v", d)
	}
}

// TestConsumerGroupInvalidJoinLeavesNoGroup mirrors
// throwIfConsumerGroupHeartbeatRequestIsInvalid: the request fails and,
// as Kafka reverts the shard, no empty group is left behind.
func TestConsumerGroupInvalidJoinLeavesNoGroup(t *testing.T) {
	h := newHarness(t)
	ref := h.do("c", protocol.ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "m1", MemberEpoch: 0, RebalanceTimeoutMs: 300000,
		TopicPartitions: []protocol.TopicPartitions{}})
	if r := h.replies[ref].(protocol.ConsumerGroupHeartbeatResponse); r.Error != protocol.InvalidRequest {
		t.Fatalf("got %+v", r)
	}
	if _, ok := h.s.Describe("g"); ok || len(h.log) != 0 {
		t.Fatalf("a group was left behind (%d records)", len(h.log))
	}
}

// TestStaticConsumerMemberFailover mirrors consumerGroupStaticMemberGroupLeave
// and the takeover in getOrMaybeSubscribeStaticConsumerGroupMember, as
// records: the -2 leave writes the member's current assignment at epoch
// -2; the new incarnation's join writes the old member's tombstones and
// the new member with the same target, with no new group epoch; a new
// coordinator replaying them has the new incarnation with the partitions.
func TestStaticConsumerMemberFailover(t *testing.T) {
	h := newHarness(t)
	join := func(member string) protocol.ConsumerGroupHeartbeatResponse {
		ref := h.do("c-"+member, protocol.ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: member, MemberEpoch: 0, InstanceID: "i1",
			RebalanceTimeoutMs: 300000, SubscribedTopicNames: []string{"t"}, TopicPartitions: []protocol.TopicPartitions{}})
		r, _ := h.replies[ref].(protocol.ConsumerGroupHeartbeatResponse)
		return r
	}
	first := join("m1")
	n := len(h.log)
	h.do("c-m1", protocol.ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "m1", MemberEpoch: -2, InstanceID: "i1", RebalanceTimeoutMs: -1})
	left := h.log[n:]
	if len(left) != 1 || left[0].KeyType != offsets.TypeConsumerGroupCurrentMemberAssignment ||
		left[0].Value.(*offsets.ConsumerGroupCurrentMemberAssignmentValue).MemberEpoch != -2 {
		t.Fatalf("-2 leave records %+v", left)
	}
	n = len(h.log)
	second := join("m2")
	if second.Error != protocol.None || second.MemberEpoch != first.MemberEpoch || len(second.Assignment) != 1 {
		t.Fatalf("takeover %+v", second)
	}
	for _, r := range h.log[n:] {
		if r.KeyType == offsets.TypeConsumerGroupMetadata {
			t.Fatalf("the takeover bumped the group epoch: %+v", h.log[n:])
		}
	}
	h.reload()
	d, _ := h.s.Describe("g")
	if len(d.Members) != 1 || d.Members[0].MemberID != "m2" || d.Members[0].InstanceID != "i1" || len(d.Members[0].Assigned) != 2 ||
		len(d.Members[0].Target) != 2 || d.Epoch != first.MemberEpoch {
		t.Fatalf("after the failover %+v", d)
	}
}
