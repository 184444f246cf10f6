package cluster

// Found by review: a marker slower than the producer's next transaction,
// and retention deleting where an open transaction began.

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// A COMMIT marker slower than the producer's next transaction (here lost
// once, as `net drop type=WriteTxnMarkers` does; a delayed link behaves
// the same): Kafka 4.x
// verifies the new epoch's first batch (hasOngoingTransaction(pid, epoch)),
// gets CONCURRENT_TRANSACTIONS while the coordinator is PrepareCommit, and
// retries; both transactions end and the LSO reaches the HW.
func TestLostMarkerThenNextTransaction(t *testing.T) {
	nativeOnly(t, "a marker lost until its retries run out, 11 s under node")
	slowMarkerThenNextTransaction(t, true)
}

func slowMarkerThenNextTransaction(t *testing.T, drop bool) {
	c := txnProducerCluster(t)
	p := txnProducer(t, c, "p")
	waitOp(t, c, "initTransactions", p.InitTransactions())
	tsp, _ := c.PartitionInfo("__transaction_state", int(c.TxnPartition("tx")))
	part := 0
	for ; part < 2; part++ {
		if pi, _ := c.PartitionInfo("out", part); pi.Leader != tsp.Leader {
			break
		}
	}
	pi, _ := c.PartitionInfo("out", part)
	t.Logf("coordinator broker %d, out/%d leader %d", tsp.Leader, part, pi.Leader)
	p.BeginTransaction()
	d := c.Send(p, "out", []Message{{Value: []byte("a"), Partition: int32(part)}})
	c.RunUntil(func() bool { return d[0].Done }, time.Minute)
	c.DrainEvents()
	if drop {
		c.Network().Drop(sim.DropRule{Kind: "WriteTxnMarkers", Remaining: 1})
	} else {
		c.Network().Delay(kraft.BrokerNode(tsp.Leader), kraft.BrokerNode(pi.Leader), 3*time.Second)
	}
	waitOp(t, c, "commit", p.CommitTransaction())
	p.BeginTransaction()
	d2 := c.Send(p, "out", []Message{{Value: []byte("b"), Partition: int32(part)}})
	c.RunUntil(func() bool { return d2[0].Done }, time.Minute)
	c.Network().Delay(kraft.BrokerNode(tsp.Leader), kraft.BrokerNode(pi.Leader), 0)
	commit2 := p.CommitTransaction()
	waitOp(t, c, "commit 2", commit2)
	r, _, _ := c.Replica("out", part, int(pi.Leader))
	c.RunUntil(func() bool {
		desc, _ := c.DescribeTransaction("tx")
		return desc.State.String() == "CompleteCommit" && r.LastStableOffset() == r.HW
	}, 2*time.Minute)
	for _, e := range c.DrainEvents() {
		if strings.Contains(e, "marker") || strings.Contains(e, "txn") || strings.Contains(e, "transaction") {
			t.Log(e)
		}
	}
	desc, _ := c.DescribeTransaction("tx")
	m, data := markers(t, c, part)
	t.Logf("delivery 2 %s, commit2 %s; txn %s; markers %v data %d; HW %d LSO %d", d2[0].Err.Name(), commit2.Err.Name(), desc.State, m, data, r.HW, r.LastStableOffset())
	// A retried WriteTxnMarkers may write a transaction's marker twice,
	// as in Kafka; the second transaction's must be there.
	if d2[0].Err != protocol.None || commit2.Err != protocol.None || !slices.Contains(m, "COMMIT@2") {
		t.Fatalf("the second transaction did not commit on out/%d: delivery %s, commit %s, markers %v", part, d2[0].Err.Name(), commit2.Err.Name(), m)
	}
	if r.LastStableOffset() != r.HW {
		t.Fatalf("LSO %d stuck below HW %d: read_committed consumers stall forever", r.LastStableOffset(), r.HW)
	}
}

// Retention (bounded by the HW only, as Kafka's deletableSegments) deletes
// the segment where an open transaction began: Kafka's LSO is then the log
// start offset (maybeIncrementFirstUnstableOffset), never below it.
func TestRetentionPastOpenTransactionKeepsLSOAtLogStart(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed = 13
	cfg.Broker.RetentionCheckInterval = 10 * time.Second
	c, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateTopic("out", 1, 3, [][2]string{{"min.insync.replicas", "2"}, {"retention.ms", "1000"}, {"segment.ms", "1000"}}); err != nil {
		t.Fatal(err)
	}
	p := txnProducer(t, c, "p")
	waitOp(t, c, "initTransactions", p.InitTransactions())
	p.BeginTransaction()
	d := c.Send(p, "out", []Message{{Value: []byte("a"), Partition: 0}})
	c.RunUntil(func() bool { return d[0].Done }, time.Minute)
	q, _ := c.CreateProducer("q", client.DefaultProducerConfig())
	for i := 0; i < 5; i++ {
		c.RunUntil(func() bool { return false }, 3*time.Second)
		ds := c.Send(q, "out", []Message{{Value: []byte("x"), Partition: 0}})
		c.RunUntil(func() bool { return ds[0].Done }, time.Minute)
	}
	c.RunUntil(func() bool { return false }, 20*time.Second)
	pi, _ := c.PartitionInfo("out", 0)
	r, _, _ := c.Replica("out", 0, int(pi.Leader))
	t.Logf("log start %d, LSO %d, HW %d", r.Log.StartOffset(), r.LastStableOffset(), r.HW)
	ccfg := client.DefaultConsumerConfig()
	ccfg.IsolationLevel = client.ReadCommitted
	co, err := c.CreateConsumer("rc", ccfg, []protocol.TopicPartition{{Topic: "out"}})
	if err != nil {
		t.Fatal(err)
	}
	c.DrainEvents()
	for i := 0; i < 10; i++ {
		c.Poll(co, 0, time.Second)
	}
	n := 0
	for _, e := range c.DrainEvents() {
		if strings.Contains(e, "rc:") {
			n++
			if n < 6 {
				t.Log(e)
			}
		}
	}
	t.Logf("%d consumer events in 10 s; position %d", n, co.Position(protocol.TopicPartition{Topic: "out"}))
	if r.Log.StartOffset() == 0 {
		t.Fatal("retention deleted nothing: the test no longer puts the open transaction's start before the log start")
	}
	if pos := co.Position(protocol.TopicPartition{Topic: "out"}); pos < r.Log.StartOffset() {
		t.Fatalf("the read_committed consumer's position %d is below the log start %d: it loops on OFFSET_OUT_OF_RANGE", pos, r.Log.StartOffset())
	}
	if r.LastStableOffset() < r.Log.StartOffset() {
		t.Fatalf("LSO %d below log start %d", r.LastStableOffset(), r.Log.StartOffset())
	}
}
