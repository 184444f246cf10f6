package cluster

import (
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
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
