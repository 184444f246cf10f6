package cluster

import (
	"slices"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/view"
)

// producerView is what a producer node draws: its configuration's
// idempotence and transactional.id, and what its TransactionManager holds
// (producer id and epoch, state, the sequences per partition).
func producerView(p *client.Producer) *view.ProducerState {
	cfg := p.Config()
	pid, epoch := p.ProducerIDAndEpoch()
	s := &view.ProducerState{Idempotent: cfg.EnableIdempotence, TransactionalID: cfg.TransactionalID,
		ProducerID: pid, ProducerEpoch: int(epoch), TxnState: p.TxnState()}
	for _, q := range p.Sequences() {
		s.Sequences = append(s.Sequences, view.ProducerSequence{TP: tpName(q.TP), NextSequence: q.NextSequence,
			LastAckedSequence: q.LastAckedSequence, InFlight: q.InFlight})
	}
	return s
}

// transactionsView describes every transactional id a running broker's
// transaction coordinator has loaded, and those of the lab's producers,
// asking each id's coordinator (the leader of its __transaction_state
// partition) as kafka-transactions.sh describe does. The producers' ids
// keep a transaction on the panel while its coordinator fails over: it is
// not gone, its coordinator cannot answer (COORDINATOR_NOT_AVAILABLE, then
// COORDINATOR_LOAD_IN_PROGRESS while the new one loads the partition).
func (c *Cluster) transactionsView() []view.Transaction {
	var ids []string
	for _, b := range c.brokers {
		if b.Alive() {
			ids = append(ids, b.TransactionalIDs()...)
		}
	}
	for _, p := range c.producers {
		if id := p.Config().TransactionalID; id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	now := c.clock.NowMs()
	out := make([]view.Transaction, 0, len(ids))
	for _, id := range ids {
		out = append(out, c.transactionView(id, now))
	}
	return out
}

func (c *Cluster) transactionView(id string, nowMs int64) view.Transaction {
	part := c.TxnPartition(id)
	t := view.Transaction{ID: id, StatePartition: int(part), ProducerID: -1, ProducerEpoch: -1, StartMs: -1, DurationMs: -1}
	if pi := c.controller.Image().Partition(broker.TransactionStateTopic, part); pi != nil && pi.Leader >= 0 {
		t.Coordinator = int(pi.Leader)
	}
	d, code := c.DescribeTransaction(id)
	switch code {
	case protocol.None:
	case protocol.TransactionalIDNotFound:
		// The coordinator holds the id (a broker listed it) but describes
		// no such id: Kafka's describe hides an id it is expiring, whose
		// state is Dead until its tombstone is written.
		if b := c.Broker(t.Coordinator); b != nil && slices.Contains(b.TransactionalIDs(), id) {
			t.State = "Dead"
			return t
		}
		t.Error = code.Name()
		return t
	default:
		t.Error = code.Name()
		return t
	}
	t.State, t.PendingState = d.State.String(), d.PendingState
	t.ProducerID, t.ProducerEpoch = d.ProducerID, int(d.ProducerEpoch)
	// Kafka's timestamps count from the Unix epoch; the view's times from
	// the cluster's start (sim.Epoch), as NowMs and the timeline do.
	t.TimeoutMs, t.LastUpdateMs = int64(d.TransactionTimeoutMs), d.LastUpdateTimeMs-sim.Epoch.UnixMilli()
	if d.TransactionStartTimeMs >= 0 {
		t.StartMs, t.DurationMs = d.TransactionStartTimeMs-sim.Epoch.UnixMilli(), d.TransactionDurationMs(nowMs)
	}
	for _, tp := range d.Partitions {
		t.Partitions = append(t.Partitions, tpName(tp))
	}
	return t
}
