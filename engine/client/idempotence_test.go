package client

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/protocol"
)

// An idempotent producer gets its id from InitProducerId (transactional
// id empty, epoch -1) before its first produce, then numbers each
// partition's batches from 0: the batch header carries producer id, epoch
// and base sequence (RecordAccumulator.drainBatchesForOneNode).
func TestIdempotentBatchHeadersCarryIDEpochAndSequence(t *testing.T) {
	f := newFakeTxnBroker(t, 2)
	p := f.newProducer(nil)
	d1 := p.Send("t", 0, nil, []byte("a"))
	f.runUntilDone(d1)
	d2 := p.Send("t", 0, nil, []byte("b"))
	d3 := p.Send("t", 0, nil, []byte("c")) // same batch as b
	d4 := p.Send("t", 1, nil, []byte("x"))
	f.runUntilDone(d2, d3, d4)
	init, ok := f.got[0].(protocol.InitProducerIdRequest)
	if !ok || init.TransactionalID != "" || init.ProducerID != -1 || init.ProducerEpoch != -1 {
		t.Fatalf("first request %#v, want InitProducerId{\"\", -1, -1}", f.got[0])
	}
	type hdr struct {
		part  int32
		pid   int64
		epoch int16
		seq   int32
		n     int
	}
	var got []hdr
	for _, req := range f.produces {
		b := decodeBatch(t, req)
		got = append(got, hdr{req.TP.Partition, b.ProducerID, b.ProducerEpoch, b.BaseSequence, len(b.Records)})
		if b.IsTransactional() || req.TransactionalID != "" {
			t.Errorf("an idempotent producer's batch is marked transactional")
		}
	}
	want := []hdr{{0, 1000, 0, 0, 1}, {0, 1000, 0, 1, 2}, {1, 1000, 0, 0, 1}}
	slices.SortFunc(got, func(a, b hdr) int { return int(a.part-b.part)*100 + int(a.seq-b.seq) })
	if !slices.Equal(got, want) {
		t.Fatalf("batch headers %v, want %v", got, want)
	}
	if pid, epoch := p.ProducerIDAndEpoch(); pid != 1000 || epoch != 0 || p.TxnState() != "READY" {
		t.Fatalf("producer %d/%d in %s, want 1000/0 READY", pid, epoch, p.TxnState())
	}
	seqs := p.Sequences()
	if len(seqs) != 2 || seqs[0].NextSequence != 3 || seqs[0].LastAckedSequence != 2 || seqs[1].NextSequence != 1 {
		t.Fatalf("sequences %+v", seqs)
	}
}

// A lost ProduceResponse: the retry resends the same bytes (same sequence),
// the leader recognises the duplicate and answers with the original
// offset, and the record is in the log once. Without idempotence the same
// loss writes it twice (the lesson's contrast).
func TestLostAckRetryWritesOnceWithIdempotence(t *testing.T) {
	for _, idem := range []bool{true, false} {
		t.Run(fmt.Sprint("idempotence=", idem), func(t *testing.T) {
			f := newFakeTxnBroker(t, 1)
			f.produce = func(n int, _ protocol.ProduceRequest) (protocol.ErrorCode, bool) { return protocol.None, n == 1 }
			p := f.newProducer(func(c *ProducerConfig) { c.EnableIdempotence = idem })
			d := p.Send("t", 0, nil, []byte("v"))
			f.runUntilDone(d)
			if len(f.produces) != 2 || !bytes.Equal(f.produces[0].Records, f.produces[1].Records) {
				t.Fatalf("%d produce requests; want the lost one and a byte-identical retry", len(f.produces))
			}
			want := []string{"v"}
			if !idem {
				want = []string{"v", "v"}
			}
			wantOffset := int64(0) // the original's
			if !idem {
				wantOffset = 1 // the second copy's
			}
			if got := f.values(0); !slices.Equal(got, want) || d.Err != protocol.None || d.Offset != wantOffset {
				t.Fatalf("log %v, delivery offset %d err %s; want log %v and offset %d", got, d.Offset, d.Err.Name(), want, wantOffset)
			}
		})
	}
}

