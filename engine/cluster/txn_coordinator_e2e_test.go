package cluster

import (
	"fmt"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/txn/coordinator"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// coordClient is a bare node that speaks the transactional producer's
// requests with raw batches: the transaction coordinator and the
// partition leaders tested without the producer client.
type coordClient struct {
	t    *testing.T
	c    *Cluster
	node sim.NodeID
	corr int64
	got  map[int64]sim.Message
	pid  int64
	ep   int16
	seq  map[protocol.TopicPartition]int32
}

func newCoordClient(t *testing.T, c *Cluster, name string) *coordClient {
	tc := &coordClient{t: t, c: c, node: sim.NodeID(name), got: map[int64]sim.Message{}, seq: map[protocol.TopicPartition]int32{}}
	c.Network().Attach(tc.node, func(env *sim.Envelope) {
		switch r := env.Msg.(type) {
		case protocol.FindCoordinatorResponse:
			tc.got[r.CorrelationID] = r
		case protocol.InitProducerIdResponse:
			tc.got[r.CorrelationID] = r
		case protocol.EndTxnResponse:
			tc.got[r.CorrelationID] = r
		case protocol.ProduceResponse:
			tc.got[r.CorrelationID] = r
		}
	})
	return tc
}

func (tc *coordClient) call(to int32, build func(corr int64) sim.Message) sim.Message {
	tc.t.Helper()
	tc.corr++
	corr := tc.corr
	tc.c.Network().Send(tc.node, kraft.BrokerNode(to), build(corr))
	ok, err := tc.c.RunUntil(func() bool { return tc.got[corr] != nil }, time.Minute)
	if err != nil || !ok {
		tc.t.Fatalf("%s: no response to request %d: %v", tc.node, corr, err)
	}
	return tc.got[corr]
}

// retry repeats a call while it answers a retriable error, as the
// producer's TransactionManager does.
func coordRetry[T sim.Message](tc *coordClient, call func() T, code func(T) protocol.ErrorCode) T {
	tc.t.Helper()
	for range 200 {
		r := call()
		if c := code(r); c != protocol.CoordinatorLoadInProgress && c != protocol.CoordinatorNotAvailable &&
			c != protocol.ConcurrentTransactions && c != protocol.NotCoordinator {
			return r
		}
		tc.c.RunUntil(func() bool { return false }, 100*time.Millisecond)
	}
	tc.t.Fatal("still retriable after 200 tries")
	var zero T
	return zero
}

// coordinator finds the transaction coordinator of txnID, letting the
// first FindCoordinator create __transaction_state.
func (tc *coordClient) coordinator(txnID string) int32 {
	tc.t.Helper()
	r := coordRetry(tc, func() protocol.FindCoordinatorResponse {
		return tc.call(1, func(corr int64) sim.Message {
			return protocol.FindCoordinatorRequest{CorrelationID: corr, KeyType: protocol.CoordinatorTypeTransaction, Key: txnID}
		}).(protocol.FindCoordinatorResponse)
	}, func(r protocol.FindCoordinatorResponse) protocol.ErrorCode { return r.Error })
	if r.Error != protocol.None {
		tc.t.Fatalf("FindCoordinator: %s", r.Error.Name())
	}
	return r.NodeID
}

func (tc *coordClient) initProducerID(coord int32, txnID string, timeoutMs int32) protocol.InitProducerIdResponse {
	tc.t.Helper()
	r := coordRetry(tc, func() protocol.InitProducerIdResponse {
		return tc.call(coord, func(corr int64) sim.Message {
			return protocol.InitProducerIdRequest{CorrelationID: corr, TransactionalID: txnID, TransactionTimeoutMs: timeoutMs,
				ProducerID: -1, ProducerEpoch: -1}
		}).(protocol.InitProducerIdResponse)
	}, func(r protocol.InitProducerIdResponse) protocol.ErrorCode { return r.Error })
	if r.Error == protocol.None {
		tc.pid, tc.ep = r.ProducerID, r.ProducerEpoch
		clear(tc.seq)
	}
	return r
}

// produce sends one transactional batch to tp's leader.
func (tc *coordClient) produce(txnID string, tp protocol.TopicPartition, value string) protocol.ProduceResponse {
	tc.t.Helper()
	leader := tc.c.Controller().Image().Partition(tp.Topic, tp.Partition).Leader
	now := tc.c.NowMs()
	b := record.Batch{Attributes: record.ComputeAttributes(record.None, record.CreateTime, true, false), BaseTimestamp: now,
		MaxTimestamp: now, ProducerID: tc.pid, ProducerEpoch: tc.ep, BaseSequence: tc.seq[tp],
		Records: []record.Record{{Value: []byte(value)}}}
	raw, err := b.AppendEncoded(nil)
	if err != nil {
		tc.t.Fatal(err)
	}
	r := coordRetry(tc, func() protocol.ProduceResponse {
		return tc.call(leader, func(corr int64) sim.Message {
			return protocol.ProduceRequest{CorrelationID: corr, Acks: -1, TimeoutMs: 30000, TP: tp, Records: raw, TransactionalID: txnID}
		}).(protocol.ProduceResponse)
	}, func(r protocol.ProduceResponse) protocol.ErrorCode {
		if r.Error == protocol.NotEnoughReplicas { // the verification's retriable answer
			return protocol.ConcurrentTransactions
		}
		return r.Error
	})
	if r.Error == protocol.None {
		tc.seq[tp]++
	}
	return r
}

func (tc *coordClient) endTxn(coord int32, txnID string, commit bool) protocol.EndTxnResponse {
	tc.t.Helper()
	r := coordRetry(tc, func() protocol.EndTxnResponse {
		return tc.call(coord, func(corr int64) sim.Message {
			return protocol.EndTxnRequest{CorrelationID: corr, TransactionalID: txnID, ProducerID: tc.pid, ProducerEpoch: tc.ep, Committed: commit}
		}).(protocol.EndTxnResponse)
	}, func(r protocol.EndTxnResponse) protocol.ErrorCode { return r.Error })
	return r
}

// newCoordCluster is three brokers, a 5-partition __transaction_state and
// topic t (2 partitions, replication factor 3).
func newCoordCluster(t *testing.T, seed uint64) *Cluster {
	cfg := DefaultConfig()
	cfg.Seed = seed
	cfg.Broker.Txn.StateLogNumPartitions = 5
	c, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.Checker().EveryStep = true
	if err := c.CreateTopic("t", 2, 3, nil); err != nil {
		t.Fatal(err)
	}
	return c
}

// describe describes txnID at its coordinator (as the lab's show txn does).
func coordDescribe(t *testing.T, c *Cluster, txnID string) coordinator.Description {
	t.Helper()
	p := txnlog.PartitionFor(txnID, 5)
	leader := c.Controller().Image().Partition(broker.TransactionStateTopic, p).Leader
	d, code := c.Broker(int(leader)).DescribeTransaction(txnID)
	if code != protocol.None {
		t.Fatalf("describe %s at b%d: %s", txnID, leader, code.Name())
	}
	return d
}

// waitState runs until txnID's coordinator shows state s.
func coordWaitState(t *testing.T, c *Cluster, txnID string, s txnlog.TransactionState) coordinator.Description {
	t.Helper()
	var d coordinator.Description
	ok, _ := c.RunUntil(func() bool {
		p := txnlog.PartitionFor(txnID, 5)
		leader := c.Controller().Image().Partition(broker.TransactionStateTopic, p).Leader
		if leader < 0 || c.Broker(int(leader)) == nil || !c.Broker(int(leader)).Alive() {
			return false
		}
		var code protocol.ErrorCode
		d, code = c.Broker(int(leader)).DescribeTransaction(txnID)
		return code == protocol.None && d.State == s && d.PendingState == ""
	}, 2*time.Minute)
	if !ok {
		t.Fatalf("%s never reached %s (last %+v)", txnID, s, d)
	}
	return d
}

// markers lists the control batches in tp's leader log as "COMMIT pid/epoch".
func coordMarkers(t *testing.T, c *Cluster, tp protocol.TopicPartition) []string {
	t.Helper()
	leader := c.Controller().Image().Partition(tp.Topic, tp.Partition).Leader
	r := c.Broker(int(leader)).Replica(tp)
	fd, err := r.Log.Read(r.Log.StartOffset(), 1<<20, r.Log.EndOffset())
	if err != nil {
		t.Fatal(err)
	}
	bs, err := fd.Batches()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range bs {
		if !b.IsControl() {
			continue
		}
		m, err := record.ParseControlRecord(b.Records[0])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m.Type.String()+" "+coordItoa(b.ProducerID)+"/"+coordItoa(int64(b.ProducerEpoch)))
	}
	return out
}

