package coordinator

import (
	"testing"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// harness drives one Partition like a broker would: it keeps the writes
// (committing them only when told), the replies and the marker requests,
// and hands out producer ids from 1000 on when asked.
type harness struct {
	t       *testing.T
	p       *Partition
	now     int64
	nextPID int64
	ref     uint64
	writes  []Write
	log     []txnlog.Record // committed records, in order
	replies map[uint64][]any
	markers []MarkerRequest
	events  []string
	retry   bool
	// trail is every Result in order, for the datadriven harness to print.
	trail []Result
}

func newHarness(t *testing.T) *harness {
	return &harness{t: t, p: New(7, 3, DefaultConfig()), nextPID: 1000, replies: map[uint64][]any{}}
}

func (h *harness) apply(r Result) {
	h.trail = append(h.trail, r)
	h.writes = append(h.writes, r.Writes...)
	for _, rp := range r.Replies {
		h.replies[rp.Ref] = append(h.replies[rp.Ref], rp.Msg)
	}
	h.markers = append(h.markers, r.Markers...)
	h.events = append(h.events, r.Events...)
	h.retry = h.retry || r.RetryLater
}

// call runs a request that may need a producer id, supplying one when
// asked, as the broker does.
func (h *harness) call(f func(ref uint64, pid int64) Result) uint64 {
	h.ref++
	r := f(h.ref, protocol.NoProducerID)
	if r.NeedProducerID {
		pid := h.nextPID
		h.nextPID++
		r = f(h.ref, pid)
		if r.NeedProducerID {
			h.t.Fatalf("asked for a producer id twice")
		}
	}
	h.apply(r)
	return h.ref
}

func (h *harness) init(id string, pid int64, epoch int16) uint64 {
	return h.call(func(ref uint64, newPID int64) Result {
		return h.p.InitProducerID(h.now, ref, protocol.InitProducerIdRequest{TransactionalID: id, TransactionTimeoutMs: 60000,
			ProducerID: pid, ProducerEpoch: epoch}, newPID)
	})
}

func (h *harness) add(id string, pid int64, epoch int16, tps ...protocol.TopicPartition) uint64 {
	h.ref++
	h.apply(h.p.AddPartitions(h.now, h.ref, protocol.AddPartitionsToTxnRequest{TransactionalID: id, ProducerID: pid,
		ProducerEpoch: epoch, Partitions: tps}))
	return h.ref
}

func (h *harness) end(id string, pid int64, epoch int16, commit bool) uint64 {
	return h.call(func(ref uint64, newPID int64) Result {
		return h.p.EndTxn(h.now, ref, protocol.EndTxnRequest{TransactionalID: id, ProducerID: pid, ProducerEpoch: epoch, Committed: commit}, newPID)
	})
}

// commitAll commits the writes waiting, in order, and those they cause.
func (h *harness) commitAll() {
	for len(h.writes) > 0 {
		w := h.writes[0]
		h.writes = h.writes[1:]
		h.log = append(h.log, w.Record)
		h.apply(h.p.WriteCompleted(h.now, w.ID, protocol.None))
	}
}

// failNext fails the oldest waiting write.
func (h *harness) failNext(code protocol.ErrorCode) {
	w := h.writes[0]
	h.writes = h.writes[1:]
	h.apply(h.p.WriteCompleted(h.now, w.ID, code))
}

// markAll writes every requested marker.
func (h *harness) markAll() {
	ms := h.markers
	h.markers = nil
	for _, m := range ms {
		for _, tp := range m.Partitions {
			h.apply(h.p.MarkerWritten(h.now, m.TransactionalID, m.ProducerID, m.ProducerEpoch, tp))
		}
	}
}

func (h *harness) reply(ref uint64) any {
	h.t.Helper()
	rs := h.replies[ref]
	if len(rs) != 1 {
		h.t.Fatalf("request %d: %d replies, want 1: %v (events %v)", ref, len(rs), rs, h.events)
	}
	return rs[0]
}

func (h *harness) state(id string) *Metadata {
	h.t.Helper()
	m := h.p.Get(id)
	if m == nil {
		h.t.Fatalf("%s unknown", id)
	}
	return m
}

var tp0, tp1 = protocol.TopicPartition{Topic: "t", Partition: 0}, protocol.TopicPartition{Topic: "t", Partition: 1}

// ready is a transactional id initialized at producer id 1000, epoch 0.
func ready(t *testing.T) *harness {
	h := newHarness(t)
	h.init("tx", -1, -1)
	h.commitAll()
	return h
}