// Five batches in flight, the first fails with a retriable error: the
// leader answers the four after it OUT_OF_ORDER_SEQUENCE_NUMBER (a gap),
// which the producer retries because their predecessor is being retried
// (TransactionManager.canRetry), and the retries go in sequence order one
// at a time (insertInSequenceOrder, shouldStopDrainBatchesForPartition).
// The log keeps the send order. Without idempotence the first batch lands
// last.
func TestOrderKeptWithFiveInFlightAndAFailedFirstBatch(t *testing.T) {
	for _, idem := range []bool{true, false} {
		t.Run(fmt.Sprint("idempotence=", idem), func(t *testing.T) {
			f := newFakeTxnBroker(t, 1)
			// Request 1 is a first record that creates the producer's state
			// on the leader (a leader with no state for a producer accepts
			// any first sequence, as Kafka's ProducerAppendInfo does).
			// Request 7 is the first batch's first retry: it fails again.
			f.produce = func(n int, _ protocol.ProduceRequest) (protocol.ErrorCode, bool) {
				if n == 2 || (idem && n == 7) {
					return protocol.NotEnoughReplicas, false
				}
				return protocol.None, false
			}
			p := f.newProducer(func(c *ProducerConfig) {
				c.EnableIdempotence = idem
				c.BatchSize = 70 // one record per batch
				c.Linger = 0
			})
			f.runUntilDone(p.Send("t", 0, nil, []byte("s")))
			var ds []*Delivery
			for i := range 5 {
				ds = append(ds, p.Send("t", 0, nil, []byte{byte('0' + i)}))
			}
			f.runUntilDone(ds...)
			got := f.values(0)
			if idem {
				if !slices.Equal(got, []string{"s", "0", "1", "2", "3", "4"}) {
					t.Fatalf("log %v, want the send order", got)
				}
				// While the first batch is retried the others wait for it
				// instead of being refused again: 1, 5 in flight, the first
				// twice, then the 4 others.
				if n := len(f.produces); n != 1+5+2+4 {
					t.Fatalf("%d produce requests, want 12: the first batch's retries go alone", n)
				}
				for i, d := range ds {
					if d.Err != protocol.None || d.Offset != int64(i+1) {
						t.Fatalf("record %d: offset %d err %s", i, d.Offset, d.Err.Name())
					}
				}
				return
			}
			if slices.Equal(got, []string{"s", "0", "1", "2", "3", "4"}) {
				t.Fatalf("log %v: without idempotence the retried first batch should land after the others", got)
			}
		})
	}
}

// KIP-360: OUT_OF_ORDER_SEQUENCE_NUMBER for the very next batch is a real
// gap; an idempotent producer bumps its epoch locally (no request), starts
// the partition's sequences again at 0 and retries, its header rewritten.
func TestRealGapBumpsEpochAndRenumbers(t *testing.T) {
	f := newFakeTxnBroker(t, 1)
	f.produce = func(n int, _ protocol.ProduceRequest) (protocol.ErrorCode, bool) {
		if n == 2 {
			return protocol.OutOfOrderSequenceNumber, false
		}
		return protocol.None, false
	}
	p := f.newProducer(nil)
	d1 := p.Send("t", 0, nil, []byte("a"))
	f.runUntilDone(d1)
	d2 := p.Send("t", 0, nil, []byte("b"))
	f.runUntilDone(d2)
	if len(f.produces) != 3 {
		t.Fatalf("%d produce requests, want 3", len(f.produces))
	}
	first, retry := decodeBatch(t, f.produces[1]), decodeBatch(t, f.produces[2])
	if first.ProducerEpoch != 0 || first.BaseSequence != 1 || retry.ProducerEpoch != 1 || retry.BaseSequence != 0 || retry.ProducerID != first.ProducerID {
		t.Fatalf("refused batch epoch %d seq %d, retry epoch %d seq %d; want 0/1 then 1/0", first.ProducerEpoch, first.BaseSequence, retry.ProducerEpoch, retry.BaseSequence)
	}
	if d2.Err != protocol.None || d2.Offset != 1 || !slices.Equal(f.values(0), []string{"a", "b"}) {
		t.Fatalf("delivery %s at %d, log %v", d2.Err.Name(), d2.Offset, f.values(0))
	}
	if n := slices.Index(f.kinds(), "InitProducerId"); n != 0 || slices.Index(f.kinds()[1:], "InitProducerId") >= 0 {
		t.Fatalf("requests %v: the idempotent epoch bump sends no InitProducerId", f.kinds())
	}
	if _, epoch := p.ProducerIDAndEpoch(); epoch != 1 {
		t.Fatalf("epoch %d after the bump, want 1", epoch)
	}
}

