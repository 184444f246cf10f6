package coordinator

import (
	"slices"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// addTxnMarkersToSend is TransactionMarkerChannelManager.addTxnMarkersToSend:
// markers to every partition of the transaction, with its (TV2: bumped)
// producer epoch; with no partition left, the Complete* record is written
// at once.
func (p *Partition) addTxnMarkersToSend(m *Metadata, complete Transit, res *Result) {
	req := MarkerRequest{TransactionalID: m.TransactionalID, ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch,
		Committed: m.State == txnlog.PrepareCommit, Partitions: slices.Clone(m.Partitions),
		CoordinatorEpoch: p.CoordinatorEpoch, TransactionVersion: int8(m.ClientTransactionVersion)}
	p.markers[m.TransactionalID] = &markerJob{req: req, complete: complete}
	if len(m.Partitions) == 0 {
		p.completeSendMarkers(m, res)
		return
	}
	res.Markers = append(res.Markers, req)
}

// MarkerWritten is one partition's marker written (or its topic gone):
// TransactionMarkerRequestCompletionHandler removes the partition from the
// transaction, and the last one completes it. pid and epoch name the
// markers' transaction: an answer for another one is ignored.
func (p *Partition) MarkerWritten(now int64, txnID string, pid int64, epoch int16, tp protocol.TopicPartition) Result {
	var res Result
	job, m := p.markers[txnID], p.txns[txnID]
	if job == nil || m == nil || job.req.ProducerID != pid || job.req.ProducerEpoch != epoch {
		return res
	}
	if i, ok := slices.BinarySearchFunc(m.Partitions, tp, compareTP); ok {
		m.Partitions = slices.Delete(m.Partitions, i, i+1)
	}
	if len(m.Partitions) == 0 {
		p.completeSendMarkers(m, &res)
	}
	return res
}

// MarkersAbandoned: a partition leader refused the markers for good
// (INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED): Kafka stops
// sending them and leaves the transaction prepared, for a later
// coordinator to finish.
func (p *Partition) MarkersAbandoned(txnID string, code protocol.ErrorCode) Result {
	var res Result
	if p.markers[txnID] == nil {
		return res
	}
	delete(p.markers, txnID)
	if m := p.txns[txnID]; m != nil {
		m.pending = false
		res.event("transactional id %s: a partition leader answered its markers %s: sending stopped, the transaction stays %s",
			txnID, code.Name(), m.State)
	}
	return res
}

// PendingMarkers lists the marker requests still in flight, by
// transactional id: what a broker must (re)send.
func (p *Partition) PendingMarkers() []MarkerRequest {
	var out []MarkerRequest
	for _, id := range p.TransactionalIDs() {
		if j := p.markers[id]; j != nil {
			r := j.req
			r.Partitions = slices.Clone(p.txns[id].Partitions)
			out = append(out, r)
		}
	}
	return out
}

// completeSendMarkers writes the Complete* state (Kafka's
// tryAppendToLog of the PendingCompleteTxn); a write that fails for a
// reason other than losing the partition is retried.
func (p *Partition) completeSendMarkers(m *Metadata, res *Result) {
	job := p.markers[m.TransactionalID]
	res.event("transactional id %s: every marker written, writing %s", m.TransactionalID, job.complete.State)
	var done func(code protocol.ErrorCode, res *Result)
	done = func(code protocol.ErrorCode, res *Result) {
		switch code {
		case protocol.None:
			delete(p.markers, m.TransactionalID)
			res.event("transactional id %s is %s (producer id %d, epoch %d)", m.TransactionalID, m.State, m.ProducerID, m.ProducerEpoch)
		case protocol.NotCoordinator:
			delete(p.markers, m.TransactionalID)
		default:
			// Kafka retries the append (retryAppendCallback) until it
			// works or the partition moves: RetryCompletions, later.
			p.retries = append(p.retries, m.TransactionalID)
			res.RetryLater = true
		}
	}
	job.done = done
	p.appendTransactionToLog(m, job.complete, res, done)
}

// RetryCompletions writes again the Complete* records whose write failed
// (the broker calls it after a backoff when a Result said RetryLater).
func (p *Partition) RetryCompletions(now int64) Result {
	var res Result
	ids := p.retries
	p.retries = nil
	for _, id := range ids {
		m, job := p.txns[id], p.markers[id]
		if m == nil || job == nil || m.pending {
			continue
		}
		t, err := m.prepareTransitionTo(job.complete)
		if err != nil {
			res.event("IllegalStateException: %v", err)
			continue
		}
		p.appendTransactionToLog(m, t, &res, job.done)
	}
	return res
}
