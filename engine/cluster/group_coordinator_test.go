package cluster

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// rawClient is a bare node on the simulated network that sends group
// requests and keeps every response: the coordinator tested without the
// consumer client.
type rawClient struct {
	t    *testing.T
	c    *Cluster
	node sim.NodeID
	corr int64
	got  map[int64]sim.Message
}

func newRawClient(t *testing.T, c *Cluster, name string) *rawClient {
	rc := &rawClient{t: t, c: c, node: sim.NodeID(name), got: map[int64]sim.Message{}}
	c.Network().Attach(rc.node, func(env *sim.Envelope) {
		if id, ok := correlationOf(env.Msg); ok {
			rc.got[id] = env.Msg
		}
	})
	return rc
}

func correlationOf(m sim.Message) (int64, bool) {
	switch r := m.(type) {
	case protocol.FindCoordinatorResponse:
		return r.CorrelationID, true
	case protocol.JoinGroupResponse:
		return r.CorrelationID, true
	case protocol.SyncGroupResponse:
		return r.CorrelationID, true
	case protocol.HeartbeatResponse:
		return r.CorrelationID, true
	case protocol.OffsetCommitResponse:
		return r.CorrelationID, true
	case protocol.OffsetFetchResponse:
		return r.CorrelationID, true
	case protocol.ConsumerGroupHeartbeatResponse:
		return r.CorrelationID, true
	}
	return 0, false
}

// send sends a request (its CorrelationID is set by build) and returns
// the correlation id to wait on.
func (rc *rawClient) send(to int32, build func(corr int64) sim.Message) int64 {
	rc.corr++
	rc.c.Network().Send(rc.node, kraft.BrokerNode(to), build(rc.corr))
	return rc.corr
}

// wait runs the cluster until the response to corr arrives.
func (rc *rawClient) wait(corr int64) sim.Message {
	rc.t.Helper()
	ok, err := rc.c.RunUntil(func() bool { return rc.got[corr] != nil }, time.Minute)
	if err != nil || !ok {
		rc.t.Fatalf("%s: no response to request %d: %v", rc.node, corr, err)
	}
	return rc.got[corr]
}

func (rc *rawClient) call(to int32, build func(corr int64) sim.Message) sim.Message {
	rc.t.Helper()
	return rc.wait(rc.send(to, build))
}

func (rc *rawClient) join(to int32, member string) protocol.JoinGroupResponse {
	rc.t.Helper()
	return rc.wait(rc.sendJoin(to, member)).(protocol.JoinGroupResponse)
}

func (rc *rawClient) sendJoin(to int32, member string) int64 {
	return rc.send(to, func(corr int64) sim.Message {
		return protocol.JoinGroupRequest{CorrelationID: corr, GroupID: "g", SessionTimeoutMs: 45000, RebalanceTimeoutMs: 300000,
			MemberID: member, ProtocolType: "consumer", Protocols: []protocol.JoinGroupProtocol{{Name: "range", Metadata: []byte(rc.node)}}}
	})
}

func (rc *rawClient) heartbeat(to int32, member string, gen int32) protocol.ErrorCode {
	rc.t.Helper()
	return rc.call(to, func(corr int64) sim.Message {
		return protocol.HeartbeatRequest{CorrelationID: corr, GroupID: "g", GenerationID: gen, MemberID: member}
	}).(protocol.HeartbeatResponse).Error
}

func (rc *rawClient) fetchOffsets(to int32) protocol.OffsetFetchResponse {
	rc.t.Helper()
	return rc.call(to, func(corr int64) sim.Message {
		return protocol.OffsetFetchRequest{CorrelationID: corr, GroupID: "g", MemberEpoch: -1}
	}).(protocol.OffsetFetchResponse)
}