func coordItoa(n int64) string { return fmt.Sprint(n) }

var coordT0, coordT1 = protocol.TopicPartition{Topic: "t", Partition: 0}, protocol.TopicPartition{Topic: "t", Partition: 1}

// A transaction end to end: the first FindCoordinator creates
// __transaction_state (compacted, min.insync.replicas=2); InitProducerId
// gives a producer id at epoch 0; each partition's first transactional
// batch makes its leader add it to the transaction (KIP-890 TV2), which
// starts it; EndTxn(commit) answers with the bumped epoch and COMMIT
// markers at that epoch land in both partitions, then CompleteCommit.
func TestTxnCoordinatorCommit(t *testing.T) {
	c := newCoordCluster(t, 11)
	tc := newCoordClient(t, c, "p1")
	coord := tc.coordinator("tx")
	topic := c.Controller().Image().Topic(broker.TransactionStateTopic)
	if topic == nil || len(topic.Partitions) != 5 || topic.Config("cleanup.policy", "") != "compact" ||
		topic.Config("min.insync.replicas", "") != "2" || topic.Config("segment.bytes", "") != "104857600" {
		t.Fatalf("__transaction_state: %+v", topic)
	}
	r := tc.initProducerID(coord, "tx", 60000)
	if r.Error != protocol.None || r.ProducerEpoch != 0 {
		t.Fatalf("InitProducerId: %+v", r)
	}
	if d := coordDescribe(t, c, "tx"); d.State != txnlog.Empty || d.ProducerID != r.ProducerID || d.TransactionStartTimeMs != -1 {
		t.Fatalf("after InitProducerId: %+v", d)
	}
	for _, tp := range []protocol.TopicPartition{coordT0, coordT1} {
		if pr := tc.produce("tx", tp, "v"); pr.Error != protocol.None {
			t.Fatalf("produce to %v: %s", tp, pr.Error.Name())
		}
	}
	d := coordDescribe(t, c, "tx")
	if d.State != txnlog.Ongoing || len(d.Partitions) != 2 || d.TransactionStartTimeMs < 0 {
		t.Fatalf("after producing: %+v", d)
	}
	e := tc.endTxn(coord, "tx", true)
	if e.Error != protocol.None || e.ProducerID != r.ProducerID || e.ProducerEpoch != 1 {
		t.Fatalf("EndTxn: %+v, want NONE with epoch 1", e)
	}
	d = coordWaitState(t, c, "tx", txnlog.CompleteCommit)
	if d.ProducerEpoch != 1 || len(d.Partitions) != 0 {
		t.Fatalf("after commit: %+v", d)
	}
	want := "COMMIT " + coordItoa(r.ProducerID) + "/1"
	for _, tp := range []protocol.TopicPartition{coordT0, coordT1} {
		if got := coordMarkers(t, c, tp); len(got) != 1 || got[0] != want {
			t.Fatalf("markers in %v: %v, want [%s]", tp, got, want)
		}
	}
	// A retried EndTxn with the old epoch succeeds (TV2 isRetry).
	tc.ep = 0
	if e := tc.endTxn(coord, "tx", true); e.Error != protocol.None || e.ProducerEpoch != 1 {
		t.Fatalf("retried EndTxn: %+v", e)
	}
}

