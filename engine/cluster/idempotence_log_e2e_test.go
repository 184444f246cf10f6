package cluster

import (
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
)

// pidClient is a client node that sends hand-built requests and keeps
// every answer, so the partition side of idempotence is tested without
// the idempotent producer.
type pidClient struct {
	c       *Cluster
	node    sim.NodeID
	answers []sim.Message
}

func newPIDClient(c *Cluster) *pidClient {
	rc := &pidClient{c: c, node: "pid-client"}
	c.Network().Attach(rc.node, func(env *sim.Envelope) { rc.answers = append(rc.answers, env.Msg) })
	return rc
}

// request sends m to broker id and runs until an answer of the given kind
// with that correlation id arrives.
func (rc *pidClient) request(t *testing.T, id int, m sim.Message, corr int64) sim.Message {
	t.Helper()
	rc.c.Network().Send(rc.node, kraft.BrokerNode(int32(id)), m)
	var got sim.Message
	ok, err := rc.c.RunUntil(func() bool {
		for _, a := range rc.answers {
			switch r := a.(type) {
			case protocol.ProduceResponse:
				if r.CorrelationID == corr {
					got = r
				}
			case protocol.FetchResponse:
				if r.CorrelationID == corr {
					got = r
				}
			case protocol.WriteTxnMarkersResponse:
				if r.CorrelationID == corr {
					got = r
				}
			}
		}
		return got != nil
	}, time.Minute)
	if err != nil || !ok {
		t.Fatalf("no answer to %s %d: %v", m.Kind(), corr, err)
	}
	return got
}