// rangeAssignment is a ConsumerProtocolAssignment v0 of topic t.
func rangeAssignment(parts ...int32) []byte {
	b := binary.BigEndian.AppendUint16(nil, 0)
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint16(b, 1)
	b = append(b, 't')
	b = binary.BigEndian.AppendUint32(b, uint32(len(parts)))
	for _, p := range parts {
		b = binary.BigEndian.AppendUint32(b, uint32(p))
	}
	return binary.BigEndian.AppendUint32(b, 0xffffffff)
}

func hasEvent(events []string, parts ...string) bool {
	return slices.ContainsFunc(events, func(e string) bool {
		for _, p := range parts {
			if !strings.Contains(e, p) {
				return false
			}
		}
		return true
	})
}

// A classic group survives the crash of its coordinator: the group's
// __consumer_offsets partition is auto-created on the first
// FindCoordinator, the group's generation and the committed offsets are
// records in it, and the broker that takes the partition over replays
// them, so OffsetFetch returns the same offsets and the members'
// heartbeats carry on at their generation, with no rebalance.
func TestGroupCoordinatorFailover(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed = 7
	cfg.Broker.Groups.OffsetsTopicNumPartitions = 5
	c, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.Checker().EveryStep = true
	c1, c2 := newRawClient(t, c, "c1"), newRawClient(t, c, "c2")

	// FindCoordinator: no __consumer_offsets yet.
	find := func(to int32) protocol.FindCoordinatorResponse {
		return c1.call(to, func(corr int64) sim.Message {
			return protocol.FindCoordinatorRequest{CorrelationID: corr, KeyType: protocol.CoordinatorTypeGroup, Key: "g"}
		}).(protocol.FindCoordinatorResponse)
	}
	if r := find(1); r.Error != protocol.CoordinatorNotAvailable || r.NodeID != -1 {
		t.Fatalf("first FindCoordinator: %+v", r)
	}
	if !hasEvent(c.DrainEvents(), "b1: __consumer_offsets does not exist: asking the controller to create it (5 partitions, replication factor 3)") {
		t.Fatal("no auto-creation traced")
	}
	topic := c.Controller().Image().Topic(broker.OffsetsTopic)
	if topic == nil || topic.Config("cleanup.policy", "") != "compact" || topic.Config("segment.bytes", "") != "104857600" {
		t.Fatalf("__consumer_offsets: %+v", topic)
	}
	p := offsets.PartitionFor("g", 5)
	tp := protocol.TopicPartition{Topic: broker.OffsetsTopic, Partition: p}
	var coord int32
	ok, _ := c.RunUntil(func() bool {
		coord = c.Controller().Image().Partition(broker.OffsetsTopic, p).Leader
		return coord > 0 && c.Broker(int(coord)).GroupShard(p) != nil
	}, time.Minute)
	if !ok {
		t.Fatal("the coordinator never loaded its partition")
	}
	if r := find(1); r.Error != protocol.None || r.NodeID != coord {
		t.Fatalf("FindCoordinator: %+v, want b%d", r, coord)
	}

	// Join and sync a group of two.
	m1 := c1.join(coord, "").MemberID
	m2 := c2.join(coord, "").MemberID
	j1, j2 := c1.sendJoin(coord, m1), c2.sendJoin(coord, m2)
	r1, r2 := c1.wait(j1).(protocol.JoinGroupResponse), c2.wait(j2).(protocol.JoinGroupResponse)
	if r1.Error != protocol.None || r2.Error != protocol.None || r1.GenerationID != 1 || r1.Leader != m1 {
		t.Fatalf("joins: %+v / %+v", r1, r2)
	}
	s2 := c2.send(coord, func(corr int64) sim.Message {
		return protocol.SyncGroupRequest{CorrelationID: corr, GroupID: "g", GenerationID: 1, MemberID: m2}
	})
	s1 := c1.send(coord, func(corr int64) sim.Message {
		return protocol.SyncGroupRequest{CorrelationID: corr, GroupID: "g", GenerationID: 1, MemberID: m1,
			Assignments: []protocol.SyncGroupAssignment{{MemberID: m1, Assignment: rangeAssignment(0)}, {MemberID: m2, Assignment: rangeAssignment(1)}}}
	})
	if r := c2.wait(s2).(protocol.SyncGroupResponse); r.Error != protocol.None || string(r.Assignment) != string(rangeAssignment(1)) {
		t.Fatalf("c2 sync: %+v", r)
	}
	if r := c1.wait(s1).(protocol.SyncGroupResponse); r.Error != protocol.None {
		t.Fatalf("c1 sync: %+v", r)
	}

	// Commit; the answer comes once the records are committed.
	commit := c1.call(coord, func(corr int64) sim.Message {
		return protocol.OffsetCommitRequest{CorrelationID: corr, GroupID: "g", GenerationIDOrMemberEpoch: 1, MemberID: m1,
			Offsets: []protocol.OffsetCommitPartition{{TP: protocol.TopicPartition{Topic: "t", Partition: 0}, Offset: 5, LeaderEpoch: -1},
				{TP: protocol.TopicPartition{Topic: "t", Partition: 1}, Offset: 7, LeaderEpoch: -1}}}
	}).(protocol.OffsetCommitResponse)
	if len(commit.Partitions) != 2 || commit.Partitions[0].Error != protocol.None || commit.Partitions[1].Error != protocol.None {
		t.Fatalf("commit: %+v", commit)
	}
	leader := c.Broker(int(coord)).Replica(tp)
	if leader.HW != leader.Log.EndOffset() {
		t.Fatalf("commit answered before its records committed: HW %d, log end %d", leader.HW, leader.Log.EndOffset())
	}

	// The records, as the log holds them.
	recs, err := leader.Log.Records(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var gen1 *offsets.GroupMetadataValue
	committed := map[int32]int64{}
	for _, r := range recs {
		d, err := offsets.Decode(r.Key, r.Value)
		if err != nil {
			t.Fatalf("record at %d: %v", r.Offset, err)
		}
		switch v := d.Value.(type) {
		case *offsets.GroupMetadataValue:
			if v.Generation == 1 {
				gen1 = v
			}
		case *offsets.OffsetCommitValue:
			committed[d.Key.(*offsets.OffsetCommitKey).Partition] = v.Offset
		}
	}
	if gen1 == nil || len(gen1.Members) != 2 || gen1.Members[1].ClientHost != "/c2" || string(gen1.Members[1].Assignment) != string(rangeAssignment(1)) {
		t.Fatalf("generation 1 record: %+v", gen1)
	}
	if committed[0] != 5 || committed[1] != 7 {
		t.Fatalf("committed records: %v", committed)
	}

	// Another broker is not the coordinator.
	other := int32(1)
	if other == coord {
		other = 2
	}
	if got := c1.heartbeat(other, m1, 1); got != protocol.NotCoordinator {
		t.Fatalf("heartbeat to b%d: %s, want NOT_COORDINATOR", other, got.Name())
	}

	// The coordinator crashes; another replica takes the partition over.
	c.DrainEvents()
	if err := c.CrashBroker(int(coord), false); err != nil {
		t.Fatal(err)
	}
	var next int32
	ok, _ = c.RunUntil(func() bool {
		next = c.Controller().Image().Partition(broker.OffsetsTopic, p).Leader
		if next <= 0 || next == coord {
			return false
		}
		r := c.Broker(int(next)).Replica(tp)
		return r != nil && r.IsLeader()
	}, time.Minute)
	if !ok {
		t.Fatal("no new leader for the group's partition")
	}
	if c.Broker(int(next)).GroupShard(p) != nil {
		t.Fatal("the new coordinator loaded at once: no load window to see")
	}
	if r := c1.fetchOffsets(next); r.Error != protocol.CoordinatorLoadInProgress {
		t.Fatalf("OffsetFetch during the load: %+v, want COORDINATOR_LOAD_IN_PROGRESS", r)
	}
	ok, _ = c.RunUntil(func() bool { return c.Broker(int(next)).GroupShard(p) != nil }, time.Minute)
	if !ok {
		t.Fatal("the new coordinator never loaded")
	}
	if !hasEvent(c.DrainEvents(), "loaded __consumer_offsets/", "(1 groups, 2 offsets)") {
		t.Fatal("load not traced")
	}
	r := c1.fetchOffsets(next)
	if r.Error != protocol.None || len(r.Partitions) != 2 || r.Partitions[0].Offset != 5 || r.Partitions[1].Offset != 7 {
		t.Fatalf("OffsetFetch from the new coordinator: %+v", r)
	}
	for i := 0; i < 3; i++ {
		if got := c1.heartbeat(next, m1, 1); got != protocol.None {
			t.Fatalf("c1 heartbeat: %s", got.Name())
		}
		if got := c2.heartbeat(next, m2, 1); got != protocol.None {
			t.Fatalf("c2 heartbeat: %s", got.Name())
		}
		if err := c.Tick(3 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	d, _ := c.Broker(int(next)).GroupShard(p).Describe("g")
	if d.State != "Stable" || d.Epoch != 1 || len(d.Members) != 2 || d.Members[1].Host != "/c2" {
		t.Fatalf("after the failover: %+v", d)
	}
	if hasEvent(c.DrainEvents(), "group g: PreparingRebalance") {
		t.Fatal("the failover caused a rebalance")
	}
	if v := c.Checker().Violations(); len(v) > 0 {
		t.Fatalf("invariant violations: %+v", v)
	}
}

// With fewer live brokers than offsets.topic.replication.factor the
// controller refuses to create __consumer_offsets, as Kafka's does, so
// FindCoordinator keeps answering COORDINATOR_NOT_AVAILABLE.
func TestOffsetsTopicNeedsReplicationFactorBrokers(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Brokers = 1
	c, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	rc := newRawClient(t, c, "c1")
	for i := 0; i < 2; i++ {
		r := rc.call(1, func(corr int64) sim.Message {
			return protocol.FindCoordinatorRequest{CorrelationID: corr, KeyType: protocol.CoordinatorTypeGroup, Key: "g"}
		}).(protocol.FindCoordinatorResponse)
		if r.Error != protocol.CoordinatorNotAvailable {
			t.Fatalf("FindCoordinator %d: %+v", i, r)
		}
		if err := c.Tick(time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if c.Controller().Image().Topic(broker.OffsetsTopic) != nil {
		t.Fatal("__consumer_offsets was created with one broker")
	}
	if !hasEvent(c.DrainEvents(), "b1: the controller refused to create __consumer_offsets: INVALID_REPLICATION_FACTOR: Unable to replicate the partition 3 time(s)") {
		t.Fatal("refusal not traced")
	}
}

// An OffsetCommit is answered only once its record is committed (the
// high watermark passes it), as Kafka's CoordinatorRuntime completes a
// write; if the coordinator loses the partition's leadership first, the
// waiting commit is answered NOT_COORDINATOR and the client must find the
// new coordinator (and commit again).
func TestGroupWriteWaitsForTheHighWatermark(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed = 7
	cfg.Broker.Groups.OffsetsTopicNumPartitions = 5
	c, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	rc := newRawClient(t, c, "admin")
	find := func() protocol.FindCoordinatorResponse {
		return rc.call(1, func(corr int64) sim.Message {
			return protocol.FindCoordinatorRequest{CorrelationID: corr, KeyType: protocol.CoordinatorTypeGroup, Key: "g"}
		}).(protocol.FindCoordinatorResponse)
	}
	find()
	p := offsets.PartitionFor("g", 5)
	var coord int32
	if ok, _ := c.RunUntil(func() bool {
		coord = c.Controller().Image().Partition(broker.OffsetsTopic, p).Leader
		return coord > 0 && c.Broker(int(coord)).GroupShard(p) != nil
	}, time.Minute); !ok {
		t.Fatal("no coordinator")
	}
	// The followers no longer get the coordinator's records, and its
	// heartbeats no longer reach the controller, which will fence it.
	c.Network().Drop(dropFetchResponsesFrom(int(coord)))
	c.Network().Drop(sim.DropRule{From: kraft.BrokerNode(coord), Kind: "BrokerHeartbeat", Remaining: -1})
	corr := rc.send(coord, func(corr int64) sim.Message {
		return protocol.OffsetCommitRequest{CorrelationID: corr, GroupID: "g", GenerationIDOrMemberEpoch: -1,
			Offsets: []protocol.OffsetCommitPartition{{TP: protocol.TopicPartition{Topic: "t", Partition: 0}, Offset: 9, LeaderEpoch: -1}}}
	})
	if err := c.Tick(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if rc.got[corr] != nil {
		t.Fatalf("answered before the record was committed: %+v", rc.got[corr])
	}
	r := rc.wait(corr).(protocol.OffsetCommitResponse)
	if len(r.Partitions) != 1 || r.Partitions[0].Error != protocol.NotCoordinator {
		t.Fatalf("commit after losing the leadership: %+v, want NOT_COORDINATOR", r)
	}
	if !hasEvent(c.DrainEvents(), "unloaded __consumer_offsets/", "1 waiting requests told NOT_COORDINATOR") {
		t.Fatal("unload not traced")
	}
	if f := find(); f.Error != protocol.None || f.NodeID == coord {
		t.Fatalf("FindCoordinator after the move: %+v", f)
	}
}

// A KIP-848 member joins through the broker: the coordinator assigns it
// the subscribed topic's partitions from the broker's metadata and writes
// the group's records to its partition.
func TestConsumerGroupHeartbeatThroughTheBroker(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed = 3
	cfg.Broker.Groups.OffsetsTopicNumPartitions = 3
	c, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.CreateTopic("orders", 3, 3, nil); err != nil {
		t.Fatal(err)
	}
	rc := newRawClient(t, c, "c1")
	var f protocol.FindCoordinatorResponse
	ok, _ := c.RunUntil(func() bool {
		f = rc.call(2, func(corr int64) sim.Message {
			return protocol.FindCoordinatorRequest{CorrelationID: corr, Key: "g"}
		}).(protocol.FindCoordinatorResponse)
		return f.Error == protocol.None && c.Broker(int(f.NodeID)).GroupShard(c.Broker(2).GroupCoordinatorPartition("g")) != nil
	}, time.Minute)
	if !ok {
		t.Fatal("no coordinator")
	}
	r := rc.call(f.NodeID, func(corr int64) sim.Message {
		return protocol.ConsumerGroupHeartbeatRequest{CorrelationID: corr, GroupID: "g", MemberID: "m1", MemberEpoch: 0,
			RebalanceTimeoutMs: 300000, SubscribedTopicNames: []string{"orders"}, TopicPartitions: []protocol.TopicPartitions{}}
	}).(protocol.ConsumerGroupHeartbeatResponse)
	if r.Error != protocol.None || r.MemberEpoch != 1 || !r.HasAssignment || len(r.Assignment) != 1 || len(r.Assignment[0].Partitions) != 3 {
		t.Fatalf("join: %+v", r)
	}
	d, ok := c.Broker(int(f.NodeID)).DescribeGroup("g")
	if !ok || d.Type != "consumer" || d.State != "Stable" || d.Members[0].ClientID != "c1" || d.Protocol != "uniform" {
		t.Fatalf("describe: %+v", d)
	}
	if !hasEvent(c.DrainEvents(), "group g: member m1 joined (group epoch 1)") {
		t.Fatal("join not traced")
	}
}
