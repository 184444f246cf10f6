package cluster

import (
	"slices"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
)

// txnRawClient is a bare node that sends transaction requests (produce,
// TxnOffsetCommit, WriteTxnMarkers as a transaction coordinator would)
// and keeps every response by correlation id.
type txnRawClient struct {
	t    *testing.T
	c    *Cluster
	node sim.NodeID
	corr int64
	got  map[int64]sim.Message
}

func newTxnRawClient(t *testing.T, c *Cluster, name string) *txnRawClient {
	rc := &txnRawClient{t: t, c: c, node: sim.NodeID(name), got: map[int64]sim.Message{}}
	c.Network().Attach(rc.node, func(env *sim.Envelope) {
		var id int64
		switch r := env.Msg.(type) {
		case protocol.FindCoordinatorResponse:
			id = r.CorrelationID
		case protocol.OffsetCommitResponse:
			id = r.CorrelationID
		case protocol.OffsetFetchResponse:
			id = r.CorrelationID
		case protocol.TxnOffsetCommitResponse:
			id = r.CorrelationID
		case protocol.WriteTxnMarkersResponse:
			id = r.CorrelationID
		case protocol.ProduceResponse:
			id = r.CorrelationID
		case protocol.InitProducerIdResponse:
			id = r.CorrelationID
		default:
			return
		}
		rc.got[id] = env.Msg
	})
	return rc
}

func (rc *txnRawClient) call(to int32, build func(corr int64) sim.Message) sim.Message {
	rc.t.Helper()
	rc.corr++
	corr := rc.corr
	rc.c.Network().Send(rc.node, kraft.BrokerNode(to), build(corr))
	ok, err := rc.c.RunUntil(func() bool { return rc.got[corr] != nil }, time.Minute)
	if err != nil || !ok {
		rc.t.Fatalf("%s: no response to request %d: %v", rc.node, corr, err)
	}
	return rc.got[corr]
}

// offsetFetch reads the group's committed offset of t-0 (and its error).
func (rc *txnRawClient) offsetFetch(to int32, tp protocol.TopicPartition, requireStable bool) protocol.OffsetFetchPartition {
	rc.t.Helper()
	r := rc.call(to, func(corr int64) sim.Message {
		return protocol.OffsetFetchRequest{CorrelationID: corr, GroupID: "g", MemberEpoch: -1, TPs: []protocol.TopicPartition{tp}, RequireStable: requireStable}
	}).(protocol.OffsetFetchResponse)
	if r.Error != protocol.None || len(r.Partitions) != 1 {
		rc.t.Fatalf("OffsetFetch: %+v", r)
	}
	return r.Partitions[0]
}

func (rc *txnRawClient) txnOffsetCommit(to int32, pid int64, epoch int16, tp protocol.TopicPartition, offset int64) protocol.ErrorCode {
	rc.t.Helper()
	r := rc.call(to, func(corr int64) sim.Message {
		return protocol.TxnOffsetCommitRequest{CorrelationID: corr, TransactionalID: "tx", GroupID: "g", ProducerID: pid, ProducerEpoch: epoch,
			GenerationID: -1, Offsets: []protocol.OffsetCommitPartition{{TP: tp, Offset: offset, LeaderEpoch: -1}}}
	}).(protocol.TxnOffsetCommitResponse)
	if len(r.Partitions) != 1 {
		rc.t.Fatalf("TxnOffsetCommit: %+v", r)
	}
	return r.Partitions[0].Error
}

// marker writes producer pid's COMMIT or ABORT into tp through its
// leader, as the transaction coordinator's WriteTxnMarkers does
// (transaction version 2: the marker carries the bumped epoch).
func (rc *txnRawClient) marker(to int32, pid int64, epoch int16, tp protocol.TopicPartition, commit bool) {
	rc.t.Helper()
	r := rc.call(to, func(corr int64) sim.Message {
		return protocol.WriteTxnMarkersRequest{CorrelationID: corr, ProducerID: pid, ProducerEpoch: epoch, Committed: commit,
			Partitions: []protocol.TopicPartition{tp}, CoordinatorEpoch: 0, TransactionVersion: 2}
	}).(protocol.WriteTxnMarkersResponse)
	if len(r.Partitions) != 1 || r.Partitions[0].Error != protocol.None {
		rc.t.Fatalf("WriteTxnMarkers: %+v", r)
	}
}

