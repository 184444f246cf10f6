package cluster

import (
	"bytes"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
)

// Replicas roll their segments on their own (segment.ms, retention rolling
// an expired active segment), so the same batches sit in differently cut
// segments: the checker compares batches, not reads of one segment each.
func TestCheckerAgreementAcrossDifferentSegmentBoundaries(t *testing.T) {
	c := newTestCluster(t, 1)
	c.Checker().EveryStep = false // one check at the end, over both segments
	if err := c.CreateTopic("orders", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	p, _ := c.CreateProducer("p1", client.DefaultProducerConfig())
	produceN(t, c, p, "orders", 3, "a")
	info, _ := c.PartitionInfo("orders", 0)
	follower := info.Replicas[0]
	if follower == info.Leader {
		follower = info.Replicas[1]
	}
	r := c.Broker(int(follower)).Replica(protocol.TopicPartition{Topic: "orders", Partition: 0})
	if err := r.Log.Roll(); err != nil { // only this follower starts a new segment here
		t.Fatal(err)
	}
	produceN(t, c, p, "orders", 3, "b")
	c.Tick(time.Second)
	if n := len(r.Log.Segments()); n != 2 {
		t.Fatalf("the follower has %d segment(s), want 2: the test shows nothing", n)
	}
	noViolations(t, c)
}

// A follower whose batch below the high watermark differs from the
// leader's (a valid batch, another value) is reported, the batches on
// either side of it being the same. The checker runs once, at the end: it
// compares only what it has not verified yet.
func TestCheckerReportsAFollowerBatchThatDiffers(t *testing.T) {
	c, leader, f := threeBatchesReplicated(t)
	var raws [][]byte
	rb := leader.Log.RawBatches(0, leader.HW)
	for {
		raw, err := rb.Next()
		if err != nil {
			t.Fatal(err)
		}
		if raw == nil {
			break
		}
		raws = append(raws, bytes.Clone(raw))
	}
	if len(raws) < 3 {
		t.Fatalf("the leader has %d batches below its high watermark, want 3 or more", len(raws))
	}
	b, _, err := record.Decode(raws[1])
	if err != nil {
		t.Fatal(err)
	}
	b.Records[0].Value = []byte("changed")
	if raws[1], err = b.AppendEncoded(nil); err != nil {
		t.Fatal(err)
	}
	if err := f.Log.TruncateTo(0); err != nil {
		t.Fatal(err)
	}
	for _, raw := range raws {
		if _, err := f.Log.AppendEncoded(raw); err != nil {
			t.Fatal(err)
		}
	}
	found := false
	for _, v := range c.Checker().Check() {
		found = found || v.Invariant == "replicas-agree"
	}
	if !found {
		t.Fatalf("no replicas-agree violation: %v", c.Checker().Violations())
	}
}

// threeBatchesReplicated is a cluster whose orders/0 holds three batches
// on all three replicas, with the checker run by hand; it returns the
// leader's replica and a follower's.
func threeBatchesReplicated(t *testing.T) (*Cluster, *broker.Replica, *broker.Replica) {
	t.Helper()
	c := newTestCluster(t, 1)
	c.Checker().EveryStep = false
	if err := c.CreateTopic("orders", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	p, _ := c.CreateProducer("p1", client.DefaultProducerConfig())
	for _, prefix := range []string{"a", "b", "c"} {
		produceN(t, c, p, "orders", 3, prefix)
	}
	c.Tick(time.Second)
	tp := protocol.TopicPartition{Topic: "orders", Partition: 0}
	info, _ := c.PartitionInfo("orders", 0)
	leader := c.Broker(int(info.Leader)).Replica(tp)
	follower := info.Replicas[0]
	if follower == info.Leader {
		follower = info.Replicas[1]
	}
	return c, leader, c.Broker(int(follower)).Replica(tp)
}
