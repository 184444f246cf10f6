package client

import (
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
)

// fakeTxnBroker is broker 1, test-only: leader of every partition of topic
// "t", transaction coordinator and group coordinator. Its partitions check
// producer id, epoch and sequence the way Kafka's ProducerStateManager does
// (a duplicate is answered with the original offset without being written
// again, a gap is OUT_OF_ORDER_SEQUENCE_NUMBER, an older epoch
// INVALID_PRODUCER_EPOCH), so the client is tested on its own against the
// broker's contract. Hooks inject failures.
type fakeTxnBroker struct {
	t          *testing.T
	net        *sim.Network
	sched      *sim.Scheduler
	partitions int
	logs       [][]fakeAppended // per partition
	producers  map[fakeProducerKey]*fakeProducerState
	nextPID    int64
	epochs     map[string]int16 // transactional id -> current epoch
	got        []sim.Message    // every request received, in order
	produces   []protocol.ProduceRequest
	// produce decides, before the partition's checks, to answer with an
	// error (code != NONE, nothing written) or to write but lose the
	// answer (lose). n counts produce requests from 1.
	produce func(n int, req protocol.ProduceRequest) (code protocol.ErrorCode, lose bool)
	// initErrors answers the first InitProducerIds with these codes.
	initErrors []protocol.ErrorCode
	// endTxn answers an EndTxn (nil: NONE with the epoch bumped).
	endTxn func(req protocol.EndTxnRequest) protocol.ErrorCode
	// txnOffsetCommit answers each partition of a TxnOffsetCommit.
	txnOffsetCommit func(req protocol.TxnOffsetCommitRequest) protocol.ErrorCode
	// coordinator is the broker FindCoordinator names (0: this one).
	coordinator int32
}

type fakeAppended struct {
	value  string
	pid    int64
	epoch  int16
	seq    int32
	offset int64
}

type fakeProducerKey struct {
	partition int32
	pid       int64
}

type fakeProducerState struct {
	epoch   int16
	lastSeq int32
	batches []fakeBatchMeta // the last 5
}

type fakeBatchMeta struct {
	first, last int32
	offset      int64
}

func newFakeTxnBroker(t *testing.T, partitions int) *fakeTxnBroker {
	t.Helper()
	sched := sim.NewScheduler(&sim.Clock{})
	f := &fakeTxnBroker{t: t, net: sim.NewNetwork(sched), sched: sched, partitions: partitions, logs: make([][]fakeAppended, partitions),
		producers: map[fakeProducerKey]*fakeProducerState{}, nextPID: 1000, epochs: map[string]int16{}}
	f.net.Attach(kraft.BrokerNode(1), f.handle)
	return f
}

func (f *fakeTxnBroker) newProducer(mod func(*ProducerConfig)) *Producer {
	cfg := DefaultProducerConfig()
	cfg.EnableIdempotence = true
	cfg.RequestTimeout = time.Second
	cfg.DeliveryTimeout = 10 * time.Second
	if mod != nil {
		mod(&cfg)
	}
	return NewProducer("p", cfg, []int32{1}, f.net, f.sched, sim.NewRand(5), func(string) {})
}

func (f *fakeTxnBroker) reply(to sim.NodeID, m sim.Message) { f.net.Send(kraft.BrokerNode(1), to, m) }

