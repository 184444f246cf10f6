package cluster

import (
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// The checker on a compacted topic: each replica's cleaner removes
// superseded records on its own schedule (as Kafka's does), so an
// acknowledged record the cleaner removed is not lost, and replicas whose
// batches differ still agree record by record.
func TestCheckerOnACompactedTopic(t *testing.T) {
	c := compactedCluster(t)
	defer c.Close()
	p, _ := c.CreateProducer("p1", client.DefaultProducerConfig())
	for range 6 {
		produceN(t, c, p, "compacted", 3, "v") // keys k0-k2, again and again
	}
	// Tombstones for k0 and k1: the cleaner removes their records, then
	// the tombstones themselves once delete.retention.ms (1 s) passed.
	c.Produce(p, "compacted", []Message{{Key: []byte("k0")}, {Key: []byte("k1")}})
	l, _ := c.Partition("compacted", 0)
	for round := 0; hasKey(l, "k1"); round++ {
		if round == 20 {
			t.Fatal("k1's records or tombstone are still there: the test shows nothing")
		}
		produceN(t, c, p, "compacted", 1, "w") // k0 again: dirty segments for the cleaner's next pass
		c.Tick(2 * time.Second)
	}
	// A new leader epoch: the checker verifies every acknowledged record
	// again, and the followers' agreement, on the new leader.
	info, _ := c.PartitionInfo("compacted", 0)
	old := info.Leader
	c.CrashBroker(int(old), false)
	c.Tick(15 * time.Second)
	if now, _ := c.PartitionInfo("compacted", 0); now.Leader == old || now.Leader < 0 {
		t.Fatal("no new leader")
	}
	noViolations(t, c)
}

func hasKey(l *log.Log, key string) bool {
	recs, _ := l.Records(l.StartOffset(), 0)
	for _, r := range recs {
		if string(r.Key) == key {
			return true
		}
	}
	return false
}

// A tombstone whose produce failed (its answer was lost) was written all
// the same: the records of its key it deleted are not lost either.
func TestCheckerOnACompactedTopicWithAFailedTombstone(t *testing.T) {
	c := compactedCluster(t)
	defer c.Close()
	pc := client.DefaultProducerConfig()
	pc.RequestTimeout, pc.DeliveryTimeout = time.Second, 2*time.Second
	p, _ := c.CreateProducer("p1", pc)
	produceN(t, c, p, "compacted", 3, "v")
	info, _ := c.PartitionInfo("compacted", 0)
	leader := info.Leader
	c.Network().Drop(sim.DropRule{From: kraft.BrokerNode(leader), Kind: "ProduceResponse", Remaining: -1})
	ds, _ := c.Produce(p, "compacted", []Message{{Key: []byte("k1")}})
	if ds[0].Err == protocol.None {
		t.Fatal("the tombstone's produce succeeded: the test shows nothing")
	}
	c.Network().Heal()
	l, _ := c.Partition("compacted", 0)
	for round := 0; hasKey(l, "k1"); round++ {
		if round == 20 {
			t.Fatal("k1's record or tombstone is still there: the test shows nothing")
		}
		produceN(t, c, p, "compacted", 1, "w")
		c.Tick(2 * time.Second)
	}
	c.CrashBroker(int(leader), false)
	c.Tick(15 * time.Second)
	noViolations(t, c)
}

// compactedCluster is a three-broker cluster with one compacted, rf=3
// topic whose cleaner runs every 100 ms over 200-byte segments, and the
// checker watching every event.
func compactedCluster(t *testing.T) *Cluster {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Broker.CleanerBackoff = 100 * time.Millisecond
	c, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Checker().EveryStep = true
	if err := c.CreateTopic("compacted", 1, 3, [][2]string{{"cleanup.policy", "compact"}, {"segment.bytes", "200"},
		{"min.cleanable.dirty.ratio", "0.1"}, {"delete.retention.ms", "1000"}}); err != nil {
		c.Close()
		t.Fatal(err)
	}
	return c
}

// The view draws as "acknowledged, then lost" only what the checker calls
// lost: a record the cleaner removed because its key was written again
// (or a tombstone past delete.retention.ms) is compaction at work, and a
// learner shown it as lost would believe compaction loses data.
func TestViewDoesNotDrawCompactedRecordsAsLost(t *testing.T) {
	c := compactedCluster(t)
	defer c.Close()
	p, _ := c.CreateProducer("p1", client.DefaultProducerConfig())
	for range 6 {
		produceN(t, c, p, "compacted", 3, "v")
	}
	c.Produce(p, "compacted", []Message{{Key: []byte("k0")}})
	l, _ := c.Partition("compacted", 0)
	for round := 0; l.StartOffset() == 0 && firstOffset(l) == 0; round++ {
		if round == 20 {
			t.Fatal("the cleaner removed nothing: the test shows nothing")
		}
		produceN(t, c, p, "compacted", 1, "w")
		c.Tick(2 * time.Second)
	}
	noViolations(t, c)
	for _, tv := range c.View().Topics {
		for _, pv := range tv.Partitions {
			if len(pv.Lost) > 0 {
				t.Errorf("%s draws %d records as lost (first: offset %d), which the cleaner removed", pv.Name(), len(pv.Lost), pv.Lost[0].Offset)
			}
		}
	}
}

func firstOffset(l *log.Log) int64 {
	recs, _ := l.Records(l.StartOffset(), 1)
	if len(recs) == 0 {
		return -1
	}
	return recs[0].Offset
}
