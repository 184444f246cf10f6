package cluster

import (
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
)

// A producer with records for a partition that has no leader asks for
// metadata every retry.backoff.ms and fails them after delivery.timeout.ms;
// it must not multiply its own timers meanwhile (the VOPR once saw tens of
// thousands of drain events per virtual second).
func TestProducerWithoutALeaderStaysQuiet(t *testing.T) {
	c := newTestCluster(t, 8)
	if err := c.CreateTopic("solo", 1, 1, nil); err != nil {
		t.Fatal(err)
	}
	info, _ := c.PartitionInfo("solo", 0)
	if err := c.CrashBroker(int(info.Leader), false); err != nil {
		t.Fatal(err)
	}
	if err := c.Tick(12 * time.Second); err != nil { // fenced: the partition has no leader
		t.Fatal(err)
	}
	cfg := client.DefaultProducerConfig()
	cfg.DeliveryTimeout, cfg.RequestTimeout, cfg.Linger = 5*time.Second, 2*time.Second, 0
	p, err := c.CreateProducer("p", cfg)
	if err != nil {
		t.Fatal(err)
	}
	var ds []*client.Delivery
	for i := range 200 {
		ds = append(ds, c.Send(p, "solo", []Message{{Value: []byte{byte(i)}, Partition: 0}})...)
	}
	before := c.Checker().Steps()
	if err := c.Tick(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	events := c.Checker().Steps() - before
	for _, d := range ds {
		if !d.Done || d.Err == protocol.None {
			t.Fatalf("delivery %+v: want it failed after delivery.timeout.ms", d)
		}
	}
	// Brokers' own timers and metadata requests every 100 ms come to a few
	// hundred events in 10 s; a storm is thousands.
	if events > 1000 {
		t.Fatalf("%d events in 10 s of virtual time for one idle producer", events)
	}
	t.Logf("%d events in 10 s", events)
}

// A consumer whose leader died (and is not fenced yet) retries every
// retry backoff, not on every event: one chain of retries per partition.
func TestConsumerOfADeadLeaderStaysQuiet(t *testing.T) {
	c := newTestCluster(t, 9)
	if err := c.CreateTopic("t", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	cfg := client.DefaultConsumerConfig()
	cfg.AutoOffsetReset = "earliest"
	co, err := c.CreateConsumer("c", cfg, []protocol.TopicPartition{{Topic: "t", Partition: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Poll(co, 10, time.Second); err != nil {
		t.Fatal(err)
	}
	info, _ := c.PartitionInfo("t", 0)
	if err := c.CrashBroker(int(info.Leader), false); err != nil {
		t.Fatal(err)
	}
	before := c.Checker().Steps()
	if _, err := c.Poll(co, 10, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if events := c.Checker().Steps() - before; events > 1000 {
		t.Fatalf("%d events in 5 s of virtual time for one consumer of a dead leader", events)
	} else {
		t.Logf("%d events in 5 s", events)
	}
}
