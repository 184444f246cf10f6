package cluster

import (
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
)

// A follower takes its leader's log start offset from each fetch response
// (ReplicaFetcherThread's maybeIncrementLogStartOffset,
// LeaderOffsetIncremented), even when its own retention has not run: what
// the leader's retention deleted is gone on the follower too.
func TestFollowerTakesTheLeadersLogStartOffset(t *testing.T) {
	c := newTestCluster(t, 1) // retention checks every 5 min: none runs here on its own
	if err := c.CreateTopic("orders", 1, 3, [][2]string{{"segment.bytes", "200"}, {"retention.ms", "1000"}}); err != nil {
		t.Fatal(err)
	}
	p, _ := c.CreateProducer("p1", client.DefaultProducerConfig())
	for range 4 {
		produceN(t, c, p, "orders", 3, "a")
	}
	c.Tick(2 * time.Second)
	info, _ := c.PartitionInfo("orders", 0)
	tp := protocol.TopicPartition{Topic: "orders", Partition: 0}
	leader := c.Broker(int(info.Leader)).Replica(tp)
	// The leader's retention check runs first, as it may on its own timer.
	if _, err := leader.Log.DeleteOldSegments(c.sched.Clock.NowMs(), leader.HW); err != nil {
		t.Fatal(err)
	}
	start := leader.Log.StartOffset()
	if start == 0 {
		t.Fatal("the leader's retention deleted nothing: the test shows nothing")
	}
	produceN(t, c, p, "orders", 1, "b") // the followers fetch again
	c.Tick(time.Second)
	for _, id := range info.Replicas {
		if id == info.Leader {
			continue
		}
		if got := c.Broker(int(id)).Replica(tp).Log.StartOffset(); got != start {
			t.Errorf("follower %d's log start offset is %d, its leader's %d", id, got, start)
		}
	}
	noViolations(t, c)
}
