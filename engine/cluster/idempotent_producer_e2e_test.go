package cluster

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// idempotentConfig is Kafka >= 3.0's default producer: idempotent, acks=all,
// 5 requests in flight; short timeouts so a lost answer is retried soon.
func idempotentConfig(idempotence bool) client.ProducerConfig {
	cfg := client.DefaultProducerConfig()
	cfg.EnableIdempotence = idempotence
	cfg.RequestTimeout = 2 * time.Second
	cfg.DeliveryTimeout = 60 * time.Second
	return cfg
}

// readValues reads partition 0 of topic from the start with a fresh
// consumer, as a learner's `consume` would.
func readValues(t *testing.T, c *Cluster, name, topic string, want int) []string {
	t.Helper()
	cfg := client.DefaultConsumerConfig()
	cfg.AutoOffsetReset = "earliest"
	co, err := c.CreateConsumer(name, cfg, []protocol.TopicPartition{{Topic: topic, Partition: 0}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for range 20 {
		recs, err := c.Poll(co, 100, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			out = append(out, string(r.Value))
		}
		if len(out) >= want {
			break
		}
	}
	// One more poll: anything past want is a duplicate.
	recs, _ := c.Poll(co, 100, time.Second)
	for _, r := range recs {
		out = append(out, string(r.Value))
	}
	return out
}

// The lesson's first half: the leader writes the record, its answer is
// lost, the producer retries after request.timeout.ms. With idempotence the
// leader recognises the retry (same producer id, epoch and sequence),
// answers with the original offset and writes nothing: the record is in
// the log once. With enable.idempotence=false it is written twice.
func TestIdempotentProducerLostAckWritesOnce(t *testing.T) {
	for _, idem := range []bool{true, false} {
		t.Run(fmt.Sprint("enable.idempotence=", idem), func(t *testing.T) {
			c := newTestCluster(t, 7)
			if err := c.CreateTopic("orders", 1, 3, [][2]string{{"min.insync.replicas", "2"}}); err != nil {
				t.Fatal(err)
			}
			info, _ := c.PartitionInfo("orders", 0)
			p, _ := c.CreateProducer("p", idempotentConfig(idem))
			c.Network().Drop(sim.DropRule{From: kraft.BrokerNode(info.Leader), To: "p", Kind: "ProduceResponse", Remaining: 1})
			ds, err := c.Produce(p, "orders", []Message{{Value: []byte("once"), Partition: 0}})
			if err != nil || !ds[0].Done || ds[0].Err != protocol.None {
				t.Fatalf("delivery %+v (%v)", ds[0], err)
			}
			if ds[0].Attempts != 2 {
				t.Fatalf("%d attempts, want the lost one and its retry", ds[0].Attempts)
			}
			want := []string{"once"}
			if !idem {
				want = []string{"once", "once"}
			}
			if got := readValues(t, c, "reader", "orders", len(want)); !slices.Equal(got, want) {
				t.Fatalf("log holds %v, want %v", got, want)
			}
			if idem && ds[0].Offset != 0 {
				t.Fatalf("the retry was answered with offset %d, want the original 0", ds[0].Offset)
			}
			noViolations(t, c)
		})
	}
}

// Five single-record batches in flight when their leader dies: each fails
// with a network error and is retried to the new leader, which rebuilt the
// producer's state from its log. With idempotence the retries go in
// sequence order, batches already replicated are recognised as duplicates,
// and the log holds each record once in the order sent. Without it
// (max.in.flight=5, retries) the same run reorders them: the lesson's
// contrast, deterministic for this seed.
func TestIdempotentProducerKeepsOrderAcrossLeaderChange(t *testing.T) {
	for _, idem := range []bool{true, false} {
		t.Run(fmt.Sprint("enable.idempotence=", idem), func(t *testing.T) {
			c := newTestCluster(t, 11)
			if err := c.CreateTopic("orders", 1, 3, [][2]string{{"min.insync.replicas", "2"}}); err != nil {
				t.Fatal(err)
			}
			info, _ := c.PartitionInfo("orders", 0)
			cfg := idempotentConfig(idem)
			cfg.Linger = 0
			cfg.BatchSize = 70 // one record per batch
			p, _ := c.CreateProducer("p", cfg)
			if _, err := c.Produce(p, "orders", []Message{{Value: []byte("first"), Partition: 0}}); err != nil {
				t.Fatal(err)
			}
			// The leader's answers are lost, then the leader dies with
			// five batches in flight.
			c.Network().Drop(sim.DropRule{From: kraft.BrokerNode(info.Leader), To: "p", Kind: "ProduceResponse", Remaining: 5})
			var msgs []Message
			for i := range 5 {
				msgs = append(msgs, Message{Value: []byte(fmt.Sprint(i)), Partition: 0})
			}
			ds := c.Send(p, "orders", msgs)
			if _, err := c.RunUntil(func() bool { return len(c.Network().InFlight()) == 0 }, 200*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			if err := c.CrashBroker(int(info.Leader), false); err != nil {
				t.Fatal(err)
			}
			if ok, err := c.RunUntil(func() bool { return allDone(ds) }, 2*time.Minute); err != nil || !ok {
				t.Fatalf("deliveries never completed (%v)", err)
			}
			for i, d := range ds {
				if d.Err != protocol.None || d.Attempts < 2 {
					t.Fatalf("record %d: %s %s after %d attempts; want it retried and acknowledged", i, d.Err.Name(), d.Message, d.Attempts)
				}
			}
			sent := []string{"first", "0", "1", "2", "3", "4"}
			got := readValues(t, c, "reader", "orders", len(sent))
			if idem && !slices.Equal(got, sent) {
				t.Fatalf("log holds %v, want %v", got, sent)
			}
			if !idem && slices.Equal(got, sent) {
				t.Fatalf("log holds %v: without idempotence this run should reorder the retried batches", got)
			}
			noViolations(t, c)
		})
	}
}
