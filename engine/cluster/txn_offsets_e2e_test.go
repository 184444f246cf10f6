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

// offsetsRawClient is a bare node that sends transaction requests
// (FindCoordinator, InitProducerId, produce, TxnOffsetCommit, EndTxn) as
// a transactional producer would, and keeps every response by
// correlation id.
type offsetsRawClient struct {
	t    *testing.T
	c    *Cluster
	node sim.NodeID
	corr int64
	got  map[int64]sim.Message
}

func newOffsetsRawClient(t *testing.T, c *Cluster, name string) *offsetsRawClient {
	rc := &offsetsRawClient{t: t, c: c, node: sim.NodeID(name), got: map[int64]sim.Message{}}
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
		case protocol.EndTxnResponse:
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

func (rc *offsetsRawClient) call(to int32, build func(corr int64) sim.Message) sim.Message {
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
func (rc *offsetsRawClient) offsetFetch(to int32, tp protocol.TopicPartition, requireStable bool) protocol.OffsetFetchPartition {
	rc.t.Helper()
	r := rc.call(to, func(corr int64) sim.Message {
		return protocol.OffsetFetchRequest{CorrelationID: corr, GroupID: "g", MemberEpoch: -1, TPs: []protocol.TopicPartition{tp}, RequireStable: requireStable}
	}).(protocol.OffsetFetchResponse)
	if r.Error != protocol.None || len(r.Partitions) != 1 {
		rc.t.Fatalf("OffsetFetch: %+v", r)
	}
	return r.Partitions[0]
}

// retriable repeats a call while it answers a retriable error, as the
// producer's TransactionManager does (NOT_ENOUGH_REPLICAS is a produce's
// "could not verify the transaction yet").
func (rc *offsetsRawClient) retriable(call func() protocol.ErrorCode) protocol.ErrorCode {
	rc.t.Helper()
	for range 300 {
		switch c := call(); c {
		case protocol.CoordinatorLoadInProgress, protocol.CoordinatorNotAvailable, protocol.ConcurrentTransactions,
			protocol.NotCoordinator, protocol.NotEnoughReplicas:
			rc.c.RunUntil(func() bool { return false }, 100*time.Millisecond)
		default:
			return c
		}
	}
	rc.t.Fatal("still retriable after 300 tries")
	return protocol.None
}

// offsetsTxnProducer is a transactional producer driven by raw requests: its
// id and epoch from InitProducerId, its sequences per partition.
type offsetsTxnProducer struct {
	rc    *offsetsRawClient
	id    string
	pid   int64
	epoch int16
	seq   map[protocol.TopicPartition]int32
}

// initTxn finds txnID's transaction coordinator (the first
// FindCoordinator creates __transaction_state) and gets a producer id.
func (rc *offsetsRawClient) initTxn(txnID string) *offsetsTxnProducer {
	rc.t.Helper()
	p := &offsetsTxnProducer{rc: rc, id: txnID, seq: map[protocol.TopicPartition]int32{}}
	if c := rc.retriable(func() protocol.ErrorCode {
		r := rc.call(p.coordinator(), func(corr int64) sim.Message {
			return protocol.InitProducerIdRequest{CorrelationID: corr, TransactionalID: txnID, TransactionTimeoutMs: 60000,
				ProducerID: -1, ProducerEpoch: -1}
		}).(protocol.InitProducerIdResponse)
		p.pid, p.epoch = r.ProducerID, r.ProducerEpoch
		return r.Error
	}); c != protocol.None {
		rc.t.Fatalf("InitProducerId %s: %s", txnID, c.Name())
	}
	return p
}

// coordinator is the broker FindCoordinator names for the transactional
// id now (-1 while there is none: the caller retries).
func (p *offsetsTxnProducer) coordinator() int32 {
	r := p.rc.call(1, func(corr int64) sim.Message {
		return protocol.FindCoordinatorRequest{CorrelationID: corr, KeyType: protocol.CoordinatorTypeTransaction, Key: p.id}
	}).(protocol.FindCoordinatorResponse)
	if r.Error != protocol.None {
		return 1 // answered COORDINATOR_NOT_AVAILABLE / NOT_COORDINATOR by b1: retried
	}
	return r.NodeID
}

// end commits or aborts the transaction (EndTxn, transaction version 2:
// the answer carries the producer's next epoch) and waits until the
// coordinator's markers are in every partition of the transaction, which
// the test checks by done.
func (p *offsetsTxnProducer) end(commit bool, done func() bool) {
	rc := p.rc
	rc.t.Helper()
	if c := rc.retriable(func() protocol.ErrorCode {
		r := rc.call(p.coordinator(), func(corr int64) sim.Message {
			return protocol.EndTxnRequest{CorrelationID: corr, TransactionalID: p.id, ProducerID: p.pid, ProducerEpoch: p.epoch, Committed: commit}
		}).(protocol.EndTxnResponse)
		if r.Error == protocol.None {
			p.pid, p.epoch = r.ProducerID, r.ProducerEpoch
			clear(p.seq)
		}
		return r.Error
	}); c != protocol.None {
		rc.t.Fatalf("EndTxn %s: %s", p.id, c.Name())
	}
	if ok, err := rc.c.RunUntil(done, time.Minute); !ok || err != nil {
		rc.t.Fatalf("the markers of %s never arrived: %v", p.id, err)
	}
}

// commitOffset is sendOffsetsToTransaction's TxnOffsetCommit to the group
// coordinator, outside any group membership (generation -1).
func (p *offsetsTxnProducer) commitOffset(to int32, tp protocol.TopicPartition, offset int64) protocol.ErrorCode {
	return p.commitOffsetAs(to, tp, offset, client.ConsumerGroupMetadata{GroupID: "g", GenerationID: -1})
}

// commitOffsetAs is the TxnOffsetCommit carrying a consumer's group
// metadata (KafkaConsumer.groupMetadata()).
func (p *offsetsTxnProducer) commitOffsetAs(to int32, tp protocol.TopicPartition, offset int64, g client.ConsumerGroupMetadata) protocol.ErrorCode {
	rc := p.rc
	rc.t.Helper()
	return rc.retriable(func() protocol.ErrorCode {
		r := rc.call(to, func(corr int64) sim.Message {
			return protocol.TxnOffsetCommitRequest{CorrelationID: corr, TransactionalID: p.id, GroupID: g.GroupID, ProducerID: p.pid, ProducerEpoch: p.epoch,
				GenerationID: g.GenerationID, MemberID: g.MemberID, GroupInstanceID: g.GroupInstanceID,
				Offsets: []protocol.OffsetCommitPartition{{TP: tp, Offset: offset, LeaderEpoch: -1}}}
		}).(protocol.TxnOffsetCommitResponse)
		if len(r.Partitions) != 1 {
			rc.t.Fatalf("TxnOffsetCommit: %+v", r)
		}
		return r.Partitions[0].Error
	})
}

// produce appends values as one transactional batch to tp through its
// leader (acks=all); it returns the batch's base offset.
func (p *offsetsTxnProducer) produce(tp protocol.TopicPartition, values ...string) int64 {
	rc := p.rc
	rc.t.Helper()
	now := rc.c.NowMs()
	b := record.Batch{Attributes: record.ComputeAttributes(record.None, record.CreateTime, true, false), BaseTimestamp: now, MaxTimestamp: now,
		ProducerID: p.pid, ProducerEpoch: p.epoch, BaseSequence: p.seq[tp], LastOffsetDelta: int32(len(values) - 1)}
	for i, v := range values {
		b.Records = append(b.Records, record.Record{OffsetDelta: int32(i), Value: []byte(v)})
	}
	raw, err := b.AppendEncoded(nil)
	if err != nil {
		rc.t.Fatal(err)
	}
	var base int64
	if c := rc.retriable(func() protocol.ErrorCode {
		leader := rc.c.Controller().Image().Partition(tp.Topic, tp.Partition).Leader
		r := rc.call(leader, func(corr int64) sim.Message {
			return protocol.ProduceRequest{CorrelationID: corr, Acks: -1, TimeoutMs: 30000, TP: tp, Records: raw, TransactionalID: p.id}
		}).(protocol.ProduceResponse)
		base = r.BaseOffset
		return r.Error
	}); c != protocol.None {
		rc.t.Fatalf("produce %v: %s", values, c.Name())
	}
	p.seq[tp] += int32(len(values))
	return base
}

// offsetsControlBatches counts the markers in a partition's leader log below its
// high watermark.
func offsetsControlBatches(t *testing.T, c *Cluster, tp protocol.TopicPartition) int {
	t.Helper()
	pi := c.Controller().Image().Partition(tp.Topic, tp.Partition)
	if pi == nil || pi.Leader <= 0 {
		return -1
	}
	r := c.Broker(int(pi.Leader)).Replica(tp)
	if r == nil {
		return -1
	}
	batches, err := r.Log.BatchesFrom(r.Log.StartOffset())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, b := range batches {
		if b.Header.IsControl() && b.Header.NextOffset() <= r.HW {
			n++
		}
	}
	return n
}

// offsetsGroupCoordinator creates __consumer_offsets through FindCoordinator and
// waits for the group's partition to be loaded; it returns the leader and
// the partition.
func offsetsGroupCoordinator(t *testing.T, c *Cluster, rc *offsetsRawClient) (int32, protocol.TopicPartition) {
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

func newOffsetsTxnCluster(t *testing.T) *Cluster {
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

// A transactional offset commit is pending until the transaction ends:
// the group coordinator adds its __consumer_offsets partition to the
// transaction, OffsetFetch with RequireStable answers
// UNSTABLE_OFFSET_COMMIT meanwhile, the ABORT marker the transaction
// coordinator writes there leaves the group's offset as it was, the
// COMMIT marker replaces it, and a new group coordinator replaying
// __consumer_offsets after a failover rebuilds both the committed offsets
// and a still-pending one.
func TestTxnOffsetCommitDecidedByMarkers(t *testing.T) {
	c := newOffsetsTxnCluster(t)
	rc := newOffsetsRawClient(t, c, "app")
	coord, otp := offsetsGroupCoordinator(t, c, rc)
	t0 := protocol.TopicPartition{Topic: "t", Partition: 0}
	t1 := protocol.TopicPartition{Topic: "t", Partition: 1}
	markers := func(n int) func() bool { return func() bool { return offsetsControlBatches(t, c, otp) == n } }

	plain := rc.call(coord, func(corr int64) sim.Message {
		return protocol.OffsetCommitRequest{CorrelationID: corr, GroupID: "g", GenerationIDOrMemberEpoch: -1,
			Offsets: []protocol.OffsetCommitPartition{{TP: t0, Offset: 5, LeaderEpoch: -1}}}
	}).(protocol.OffsetCommitResponse)
	if plain.Partitions[0].Error != protocol.None {
		t.Fatalf("plain commit: %+v", plain)
	}

	// Transaction 1 commits t-0=9, then aborts.
	p := rc.initTxn("tx")
	if code := p.commitOffset(coord, t0, 9); code != protocol.None {
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
	p.end(false, markers(1))
	if got := rc.offsetFetch(coord, t0, true); got.Error != protocol.None || got.Offset != 5 {
		t.Fatalf("after the ABORT: %+v, want 5", got)
	}

	// Transaction 2 commits t-0=11 and commits.
	if code := p.commitOffset(coord, t0, 11); code != protocol.None {
		t.Fatalf("TxnOffsetCommit 2: %s", code.Name())
	}
	p.end(true, markers(2))
	if got := rc.offsetFetch(coord, t0, true); got.Error != protocol.None || got.Offset != 11 {
		t.Fatalf("after the COMMIT: %+v, want 11", got)
	}

	// Transaction 3 leaves t-1=3 pending; the group coordinator fails over.
	if code := p.commitOffset(coord, t1, 3); code != protocol.None {
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
	p.end(true, markers(3))
	if got := rc.offsetFetch(next, t1, true); got.Error != protocol.None || got.Offset != 3 {
		t.Fatalf("t-1 after the COMMIT on the new coordinator: %+v, want 3", got)
	}
}

// A read_committed consumer of a partition holding an aborted and a
// committed transaction reads only the committed records and its
// position passes both markers; read_uncommitted reads the aborted
// records too.
func TestReadCommittedConsumerSkipsAbortedTransaction(t *testing.T) {
	c := newOffsetsTxnCluster(t)
	if err := c.CreateTopic("t", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	tp := protocol.TopicPartition{Topic: "t", Partition: 0}
	rc := newOffsetsRawClient(t, c, "app")
	if ok, _ := c.RunUntil(func() bool { return c.Controller().Image().Partition("t", 0).Leader > 0 }, time.Minute); !ok {
		t.Fatal("no leader for t-0")
	}
	// 0-1 transaction txA, aborted (marker at 2); 3-4 txB, committed
	// (marker at 5).
	a, b := rc.initTxn("txA"), rc.initTxn("txB")
	if off := a.produce(tp, "a0", "a1"); off != 0 {
		t.Fatalf("aborted batch at %d", off)
	}
	a.end(false, func() bool { return offsetsControlBatches(t, c, tp) == 1 })
	if off := b.produce(tp, "b0", "b1"); off != 3 {
		t.Fatalf("committed batch at %d", off)
	}
	b.end(true, func() bool { return offsetsControlBatches(t, c, tp) == 2 })

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

// A group consumer that starts while a transaction holds pending offsets
// for its partition (a restarted consume-transform-produce application)
// gets UNSTABLE_OFFSET_COMMIT (it asks RequireStable, as every consumer
// since Kafka 2.5 does) and reads nothing from the partition until the
// transaction commits; then it starts from the transaction's offset, not
// from the older committed one (KIP-447).
func TestConsumerWaitsForPendingTransactionalOffsets(t *testing.T) {
	c := newOffsetsTxnCluster(t)
	if err := c.CreateTopic("in", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	in := protocol.TopicPartition{Topic: "in", Partition: 0}
	feeder, err := c.CreateProducer("feeder", client.DefaultProducerConfig())
	if err != nil {
		t.Fatal(err)
	}
	var msgs []Message
	for i := range 10 {
		msgs = append(msgs, Message{Value: []byte{byte('0' + i)}, Partition: 0})
	}
	if _, err := c.Produce(feeder, "in", msgs); err != nil {
		t.Fatal(err)
	}
	rc := newOffsetsRawClient(t, c, "app")
	coord, otp := offsetsGroupCoordinator(t, c, rc)
	plain := rc.call(coord, func(corr int64) sim.Message {
		return protocol.OffsetCommitRequest{CorrelationID: corr, GroupID: "g", GenerationIDOrMemberEpoch: -1,
			Offsets: []protocol.OffsetCommitPartition{{TP: in, Offset: 2, LeaderEpoch: -1}}}
	}).(protocol.OffsetCommitResponse)
	if plain.Partitions[0].Error != protocol.None {
		t.Fatalf("plain commit: %+v", plain)
	}
	p := rc.initTxn("tx")
	if code := p.commitOffset(coord, in, 6); code != protocol.None {
		t.Fatalf("TxnOffsetCommit: %s", code.Name())
	}
	c.DrainEvents()

	cfg := client.DefaultConsumerConfig()
	cfg.GroupID, cfg.IsolationLevel, cfg.EnableAutoCommit = "g", client.ReadCommitted, false
	co, err := c.CreateGroupConsumer("c", cfg, []string{"in"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Poll(co, 100, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 || !slices.Equal(co.Assignment(), []protocol.TopicPartition{in}) {
		t.Fatalf("while the transaction is open: read %d records, assigned %v", len(got), co.Assignment())
	}
	if !hasEvent(c.DrainEvents(), "c: the following partitions still have unstable offsets", "in/0") {
		t.Fatal("UNSTABLE_OFFSET_COMMIT not traced")
	}
	p.end(true, func() bool { return offsetsControlBatches(t, c, otp) == 1 })
	var offs []int64
	ok, err := c.RunUntil(func() bool {
		recs, err := co.Poll(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			offs = append(offs, r.Offset)
		}
		return len(offs) >= 4
	}, time.Minute)
	if err != nil || !ok {
		t.Fatalf("after the commit: read %v", offs)
	}
	if !slices.Equal(offs, []int64{6, 7, 8, 9}) {
		t.Fatalf("read %v, want 6..9: the transaction's offset, not the older committed 2", offs)
	}
}

// KIP-447: the group coordinator fences a zombie consumer's transactional
// offsets by the group metadata the producer passes on. Metadata taken
// before the group moved to a new generation (what a zombie, a consumer
// the group moved on from, keeps handing out) is refused
// ILLEGAL_GENERATION; the current metadata is accepted.
func TestTxnOffsetCommitFencesAZombieConsumer(t *testing.T) {
	c := newOffsetsTxnCluster(t)
	if err := c.CreateTopic("in", 2, 3, nil); err != nil {
		t.Fatal(err)
	}
	in := protocol.TopicPartition{Topic: "in", Partition: 0}
	cfg := client.DefaultConsumerConfig()
	cfg.GroupID, cfg.IsolationLevel, cfg.EnableAutoCommit = "g", client.ReadCommitted, false
	c1, err := c.CreateGroupConsumer("c1", cfg, []string{"in"})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.RunUntil(func() bool { return c1.GroupMetadata().GenerationID >= 1 }, time.Minute); !ok {
		t.Fatalf("c1 never joined: %+v", c1.GroupMetadata())
	}
	old := c1.GroupMetadata()
	if old.MemberID == "" || old.GroupID != "g" {
		t.Fatalf("c1's metadata %+v", old)
	}
	if _, err := c.CreateGroupConsumer("c2", cfg, []string{"in"}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.RunUntil(func() bool { return c1.GroupMetadata().GenerationID > old.GenerationID }, time.Minute); !ok {
		t.Fatalf("no new generation: %+v", c1.GroupMetadata())
	}
	rc := newOffsetsRawClient(t, c, "app")
	coord, _ := offsetsGroupCoordinator(t, c, rc)
	p := rc.initTxn("tx")
	if code := p.commitOffsetAs(coord, in, 4, old); code != protocol.IllegalGeneration {
		t.Fatalf("the zombie's generation %d: %s, want ILLEGAL_GENERATION", old.GenerationID, code.Name())
	}
	if code := p.commitOffsetAs(coord, in, 4, c1.GroupMetadata()); code != protocol.None {
		t.Fatalf("the current metadata %+v: %s", c1.GroupMetadata(), code.Name())
	}
}
