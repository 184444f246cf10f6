package consumer

import (
	"reflect"
	"testing"

	"github.com/loglab/loglab/engine/group/assignor"
)

// recordingAssignor remembers what the coordinator asked it, as Kafka's
// TargetAssignmentBuilderTest checks the spec the assignor received.
type recordingAssignor struct {
	fixedAssignor
	gotTopics  assignor.Topics
	gotMembers []assignor.Member
}

func (r *recordingAssignor) Assign(topics assignor.Topics, members []assignor.Member) (assignor.Assignment, error) {
	r.gotTopics, r.gotMembers = topics, members
	return r.fixedAssignor.Assign(topics, members)
}

// TestUpdatingSubscriptionTriggersNewTargetAssignment is
// GroupMetadataManagerTest's testUpdatingSubscriptionTriggersNewTargetAssignment.
func TestUpdatingSubscriptionTriggersNewTargetAssignment(t *testing.T) {
	a := fixedAssignor{out: map[string]Partitions{"m": tps("foo", 0, 1, 2, 3, 4, 5, "bar", 0, 1, 2)}}
	g := NewGroup("fooup", a, assignor.Topics{"foo": 6, "bar": 3}, DefaultConfig())
	seed(t, g, 10, Member{ID: "m", State: Stable, MemberEpoch: 10, PreviousMemberEpoch: 9,
		SubscribedTopics: []string{"foo"}, Assigned: tps("foo", 0, 1, 2, 3, 4, 5)})
	runSteps(t, g, []step{{HeartbeatRequest{MemberID: "m", MemberEpoch: 10, SubscribedTopicNames: []string{"foo", "bar"}},
		11, tps("foo", 0, 1, 2, 3, 4, 5, "bar", 0, 1, 2), Stable, GroupStable}})
	if m := g.members["m"]; m.PreviousMemberEpoch != 10 || g.AssignmentEpoch() != 11 {
		t.Errorf("previous epoch %d, assignment epoch %d; want 10 and 11", m.PreviousMemberEpoch, g.AssignmentEpoch())
	}
}

// TestTargetAssignmentSpec follows TargetAssignmentBuilderTest: the
// assignor sees every member (the heartbeating one with its new
// subscription), subscriptions resolved to existing topics, and each
// member's previous TARGET as what it has, not what it owns now.
func TestTargetAssignmentSpec(t *testing.T) {
	a := &recordingAssignor{}
	g := NewGroup("g", a, assignor.Topics{"foo": 6, "bar": 3}, DefaultConfig())
	seed(t, g, 10,
		Member{ID: "m1", State: Stable, MemberEpoch: 10, SubscribedTopics: []string{"foo"}, Assigned: tps("foo", 0, 1, 2)},
		Member{ID: "m2", State: Stable, MemberEpoch: 10, SubscribedTopics: []string{"foo"}, Assigned: tps("foo", 3, 4)})
	// m2 has not yet been given foo-5, which its target holds.
	g.target["m2"] = tps("foo", 3, 4, 5)
	if _, err := g.Heartbeat(0, HeartbeatRequest{MemberID: "m3", MemberEpoch: 0, RebalanceTimeoutMs: 5000,
		SubscribedTopicNames: []string{"bar", "nope"}, OwnedTopicPartitions: Partitions{}}); err != nil {
		t.Fatal(err)
	}
	tp := func(t string, p int32) assignor.TopicPartition {
		return assignor.TopicPartition{Topic: t, Partition: p}
	}
	want := []assignor.Member{
		{ID: "m1", Topics: []string{"foo"}, Owned: []assignor.TopicPartition{tp("foo", 0), tp("foo", 1), tp("foo", 2)}, Generation: -1},
		{ID: "m2", Topics: []string{"foo"}, Owned: []assignor.TopicPartition{tp("foo", 3), tp("foo", 4), tp("foo", 5)}, Generation: -1},
		{ID: "m3", Topics: []string{"bar"}, Generation: -1},
	}
	if !reflect.DeepEqual(a.gotMembers, want) {
		t.Errorf("assignor members\n got %+v\nwant %+v", a.gotMembers, want)
	}
	if !reflect.DeepEqual(a.gotTopics, assignor.Topics{"foo": 6, "bar": 3}) {
		t.Errorf("assignor topics %v", a.gotTopics)
	}
}

// TestExpiredMemberReleasesItsPartitions: a member that dies while it
// should revoke holds its partitions only until the coordinator fences
// it; then the new owner gets them at its next heartbeat.
func TestExpiredMemberReleasesItsPartitions(t *testing.T) {
	g := NewGroup("g", assignor.Uniform{}, assignor.Topics{"foo": 4}, DefaultConfig())
	join := func(id string, now int64) HeartbeatResponse {
		resp, err := g.Heartbeat(now, HeartbeatRequest{MemberID: id, MemberEpoch: 0, RebalanceTimeoutMs: 300000,
			SubscribedTopicNames: []string{"foo"}, OwnedTopicPartitions: Partitions{}})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	join("a", 0)
	resp := join("b", 1000)
	if resp.MemberEpoch != 2 || !resp.Assignment.Empty() || g.members["b"].State != UnreleasedPartitions {
		t.Fatalf("b joined: %+v, state %s; want epoch 2, nothing yet, UNRELEASED_PARTITIONS", resp, g.members["b"].State)
	}
	// a never heartbeats again; b keeps heartbeating and keeps waiting.
	for now := int64(6000); now < 45000; now += 5000 {
		if got := g.Expire(now); len(got) != 0 {
			t.Fatalf("expired %v at %d", got, now)
		}
		resp, err := g.Heartbeat(now, HeartbeatRequest{MemberID: "b", MemberEpoch: 2, RebalanceTimeoutMs: -1, OwnedTopicPartitions: Partitions{}})
		if err != nil || resp.Assignment != nil {
			t.Fatalf("b at %d: %+v %v; want nothing new", now, resp, err)
		}
	}
	if got := g.Expire(45000); len(got) != 1 || got[0].MemberID != "a" {
		t.Fatalf("expired %v at 45000, want a", got)
	}
	resp, err := g.Heartbeat(46000, HeartbeatRequest{MemberID: "b", MemberEpoch: 2, RebalanceTimeoutMs: -1, OwnedTopicPartitions: Partitions{}})
	if err != nil || resp.MemberEpoch != 3 || !resp.Assignment.Equal(tps("foo", 0, 1, 2, 3)) || g.State() != GroupStable {
		t.Fatalf("b after a expired: %+v %v, group %s; want epoch 3 with all of foo, Stable", resp, err, g.State())
	}
}