func (f *fakeTxnBroker) handle(env *sim.Envelope) {
	if _, ok := env.Msg.(protocol.MetadataRequest); !ok {
		f.got = append(f.got, env.Msg)
	}
	switch m := env.Msg.(type) {
	case protocol.MetadataRequest:
		resp := protocol.MetadataResponse{CorrelationID: m.CorrelationID, Brokers: []int32{1}}
		for i := range f.partitions {
			resp.Partitions = append(resp.Partitions, protocol.PartitionMetadata{TP: protocol.TopicPartition{Topic: "t", Partition: int32(i)}, Leader: 1})
		}
		f.reply(env.From, resp)
	case protocol.FindCoordinatorRequest:
		node := f.coordinator
		if node == 0 {
			node = 1
		}
		f.reply(env.From, protocol.FindCoordinatorResponse{CorrelationID: m.CorrelationID, Key: m.Key, NodeID: node})
	case protocol.InitProducerIdRequest:
		resp := protocol.InitProducerIdResponse{CorrelationID: m.CorrelationID}
		if len(f.initErrors) > 0 {
			resp.Error, f.initErrors = f.initErrors[0], f.initErrors[1:]
			resp.ProducerID, resp.ProducerEpoch = -1, -1
			f.reply(env.From, resp)
			return
		}
		if m.TransactionalID == "" {
			resp.ProducerID, resp.ProducerEpoch = f.nextPID, 0
			f.nextPID++
		} else {
			// One producer id per transactional id; each InitProducerId
			// bumps its epoch (fencing the previous instance).
			e, ok := f.epochs[m.TransactionalID]
			if ok {
				e++
			}
			f.epochs[m.TransactionalID] = e
			resp.ProducerID, resp.ProducerEpoch = 5000, e
		}
		f.reply(env.From, resp)
	case protocol.EndTxnRequest:
		code := protocol.None
		if f.endTxn != nil {
			code = f.endTxn(m)
		}
		resp := protocol.EndTxnResponse{CorrelationID: m.CorrelationID, Error: code, ProducerID: -1, ProducerEpoch: -1}
		if code == protocol.None {
			f.epochs[m.TransactionalID]++
			resp.ProducerID, resp.ProducerEpoch = m.ProducerID, f.epochs[m.TransactionalID]
		}
		f.reply(env.From, resp)
	case protocol.TxnOffsetCommitRequest:
		resp := protocol.TxnOffsetCommitResponse{CorrelationID: m.CorrelationID}
		for _, o := range m.Offsets {
			code := protocol.None
			if f.txnOffsetCommit != nil {
				code = f.txnOffsetCommit(m)
			}
			resp.Partitions = append(resp.Partitions, protocol.OffsetCommitPartitionResponse{TP: o.TP, Error: code})
		}
		f.reply(env.From, resp)
	case protocol.ProduceRequest:
		f.produces = append(f.produces, m)
		code, lose := protocol.None, false
		if f.produce != nil {
			code, lose = f.produce(len(f.produces), m)
		}
		resp := protocol.ProduceResponse{CorrelationID: m.CorrelationID, TP: m.TP, Error: code, BaseOffset: -1, LogStartOffset: 0}
		if code == protocol.None {
			resp.Error, resp.BaseOffset = f.append(m)
		}
		if !lose {
			f.reply(env.From, resp)
		}
	}
}

// append is the partition leader's producer-state check and append.
func (f *fakeTxnBroker) append(req protocol.ProduceRequest) (protocol.ErrorCode, int64) {
	b, _, err := record.Decode(req.Records)
	if err != nil {
		f.t.Fatalf("undecodable batch: %v", err)
	}
	part := req.TP.Partition
	base := int64(len(f.logs[part]))
	if b.ProducerID >= 0 {
		key := fakeProducerKey{part, b.ProducerID}
		st := f.producers[key]
		last := b.BaseSequence + b.LastOffsetDelta
		switch {
		case st == nil:
			st = &fakeProducerState{epoch: b.ProducerEpoch, lastSeq: -1}
			f.producers[key] = st
		case b.ProducerEpoch < st.epoch:
			return protocol.InvalidProducerEpoch, -1
		case b.ProducerEpoch > st.epoch:
			if b.BaseSequence != 0 {
				return protocol.OutOfOrderSequenceNumber, -1
			}
			st.epoch, st.lastSeq, st.batches = b.ProducerEpoch, -1, nil
		default:
			for _, m := range st.batches {
				if m.first == b.BaseSequence && m.last == last {
					return protocol.None, m.offset // a duplicate: its original offset
				}
			}
			if b.BaseSequence != st.lastSeq+1 {
				return protocol.OutOfOrderSequenceNumber, -1
			}
		}
		st.lastSeq = last
		st.batches = append(st.batches, fakeBatchMeta{b.BaseSequence, last, base})
		if len(st.batches) > 5 {
			st.batches = st.batches[1:]
		}
	}
	for i, r := range b.Records {
		f.logs[part] = append(f.logs[part], fakeAppended{value: string(r.Value), pid: b.ProducerID, epoch: b.ProducerEpoch, seq: b.BaseSequence + int32(i), offset: base + int64(i)})
	}
	return protocol.None, base
}

func (f *fakeTxnBroker) values(partition int) []string {
	var out []string
	for _, a := range f.logs[partition] {
		out = append(out, a.value)
	}
	return out
}

// run steps the simulation until cond holds.
func (f *fakeTxnBroker) run(cond func() bool) {
	f.t.Helper()
	for steps := 0; !cond(); steps++ {
		if _, ok := f.sched.Step(); !ok || steps > 200_000 {
			f.t.Fatal("the condition never held")
		}
	}
}

func (f *fakeTxnBroker) runUntilDone(ds ...*Delivery) {
	f.t.Helper()
	f.run(func() bool {
		for _, d := range ds {
			if !d.Done {
				return false
			}
		}
		return true
	})
}

// kinds lists the kinds of the requests received, Produce and metadata aside.
func (f *fakeTxnBroker) kinds() []string {
	var out []string
	for _, m := range f.got {
		if _, ok := m.(protocol.ProduceRequest); !ok {
			out = append(out, m.Kind())
		}
	}
	return out
}

func decodeBatch(t *testing.T, req protocol.ProduceRequest) record.Batch {
	t.Helper()
	b, _, err := record.Decode(req.Records)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
