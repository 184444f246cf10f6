package consumer

import (
	"errors"
	"testing"

	"github.com/loglab/loglab/engine/group/assignor"
)

// fixedAssignor is Kafka's MockPartitionAssignor: it returns the
// assignment the test prepared, whatever the input.
type fixedAssignor struct{ out map[string]Partitions }

func (fixedAssignor) Name() string { return "range" }

func (f fixedAssignor) Assign(_ assignor.Topics, members []assignor.Member) (assignor.Assignment, error) {
	out := assignor.Assignment{}
	for _, m := range members {
		eachPartition(f.out[m.ID], func(tp assignor.TopicPartition) { out[m.ID] = append(out[m.ID], tp) })
	}
	return out, nil
}

// seed is Kafka's ConsumerGroupBuilder: a group at epoch whose members
// already own their target.
func seed(t *testing.T, g *Group, epoch int32, members ...Member) {
	t.Helper()
	g.groupEpoch, g.assignmentEpoch = epoch, epoch
	for _, m := range members {
		m := m
		if m.PendingRevocation == nil {
			m.PendingRevocation = Partitions{}
		}
		g.members[m.ID] = &m
		g.target[m.ID] = m.Assigned.normalized()
		if err := g.replaceOwnership(nil, &m); err != nil {
			t.Fatal(err)
		}
	}
}

// step is one heartbeat and what Kafka answers to it.
type step struct {
	req        HeartbeatRequest
	wantEpoch  int32
	wantAssign Partitions // nil: no assignment in the response
	wantState  MemberState
	wantGroup  GroupState
}

func runSteps(t *testing.T, g *Group, steps []step) {
	t.Helper()
	for i, s := range steps {
		if s.req.RebalanceTimeoutMs == 0 {
			s.req.RebalanceTimeoutMs = -1
		}
		resp, err := g.Heartbeat(0, s.req)
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, s.req.MemberID, err)
		}
		if resp.MemberEpoch != s.wantEpoch || resp.HeartbeatIntervalMs != 5000 ||
			(resp.Assignment == nil) != (s.wantAssign == nil) || !resp.Assignment.Equal(s.wantAssign) {
			t.Errorf("step %d (%s): response epoch=%d assignment=%v interval=%d, want epoch=%d assignment=%v",
				i, s.req.MemberID, resp.MemberEpoch, resp.Assignment, resp.HeartbeatIntervalMs, s.wantEpoch, s.wantAssign)
		}
		if got := g.members[s.req.MemberID].State; got != s.wantState {
			t.Errorf("step %d (%s): member state %s, want %s", i, s.req.MemberID, got, s.wantState)
		}
		if got := g.State(); got != s.wantGroup {
			t.Errorf("step %d: group state %s, want %s", i, got, s.wantGroup)
		}
	}
}