func rawBatch(t *testing.T, pid int64, epoch int16, seq int32, txn bool, value string) []byte {
	t.Helper()
	b := record.Batch{Attributes: record.ComputeAttributes(record.None, record.CreateTime, txn, false),
		ProducerID: pid, ProducerEpoch: epoch, BaseSequence: seq, Records: []record.Record{{Value: []byte(value)}}}
	raw, err := b.AppendEncoded(nil)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func leaderOf(t *testing.T, c *Cluster, topic string) int {
	t.Helper()
	info, err := c.PartitionInfo(topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	return int(info.Leader)
}

// countBatchesOf counts producer pid's data batches in broker id's log.
func countBatchesOf(t *testing.T, c *Cluster, id int, tp protocol.TopicPartition, pid int64) int {
	t.Helper()
	n := 0
	l := c.Broker(id).Replica(tp).Log
	for _, s := range l.Segments() {
		bs, err := l.BatchesIn(s.BaseOffset)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			if b.Header.ProducerID == pid && !b.Header.IsControl() {
				n++
			}
		}
	}
	return n
}

// A producer whose acknowledgement was lost retries the same batch (same
// pid, epoch, sequence): the leader answers with the original offset and
// does not write it again, and so does a new leader after the old one
// crashed, because the followers built the producer state from the
// replicated batches (REPLICATION origin).
func TestIdempotentRetryAcrossLeaderChange(t *testing.T) {
	c := newTestCluster(t, 13)
	if err := c.CreateTopic("orders", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stabilize(); err != nil {
		t.Fatal(err)
	}
	tp := protocol.TopicPartition{Topic: "orders"}
	rc := newPIDClient(c)
	const pid = 4242
	leader := leaderOf(t, c, "orders")
	produce := func(to int, corr int64, seq int32, v string) protocol.ProduceResponse {
		return rc.request(t, to, protocol.ProduceRequest{CorrelationID: corr, Acks: -1, TimeoutMs: 30000, TP: tp,
			Records: rawBatch(t, pid, 0, seq, false, v)}, corr).(protocol.ProduceResponse)
	}
	first := produce(leader, 1, 0, "a")
	second := produce(leader, 2, 1, "b")
	if first.Error != protocol.None || second.Error != protocol.None || second.BaseOffset != first.BaseOffset+1 {
		t.Fatalf("first %+v second %+v", first, second)
	}
	retry := produce(leader, 3, 1, "b")
	if retry.Error != protocol.None || retry.BaseOffset != second.BaseOffset {
		t.Fatalf("retry answered %+v, want NONE at the original offset %d", retry, second.BaseOffset)
	}
	if err := c.CrashBroker(leader, false); err != nil {
		t.Fatal(err)
	}
	ok, err := c.RunUntil(func() bool {
		l := leaderOf(t, c, "orders")
		return l != leader && l > 0 && c.Broker(l).Replica(tp).IsLeader()
	}, time.Minute)
	if err != nil || !ok {
		t.Fatalf("no new leader: %v", err)
	}
	newLeader := leaderOf(t, c, "orders")
	again := produce(newLeader, 4, 1, "b")
	if again.Error != protocol.None || again.BaseOffset != second.BaseOffset {
		t.Fatalf("retry to the new leader answered %+v, want NONE at %d", again, second.BaseOffset)
	}
	if n := countBatchesOf(t, c, newLeader, tp, pid); n != 2 {
		t.Fatalf("the new leader holds %d batches of the producer, want 2 (no duplicate)", n)
	}
	gap := produce(newLeader, 5, 5, "c")
	if gap.Error != protocol.OutOfOrderSequenceNumber {
		t.Fatalf("a sequence gap at the new leader answered %s", gap.Error.Name())
	}
	next := produce(newLeader, 6, 2, "c")
	if next.Error != protocol.None || next.BaseOffset != second.BaseOffset+1 {
		t.Fatalf("the next sequence answered %+v", next)
	}
}

// A read_committed fetch stops at the first offset of an open transaction
// (the LSO) while a read_uncommitted one reads to the high watermark.
func TestReadCommittedFetchStopsAtOpenTransaction(t *testing.T) {
	c := newTestCluster(t, 14)
	if err := c.CreateTopic("orders", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stabilize(); err != nil {
		t.Fatal(err)
	}
	tp := protocol.TopicPartition{Topic: "orders"}
	rc := newPIDClient(c)
	leader := leaderOf(t, c, "orders")
	send := func(corr int64, raw []byte) protocol.ProduceResponse {
		return rc.request(t, leader, protocol.ProduceRequest{CorrelationID: corr, Acks: -1, TimeoutMs: 30000, TP: tp,
			Records: raw}, corr).(protocol.ProduceResponse)
	}
	send(1, rawBatch(t, -1, -1, -1, false, "plain"))
	open := send(2, rawBatch(t, 77, 0, 0, true, "in-txn"))
	send(3, rawBatch(t, 78, 0, 0, false, "after"))
	fetch := func(corr int64, iso int8) protocol.FetchResponse {
		return rc.request(t, leader, protocol.FetchRequest{CorrelationID: corr, ReplicaID: -1, TP: tp, FetchOffset: 0,
			CurrentLeaderEpoch: -1, MaxBytes: 1 << 20, IsolationLevel: iso}, corr).(protocol.FetchResponse)
	}
	committed := fetch(10, protocol.ReadCommitted)
	if committed.LastStableOffset != open.BaseOffset || lastOffsetIn(t, committed.Records) != open.BaseOffset-1 {
		t.Fatalf("read_committed: LSO %d, records up to %d; want both to stop before the transaction at %d",
			committed.LastStableOffset, lastOffsetIn(t, committed.Records), open.BaseOffset)
	}
	uncommitted := fetch(11, protocol.ReadUncommitted)
	if uncommitted.HighWatermark != 3 || lastOffsetIn(t, uncommitted.Records) != 2 || uncommitted.LastStableOffset != open.BaseOffset {
		t.Fatalf("read_uncommitted: HW %d, records up to %d, LSO %d", uncommitted.HighWatermark, lastOffsetIn(t, uncommitted.Records), uncommitted.LastStableOffset)
	}
}

func lastOffsetIn(t *testing.T, raw []byte) int64 {
	t.Helper()
	last := int64(-1)
	for len(raw) > 0 {
		b, n, err := record.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		last = b.LastOffset()
		raw = raw[n:]
	}
	return last
}

// An aborted transaction stays aborted for read_committed readers after a
// leader change: the followers appended the ABORT marker with the
// REPLICATION origin and wrote their own .txnindex entry, so the new
// leader sends the aborted transaction with the records.
func TestAbortedTransactionSurvivesLeaderChange(t *testing.T) {
	c := newTestCluster(t, 15)
	if err := c.CreateTopic("orders", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stabilize(); err != nil {
		t.Fatal(err)
	}
	tp := protocol.TopicPartition{Topic: "orders"}
	rc := newPIDClient(c)
	leader := leaderOf(t, c, "orders")
	rc.request(t, leader, protocol.ProduceRequest{CorrelationID: 1, Acks: -1, TimeoutMs: 30000, TP: tp,
		Records: rawBatch(t, 90, 0, 0, true, "doomed")}, 1)
	resp := rc.request(t, leader, protocol.WriteTxnMarkersRequest{CorrelationID: 2, ProducerID: 90, ProducerEpoch: 1,
		Committed: false, Partitions: []protocol.TopicPartition{tp}, TransactionVersion: 2}, 2).(protocol.WriteTxnMarkersResponse)
	if resp.Partitions[0].Error != protocol.None {
		t.Fatalf("markers answered %+v", resp)
	}
	rc.request(t, leader, protocol.ProduceRequest{CorrelationID: 3, Acks: -1, TimeoutMs: 30000, TP: tp,
		Records: rawBatch(t, -1, -1, -1, false, "after")}, 3)
	if err := c.CrashBroker(leader, false); err != nil {
		t.Fatal(err)
	}
	ok, err := c.RunUntil(func() bool {
		l := leaderOf(t, c, "orders")
		return l != leader && l > 0 && c.Broker(l).Replica(tp).IsLeader()
	}, time.Minute)
	if err != nil || !ok {
		t.Fatalf("no new leader: %v", err)
	}
	newLeader := leaderOf(t, c, "orders")
	f := rc.request(t, newLeader, protocol.FetchRequest{CorrelationID: 4, ReplicaID: -1, TP: tp, FetchOffset: 0,
		CurrentLeaderEpoch: -1, MaxBytes: 1 << 20, IsolationLevel: protocol.ReadCommitted}, 4).(protocol.FetchResponse)
	want := []protocol.AbortedTransaction{{ProducerID: 90, FirstOffset: 0}}
	if len(f.AbortedTransactions) != 1 || f.AbortedTransactions[0] != want[0] {
		t.Fatalf("the new leader's read_committed fetch lists aborted %v, want %v", f.AbortedTransactions, want)
	}
	if f.LastStableOffset != f.HighWatermark || lastOffsetIn(t, f.Records) < 0 {
		t.Fatalf("LSO %d HW %d records up to %d", f.LastStableOffset, f.HighWatermark, lastOffsetIn(t, f.Records))
	}
}
