package client

import (
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// With every broker down, a client backs off its metadata requests as
// Kafka's Metadata.timeToAllowUpdate does (KIP-580: retry.backoff.ms
// doubling up to retry.backoff.max.ms, ±20% jitter): over 30 minutes about
// one request a second. Counting the requests' timeout events works on
// any version of the client; the old one asked again at every disconnect
// notice, about every millisecond, and never got through 30 minutes.
func TestMetadataBacksOffWithEveryBrokerDown(t *testing.T) {
	for _, name := range []string{"consumer", "producer"} {
		t.Run(name, func(t *testing.T) {
			sched := sim.NewScheduler(&sim.Clock{})
			net := sim.NewNetwork(sched)
			for _, id := range []int32{1, 2, 3} {
				net.Attach(kraft.BrokerNode(id), func(*sim.Envelope) {})
				net.SetDown(kraft.BrokerNode(id), true)
			}
			rng := sim.NewRand(42)
			tp := protocol.TopicPartition{Topic: "t", Partition: 0}
			if name == "consumer" {
				c := NewConsumer("c", DefaultConsumerConfig(), []int32{1, 2, 3}, net, sched, rng, func(string) {})
				c.Assign([]protocol.TopicPartition{tp})
				c.Poll(0)
			} else {
				p := NewProducer("c", DefaultProducerConfig(), []int32{1, 2, 3}, net, sched, rng, func(string) {})
				p.Send("t", -1, nil, []byte("v"))
			}
			const window = 30 * time.Minute
			requests := 0
			for steps := 0; sched.Clock.Elapsed() < window; steps++ {
				if steps > 100_000 {
					t.Fatalf("more than 100000 events by %v (%d metadata requests): a request storm", sched.Clock.Elapsed(), requests)
				}
				e, ok := sched.Step()
				if !ok {
					break
				}
				if e.Name == "metadata-timeout c" {
					requests++
				}
			}
			// Each wait is at least 0.8 * 1s once the backoff has grown.
			if most := int(window/(800*time.Millisecond)) + 10; requests > most {
				t.Fatalf("%d metadata requests in %v, want at most %d", requests, window, most)
			}
			if name == "consumer" && requests < 100 {
				t.Fatalf("only %d metadata requests in %v: the consumer stopped asking", requests, window)
			}
		})
	}
}

// Kafka's ExponentialBackoff(100, 2, 1000, 0.2): 100ms * 2^n within ±20%,
// never over the maximum.
func TestExponentialBackoffDoublesToTheCap(t *testing.T) {
	b := exponentialBackoff{initial: 100 * time.Millisecond, max: time.Second}
	rng := sim.NewRand(1)
	for attempts, want := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		want *= time.Millisecond
		for range 20 {
			got := b.backoff(attempts, rng)
			if got < want*8/10 || got > min(want*12/10, time.Second) {
				t.Fatalf("backoff(%d) = %v, want %v ±20%% capped at 1s", attempts, got, want)
			}
		}
	}
	if got := (exponentialBackoff{initial: 0, max: time.Second}).backoff(3, rng); got != 0 {
		t.Fatalf("retry.backoff.ms=0 backs off %v, want 0", got)
	}
}
