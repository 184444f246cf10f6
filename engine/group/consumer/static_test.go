package consumer

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/loglab/loglab/engine/group/assignor"
)

// staticMemberAt is a static member, Stable at epoch with previous epoch
// epoch-1, owning assigned, heartbeated at time 0.
func staticMemberAt(id, instance string, epoch int32, topics []string, assigned Partitions) Member {
	return Member{ID: id, InstanceID: instance, State: Stable, MemberEpoch: epoch, PreviousMemberEpoch: epoch - 1,
		SubscribedTopics: sortedTopics(topics), RebalanceTimeoutMs: 5000, Assigned: assigned,
		sessionDeadlineMs: 45000}
}

func join(id, instance string, topics ...string) *HeartbeatRequest {
	return &HeartbeatRequest{MemberID: id, InstanceID: instance, MemberEpoch: JoinGroupMemberEpoch,
		RebalanceTimeoutMs: 5000, SubscribedTopicNames: topics, OwnedTopicPartitions: Partitions{}}
}

func leaveStatic(id, instance string, epoch int32) *HeartbeatRequest {
	return &HeartbeatRequest{MemberID: id, InstanceID: instance, MemberEpoch: epoch, RebalanceTimeoutMs: -1}
}

func memberKey(m Member) string {
	return fmt.Sprintf("%s/%s@%d/%d:%s", m.ID, m.InstanceID, m.MemberEpoch, m.PreviousMemberEpoch, m.State)
}

// TestStaticLeaveReleasesPendingRevocation follows Kafka's
// consumerGroupStaticMemberGroupLeave, which clears the partitions the
// member was still revoking: the closing consumer gave them up, so the
// member waiting for them gets them at its next heartbeat, while the
// partitions the departed member keeps stay out of reach.
func TestStaticLeaveReleasesPendingRevocation(t *testing.T) {
	a := fixedAssignor{out: map[string]Partitions{"m1": tps("foo", 0, 1, 2, 3, 4, 5)}}
	g := NewGroup("fooup", a, assignor.Topics{"foo": 6}, DefaultConfig())
	hb := func(now int64, req *HeartbeatRequest) HeartbeatResponse {
		t.Helper()
		resp, err := g.Heartbeat(now, *req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	hb(0, join("m1", "i1", "foo"))
	a.out["m1"], a.out["m2"] = tps("foo", 0, 1, 2), tps("foo", 3, 4, 5)
	hb(0, join("m2", "", "foo"))
	if resp := hb(100, &HeartbeatRequest{MemberID: "m1", InstanceID: "i1", MemberEpoch: 1, RebalanceTimeoutMs: -1}); !resp.Assignment.Equal(tps("foo", 0, 1, 2)) {
		t.Fatalf("m1 not asked to revoke foo-3..5: %+v", resp)
	}
	if m := g.members["m1"]; m.State != UnrevokedPartitions || m.revocationDeadlineMs == 0 {
		t.Fatalf("m1 %s, revocation deadline %d; want UNREVOKED_PARTITIONS with a deadline", m.State, m.revocationDeadlineMs)
	}
	hb(200, leaveStatic("m1", "i1", LeaveGroupStaticMemberEpoch))
	m1 := g.members["m1"]
	if m1.MemberEpoch != -2 || !m1.PendingRevocation.Empty() || !m1.Assigned.Equal(tps("foo", 0, 1, 2)) || m1.revocationDeadlineMs != 0 {
		t.Fatalf("departed m1: %+v", *m1)
	}
	if resp := hb(300, &HeartbeatRequest{MemberID: "m2", MemberEpoch: 2, RebalanceTimeoutMs: -1, OwnedTopicPartitions: Partitions{}}); !resp.Assignment.Equal(tps("foo", 3, 4, 5)) {
		t.Errorf("m2 got %v, want foo-3..5 released by the leave", resp.Assignment)
	}
	if got := g.Owner(assignor.TopicPartition{Topic: "foo", Partition: 0}); got != "m1" {
		t.Errorf("foo-0 owned by %q, want the departed m1", got)
	}
	// Past the rebalance timeout the departed member is still there: only
	// its session timeout (from its last heartbeat, at 100) removes it.
	if got := g.Expire(5000 + 200); len(got) != 0 {
		t.Errorf("expired %v at the old rebalance deadline, want nothing", got)
	}
}

// failingAssignor is an assignor that cannot assign (Kafka's
// PartitionAssignorException).
type failingAssignor struct{}

func (failingAssignor) Name() string { return "range" }
func (failingAssignor) Assign(assignor.Topics, []assignor.Member) (assignor.Assignment, error) {
	return nil, errors.New("no assignment")
}

// TestFailedStaticRejoinKeepsDepartedMember: Kafka writes the takeover
// as records of the heartbeat, dropped with it when the heartbeat
// fails (here: the new subscription's target cannot be computed), so
// the departed member keeps its place and can still be taken over.
func TestFailedStaticRejoinKeepsDepartedMember(t *testing.T) {
	g := NewGroup("fooup", failingAssignor{}, assignor.Topics{"foo": 6, "bar": 3}, DefaultConfig())
	seed(t, g, 10, staticMemberAt("m1", "i1", 10, []string{"foo"}, tps("foo", 0, 1, 2)),
		staticMemberAt("m2", "i2", 10, []string{"foo"}, tps("foo", 3, 4, 5)))
	if _, err := g.Heartbeat(0, *leaveStatic("m2", "i2", LeaveGroupStaticMemberEpoch)); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Heartbeat(0, *join("m2-rejoin", "i2", "foo", "bar")); err == nil {
		t.Fatal("rejoin with a target that cannot be computed succeeded")
	}
	var got []string
	for _, m := range g.Members() {
		got = append(got, memberKey(m))
	}
	if want := []string{"m1/i1@10/9:STABLE", "m2/i2@-2/9:STABLE"}; !slices.Equal(got, want) || g.GroupEpoch() != 10 ||
		g.Owner(assignor.TopicPartition{Topic: "foo", Partition: 3}) != "m2" || !g.Target("m2").Equal(tps("foo", 3, 4, 5)) {
		t.Errorf("after the failed rejoin: members %v epoch %d owner of foo-3 %q target of m2 %v; want %v, 10, m2, foo-3..5",
			got, g.GroupEpoch(), g.Owner(assignor.TopicPartition{Topic: "foo", Partition: 3}), g.Target("m2"), want)
	}
	// Unchanged subscription: no target to compute, the takeover works.
	resp, err := g.Heartbeat(0, *join("m2-rejoin", "i2", "foo"))
	if err != nil || resp.MemberEpoch != 10 || !resp.Assignment.Equal(tps("foo", 3, 4, 5)) {
		t.Errorf("second rejoin: %+v %v", resp, err)
	}
}