// TestReconciliationProcess is GroupMetadataManagerTest's
// testReconciliationProcess: a third member joins a stable group of two;
// the old members revoke first, the new one gets each partition as soon
// as its owner released it.
func TestReconciliationProcess(t *testing.T) {
	topics := assignor.Topics{"foo": 6, "bar": 3}
	a := fixedAssignor{out: map[string]Partitions{
		"m1": tps("foo", 0, 1, "bar", 0),
		"m2": tps("foo", 2, 3, "bar", 2),
		"m3": tps("foo", 4, 5, "bar", 1),
	}}
	g := NewGroup("fooup", a, topics, DefaultConfig())
	fb := []string{"foo", "bar"}
	seed(t, g, 10,
		Member{ID: "m1", State: Stable, MemberEpoch: 10, PreviousMemberEpoch: 9, SubscribedTopics: fb, RebalanceTimeoutMs: 5000,
			Assigned: tps("foo", 0, 1, 2, "bar", 0, 1)},
		Member{ID: "m2", State: Stable, MemberEpoch: 10, PreviousMemberEpoch: 9, SubscribedTopics: fb, RebalanceTimeoutMs: 5000,
			Assigned: tps("foo", 3, 4, 5, "bar", 2)})
	if g.State() != GroupStable {
		t.Fatalf("group state %s, want Stable", g.State())
	}
	runSteps(t, g, []step{
		{HeartbeatRequest{MemberID: "m3", MemberEpoch: 0, RebalanceTimeoutMs: 5000, SubscribedTopicNames: fb, OwnedTopicPartitions: Partitions{}},
			11, Partitions{}, UnreleasedPartitions, GroupReconciling},
		{HeartbeatRequest{MemberID: "m1", MemberEpoch: 10}, 10, tps("foo", 0, 1, "bar", 0), UnrevokedPartitions, GroupReconciling},
		{HeartbeatRequest{MemberID: "m2", MemberEpoch: 10}, 10, tps("foo", 3, "bar", 2), UnrevokedPartitions, GroupReconciling},
		{HeartbeatRequest{MemberID: "m3", MemberEpoch: 11}, 11, nil, UnreleasedPartitions, GroupReconciling},
	})
	// Kafka's records of members 1 and 2 name what they must revoke.
	for id, want := range map[string]Partitions{"m1": tps("foo", 2, "bar", 1), "m2": tps("foo", 4, 5)} {
		if got := g.members[id].PendingRevocation; !got.Equal(want) {
			t.Errorf("%s pending revocation %v, want %v", id, got, want)
		}
	}
	runSteps(t, g, []step{
		{HeartbeatRequest{MemberID: "m1", MemberEpoch: 10, OwnedTopicPartitions: tps("foo", 0, 1, "bar", 0)}, 11, nil, Stable, GroupReconciling},
		{HeartbeatRequest{MemberID: "m2", MemberEpoch: 10}, 10, nil, UnrevokedPartitions, GroupReconciling},
		{HeartbeatRequest{MemberID: "m3", MemberEpoch: 11}, 11, tps("bar", 1), UnreleasedPartitions, GroupReconciling},
		{HeartbeatRequest{MemberID: "m3", MemberEpoch: 11}, 11, nil, UnreleasedPartitions, GroupReconciling},
		{HeartbeatRequest{MemberID: "m2", MemberEpoch: 10, OwnedTopicPartitions: tps("foo", 3, "bar", 2)}, 11, tps("foo", 2, 3, "bar", 2), Stable, GroupReconciling},
		{HeartbeatRequest{MemberID: "m3", MemberEpoch: 11, OwnedTopicPartitions: tps("bar", 1)}, 11, tps("foo", 4, 5, "bar", 1), Stable, GroupStable},
	})
	if g.GroupEpoch() != 11 || g.AssignmentEpoch() != 11 {
		t.Errorf("epochs %d/%d, want 11/11", g.GroupEpoch(), g.AssignmentEpoch())
	}
}

// TestConsumerGroupMemberEpochValidation is GroupMetadataManagerTest's
// testConsumerGroupMemberEpochValidation.
func TestConsumerGroupMemberEpochValidation(t *testing.T) {
	g := NewGroup("fooup", fixedAssignor{}, assignor.Topics{"foo": 6}, DefaultConfig())
	seed(t, g, 100, Member{ID: "m", State: Stable, MemberEpoch: 100, PreviousMemberEpoch: 99,
		SubscribedTopics: []string{"bar", "foo"}, RebalanceTimeoutMs: 5000, Assigned: tps("foo", 1, 2, 3)})
	fb := []string{"foo", "bar"}
	for _, tt := range []struct {
		name  string
		epoch int32
		owned Partitions
	}{
		{"greater epoch", 200, nil},
		{"smaller epoch", 50, nil},
		{"previous epoch without partitions", 99, nil},
	} {
		_, err := g.Heartbeat(0, HeartbeatRequest{MemberID: "m", MemberEpoch: tt.epoch, RebalanceTimeoutMs: 5000, SubscribedTopicNames: fb, OwnedTopicPartitions: tt.owned})
		if !errors.Is(err, ErrFencedMemberEpoch) {
			t.Errorf("%s: err = %v, want FENCED_MEMBER_EPOCH", tt.name, err)
		}
	}
	resp, err := g.Heartbeat(0, HeartbeatRequest{MemberID: "m", MemberEpoch: 99, RebalanceTimeoutMs: 5000, SubscribedTopicNames: fb, OwnedTopicPartitions: tps("foo", 1, 2)})
	if err != nil || resp.MemberEpoch != 100 {
		t.Errorf("previous epoch with a subset: epoch %d err %v, want 100 and no error", resp.MemberEpoch, err)
	}
	if _, err := g.Heartbeat(0, HeartbeatRequest{MemberID: "other", MemberEpoch: 100, RebalanceTimeoutMs: -1}); !errors.Is(err, ErrUnknownMemberID) {
		t.Errorf("unknown member: err = %v, want UNKNOWN_MEMBER_ID", err)
	}
}

