package cluster

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/storage/osfs"
)

// ledBy lists the partitions of topic whose leader is broker id.
func ledBy(c *Cluster, topic string, id int32) map[int32]kraft.PartitionInfo {
	out := map[int32]kraft.PartitionInfo{}
	for i, p := range c.Controller().Image().Topic(topic).Partitions {
		if p.Leader == id {
			out[int32(i)] = *p
		}
	}
	return out
}

// checkMovedWithinISR requires every partition broker id led to have a new
// leader from its old ISR, with the leader epoch bumped once.
func checkMovedWithinISR(t *testing.T, c *Cluster, topic string, id int32, before map[int32]kraft.PartitionInfo) {
	t.Helper()
	if len(before) == 0 {
		t.Fatalf("broker %d led no partition of %s: the test proves nothing", id, topic)
	}
	for i, old := range before {
		now := c.Controller().Image().Partition(topic, i)
		if now.Leader == id || now.Leader == -1 || !slices.Contains(old.ISR, now.Leader) {
			t.Errorf("%s/%d: leader %d, want another member of the old ISR %v", topic, i, now.Leader, old.ISR)
		}
		if now.LeaderEpoch != old.LeaderEpoch+1 {
			t.Errorf("%s/%d: leader epoch %d, want %d", topic, i, now.LeaderEpoch, old.LeaderEpoch+1)
		}
		if slices.Contains(now.ISR, id) {
			t.Errorf("%s/%d: fenced broker %d is still in the ISR %v", topic, i, id, now.ISR)
		}
		// Brokers act on what they replayed: the new leader knows it leads.
		if r := c.Broker(int(now.Leader)).Replica(protocol.TopicPartition{Topic: topic, Partition: i}); r == nil || r.LeaderEpoch != now.LeaderEpoch {
			t.Errorf("%s/%d: broker %d has not taken the leadership at epoch %d", topic, i, now.Leader, now.LeaderEpoch)
		}
	}
}