// A new instance's InitProducerId fences the open transaction of the old
// one: CONCURRENT_TRANSACTIONS until the abort is done, ABORT markers at
// the bumped epoch, then the new instance gets the epoch after it; the old
// one is fenced at the partitions and the coordinator.
func TestTxnCoordinatorFencesOpenTransaction(t *testing.T) {
	c := newCoordCluster(t, 12)
	old, next := newCoordClient(t, c, "old"), newCoordClient(t, c, "new")
	coord := old.coordinator("tx")
	old.initProducerID(coord, "tx", 60000)
	if pr := old.produce("tx", coordT0, "zombie"); pr.Error != protocol.None {
		t.Fatalf("produce: %s", pr.Error.Name())
	}
	next.corr++
	corr := next.corr
	c.Network().Send(next.node, kraft.BrokerNode(coord), protocol.InitProducerIdRequest{CorrelationID: corr, TransactionalID: "tx",
		TransactionTimeoutMs: 60000, ProducerID: -1, ProducerEpoch: -1})
	c.RunUntil(func() bool { return next.got[corr] != nil }, time.Minute)
	if r, _ := next.got[corr].(protocol.InitProducerIdResponse); r.Error != protocol.ConcurrentTransactions {
		t.Fatalf("first InitProducerId of the new instance: %+v, want CONCURRENT_TRANSACTIONS", next.got[corr])
	}
	r := next.initProducerID(coord, "tx", 60000)
	if r.Error != protocol.None || r.ProducerID != old.pid || r.ProducerEpoch != 3 {
		t.Fatalf("new instance: %+v, want producer id %d epoch 3 (fence 1, abort 2, init 3)", r, old.pid)
	}
	if got := coordMarkers(t, c, coordT0); len(got) != 1 || got[0] != "ABORT "+coordItoa(old.pid)+"/2" {
		t.Fatalf("markers: %v", got)
	}
	if e := old.endTxn(coord, "tx", true); e.Error != protocol.ProducerFenced {
		t.Fatalf("zombie's EndTxn: %s, want PRODUCER_FENCED", e.Error.Name())
	}
	if pr := old.produce("tx", coordT1, "zombie"); pr.Error != protocol.InvalidProducerEpoch {
		t.Fatalf("zombie's produce: %s, want INVALID_PRODUCER_EPOCH", pr.Error.Name())
	}
}