// produceTxn appends values as one transactional batch of producer pid
// at base sequence seq to tp through its leader (acks=all).
func (rc *txnRawClient) produceTxn(to int32, txnID string, pid int64, epoch int16, seq int32, tp protocol.TopicPartition, values ...string) int64 {
	rc.t.Helper()
	now := rc.c.NowMs()
	b := record.Batch{Attributes: record.ComputeAttributes(record.None, record.CreateTime, true, false), BaseTimestamp: now, MaxTimestamp: now,
		ProducerID: pid, ProducerEpoch: epoch, BaseSequence: seq, LastOffsetDelta: int32(len(values) - 1)}
	for i, v := range values {
		b.Records = append(b.Records, record.Record{OffsetDelta: int32(i), Value: []byte(v)})
	}
	raw, err := b.AppendEncoded(nil)
	if err != nil {
		rc.t.Fatal(err)
	}
	r := rc.call(to, func(corr int64) sim.Message {
		return protocol.ProduceRequest{CorrelationID: corr, Acks: -1, TimeoutMs: 30000, TP: tp, Records: raw, TransactionalID: txnID}
	}).(protocol.ProduceResponse)
	if r.Error != protocol.None {
		rc.t.Fatalf("produce %v: %s", values, r.Error.Name())
	}
	return r.BaseOffset
}

// groupCoordinator creates __consumer_offsets through FindCoordinator and
// waits for the group's partition to be loaded; it returns the leader and
// the partition.
func groupCoordinator(t *testing.T, c *Cluster, rc *txnRawClient) (int32, protocol.TopicPartition) {
	t.Helper()
	rc.call(1, func(corr int64) sim.Message {
		return protocol.FindCoordinatorRequest{CorrelationID: corr, KeyType: protocol.CoordinatorTypeGroup, Key: "g"}
	})
	p := offsets.PartitionFor("g", c.Config().Broker.Groups.OffsetsTopicNumPartitions)
	var coord int32
	ok, _ := c.RunUntil(func() bool {
		pi := c.Controller().Image().Partition(broker.OffsetsTopic, p)
		if pi == nil {
			return false
		}
		coord = pi.Leader
		return coord > 0 && c.Broker(int(coord)).GroupShard(p) != nil
	}, time.Minute)
	if !ok {
		t.Fatal("the group coordinator never loaded its partition")
	}
	return coord, protocol.TopicPartition{Topic: broker.OffsetsTopic, Partition: p}
}

