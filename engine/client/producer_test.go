package client

import (
	"bytes"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
)

// fakeLeader is broker 1, leader of every partition of topic t: it answers
// metadata, and produce requests with answer (or not at all when it
// returns false). It keeps the produce requests it got.
type fakeLeader struct {
	partitions int
	answer     func(n int, req protocol.ProduceRequest) (protocol.ErrorCode, bool)
	got        []protocol.ProduceRequest
	next       int64
}

func newTestProducer(t *testing.T, cfg ProducerConfig, leader *fakeLeader) (*Producer, *sim.Scheduler) {
	t.Helper()
	sched := sim.NewScheduler(&sim.Clock{})
	net := sim.NewNetwork(sched)
	node := kraft.BrokerNode(1)
	net.Attach(node, func(env *sim.Envelope) {
		switch m := env.Msg.(type) {
		case protocol.MetadataRequest:
			resp := protocol.MetadataResponse{CorrelationID: m.CorrelationID, Brokers: []int32{1}}
			for i := range leader.partitions {
				resp.Partitions = append(resp.Partitions, protocol.PartitionMetadata{TP: protocol.TopicPartition{Topic: "t", Partition: int32(i)}, Leader: 1})
			}
			net.Send(node, env.From, resp)
		case protocol.ProduceRequest:
			leader.got = append(leader.got, m)
			code, ok := protocol.None, true
			if leader.answer != nil {
				code, ok = leader.answer(len(leader.got), m)
			}
			if !ok {
				return
			}
			resp := protocol.ProduceResponse{CorrelationID: m.CorrelationID, TP: m.TP, Error: code, BaseOffset: -1}
			if code == protocol.None {
				b, _, err := record.Decode(m.Records)
				if err != nil {
					t.Errorf("undecodable batch: %v", err)
				}
				resp.BaseOffset = leader.next
				leader.next += int64(len(b.Records))
			}
			net.Send(node, env.From, resp)
		}
	})
	return NewProducer("p", cfg, []int32{1}, net, sched, sim.NewRand(5), func(string) {}), sched
}

func runUntilDone(t *testing.T, sched *sim.Scheduler, ds ...*Delivery) {
	t.Helper()
	for steps := 0; ; steps++ {
		done := true
		for _, d := range ds {
			done = done && d.Done
		}
		if done {
			return
		}
		if _, ok := sched.Step(); !ok || steps > 100_000 {
			t.Fatal("deliveries never completed")
		}
	}
}

// A retried batch is resent as the same bytes (Kafka's ProducerBatch keeps
// its MemoryRecords): same CreateTime, same CRC, though the retry leaves
// later than the first attempt.
func TestRetryResendsTheSameBytes(t *testing.T) {
	cfg := DefaultProducerConfig()
	cfg.RequestTimeout = time.Second
	cfg.DeliveryTimeout = 10 * time.Second
	lose := func(n int, _ protocol.ProduceRequest) (protocol.ErrorCode, bool) { return protocol.None, n > 1 }
	leader := &fakeLeader{partitions: 1, answer: lose}
	p, sched := newTestProducer(t, cfg, leader)
	d := p.Send("t", 0, []byte("k"), []byte("v"))
	runUntilDone(t, sched, d)
	if len(leader.got) != 2 {
		t.Fatalf("%d produce requests, want the lost one and its retry", len(leader.got))
	}
	if !bytes.Equal(leader.got[0].Records, leader.got[1].Records) {
		t.Fatal("the retry was re-encoded: its bytes differ from the first attempt's")
	}
	b, _, _ := record.Decode(leader.got[1].Records)
	if b.BaseTimestamp != d.Timestamp || d.Timestamp > sim.Epoch.UnixMilli()+int64(cfg.Linger/time.Millisecond) {
		t.Fatalf("retried batch has base timestamp %d, record %d; want the time of send(), not of the retry", b.BaseTimestamp, d.Timestamp)
	}
}