// TestSessionTimeoutExpiration is GroupMetadataManagerTest's
// testSessionTimeoutExpiration: a silent member is fenced after
// group.consumer.session.timeout.ms and the group epoch moves on.
func TestSessionTimeoutExpiration(t *testing.T) {
	g := NewGroup("fooup", fixedAssignor{out: map[string]Partitions{"m": tps("foo", 0, 1, 2, 3, 4, 5)}},
		assignor.Topics{"foo": 6}, DefaultConfig())
	resp, err := g.Heartbeat(1000, HeartbeatRequest{MemberID: "m", MemberEpoch: 0, RebalanceTimeoutMs: 90000,
		SubscribedTopicNames: []string{"foo"}, OwnedTopicPartitions: Partitions{}})
	if err != nil || resp.MemberEpoch != 1 {
		t.Fatalf("join: epoch %d err %v, want 1", resp.MemberEpoch, err)
	}
	if at, ok := g.NextDeadline(); !ok || at != 1000+45000 {
		t.Fatalf("next deadline %d %v, want %d", at, ok, 1000+45000)
	}
	if got := g.Expire(1000 + 45000 - 1); len(got) != 0 {
		t.Fatalf("expired before the session timeout: %v", got)
	}
	got := g.Expire(1000 + 45000 + 1)
	if len(got) != 1 || got[0].MemberID != "m" || g.GroupEpoch() != 2 || g.State() != GroupEmpty {
		t.Fatalf("expired %v, group epoch %d state %s; want m fenced, epoch 2, Empty", got, g.GroupEpoch(), g.State())
	}
	if g.Owner(assignor.TopicPartition{Topic: "foo", Partition: 0}) != "" {
		t.Errorf("fenced member still owns foo-0")
	}
}

