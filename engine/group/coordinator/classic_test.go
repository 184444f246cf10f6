package coordinator

import (
	"testing"

	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// TestClassicGroupRecords mirrors GroupMetadataManager's classic-group
// writes: a new group's empty GroupMetadata (classicGroupJoin with
// isNewGroup), then the group with members and assignments when the
// leader's SyncGroup completes the generation (classicGroupSyncToLeader),
// and an empty one when the last member leaves (completeClassicGroupJoin
// on an empty group).
func TestClassicGroupRecords(t *testing.T) {
	h := newHarness(t)
	m1, m2 := h.stableGroupOfTwo()
	var gm []*offsets.GroupMetadataValue
	for _, r := range h.log {
		if v, ok := r.Value.(*offsets.GroupMetadataValue); ok {
			gm = append(gm, v)
		}
	}
	if len(gm) != 2 || len(gm[0].Members) != 0 || gm[0].Generation != 0 {
		t.Fatalf("want the new group's empty record first, got %+v", gm)
	}
	v := gm[1]
	if v.Generation != 1 || deref(v.Protocol) != "range" || deref(v.Leader) != m1 || len(v.Members) != 2 ||
		v.Members[1].MemberID != m2 || string(v.Members[1].Subscription) != "sub-c2" || string(v.Members[1].Assignment) != string(assignment(1)) ||
		v.Members[0].ClientID != "c1" || v.Members[0].ClientHost != "/c1" || v.Members[0].SessionTimeout != 45000 {
		t.Fatalf("generation 1 record %+v", v)
	}
	for _, m := range []string{m1, m2} {
		h.do("c", protocol.LeaveGroupRequest{GroupID: "g", Members: []protocol.MemberIdentity{{MemberID: m}}})
	}
	last, ok := h.log[len(h.log)-1].Value.(*offsets.GroupMetadataValue)
	if !ok || last.Generation != 2 || len(last.Members) != 0 || last.Protocol != nil || last.Leader != nil {
		t.Fatalf("after everyone left: %+v", h.log[len(h.log)-1])
	}
	if d, _ := h.s.Describe("g"); d.State != "Empty" || d.Epoch != 2 {
		t.Fatalf("describe %+v", d)
	}
}

// TestClassicGroupFailover mirrors GroupMetadataManager.replay and
// onLoaded: the new coordinator has the group Stable with its members,
// whose heartbeats at their generation are accepted with no rebalance.
func TestClassicGroupFailover(t *testing.T) {
	h := newHarness(t)
	m1, m2 := h.stableGroupOfTwo()
	h.do("c1", protocol.OffsetCommitRequest{GroupID: "g", GenerationIDOrMemberEpoch: 1, MemberID: m1,
		Offsets: []protocol.OffsetCommitPartition{{TP: protocol.TopicPartition{Topic: "t", Partition: 0}, Offset: 42, LeaderEpoch: 3}}})
	h.reload()
	d, ok := h.s.Describe("g")
	if !ok || d.Type != "classic" || d.State != "Stable" || d.Epoch != 1 || d.Protocol != "range" || len(d.Members) != 2 ||
		d.Members[0].MemberID != m1 || d.Members[0].Host != "/c1" || len(d.Members[1].Assigned) != 1 || d.Members[1].Assigned[0].Partition != 1 {
		t.Fatalf("reloaded %+v", d)
	}
	if len(d.Offsets) != 1 || d.Offsets[0].Offset != 42 || d.Offsets[0].LeaderEpoch != 3 {
		t.Fatalf("offsets %+v", d.Offsets)
	}
	for _, m := range []string{m1, m2} {
		ref := h.do("c", protocol.HeartbeatRequest{GroupID: "g", GenerationID: 1, MemberID: m})
		if r := h.replies[ref].(protocol.HeartbeatResponse); r.Error != protocol.None {
			t.Fatalf("heartbeat of %s after the load: %s", m, r.Error.Name())
		}
	}
	ref := h.do("c", protocol.OffsetFetchRequest{GroupID: "g", MemberEpoch: -1})
	if r := h.replies[ref].(protocol.OffsetFetchResponse); len(r.Partitions) != 1 || r.Partitions[0].Offset != 42 {
		t.Fatalf("fetch %+v", r)
	}
	// The load restarted the sessions: a member silent for a whole
	// session timeout after it is removed, and the group rebalances.
	h.do("c", protocol.HeartbeatRequest{GroupID: "g", GenerationID: 1, MemberID: m1})
	h.tick(30000)
	h.do("c", protocol.HeartbeatRequest{GroupID: "g", GenerationID: 1, MemberID: m1})
	h.tick(15000)
	if d, _ := h.s.Describe("g"); d.State != "PreparingRebalance" || len(d.Members) != 1 {
		t.Fatalf("after c2's session expired: %+v", d)
	}
}

// TestGroupRequestErrors mirrors getOrMaybeCreateClassicGroup's and
// GroupCoordinatorService's refusals.
func TestGroupRequestErrors(t *testing.T) {
	cases := []struct {
		name string
		msg  sim.Message
		want protocol.ErrorCode
	}{
		{"JoinGroup with a member id to an unknown group (getOrMaybeCreateClassicGroup)",
			protocol.JoinGroupRequest{GroupID: "x", MemberID: "m", SessionTimeoutMs: 45000}, protocol.UnknownMemberID},
		{"JoinGroup with no group id (GroupCoordinatorService.joinGroup)",
			protocol.JoinGroupRequest{SessionTimeoutMs: 45000}, protocol.InvalidGroupID},
		{"JoinGroup below group.min.session.timeout.ms",
			protocol.JoinGroupRequest{GroupID: "x", SessionTimeoutMs: 5999}, protocol.InvalidSessionTimeout},
		{"SyncGroup to an unknown group", protocol.SyncGroupRequest{GroupID: "x", MemberID: "m"}, protocol.UnknownMemberID},
		{"Heartbeat to an unknown group", protocol.HeartbeatRequest{GroupID: "x", MemberID: "m"}, protocol.UnknownMemberID},
	}
	for _, c := range cases {
		h := newHarness(t)
		ref := h.do("c", c.msg)
		var got protocol.ErrorCode
		switch r := h.replies[ref].(type) {
		case protocol.JoinGroupResponse:
			got = r.Error
		case protocol.SyncGroupResponse:
			got = r.Error
		case protocol.HeartbeatResponse:
			got = r.Error
		}
		if got != c.want || len(h.log) != 0 {
			t.Errorf("%s: got %s (records %d), want %s", c.name, got.Name(), len(h.log), c.want.Name())
		}
	}
}

// TestStaticMemberReplacementIsWritten mirrors
// classicGroupJoinToStaticMember in a Stable group: the new incarnation of
// a static member takes the old one's place without a rebalance, and the
// group is written again, so a failover knows the new member id. The new
// incarnation keeps the old one's client id and host, as
// ClassicGroup.replaceStaticMember copies them.
func TestStaticMemberReplacementIsWritten(t *testing.T) {
	h := newHarness(t)
	join := func(client, member string) protocol.JoinGroupResponse {
		ref := h.do(client, protocol.JoinGroupRequest{GroupID: "g", SessionTimeoutMs: 45000, RebalanceTimeoutMs: 300000,
			MemberID: member, GroupInstanceID: "i1", ProtocolType: "consumer",
			Protocols: []protocol.JoinGroupProtocol{{Name: "range", Metadata: []byte("s")}}})
		h.tick(3000)
		r, _ := h.replies[ref].(protocol.JoinGroupResponse)
		return r
	}
	first := join("c1", "")
	h.do("c1", protocol.SyncGroupRequest{GroupID: "g", GenerationID: first.GenerationID, MemberID: first.MemberID,
		GroupInstanceID: "i1", Assignments: []protocol.SyncGroupAssignment{{MemberID: first.MemberID, Assignment: assignment(0, 1)}}})
	if d, _ := h.s.Describe("g"); d.State != "Stable" {
		t.Fatalf("state %s", d.State)
	}
	second := join("c9", "") // the instance restarted (on another client node): a new member id
	if second.Error != protocol.None || second.MemberID == first.MemberID {
		t.Fatalf("rejoin %+v", second)
	}
	h.reload()
	d, _ := h.s.Describe("g")
	if len(d.Members) != 1 || d.Members[0].MemberID != second.MemberID || d.Members[0].InstanceID != "i1" ||
		d.Members[0].ClientID != "c1" || d.Members[0].Host != "/c1" {
		t.Fatalf("after a failover the group has %+v, want the new incarnation %s", d.Members, second.MemberID)
	}
}
