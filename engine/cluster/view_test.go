package cluster

import (
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
	if len(v.ClientNodes) != 1 || v.ClientNodes[0] != (view.Client{Name: "fast", Kind: "producer"}) {
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
