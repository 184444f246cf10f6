package cluster

import (
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
)

// TestPowerCutOnEveryReplicaIsNotAViolation: acks=all with
// min.insync.replicas=2 promises to survive RF - 2 lost disks, and Kafka
// never fsyncs by default (log.flush.interval.messages is Long.MAX_VALUE):
// a power cut on all three replicas a moment after the acknowledgement
// loses the record, and that is Kafka's documented trade-off, not a broken
// invariant. The lab checks once per command, so the checker may first
// look when the replicas are back in sync with the shortened log; it must
// still excuse the loss then, and in every later leader epoch.
func TestPowerCutOnEveryReplicaIsNotAViolation(t *testing.T) {
	c := newTestCluster(t, 5)
	c.Checker().EveryStep = false // as in the lab: one check per command
	if err := c.CreateTopic("orders", 1, 3, [][2]string{{"min.insync.replicas", "2"}}); err != nil {
		t.Fatal(err)
	}
	p, _ := c.CreateProducer("p", client.DefaultProducerConfig())
	for _, d := range produceN(t, c, p, "orders", 3, "unsynced") {
		if d.Err != protocol.None {
			t.Fatalf("produce: %+v", d)
		}
	}
	for id := 1; id <= 3; id++ {
		if err := c.CrashBroker(id, true); err != nil {
			t.Fatal(err)
		}
	}
	for id := 1; id <= 3; id++ {
		if err := c.RestartBroker(id); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Tick(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	log, err := c.Partition("orders", 0)
	if err != nil {
		t.Fatal(err)
	}
	if log.EndOffset() != 0 {
		t.Fatalf("log end offset %d after a power cut on every replica a moment after the writes, want 0 (nothing was written back)", log.EndOffset())
	}
	noViolations(t, c)
	// A later leader epoch re-verifies the acknowledged records: the loss
	// is as excused as it was.
	info, _ := c.PartitionInfo("orders", 0)
	epoch := info.LeaderEpoch // info is the image's, which changes in place
	if err := c.CrashBroker(int(info.Leader), false); err != nil {
		t.Fatal(err)
	}
	if err := c.Tick(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if after, _ := c.PartitionInfo("orders", 0); after.LeaderEpoch == epoch {
		t.Fatalf("leader epoch still %d: the scenario needs a new one", epoch)
	}
	noViolations(t, c)
}