// A broker whose heartbeats stop reaching the controller (it still runs)
// is fenced after broker.session.timeout.ms, and its leaderships move to
// other in-sync replicas with their leader epochs bumped.
func TestBrokerWithoutHeartbeatsIsFencedAndLosesItsLeaderships(t *testing.T) {
	c := newTestCluster(t, 3)
	if err := c.CreateTopic("orders", 6, 3, nil); err != nil {
		t.Fatal(err)
	}
	before := ledBy(c, "orders", 2)
	c.Network().Drop(sim.DropRule{From: kraft.BrokerNode(2), Kind: "BrokerHeartbeat", Remaining: -1})
	if err := c.Tick(c.Config().SessionTimeout - time.Second); err != nil {
		t.Fatal(err)
	}
	if c.Controller().Image().Broker(2).Fenced {
		t.Fatal("broker 2 fenced before its session expired")
	}
	if err := c.Tick(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	if !c.Controller().Image().Broker(2).Fenced {
		t.Fatal("broker 2 still unfenced after its session expired")
	}
	checkMovedWithinISR(t, c, "orders", 2, before)
	noViolations(t, c)
}

// The active controller crashes while a broker is down: the next one takes
// over (controller 2, the lowest-numbered survivor), gives every broker a
// fresh session as Kafka's activate does, and still fences the dead broker
// a session timeout later, moving its leaderships.
func TestActiveControllerCrashDuringABrokerFailure(t *testing.T) {
	c := newTestCluster(t, 5)
	if err := c.CreateTopic("orders", 6, 3, [][2]string{{"min.insync.replicas", "2"}}); err != nil {
		t.Fatal(err)
	}
	first := c.ActiveController()
	if first == 0 {
		t.Fatal("no active controller")
	}
	before := ledBy(c, "orders", 3)
	if err := c.CrashBroker(3, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Tick(4 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.CrashController(first); err != nil {
		t.Fatal(err)
	}
	if got := c.ActiveController(); got != 0 {
		t.Fatalf("controller %d active the moment controller %d crashed: the others cannot know yet", got, first)
	}
	// The others notice after controller.quorum.fetch.timeout.ms and elect.
	crashed := c.Elapsed()
	if ok, err := c.RunUntil(func() bool { return c.ActiveController() != 0 }, time.Minute); err != nil || !ok {
		t.Fatalf("no controller became active after controller %d crashed (err %v)", first, err)
	}
	failover := c.Elapsed()
	if d := failover - crashed; d < 1500*time.Millisecond || d > 8*time.Second {
		t.Errorf("failover took %v, want a fetch timeout (2 s, counted from the last fetch, at most 500 ms before the crash) plus an election", d)
	}
	fencedAt := time.Duration(-1)
	ok, err := c.RunUntil(func() bool {
		if c.Controller().Image().Broker(3).Fenced && fencedAt < 0 {
			fencedAt = c.Elapsed()
		}
		return fencedAt >= 0
	}, time.Minute)
	if err != nil || !ok {
		t.Fatalf("broker 3 was never fenced after the failover (err %v)", err)
	}
	if d := fencedAt - failover; d <= c.Config().SessionTimeout || d > c.Config().SessionTimeout+2*time.Second {
		t.Errorf("fenced %v after the failover, want just over broker.session.timeout.ms (%v): the new controller gives sessions afresh", d, c.Config().SessionTimeout)
	}
	if err := c.Tick(time.Second); err != nil {
		t.Fatal(err)
	}
	checkMovedWithinISR(t, c, "orders", 3, before)
	// Nothing was decided twice: offsets are dense and every record is once in the log.
	recs := c.meta.Read(0)
	for i, r := range recs {
		if r.Offset != int64(i) {
			t.Fatalf("metadata offset %d at position %d", r.Offset, i)
		}
	}
	noViolations(t, c)
}

// A controller restarted after the log it missed was compacted restores
// the leader's snapshot and holds the same metadata as everybody else.
func TestRestartedControllerRestoresASnapshot(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SnapshotThreshold = 8
	c, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	leaderID := c.ActiveController()
	down := leaderID%3 + 1 // a follower
	if err := c.CrashController(down); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		if err := c.CreateTopic(name, 1, 3, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.RestartController(down); err != nil {
		t.Fatal(err)
	}
	if err := c.Tick(time.Second); err != nil {
		t.Fatal(err)
	}
	st := c.VoterStatuses()
	leader, restarted := st[leaderID-1], st[down-1]
	if leader.Role != raft.Leader || leader.SnapshotEnd <= 0 || leader.LogStart <= 0 {
		t.Fatalf("controller %d should lead with a snapshot and the log below it gone: %+v", leaderID, leader)
	}
	if restarted.SnapshotEnd <= 0 || restarted.LogStart != restarted.SnapshotEnd || restarted.LogEnd != leader.LogEnd || restarted.HighWatermark != leader.HighWatermark {
		t.Fatalf("controller %d did not catch up from a snapshot: %+v (leader %+v)", down, restarted, leader)
	}
	// The restarted controller can lead with what it restored: crash the
	// other two and bring one back; whoever leads knows every topic.
	for id := 1; id <= 3; id++ {
		if id != down {
			if err := c.CrashController(id); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := c.RestartController(leaderID); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.RunUntil(func() bool { return c.ActiveController() != 0 }, time.Minute); err != nil || !ok {
		t.Fatalf("no controller became active (err %v)", err)
	}
	if n := len(c.Controller().Image().Topics); n != 12 {
		t.Fatalf("active controller %d knows %d topics, want 12", c.ActiveController(), n)
	}
}

// Without a majority nothing is decided: no fencing, no topic; when a
// majority is back the cluster carries on.
func TestNoMajorityNoDecisions(t *testing.T) {
	c := newTestCluster(t, 2)
	active := c.ActiveController()
	var others []int
	for id := 1; id <= 3; id++ {
		if id != active {
			others = append(others, id)
		}
	}
	for _, id := range others {
		if err := c.CrashController(id); err != nil {
			t.Fatal(err)
		}
	}
	// Check-quorum: with nobody fetching for 1.5 fetch timeouts, the leader
	// resigns.
	if err := c.Tick(4 * time.Second); err != nil {
		t.Fatal(err)
	}
	if c.ActiveController() != 0 {
		t.Fatalf("controller %d active with 1 of 3 controllers", c.ActiveController())
	}
	if err := c.CreateTopic("t", 1, 1, nil); err == nil {
		t.Fatal("a topic was created without an active controller")
	}
	if err := c.CrashBroker(1, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Tick(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	if c.Controller().Image().Broker(1).Fenced {
		t.Fatal("broker 1 fenced without an active controller")
	}
	if err := c.RestartController(others[0]); err != nil {
		t.Fatal(err)
	}
	if err := c.Tick(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	if !c.Controller().Image().Broker(1).Fenced {
		t.Fatal("broker 1 not fenced once a controller was active again")
	}
	if err := c.CreateTopic("t", 1, 1, nil); err != nil {
		t.Fatal(err)
	}
}

// The metadata survives a native restart: the quorum reopened on the same
// directory holds the same topics, partitions, leaders and epochs; the
// brokers then re-register and serve the records they kept.
func TestNativeRestartKeepsTheMetadata(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.MetadataDir, cfg.SnapshotThreshold = dir, 8
	c, err := New(cfg, osfs.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTopic("orders", 3, 3, nil); err != nil {
		t.Fatal(err)
	}
	// Move some leaderships so that epochs are not all zero.
	if err := c.CrashBroker(2, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Tick(11 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.RestartBroker(2); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RunUntil(func() bool { return c.allUnfenced() }, time.Minute); err != nil {
		t.Fatal(err)
	}
	p, _ := c.CreateProducer("p", client.DefaultProducerConfig())
	ds, err := c.Produce(p, "orders", []Message{{Value: []byte("kept"), Partition: 0}})
	if err != nil || ds[0].Err != protocol.None {
		t.Fatalf("produce: %v %+v", err, ds)
	}
	want := c.Controller().Image().Clone()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	c2, err := New(cfg, osfs.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c2.Close() })
	for i, p := range c2.Controller().Image().Topic("orders").Partitions {
		if !slices.Equal(p.Replicas, want.Topics[0].Partitions[i].Replicas) || p.LeaderEpoch < want.Topics[0].Partitions[i].LeaderEpoch {
			t.Errorf("orders/%d after the restart: %+v, before %+v", i, p, want.Topics[0].Partitions[i])
		}
	}
	// The reopened controllers restored snapshots, so the brokers, starting
	// from nothing, had to load one: their images match the controller's.
	if st := c2.VoterStatuses(); st[0].SnapshotEnd <= 0 {
		t.Fatalf("controller 1 restored no snapshot (threshold 8): %+v", st[0])
	}
	for i, p := range want.Topics[0].Partitions {
		if got := c2.Controller().Image().Partition("orders", int32(i)); got == nil || got.LeaderEpoch < p.LeaderEpoch {
			t.Errorf("orders/%d reopened as %+v, was %+v", i, got, p)
		}
	}
	if err := c2.Tick(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	if ok, err := c2.RunUntil(func() bool { return c2.meta.End() == c2.activeLogEnd() }, time.Minute); err != nil || !ok {
		t.Fatalf("the reopened controller's writes never committed (err %v)", err)
	}
	if err := c2.Tick(time.Second); err != nil {
		t.Fatal(err)
	}
	for _, b := range c2.Brokers() {
		if !reflect.DeepEqual(b.Image(), c2.Controller().Image()) {
			t.Errorf("broker %d's image differs from the controller's:\n%+v\n%+v", b.ID, b.Image(), c2.Controller().Image())
		}
	}
	ccfg := client.DefaultConsumerConfig()
	ccfg.AutoOffsetReset = "earliest"
	co, err := c2.CreateConsumer("c", ccfg, []protocol.TopicPartition{{Topic: "orders", Partition: 0}})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := c2.Poll(co, 10, 5*time.Second)
	if err != nil || len(recs) != 1 || string(recs[0].Value) != "kept" {
		t.Fatalf("after the restart orders/0 holds %+v (err %v), want the record produced before", recs, err)
	}
}

// The checker notices a decision the active controller does not know of
// (what a failover that lost state would leave behind): a record written
// straight into its voter's log, past the controller.
func TestCheckerCatchesAControllerBehindTheMetadataLog(t *testing.T) {
	c := newTestCluster(t, 4)
	if _, err := c.voter(c.ActiveController()).node.Append([]protocol.MetadataRecord{{Type: "Topic", Topic: "ghost", Partitions: 1}}); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range c.Checker().Check() {
		found = found || v.Invariant == "controller-image"
	}
	if !found {
		t.Fatalf("no controller-image violation: %v", c.Checker().Violations())
	}
}

// The quorum is part of the simulation: the same seed and the same faults
// give the same elections, epochs, logs and high watermarks, every run.
func TestQuorumIsDeterministic(t *testing.T) {
	run := func() []raft.Status {
		c := newTestCluster(t, 6)
		if err := c.CreateTopic("orders", 2, 3, nil); err != nil {
			t.Fatal(err)
		}
		if err := c.CrashController(c.ActiveController()); err != nil {
			t.Fatal(err)
		}
		if err := c.Tick(10 * time.Second); err != nil {
			t.Fatal(err)
		}
		if err := c.PartitionNetwork([][]sim.NodeID{{"ctl1"}, {"ctl2", "ctl3"}}); err != nil {
			t.Fatal(err)
		}
		if err := c.Tick(10 * time.Second); err != nil {
			t.Fatal(err)
		}
		return c.VoterStatuses()
	}
	a, b := run(), run()
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two runs of one script disagree:\n%+v\n%+v", a, b)
	}
	if a[1].Epoch < 2 && a[2].Epoch < 2 {
		t.Fatalf("epochs %+v: the crash caused no election, the test proves little", a)
	}
}