// A transaction open longer than transaction.timeout.ms is aborted by the
// coordinator's periodic check (every 10 s): epoch bumped (fencing the
// producer) and ABORT markers written.
func TestTxnCoordinatorTimeoutAborts(t *testing.T) {
	c := newCoordCluster(t, 13)
	tc := newCoordClient(t, c, "p1")
	coord := tc.coordinator("tx")
	tc.initProducerID(coord, "tx", 1000)
	if pr := tc.produce("tx", coordT1, "v"); pr.Error != protocol.None {
		t.Fatalf("produce: %s", pr.Error.Name())
	}
	d := coordWaitState(t, c, "tx", txnlog.CompleteAbort)
	if d.ProducerEpoch != 2 {
		t.Fatalf("after the timeout: %+v, want epoch 2", d)
	}
	if got := coordMarkers(t, c, coordT1); len(got) != 1 || got[0] != "ABORT "+coordItoa(tc.pid)+"/2" {
		t.Fatalf("markers: %v", got)
	}
	if e := tc.endTxn(coord, "tx", true); e.Error != protocol.ProducerFenced {
		t.Fatalf("EndTxn after the timeout: %s, want PRODUCER_FENCED", e.Error.Name())
	}
}

// The coordinator's broker crashes after PrepareCommit is committed but
// before any marker is written: the broker that takes its
// __transaction_state partition over replays PrepareCommit and writes the
// markers itself, then CompleteCommit.
func TestTxnCoordinatorFailoverCompletesPrepareCommit(t *testing.T) {
	c := newCoordCluster(t, 14)
	tc := newCoordClient(t, c, "p1")
	coord := tc.coordinator("tx")
	tc.initProducerID(coord, "tx", 60000)
	for _, tp := range []protocol.TopicPartition{coordT0, coordT1} {
		if pr := tc.produce("tx", tp, "v"); pr.Error != protocol.None {
			t.Fatalf("produce: %s", pr.Error.Name())
		}
	}
	// Markers from the coordinator never arrive.
	c.Network().Drop(sim.DropRule{From: kraft.BrokerNode(coord), Kind: "WriteTxnMarkers", Remaining: -1})
	if e := tc.endTxn(coord, "tx", true); e.Error != protocol.None {
		t.Fatalf("EndTxn: %+v", e)
	}
	if d := coordDescribe(t, c, "tx"); d.State != txnlog.PrepareCommit {
		t.Fatalf("before the crash: %+v", d)
	}
	if err := c.CrashBroker(int(coord), false); err != nil {
		t.Fatal(err)
	}
	c.Network().Heal()
	d := coordWaitState(t, c, "tx", txnlog.CompleteCommit)
	if d.CoordinatorID == coord || d.ProducerEpoch != 1 {
		t.Fatalf("after failover: %+v", d)
	}
	for _, tp := range []protocol.TopicPartition{coordT0, coordT1} {
		if got := coordMarkers(t, c, tp); len(got) != 1 || got[0] != "COMMIT "+coordItoa(tc.pid)+"/1" {
			t.Fatalf("markers in %v: %v", tp, got)
		}
	}
}

