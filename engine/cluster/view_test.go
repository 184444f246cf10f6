package cluster

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/view"
)

// The view shows an acks=1 loss as it happens: after the leader that alone
// held an acknowledged record crashes, the new leader's partition view
// lists the record as lost, and the record below it stays acknowledged.
func TestViewShowsLeaderChangeAndLostAckedRecord(t *testing.T) {
	c := newTestCluster(t, 7)
	c.Checker().EveryStep = false
	if err := c.CreateTopic("orders", 1, 3, [][2]string{{"min.insync.replicas", "2"}}); err != nil {
		t.Fatal(err)
	}
	cfg := client.DefaultProducerConfig()
	cfg.Acks = 1
	p, err := c.CreateProducer("fast", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Produce(p, "orders", []Message{{Key: []byte("a"), Value: []byte("replicated")}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Tick(time.Second); err != nil {
		t.Fatal(err)
	}
	v := c.View()
	part := v.Topics[0].Partitions[0]
	oldLeader := part.Leader
	if part.LeaderEpoch != 0 || len(part.Records) != 1 || !part.Records[0].Acked || !part.Records[0].Committed {
		t.Fatalf("before the crash: %+v", part)
	}
	if len(v.ClientNodes) != 1 || v.ClientNodes[0].Name != "fast" || v.ClientNodes[0].Kind != "producer" || v.ClientNodes[0].Down || v.ClientNodes[0].Producer == nil {
		t.Errorf("client nodes = %+v", v.ClientNodes)
	}
	if v.ControllerNode != "ctl" || v.Network != "network healthy" || len(v.Cut) != 0 {
		t.Errorf("controller %q, network %q, cut %v", v.ControllerNode, v.Network, v.Cut)
	}

	c.Network().Drop(dropFetchResponsesFrom(oldLeader))
	if _, err := c.Produce(p, "orders", []Message{{Key: []byte("a"), Value: []byte("acknowledged-then-lost")}}); err != nil {
		t.Fatal(err)
	}
	if err := c.CrashBroker(oldLeader, false); err != nil {
		t.Fatal(err)
	}
	c.Network().Heal()
	if err := c.Tick(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	c.Checker().Check()
	v = c.View()
	part = v.Topics[0].Partitions[0]
	if part.Leader == oldLeader || part.LeaderEpoch != 1 {
		t.Fatalf("after the crash: leader %d epoch %d", part.Leader, part.LeaderEpoch)
	}
	if len(part.Lost) != 1 || part.Lost[0].Offset != 1 || part.Lost[0].Value != "acknowledged-then-lost" {
		t.Errorf("lost = %+v", part.Lost)
	}
	for _, r := range part.Replicas {
		if r.Broker == oldLeader && (r.Alive || r.InISR) {
			t.Errorf("crashed broker's replica: %+v", r)
		}
	}
	if len(v.Checks) == 0 || !v.Checks[0].LosesAckedRecord() || v.Checks[0].Invariant != "acks=1-loss" {
		t.Errorf("checks = %+v", v.Checks)
	}
	for _, b := range v.BrokerNodes {
		if b.ID == oldLeader && (b.Alive || !b.Fenced) {
			t.Errorf("crashed broker node: %+v", b)
		}
	}

	// The new leader writes offset 1 again: the new record there is the
	// acknowledged one, and the old acknowledgement stays lost.
	if _, err := c.Produce(p, "orders", []Message{{Key: []byte("a"), Value: []byte("after")}}); err != nil {
		t.Fatal(err)
	}
	part = c.View().Topics[0].Partitions[0]
	if len(part.Records) != 2 || part.Records[1].Value != "after" || !part.Records[1].Acked {
		t.Errorf("records after rewriting offset 1: %+v", part.Records)
	}
	if len(part.Lost) != 1 || part.Lost[0].Value != "acknowledged-then-lost" {
		t.Errorf("lost after rewriting offset 1: %+v", part.Lost)
	}
}

// A network partition shows as the pairs of nodes it separates.
func TestViewListsCutLinks(t *testing.T) {
	c := newTestCluster(t, 1)
	c.Network().Partition([][]sim.NodeID{{"b1", "b2"}, {"b3"}})
	v := c.View()
	want := []view.Link{{A: "b1", B: "b3"}, {A: "b2", B: "b3"}}
	if !slices.Equal(v.Cut, want) {
		t.Errorf("cut = %v, want %v", v.Cut, want)
	}
	if v.Network == "network healthy" {
		t.Errorf("network = %q", v.Network)
	}
}

// Restart limbo: right after `broker crash 2` and `broker restart 2`, the
// newest metadata still names broker 2 leader (the controller fences it
// only when its old session expires), but the restarted broker has not
// registered nor opened a replica. At every step from there until the
// cluster settles, the view must say so rather than contradict itself:
// the leader shown is the metadata's, the named leader's row says it is
// down or has no replica yet (never "follower"), the broker node that
// "leads" a partition has the replica leading it, and the records shown
// can be opened from the broker whose log they come from.
func TestViewIsConsistentThroughARestartLimbo(t *testing.T) {
	c := newTestCluster(t, 1)
	if err := c.CreateTopic("t", 2, 3, nil); err != nil {
		t.Fatal(err)
	}
	p, err := c.CreateProducer("p", client.DefaultProducerConfig())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, err := c.Produce(p, "t", []Message{{Value: []byte("a"), Partition: int32(i)}, {Value: []byte("b"), Partition: int32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.CrashBroker(2, false); err != nil {
		t.Fatal(err)
	}
	checkViewConsistent(t, c, "after broker crash 2")
	if err := c.RestartBroker(2); err != nil {
		t.Fatal(err)
	}
	checkViewConsistent(t, c, "after broker restart 2")
	for step := 1; !c.allUnfenced(); step++ {
		if _, ok := c.Step(); !ok || step > 1_000_000 {
			t.Fatalf("broker 2 never came back: %+v", c.View().BrokerNodes)
		}
		checkViewConsistent(t, c, fmt.Sprintf("step %d after the restart (%s)", step, c.Elapsed()))
		if t.Failed() {
			return
		}
	}
}

func checkViewConsistent(t *testing.T, c *Cluster, when string) {
	t.Helper()
	v := c.View()
	img := c.Controller().Image()
	for _, tv := range v.Topics {
		for _, pv := range tv.Partitions {
			meta := img.Topic(tv.Name).Partitions[pv.Index]
			if pv.Leader != int(meta.Leader) || pv.LeaderEpoch != int(meta.LeaderEpoch) {
				t.Errorf("%s: %s shows leader %d epoch %d, the metadata says %d epoch %d", when, pv.Name(), pv.Leader, pv.LeaderEpoch, meta.Leader, meta.LeaderEpoch)
			}
			for _, r := range pv.Replicas {
				named := r.Broker == pv.Leader
				switch {
				case named && r.Alive && r.Opened && !r.Leader && pv.LeaderState() == "":
					t.Errorf("%s: %s names broker %d leader, its row says follower, and nothing says why: %+v", when, pv.Name(), r.Broker, r)
				case named && (!r.Alive || !r.Opened) && pv.LeaderState() == "":
					t.Errorf("%s: %s names broker %d leader without saying it is %s", when, pv.Name(), r.Broker, map[bool]string{true: "without a replica", false: "down"}[r.Alive])
				case r.Alive && !r.Opened && (r.LEO != 0 || r.HW != 0 || r.Leader):
					t.Errorf("%s: %s: broker %d has no replica open but its row shows one: %+v", when, pv.Name(), r.Broker, r)
				}
			}
			if len(pv.Records) == 0 {
				continue
			}
			r, _, err := c.Replica(tv.Name, pv.Index, pv.ShownBroker)
			if err != nil {
				t.Errorf("%s: %s shows records from broker %d, which cannot be opened: %v", when, pv.Name(), pv.ShownBroker, err)
				continue
			}
			last := pv.Records[len(pv.Records)-1].Offset
			if _, err := r.Log.Records(last, 1); err != nil {
				t.Errorf("%s: %s offset %d is shown but broker %d cannot read it: %v", when, pv.Name(), last, pv.ShownBroker, err)
			}
		}
	}
	for _, b := range v.BrokerNodes {
		for _, name := range v.Leads(b.ID) {
			var tp view.Partition
			for _, tv := range v.Topics {
				for _, pv := range tv.Partitions {
					if pv.Name() == name {
						tp = pv
					}
				}
			}
			if tp.LeaderState() != "" {
				t.Errorf("%s: broker %d's node says it leads %s, whose leader is %s", when, b.ID, name, tp.LeaderState())
			}
		}
	}
}

// The quorum panel's replication rows: the leader first, the other voters,
// then every broker as an observer, each with the offset it fetched from;
// a broker cut off from the controllers falls behind, then catches up.
func TestViewShowsTheQuorumReplication(t *testing.T) {
	c := newTestCluster(t, 3)
	rows := c.View().QuorumReplication
	if len(rows) != 6 || rows[0].Status != "Leader" || rows[0].ID != c.ActiveController() || rows[1].Status != "Follower" || rows[3].Status != "Observer" {
		t.Fatalf("replication rows %+v", rows)
	}
	var cut []sim.NodeID
	for id := 1; id <= 3; id++ {
		cut = append(cut, controllerNode(id))
	}
	if err := c.PartitionNetwork([][]sim.NodeID{{"b1"}, append(cut, "b2", "b3")}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c"} {
		if err := c.CreateTopic(name, 1, 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	observer := func(id int) view.QuorumReplica {
		for _, r := range c.View().QuorumReplication {
			if r.Status == "Observer" && r.ID == id {
				return r
			}
		}
		t.Fatalf("no observer %d in %+v", id, c.View().QuorumReplication)
		return view.QuorumReplica{}
	}
	if err := c.Tick(time.Second); err != nil {
		t.Fatal(err)
	}
	if b1, b2 := observer(1), observer(2); b1.Lag == 0 || b2.Lag != 0 {
		t.Fatalf("cut off, broker 1 should lag and broker 2 not: %+v %+v", b1, b2)
	}
	if err := c.HealNetwork(); err != nil {
		t.Fatal(err)
	}
	// Its fetch lost to the partition times out first
	// (controller.quorum.request.timeout.ms, 2 s).
	if err := c.Tick(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	if b1 := observer(1); b1.Lag != 0 {
		t.Fatalf("healed, broker 1 still lags: %+v", b1)
	}
}