// TestRebalanceTimeoutExpiration follows GroupMetadataManagerTest's
// testRebalanceTimeoutExpiration: a member that does not revoke within
// its rebalance timeout is fenced, though it keeps heartbeating.
func TestRebalanceTimeoutExpiration(t *testing.T) {
	a := fixedAssignor{out: map[string]Partitions{"m1": tps("foo", 0, 1, 2, 3, 4, 5)}}
	g := NewGroup("fooup", a, assignor.Topics{"foo": 6}, DefaultConfig())
	join := func(id string, now int64) HeartbeatResponse {
		resp, err := g.Heartbeat(now, HeartbeatRequest{MemberID: id, MemberEpoch: 0, RebalanceTimeoutMs: 12000,
			SubscribedTopicNames: []string{"foo"}, OwnedTopicPartitions: Partitions{}})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	join("m1", 0)
	a.out["m1"], a.out["m2"] = tps("foo", 0, 1, 2), tps("foo", 3, 4, 5)
	join("m2", 0)
	resp, err := g.Heartbeat(0, HeartbeatRequest{MemberID: "m1", MemberEpoch: 1, RebalanceTimeoutMs: -1})
	if err != nil || resp.MemberEpoch != 1 || !resp.Assignment.Equal(tps("foo", 0, 1, 2)) {
		t.Fatalf("m1 asked to revoke: %+v %v", resp, err)
	}
	// Still heartbeating, still owning foo-3..5, past the rebalance timeout.
	if _, err := g.Heartbeat(10000, HeartbeatRequest{MemberID: "m1", MemberEpoch: 1, RebalanceTimeoutMs: -1,
		OwnedTopicPartitions: tps("foo", 0, 1, 2, 3, 4, 5)}); err != nil {
		t.Fatal(err)
	}
	got := g.Expire(12000)
	if len(got) != 1 || got[0].MemberID != "m1" {
		t.Fatalf("expired %v, want m1 fenced by the rebalance timeout", got)
	}
	if _, err := g.Heartbeat(12001, HeartbeatRequest{MemberID: "m1", MemberEpoch: 1, RebalanceTimeoutMs: -1}); !errors.Is(err, ErrUnknownMemberID) {
		t.Errorf("fenced member heartbeats: err = %v, want UNKNOWN_MEMBER_ID", err)
	}
}

// TestLeavingMemberBumpsGroupEpoch is GroupMetadataManagerTest's
// testLeavingMemberBumpsGroupEpoch: leaving (epoch -1) fences at once.
func TestLeavingMemberBumpsGroupEpoch(t *testing.T) {
	g := NewGroup("fooup", fixedAssignor{}, assignor.Topics{"foo": 6, "bar": 3}, DefaultConfig())
	seed(t, g, 10,
		Member{ID: "m1", State: Stable, MemberEpoch: 10, PreviousMemberEpoch: 9, SubscribedTopics: []string{"bar", "foo"}, Assigned: tps("foo", 0, 1, 2, "bar", 0, 1)},
		Member{ID: "m2", State: Stable, MemberEpoch: 10, PreviousMemberEpoch: 9, SubscribedTopics: []string{"bar", "foo"}, Assigned: tps("foo", 3, 4, 5, "bar", 2)})
	resp, err := g.Heartbeat(0, HeartbeatRequest{MemberID: "m2", MemberEpoch: LeaveGroupMemberEpoch, RebalanceTimeoutMs: -1})
	if err != nil || resp.MemberEpoch != -1 || resp.Assignment != nil {
		t.Fatalf("leave: %+v %v, want epoch -1 and no assignment", resp, err)
	}
	if g.GroupEpoch() != 11 || g.State() != GroupAssigning || g.Owner(assignor.TopicPartition{Topic: "foo", Partition: 3}) != "" {
		t.Errorf("after leave: epoch %d state %s; want 11, Assigning and foo-3 free", g.GroupEpoch(), g.State())
	}
}

// TestJoinRequestValidation is Kafka's
// throwIfConsumerGroupHeartbeatRequestIsInvalid for a join.
func TestJoinRequestValidation(t *testing.T) {
	g := NewGroup("fooup", fixedAssignor{}, assignor.Topics{"foo": 6}, DefaultConfig())
	for _, req := range []HeartbeatRequest{
		{MemberID: "", MemberEpoch: 0, RebalanceTimeoutMs: 5000, SubscribedTopicNames: []string{"foo"}, OwnedTopicPartitions: Partitions{}},
		{MemberID: "m", MemberEpoch: 0, RebalanceTimeoutMs: -1, SubscribedTopicNames: []string{"foo"}, OwnedTopicPartitions: Partitions{}},
		{MemberID: "m", MemberEpoch: 0, RebalanceTimeoutMs: 5000, SubscribedTopicNames: []string{"foo"}, OwnedTopicPartitions: tps("foo", 1)},
		{MemberID: "m", MemberEpoch: 0, RebalanceTimeoutMs: 5000, OwnedTopicPartitions: Partitions{}},
		{MemberID: "m", MemberEpoch: -3, RebalanceTimeoutMs: -1},
	} {
		if _, err := g.Heartbeat(0, req); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%+v: err = %v, want INVALID_REQUEST", req, err)
		}
	}
}