// The coordinator's state is its __transaction_state partition: after
// its broker crashes, the broker that takes the partition over replays
// the records and holds the same transaction (Ongoing, same producer id,
// epoch and partitions); the old coordinator's requests meanwhile get
// NOT_COORDINATOR. The partitions are added as a partition leader adds
// them (AddPartitionsToTxn, VerifyOnly false), so no marker is needed.
func TestTxnCoordinatorStateSurvivesFailover(t *testing.T) {
	c := newCoordCluster(t, 15)
	tc := newCoordClient(t, c, "p1")
	c.Network().Attach(tc.node, func(env *sim.Envelope) {
		switch r := env.Msg.(type) {
		case protocol.FindCoordinatorResponse:
			tc.got[r.CorrelationID] = r
		case protocol.InitProducerIdResponse:
			tc.got[r.CorrelationID] = r
		case protocol.EndTxnResponse:
			tc.got[r.CorrelationID] = r
		case protocol.AddPartitionsToTxnResponse:
			tc.got[r.CorrelationID] = r
		}
	})
	coord := tc.coordinator("tx")
	init := tc.initProducerID(coord, "tx", 60000)
	if init.Error != protocol.None {
		t.Fatalf("InitProducerId: %+v", init)
	}
	add := func(to int32) protocol.AddPartitionsToTxnResponse {
		return tc.call(to, func(corr int64) sim.Message {
			return protocol.AddPartitionsToTxnRequest{CorrelationID: corr, TransactionalID: "tx", ProducerID: tc.pid,
				ProducerEpoch: tc.ep, Partitions: []protocol.TopicPartition{coordT1, coordT0}}
		}).(protocol.AddPartitionsToTxnResponse)
	}
	if r := add(coord); r.Error != protocol.None || len(r.Results) != 2 || r.Results[0].Error != protocol.None || r.Results[1].Error != protocol.None {
		t.Fatalf("AddPartitionsToTxn: %+v", r)
	}
	before := coordDescribe(t, c, "tx")
	if before.State != txnlog.Ongoing || len(before.Partitions) != 2 || before.Partitions[0] != coordT0 {
		t.Fatalf("before the crash: %+v", before)
	}
	if err := c.CrashBroker(int(coord), false); err != nil {
		t.Fatal(err)
	}
	// While the new leader replays the partition, it answers
	// COORDINATOR_LOAD_IN_PROGRESS.
	p := txnlog.PartitionFor("tx", 5)
	var loading int32 = -1
	c.RunUntil(func() bool {
		l := c.Controller().Image().Partition(broker.TransactionStateTopic, p).Leader
		if l > 0 && l != coord && c.Broker(int(l)).TxnLoading(p) {
			loading = l
		}
		return loading > 0
	}, time.Minute)
	if loading < 0 {
		t.Fatal("no broker ever loaded the partition")
	}
	if r := add(loading); r.Error != protocol.CoordinatorLoadInProgress {
		t.Fatalf("AddPartitionsToTxn while b%d loads: %+v, want COORDINATOR_LOAD_IN_PROGRESS", loading, r)
	}
	after := coordWaitState(t, c, "tx", txnlog.Ongoing)
	if after.CoordinatorID == coord || after.ProducerID != before.ProducerID || after.ProducerEpoch != before.ProducerEpoch ||
		after.TransactionStartTimeMs != before.TransactionStartTimeMs || len(after.Partitions) != 2 || after.CoordinatorEpoch <= before.CoordinatorEpoch {
		t.Fatalf("after failover: %+v, before: %+v", after, before)
	}
	other := int32(1)
	for other == after.CoordinatorID {
		other++
	}
	if r := add(other); r.Error != protocol.NotCoordinator {
		t.Fatalf("AddPartitionsToTxn at b%d: %+v, want NOT_COORDINATOR", other, r)
	}
	// The client finds the new coordinator and goes on.
	if next := tc.coordinator("tx"); next != after.CoordinatorID {
		t.Fatalf("FindCoordinator: b%d, want b%d", next, after.CoordinatorID)
	}
	if r := add(after.CoordinatorID); r.Error != protocol.None || r.Results[0].Error != protocol.None {
		t.Fatalf("AddPartitionsToTxn at the new coordinator: %+v", r)
	}
}

