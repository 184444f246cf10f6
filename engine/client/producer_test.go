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
	epoch      int32 // the leader epoch metadata answers with
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
				resp.Partitions = append(resp.Partitions, protocol.PartitionMetadata{TP: protocol.TopicPartition{Topic: "t", Partition: int32(i)}, Leader: 1, LeaderEpoch: leader.epoch})
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

// Sender.getExpiredInflightBatches: delivery.timeout.ms bounds a batch in
// flight too. With request.timeout.ms=1000 and delivery.timeout.ms=1500 and
// the leader never answering, the second attempt is still in flight when
// the batch is 1.5 s old: it fails then with Kafka's TimeoutException
// (failBatch in Sender.sendProducerData), not at the retry's request
// timeout 2.1 s in; a late answer is then ignored (ProducerBatch.done
// refuses a second final state).
func TestDeliveryTimeoutExpiresInFlightBatch(t *testing.T) {
	cfg := DefaultProducerConfig()
	cfg.RequestTimeout = time.Second
	cfg.DeliveryTimeout = 1500 * time.Millisecond
	var late []protocol.ProduceRequest
	drop := func(_ int, req protocol.ProduceRequest) (protocol.ErrorCode, bool) {
		late = append(late, req)
		return protocol.None, false
	}
	leader := &fakeLeader{partitions: 1, answer: drop}
	p, sched := newTestProducer(t, cfg, leader)
	d := p.Send("t", 0, nil, []byte("v"))
	runUntilDone(t, sched, d)
	if d.Err != protocol.DeliveryTimeout || d.Message != "Expiring 1 record(s) for t-0:1500 ms has passed since batch creation" {
		t.Fatalf("failed with %s %q, want the TimeoutException of an expired batch", d.Err.Name(), d.Message)
	}
	// The batch was created when the metadata came, at the record's CreateTime.
	created := time.Duration(d.Timestamp-sim.Epoch.UnixMilli()) * time.Millisecond
	if now := sched.Clock.Elapsed(); now != created+cfg.DeliveryTimeout {
		t.Fatalf("failed at %v, want at delivery.timeout.ms (%v) after the batch's creation at %v, while the retry is in flight", now, cfg.DeliveryTimeout, created)
	}
	if len(leader.got) != 2 {
		t.Fatalf("%d produce requests, want the first and its retry", len(leader.got))
	}
	// The broker answers the retry after all: the record stays failed.
	p.handle(&sim.Envelope{From: kraft.BrokerNode(1), To: p.ID, Msg: protocol.ProduceResponse{CorrelationID: late[1].CorrelationID, TP: late[1].TP, BaseOffset: 0}})
	if d.Err != protocol.DeliveryTimeout || d.Offset != -1 {
		t.Fatalf("a late answer changed the expired record to %s at offset %d", d.Err.Name(), d.Offset)
	}
}

// NetworkClient.handleTimedOutRequests: when one request to a broker times
// out the client closes the connection, and cancelInFlightRequests fails
// every request in flight to that broker with REQUEST_TIMED_OUT
// ("Disconnected from node 1 due to timeout"), not each at its own
// timeout. Two batches for two partitions, sent 50 ms apart, neither
// answered: both fail at the first one's request timeout.
func TestRequestTimeoutFailsEveryRequestToTheBroker(t *testing.T) {
	cfg := DefaultProducerConfig()
	cfg.RequestTimeout = time.Second
	cfg.Retries = 0 // each batch fails at its first error
	cfg.Linger = 0
	leader := &fakeLeader{partitions: 2, answer: func(int, protocol.ProduceRequest) (protocol.ErrorCode, bool) { return protocol.None, false }}
	p, sched := newTestProducer(t, cfg, leader)
	first := p.Send("t", 0, nil, []byte("a"))
	second := &Delivery{}
	sched.After(50*time.Millisecond, "second send", func() { second = p.Send("t", 1, nil, []byte("b")) })
	runUntilDone(t, sched, first)
	if len(leader.got) != 2 {
		t.Fatalf("%d produce requests before the first timed out, want both batches in flight", len(leader.got))
	}
	at := []time.Duration{sched.Clock.Elapsed()}
	runUntilDone(t, sched, second)
	at = append(at, sched.Clock.Elapsed())
	if first.Err != protocol.RequestTimedOut || second.Err != protocol.RequestTimedOut {
		t.Fatalf("failed with %s and %s, want REQUEST_TIMED_OUT for both", first.Err.Name(), second.Err.Name())
	}
	if at[1] != at[0] {
		t.Fatalf("the second request failed at %v, the first at %v: want both when the first timed out", at[1], at[0])
	}
	if second.Message != "Disconnected from node 1 due to timeout" {
		t.Fatalf("message %q, want Sender's \"Disconnected from node 1 due to timeout\"", second.Message)
	}
}

// KIP-951 (Kafka 3.7): RecordAccumulator.shouldBackoff lets a retry go at
// once when metadata shows a newer leader epoch for its partition than when
// it failed (ProducerBatch.hasLeaderChangedForTheOngoingRetry): the new
// leader has not failed it. With the same leader it waits retry.backoff.ms.
func TestRetrySkipsBackoffForANewLeader(t *testing.T) {
	for _, c := range []struct {
		name      string
		newEpoch  int32
		wantDelay time.Duration // from the failure to the retry
	}{
		{"same leader epoch: back off", 0, 500 * time.Millisecond},
		{"new leader epoch: retry at once", 1, 2 * time.Millisecond}, // the metadata round trip
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultProducerConfig()
			cfg.RequestTimeout = time.Second
			cfg.RetryBackoff, cfg.RetryBackoffMax = 500*time.Millisecond, 500*time.Millisecond // no jitter
			var sched *sim.Scheduler
			var sentAt []time.Duration
			leader := &fakeLeader{partitions: 1}
			leader.answer = func(n int, _ protocol.ProduceRequest) (protocol.ErrorCode, bool) {
				sentAt = append(sentAt, sched.Clock.Elapsed())
				if n == 1 {
					leader.epoch = c.newEpoch // leadership moves while the first request is lost
					return protocol.None, false
				}
				return protocol.None, true
			}
			p, s := newTestProducer(t, cfg, leader)
			sched = s
			d := p.Send("t", 0, nil, []byte("v"))
			runUntilDone(t, sched, d)
			if d.Err != protocol.None || len(sentAt) != 2 {
				t.Fatalf("%s after %d requests, want delivered by the retry", d.Err.Name(), len(sentAt))
			}
			failedAt := sentAt[0] + cfg.RequestTimeout
			if got := sentAt[1] - failedAt; got != c.wantDelay {
				t.Fatalf("retried %v after the request timed out, want %v", got, c.wantDelay)
			}
		})
	}
}
