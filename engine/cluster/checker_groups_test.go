package cluster

import (
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

func checkFound(t *testing.T, got []string, want string) {
	t.Helper()
	if want == "" {
		if len(got) > 0 {
			t.Fatalf("found %q, want no violation", got)
		}
		return
	}
	for _, g := range got {
		if strings.Contains(g, want) {
			return
		}
	}
	t.Fatalf("found %q, want a violation containing %q", got, want)
}

// The committed-offset invariant on a running cluster: a member's commits
// going from 10 back to 4 break it; an admin's commit from outside the
// group (generation -1, as alterConsumerGroupOffsets sends it) once the
// group is empty does not; a commit its coordinator wrote but never
// committed before a failover (so never acknowledged) is not a decrease
// when the new coordinator lacks it.
func TestCheckerCommittedOffsetGoesBack(t *testing.T) {
	c, rc, coord := groupCluster(t)
	commit := func(gen int32, member string, off int64) protocol.ErrorCode {
		r := rc.call(coord, func(corr int64) sim.Message {
			return protocol.OffsetCommitRequest{CorrelationID: corr, GroupID: "g", GenerationIDOrMemberEpoch: gen, MemberID: member,
				Offsets: []protocol.OffsetCommitPartition{{TP: protocol.TopicPartition{Topic: "t", Partition: 0}, Offset: off, LeaderEpoch: -1}}}
		}).(protocol.OffsetCommitResponse)
		return r.Partitions[0].Error
	}
	violations := func() []string {
		var found []string
		for _, v := range c.Checker().Violations() {
			found = append(found, v.String())
		}
		return found
	}
	// A member of generation 1.
	m := rc.join(coord, "").MemberID
	if j := rc.join(coord, m); j.Error != protocol.None || j.GenerationID != 1 {
		t.Fatalf("join: %+v", j)
	}
	if r := rc.call(coord, func(corr int64) sim.Message {
		return protocol.SyncGroupRequest{CorrelationID: corr, GroupID: "g", GenerationID: 1, MemberID: m,
			Assignments: []protocol.SyncGroupAssignment{{MemberID: m, Assignment: rangeAssignment(0)}}}
	}).(protocol.SyncGroupResponse); r.Error != protocol.None {
		t.Fatalf("sync: %+v", r)
	}
	for _, off := range []int64{10, 4} {
		if e := commit(1, m, off); e != protocol.None {
			t.Fatalf("commit %d: %v", off, e)
		}
	}
	checkFound(t, violations(), "group g's committed offset of t/0 went back from 10 to 4")

	// The member is gone: the group is empty, and an admin resets it.
	before := len(violations())
	// The member stops heartbeating: its session (45 s) expires.
	if err := c.Tick(50 * time.Second); err != nil {
		t.Fatal(err)
	}
	if d, _, _ := c.DescribeGroup("g"); d.State != "Empty" {
		t.Fatalf("the group is %s, want Empty", d.State)
	}
	if e := commit(-1, "", 0); e != protocol.None {
		t.Fatalf("admin commit: %v", e)
	}
	if vs := violations(); len(vs) != before {
		t.Fatalf("an admin's reset of the empty group: %v", vs[before:])
	}

	// A commit the coordinator never got committed, then a failover.
	c, rc, coord = groupCluster(t)
	p := offsets.PartitionFor("g", 5)
	rc.call(coord, func(corr int64) sim.Message {
		return protocol.OffsetCommitRequest{CorrelationID: corr, GroupID: "g", GenerationIDOrMemberEpoch: -1,
			Offsets: []protocol.OffsetCommitPartition{{TP: protocol.TopicPartition{Topic: "t", Partition: 0}, Offset: 5, LeaderEpoch: -1}}}
	})
	c.Network().Drop(dropFetchResponsesFrom(int(coord)))
	c.Network().Drop(sim.DropRule{From: kraft.BrokerNode(coord), Kind: "BrokerHeartbeat", Remaining: -1})
	corr := rc.send(coord, func(corr int64) sim.Message {
		return protocol.OffsetCommitRequest{CorrelationID: corr, GroupID: "g", GenerationIDOrMemberEpoch: -1,
			Offsets: []protocol.OffsetCommitPartition{{TP: protocol.TopicPartition{Topic: "t", Partition: 0}, Offset: 9, LeaderEpoch: -1}}}
	})
	if r := rc.wait(corr).(protocol.OffsetCommitResponse); r.Partitions[0].Error != protocol.NotCoordinator {
		t.Fatalf("the unreplicated commit: %+v", r)
	}
	ok, _ := c.RunUntil(func() bool {
		l := c.Controller().Image().Partition(broker.OffsetsTopic, p).Leader
		return l > 0 && l != coord && c.Broker(int(l)).GroupShard(p) != nil
	}, time.Minute)
	if !ok {
		t.Fatal("no new coordinator")
	}
	if err := c.Tick(time.Second); err != nil {
		t.Fatal(err)
	}
	for _, v := range c.Checker().Violations() {
		t.Errorf("after a failover that lost an unacknowledged commit: %s", v)
	}
	if d, _, ok := c.DescribeGroup("g"); !ok || len(d.Offsets) != 1 || d.Offsets[0].Offset != 5 {
		t.Fatalf("the new coordinator shows %+v, want t/0 at 5", d.Offsets)
	}
}

// groupCluster is a cluster with the checker on every event and a raw
// client that found group g's loaded coordinator.
func groupCluster(t *testing.T) (*Cluster, *rawClient, int32) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Seed = 7
	cfg.Broker.Groups.OffsetsTopicNumPartitions = 5
	c, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.Checker().EveryStep = true
	rc := newRawClient(t, c, "admin")
	rc.call(1, func(corr int64) sim.Message {
		return protocol.FindCoordinatorRequest{CorrelationID: corr, KeyType: protocol.CoordinatorTypeGroup, Key: "g"}
	})
	p := offsets.PartitionFor("g", 5)
	var coord int32
	if ok, _ := c.RunUntil(func() bool {
		coord = c.Controller().Image().Partition(broker.OffsetsTopic, p).Leader
		return coord > 0 && c.Broker(int(coord)).GroupShard(p) != nil
	}, time.Minute); !ok {
		t.Fatal("no coordinator")
	}
	return c, rc, coord
}