// The marker channel follows leadership: when the leader a WriteTxnMarkers
// went to dies before answering, the coordinator sends the marker again
// to the partition's new leader (TransactionMarkerChannelManager re-queues
// the partitions of a failed request and looks their leaders up again).
func TestTxnCoordinatorMarkersFollowLeaderChange(t *testing.T) {
	c := newCoordCluster(t, 16)
	tc := newCoordClient(t, c, "p1")
	coord := tc.coordinator("tx")
	if err := c.CreateTopic("u", 3, 3, nil); err != nil {
		t.Fatal(err)
	}
	// A partition of u led by a broker other than the coordinator.
	var tp protocol.TopicPartition
	var victim int32 = -1
	for p := int32(0); p < 3 && victim < 0; p++ {
		if l := c.Controller().Image().Partition("u", p).Leader; l != coord {
			tp, victim = protocol.TopicPartition{Topic: "u", Partition: p}, l
		}
	}
	if victim < 0 {
		t.Fatal("every partition of u is led by the coordinator")
	}
	tc.initProducerID(coord, "tx", 60000)
	if pr := tc.produce("tx", tp, "v"); pr.Error != protocol.None {
		t.Fatalf("produce: %s", pr.Error.Name())
	}
	c.Network().Drop(sim.DropRule{To: kraft.BrokerNode(victim), Kind: "WriteTxnMarkers", Remaining: -1})
	if e := tc.endTxn(coord, "tx", true); e.Error != protocol.None {
		t.Fatalf("EndTxn: %+v", e)
	}
	if d := coordDescribe(t, c, "tx"); d.State != txnlog.PrepareCommit {
		t.Fatalf("with the marker lost: %+v", d)
	}
	if err := c.CrashBroker(int(victim), false); err != nil {
		t.Fatal(err)
	}
	coordWaitState(t, c, "tx", txnlog.CompleteCommit)
	if l := c.Controller().Image().Partition(tp.Topic, tp.Partition).Leader; l == victim || l < 0 {
		t.Fatalf("%v still led by b%d", tp, l)
	}
	if got := coordMarkers(t, c, tp); len(got) != 1 || got[0] != "COMMIT "+coordItoa(tc.pid)+"/1" {
		t.Fatalf("markers in %v at its new leader: %v", tp, got)
	}
}

// Without a transactional id, InitProducerId is an idempotent producer's:
// any broker answers from its own block of producer ids, at epoch 0, and
// no __transaction_state is involved (handleInitProducerId's null
// transactional id).
func TestIdempotentInitProducerIdFromAnyBroker(t *testing.T) {
	c := newCoordCluster(t, 17)
	tc := newCoordClient(t, c, "p1")
	seen := map[int64]bool{}
	for _, b := range []int32{1, 2, 3} {
		r := coordRetry(tc, func() protocol.InitProducerIdResponse {
			return tc.call(b, func(corr int64) sim.Message {
				return protocol.InitProducerIdRequest{CorrelationID: corr, ProducerID: -1, ProducerEpoch: -1}
			}).(protocol.InitProducerIdResponse)
		}, func(r protocol.InitProducerIdResponse) protocol.ErrorCode { return r.Error })
		if r.Error != protocol.None || r.ProducerEpoch != 0 || r.ProducerID < 0 || seen[r.ProducerID] {
			t.Fatalf("InitProducerId at b%d: %+v (ids seen %v)", b, r, seen)
		}
		seen[r.ProducerID] = true
	}
	if c.Controller().Image().Topic(broker.TransactionStateTopic) != nil {
		t.Fatal("an idempotent producer created __transaction_state")
	}
}