// batch.size counts whole records as Kafka's MemoryRecordsBuilder.hasRoomFor
// does: the 61-byte batch header plus each record's encoded size (length,
// attributes, deltas, key, value, headers), not just key and value.
func TestBatchSizeCountsWholeRecords(t *testing.T) {
	rec := func(delta int) int {
		r := record.Record{OffsetDelta: int32(delta), Key: []byte("key"), Value: []byte("value")}
		return r.SizeInBytes()
	}
	cfg := DefaultProducerConfig()
	// Room for exactly two records: the third opens a new batch.
	cfg.BatchSize = record.HeaderSize + rec(0) + rec(1)
	leader := &fakeLeader{partitions: 1}
	p, sched := newTestProducer(t, cfg, leader)
	var ds []*Delivery
	for range 5 {
		ds = append(ds, p.Send("t", 0, []byte("key"), []byte("value")))
	}
	runUntilDone(t, sched, ds...)
	var counts []int
	for _, req := range leader.got {
		b, _, _ := record.Decode(req.Records)
		counts = append(counts, len(b.Records))
		if len(req.Records) > cfg.BatchSize {
			t.Errorf("a %d-byte batch with batch.size=%d", len(req.Records), cfg.BatchSize)
		}
	}
	if len(counts) != 3 || counts[0] != 2 || counts[1] != 2 || counts[2] != 1 {
		t.Fatalf("batches of %v records, want [2 2 1]", counts)
	}
}

// Sender.completeBatch: MESSAGE_TOO_LARGE on a batch of several records
// splits it by batch.size and resends the pieces. A batch already within
// batch.size splits into itself, so it is resent until delivery.timeout.ms;
// a single record too large fails with MESSAGE_TOO_LARGE at once.
func TestMessageTooLargeSplitsThenFails(t *testing.T) {
	cfg := DefaultProducerConfig()
	cfg.BatchSize = 200
	cfg.RequestTimeout = time.Second
	cfg.DeliveryTimeout = 2 * time.Second
	tooLarge := func(_ int, req protocol.ProduceRequest) (protocol.ErrorCode, bool) {
		if len(req.Records) > 100 {
			return protocol.MessageTooLarge, true
		}
		return protocol.None, true
	}
	leader := &fakeLeader{partitions: 1, answer: tooLarge}
	p, sched := newTestProducer(t, cfg, leader)
	big := p.Send("t", 0, nil, bytes.Repeat([]byte("b"), 60))
	runUntilDone(t, sched, big)
	if big.Err != protocol.MessageTooLarge || len(leader.got) != 1 {
		t.Fatalf("one record over max.message.bytes: %s after %d requests, want MESSAGE_TOO_LARGE after 1", big.Err.Name(), len(leader.got))
	}
	leader.got = nil
	pair := []*Delivery{p.Send("t", 0, nil, bytes.Repeat([]byte("a"), 30)), p.Send("t", 0, nil, bytes.Repeat([]byte("c"), 30))}
	runUntilDone(t, sched, pair...)
	for _, d := range pair {
		if d.Err != protocol.DeliveryTimeout {
			t.Fatalf("two records within batch.size but over max.message.bytes together: %s, want DELIVERY_TIMEOUT", d.Err.Name())
		}
	}
	if len(leader.got) < 2 {
		t.Fatalf("%d requests: the split batch was not resent", len(leader.got))
	}
	for _, req := range leader.got {
		if b, _, _ := record.Decode(req.Records); len(b.Records) != 2 {
			t.Fatalf("a split batch of %d records, want the pair again (it fits in batch.size)", len(b.Records))
		}
	}
}

// KafkaProducer.waitOnMetadata: a record for a topic (or partition) the
// metadata does not have waits, asking again, and fails with a
// TimeoutException after max.block.ms; it is never reported sent.
func TestSendWaitsMaxBlockForMetadata(t *testing.T) {
	for _, c := range []struct {
		name       string
		partitions int
		partition  int32
		message    string
	}{
		{"unknown topic", 0, -1, "Topic t not present in metadata after 5000 ms."},
		{"unknown partition", 1, 3, "Partition 3 of topic t with partition count 1 is not present in metadata after 5000 ms."},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultProducerConfig()
			cfg.MaxBlock = 5 * time.Second
			leader := &fakeLeader{partitions: c.partitions}
			p, sched := newTestProducer(t, cfg, leader)
			d := p.Send("t", c.partition, nil, []byte("v"))
			runUntilDone(t, sched, d)
			if d.Err != protocol.MaxBlockTimeout || d.Message != c.message || d.Partition != -1 {
				t.Fatalf("got %s %q partition %d, want MAX_BLOCK_TIMEOUT %q without a partition", d.Err.Name(), d.Message, d.Partition, c.message)
			}
			if now := sched.Clock.Elapsed(); now != cfg.MaxBlock {
				t.Fatalf("failed at %v, want after max.block.ms (%v)", now, cfg.MaxBlock)
			}
			if len(leader.got) != 0 {
				t.Fatalf("%d produce requests for a record without metadata", len(leader.got))
			}
			if n := p.MetadataRequests(); n < 3 {
				t.Fatalf("%d metadata requests in %v: the producer stopped asking", n, cfg.MaxBlock)
			}
		})
	}
}
