package coordinator

import (
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// Replay is loadTransactionsForTxnTopicPartition's read of the log: the
// last record of each transactional id is its state, a tombstone removes
// it. Records naming no known state are skipped, as Kafka's loader fails
// on them (readTxnRecordValue throws) where loglab only traces them.
func (p *Partition) Replay(recs []txnlog.Record) (skipped int) {
	for _, r := range recs {
		id := r.Key.TransactionalID
		switch {
		case r.Value == nil:
			delete(p.txns, id)
		case !r.Value.TransactionStatus.Known():
			skipped++
		default:
			p.txns[id] = fromValue(id, r.Value)
		}
	}
	return skipped
}

// Loaded finishes the load: every transaction found in PrepareCommit or
// PrepareAbort had its EndTxn accepted by the previous coordinator, which
// may not have written all its markers: send them again and complete it
// (Kafka's loader hands these to the marker channel with the prepared
// complete transition).
func (p *Partition) Loaded(now int64) Result {
	var res Result
	for _, id := range p.TransactionalIDs() {
		m := p.txns[id]
		if m.State != txnlog.PrepareCommit && m.State != txnlog.PrepareAbort {
			continue
		}
		t, err := m.prepareComplete(now)
		if err != nil {
			res.event("IllegalStateException: %v", err)
			continue
		}
		res.event("transactional id %s was %s when %s was loaded: completing it (markers for %s)",
			id, m.State, p.name(), partitionCount(len(m.Partitions)))
		p.addTxnMarkersToSend(m, t, &res)
	}
	return res
}
