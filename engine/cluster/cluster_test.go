package cluster

import (
	"fmt"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
)

func newTestCluster(t *testing.T, seed uint64) *Cluster {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Seed = seed
	c, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.Checker().EveryStep = true
	return c
}

func produceN(t *testing.T, c *Cluster, p *client.Producer, topic string, n int, prefix string) []*client.Delivery {
	t.Helper()
	msgs := make([]Message, n)
	for i := range msgs {
		msgs[i] = Message{Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf("%s-%d", prefix, i)), Partition: 0}
	}
	ds, err := c.Produce(p, topic, msgs)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func noViolations(t *testing.T, c *Cluster) {
	t.Helper()
	c.Checker().Check()
	for _, v := range c.Checker().Violations() {
		t.Error(v)
	}
}

func TestReplicationAndLeaderFailover(t *testing.T) {
	c := newTestCluster(t, 1)
	if err := c.CreateTopic("orders", 1, 3, [][2]string{{"min.insync.replicas", "2"}}); err != nil {
		t.Fatal(err)
	}
	p, _ := c.CreateProducer("p1", client.DefaultProducerConfig())
	for _, d := range produceN(t, c, p, "orders", 10, "a") {
		if d.Err != protocol.None {
			t.Fatalf("delivery %+v", d)
		}
	}
	// Followers learn the high watermark from their next fetch response.
	if err := c.Tick(time.Second); err != nil {
		t.Fatal(err)
	}
	info, _ := c.PartitionInfo("orders", 0)
	if len(info.ISR) != 3 {
		t.Fatalf("ISR %v, want all three", info.ISR)
	}
	for _, id := range info.Replicas {
		r, _, err := c.Replica("orders", 0, int(id))
		if err != nil {
			t.Fatal(err)
		}
		if r.Log.EndOffset() != 10 || r.HW != 10 {
			t.Fatalf("broker %d: LEO %d HW %d, want 10/10", id, r.Log.EndOffset(), r.HW)
		}
	}
	old := int(info.Leader)
	if err := c.CrashBroker(old, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Tick(12 * time.Second); err != nil { // past broker.session.timeout.ms
		t.Fatal(err)
	}
	info, _ = c.PartitionInfo("orders", 0)
	if int(info.Leader) == old || info.Leader < 0 || info.LeaderEpoch != 1 {
		t.Fatalf("after crashing %d: leader %d epoch %d", old, info.Leader, info.LeaderEpoch)
	}
	for _, d := range produceN(t, c, p, "orders", 5, "b") {
		if d.Err != protocol.None {
			t.Fatalf("delivery after failover %+v", d)
		}
	}
	if err := c.RestartBroker(old); err != nil {
		t.Fatal(err)
	}
	if err := c.Tick(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	info, _ = c.PartitionInfo("orders", 0)
	if len(info.ISR) != 3 {
		t.Fatalf("restarted broker did not rejoin the ISR: %v (events %v)", info.ISR, c.DrainEvents())
	}
	r, _, _ := c.Replica("orders", 0, old)
	if r.Log.EndOffset() != 15 {
		t.Fatalf("restarted broker has LEO %d, want 15", r.Log.EndOffset())
	}
	noViolations(t, c)
}

func TestAcksAllRefusedBelowMinISR(t *testing.T) {
	c := newTestCluster(t, 2)
	c.CreateTopic("orders", 1, 3, [][2]string{{"min.insync.replicas", "2"}})
	info, _ := c.PartitionInfo("orders", 0)
	for _, id := range info.Replicas {
		if id != info.Leader {
			c.CrashBroker(int(id), false)
		}
	}
	c.Tick(12 * time.Second)
	cfg := client.DefaultProducerConfig()
	cfg.DeliveryTimeout = 2 * time.Second
	cfg.RequestTimeout = time.Second
	p, _ := c.CreateProducer("p1", cfg)
	ds := produceN(t, c, p, "orders", 1, "x")
	if ds[0].Err != protocol.DeliveryTimeout {
		t.Fatalf("acks=all with one in-sync replica: %+v, want it retried (NOT_ENOUGH_REPLICAS) until the delivery timeout", ds[0])
	}
	l, _ := c.Partition("orders", 0)
	if l.EndOffset() != 0 {
		t.Fatalf("NOT_ENOUGH_REPLICAS must refuse the append; log end %d", l.EndOffset())
	}
	noViolations(t, c)
}

// acks=1: the leader acknowledges before followers copy; if it dies then,
// the new leader never had the record and the old one truncates it away.
func TestAcks1LosesAcknowledgedDataOnLeaderCrash(t *testing.T) {
	c := newTestCluster(t, 3)
	c.CreateTopic("orders", 1, 3, nil)
	info, _ := c.PartitionInfo("orders", 0)
	leader := int(info.Leader)
	cfg := client.DefaultProducerConfig()
	cfg.Acks = 1
	p, _ := c.CreateProducer("p1", cfg)
	produceN(t, c, p, "orders", 3, "safe")
	c.Stabilize()
	// Cut the followers off from the leader, write, then kill the leader.
	c.Network().Drop(dropFetchResponsesFrom(leader))
	ds := produceN(t, c, p, "orders", 2, "doomed")
	if ds[0].Err != protocol.None {
		t.Fatalf("acks=1 write failed: %+v", ds[0])
	}
	c.CrashBroker(leader, false)
	c.Network().Heal()
	c.Tick(12 * time.Second)
	c.RestartBroker(leader)
	c.Tick(5 * time.Second)
	c.Checker().Check()
	found := false
	for _, v := range c.Checker().Violations() {
		if v.Invariant == "acks=1-loss" {
			found = true
		} else {
			t.Error(v)
		}
	}
	if !found {
		t.Fatalf("the acks=1 records written before the crash survived; events:\n%v", c.DrainEvents())
	}
}