func newTxnCluster(t *testing.T) *Cluster {
	cfg := DefaultConfig()
	cfg.Seed = 13
	cfg.Broker.Groups.OffsetsTopicNumPartitions = 3
	c, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A transactional offset commit is pending until its marker: OffsetFetch
// with RequireStable answers UNSTABLE_OFFSET_COMMIT meanwhile, an ABORT
// leaves the group's offset as it was, a COMMIT replaces it, and a new
// coordinator replaying __consumer_offsets after a failover rebuilds both
// the committed offsets and a still-pending one.
func TestTxnOffsetCommitDecidedByMarkers(t *testing.T) {
	c := newTxnCluster(t)
	rc := newTxnRawClient(t, c, "app")
	coord, otp := groupCoordinator(t, c, rc)
	t0 := protocol.TopicPartition{Topic: "t", Partition: 0}
	t1 := protocol.TopicPartition{Topic: "t", Partition: 1}
	const pid = int64(1000)

	plain := rc.call(coord, func(corr int64) sim.Message {
		return protocol.OffsetCommitRequest{CorrelationID: corr, GroupID: "g", GenerationIDOrMemberEpoch: -1,
			Offsets: []protocol.OffsetCommitPartition{{TP: t0, Offset: 5, LeaderEpoch: -1}}}
	}).(protocol.OffsetCommitResponse)
	if plain.Partitions[0].Error != protocol.None {
		t.Fatalf("plain commit: %+v", plain)
	}

	// Transaction 1 (epoch 0) commits t-0=9, then aborts.
	if code := rc.txnOffsetCommit(coord, pid, 0, t0, 9); code != protocol.None {
		t.Fatalf("TxnOffsetCommit: %s", code.Name())
	}
	leader := c.Broker(int(coord)).Replica(otp)
	if leader.HW != leader.Log.EndOffset() {
		t.Fatalf("TxnOffsetCommit answered before its batch committed: HW %d, log end %d", leader.HW, leader.Log.EndOffset())
	}
	if got := rc.offsetFetch(coord, t0, true); got.Error != protocol.UnstableOffsetCommit || got.Offset != -1 {
		t.Fatalf("RequireStable while the transaction is open: %+v", got)
	}
	if got := rc.offsetFetch(coord, t0, false); got.Error != protocol.None || got.Offset != 5 {
		t.Fatalf("OffsetFetch while the transaction is open: %+v", got)
	}
	rc.marker(coord, pid, 1, otp, false)
	if got := rc.offsetFetch(coord, t0, true); got.Error != protocol.None || got.Offset != 5 {
		t.Fatalf("after the ABORT: %+v, want 5", got)
	}

	// Transaction 2 (epoch 1) commits t-0=11 and commits.
	if code := rc.txnOffsetCommit(coord, pid, 1, t0, 11); code != protocol.None {
		t.Fatalf("TxnOffsetCommit 2: %s", code.Name())
	}
	rc.marker(coord, pid, 2, otp, true)
	if got := rc.offsetFetch(coord, t0, true); got.Error != protocol.None || got.Offset != 11 {
		t.Fatalf("after the COMMIT: %+v, want 11", got)
	}

	// Transaction 3 (epoch 2) leaves t-1=3 pending; the coordinator fails over.
	if code := rc.txnOffsetCommit(coord, pid, 2, t1, 3); code != protocol.None {
		t.Fatalf("TxnOffsetCommit 3: %s", code.Name())
	}
	batches, err := leader.Log.BatchesFrom(0)
	if err != nil {
		t.Fatal(err)
	}
	controls, txnal := 0, 0
	for _, b := range batches {
		if b.Header.IsControl() {
			controls++
		} else if b.Header.IsTransactional() {
			txnal++
		}
	}
	if controls != 2 || txnal != 3 {
		t.Fatalf("__consumer_offsets holds %d markers and %d transactional batches, want 2 and 3: %+v", controls, txnal, batches)
	}
	if err := c.CrashBroker(int(coord), false); err != nil {
		t.Fatal(err)
	}
	var next int32
	ok, _ := c.RunUntil(func() bool {
		next = c.Controller().Image().Partition(broker.OffsetsTopic, otp.Partition).Leader
		return next > 0 && next != coord && c.Broker(int(next)).GroupShard(otp.Partition) != nil
	}, time.Minute)
	if !ok {
		t.Fatal("no new coordinator loaded the partition")
	}
	if got := rc.offsetFetch(next, t0, true); got.Error != protocol.None || got.Offset != 11 {
		t.Fatalf("t-0 from the new coordinator: %+v, want 11", got)
	}
	if got := rc.offsetFetch(next, t1, true); got.Error != protocol.UnstableOffsetCommit {
		t.Fatalf("t-1 from the new coordinator: %+v, want UNSTABLE_OFFSET_COMMIT", got)
	}
	rc.marker(next, pid, 3, otp, true)
	if got := rc.offsetFetch(next, t1, true); got.Error != protocol.None || got.Offset != 3 {
		t.Fatalf("t-1 after the COMMIT on the new coordinator: %+v, want 3", got)
	}
}

// A read_committed consumer of a partition holding an aborted and a
// committed transaction reads only the committed records and its
// position passes both markers; read_uncommitted reads the aborted
// records too.
func TestReadCommittedConsumerSkipsAbortedTransaction(t *testing.T) {
	c := newTxnCluster(t)
	if err := c.CreateTopic("t", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	tp := protocol.TopicPartition{Topic: "t", Partition: 0}
	rc := newTxnRawClient(t, c, "app")
	var leader int32
	ok, _ := c.RunUntil(func() bool {
		leader = c.Controller().Image().Partition("t", 0).Leader
		return leader > 0
	}, time.Minute)
	if !ok {
		t.Fatal("no leader for t-0")
	}
	// 0-1 producer 1000's transaction, aborted (marker at 2); 3-4 producer
	// 2000's, committed (marker at 5).
	if off := rc.produceTxn(leader, "txA", 1000, 0, 0, tp, "a0", "a1"); off != 0 {
		t.Fatalf("aborted batch at %d", off)
	}
	rc.marker(leader, 1000, 1, tp, false)
	if off := rc.produceTxn(leader, "txB", 2000, 0, 0, tp, "b0", "b1"); off != 3 {
		t.Fatalf("committed batch at %d", off)
	}
	rc.marker(leader, 2000, 1, tp, true)

	read := func(name, isolation string) (*client.Consumer, []string) {
		cfg := client.DefaultConsumerConfig()
		cfg.IsolationLevel, cfg.AutoOffsetReset = isolation, "earliest"
		co, err := c.CreateConsumer(name, cfg, []protocol.TopicPartition{tp})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		ok, _ := c.RunUntil(func() bool {
			recs, err := co.Poll(0)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				got = append(got, string(r.Value))
			}
			return co.Position(tp) == 6
		}, time.Minute)
		if !ok {
			t.Fatalf("%s: position %d, read %v", name, co.Position(tp), got)
		}
		return co, got
	}
	_, committed := read("rc", client.ReadCommitted)
	if !slices.Equal(committed, []string{"b0", "b1"}) {
		t.Fatalf("read_committed read %v, want [b0 b1]", committed)
	}
	_, all := read("ru", client.ReadUncommitted)
	if !slices.Equal(all, []string{"a0", "a1", "b0", "b1"}) {
		t.Fatalf("read_uncommitted read %v", all)
	}
}