// A batch whose retries ran out with delivery.timeout.ms after it was sent
// leaves its sequence unresolved: nothing new goes to the partition until
// the batches in flight are answered; if the acknowledged sequence never
// catches up the epoch is bumped (maybeResolveSequences).
func TestExpiredRetriedBatchLeavesSequenceUnresolved(t *testing.T) {
	f := newFakeTxnBroker(t, 1)
	f.produce = func(n int, _ protocol.ProduceRequest) (protocol.ErrorCode, bool) {
		if n <= 3 {
			return protocol.NotEnoughReplicas, false
		}
		return protocol.None, false
	}
	p := f.newProducer(func(c *ProducerConfig) {
		c.DeliveryTimeout = 1200 * time.Millisecond
		c.RetryBackoff, c.RetryBackoffMax = 500*time.Millisecond, 500*time.Millisecond
	})
	d1 := p.Send("t", 0, nil, []byte("lost"))
	f.runUntilDone(d1)
	if d1.Err != protocol.DeliveryTimeout {
		t.Fatalf("first record %s, want the delivery timeout", d1.Err.Name())
	}
	d2 := p.Send("t", 0, nil, []byte("next"))
	f.runUntilDone(d2)
	last := decodeBatch(t, f.produces[len(f.produces)-1])
	if d2.Err != protocol.None || last.ProducerEpoch != 1 || last.BaseSequence != 0 {
		t.Fatalf("next record %s with epoch %d seq %d; want it sent under a bumped epoch from sequence 0", d2.Err.Name(), last.ProducerEpoch, last.BaseSequence)
	}
}

// ProducerConfig.postProcessAndValidateIdempotenceConfigs.
func TestValidateIdempotence(t *testing.T) {
	cases := []struct {
		name        string
		explicit    []string
		mod         func(*ProducerConfig)
		wantErr     string
		wantEnabled bool
	}{
		{"defaults", nil, nil, "", true},
		{"acks=1 by default turns it off", nil, func(c *ProducerConfig) { c.Acks = 1 }, "", false},
		{"retries=0 by default turns it off", nil, func(c *ProducerConfig) { c.Retries = 0 }, "", false},
		{"max.in.flight=6 by default turns it off", nil, func(c *ProducerConfig) { c.MaxInFlight = 6 }, "", false},
		{"explicit with acks=1", []string{"enable.idempotence"}, func(c *ProducerConfig) { c.Acks = 1 },
			"Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.", false},
		{"explicit with retries=0", []string{"enable.idempotence"}, func(c *ProducerConfig) { c.Retries = 0 },
			"Must set retries to non-zero when using the idempotent producer.", false},
		{"explicit with max.in.flight=6", []string{"enable.idempotence"}, func(c *ProducerConfig) { c.MaxInFlight = 6 },
			"Must set max.in.flight.requests.per.connection to at most 5 to use the idempotent producer.", false},
		{"transactional.id with acks=1 by default", []string{"transactional.id"}, func(c *ProducerConfig) { c.Acks = 1; c.TransactionalID = "tx" },
			"Cannot set a transactional.id without also enabling idempotence.", false},
		{"transactional.id with idempotence off", []string{"transactional.id", "enable.idempotence"}, func(c *ProducerConfig) { c.EnableIdempotence = false; c.TransactionalID = "tx" },
			"Cannot set a transactional.id without also enabling idempotence.", false},
		{"transactional.id", []string{"transactional.id"}, func(c *ProducerConfig) { c.TransactionalID = "tx" }, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultProducerConfig()
			c.EnableIdempotence = true
			if tc.mod != nil {
				tc.mod(&c)
			}
			err := c.ValidateIdempotence(func(k string) bool { return slices.Contains(tc.explicit, k) })
			if (err == nil) != (tc.wantErr == "") || (err != nil && err.Error() != tc.wantErr) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			if err == nil && c.EnableIdempotence != tc.wantEnabled {
				t.Fatalf("enable.idempotence=%t, want %t", c.EnableIdempotence, tc.wantEnabled)
			}
		})
	}
}
