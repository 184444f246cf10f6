package consumer

import (
	"testing"

	"github.com/loglab/loglab/engine/group/assignor"
)

// TestRestore mirrors GroupMetadataManager.replay of a consumer group's
// records followed by onLoaded: the members keep their epochs and
// assignments, their sessions run again from the load, and a member
// heartbeating at its epoch stays Stable with no new group epoch.
func TestRestore(t *testing.T) {
	topics := assignor.Topics{"t": 2}
	members := []Member{
		{ID: "m1", State: Stable, MemberEpoch: 3, PreviousMemberEpoch: 2, SubscribedTopics: []string{"t"}, RebalanceTimeoutMs: 300000,
			Assigned: Partitions{"t": {0}}, PendingRevocation: Partitions{}},
		{ID: "m2", State: Stable, MemberEpoch: 3, PreviousMemberEpoch: 2, SubscribedTopics: []string{"t"}, RebalanceTimeoutMs: 300000,
			Assigned: Partitions{"t": {1}}, PendingRevocation: Partitions{}},
	}
	g := Restore("g", assignor.Uniform{}, topics, DefaultConfig(), 1000, 3, 3, members,
		map[string]Partitions{"m1": {"t": {0}}, "m2": {"t": {1}}})
	if g.State() != GroupStable || g.Owner(assignor.TopicPartition{Topic: "t", Partition: 1}) != "m2" {
		t.Fatalf("restored %s, owner of t-1 %q", g.State(), g.Owner(assignor.TopicPartition{Topic: "t", Partition: 1}))
	}
	if at, ok := g.NextDeadline(); !ok || at != 46000 {
		t.Fatalf("next deadline %d %v", at, ok)
	}
	resp, err := g.Heartbeat(2000, HeartbeatRequest{MemberID: "m1", MemberEpoch: 3, RebalanceTimeoutMs: -1})
	if err != nil || resp.MemberEpoch != 3 || g.GroupEpoch() != 3 {
		t.Fatalf("heartbeat %+v %v, group epoch %d", resp, err, g.GroupEpoch())
	}
	// m2 never heartbeats the new coordinator: its session, started at
	// the load, expires.
	if ex := g.Expire(46000); len(ex) != 1 || ex[0].MemberID != "m2" {
		t.Fatalf("expired %v", ex)
	}
}
