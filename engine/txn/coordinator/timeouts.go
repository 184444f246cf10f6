package coordinator

import (
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// AbortTimedOutTransactions is TransactionCoordinator.abortTimedOutTransactions,
// which Kafka runs every transaction.abort.timed.out.transaction.cleanup.interval.ms
// (10 s): every Ongoing transaction open longer than its
// transaction.timeout.ms (TransactionStateManager.timedOutTransactions)
// is fenced (epoch bump) and aborted. The producer learns it from
// PRODUCER_FENCED / INVALID_PRODUCER_EPOCH on its next request.
func (p *Partition) AbortTimedOutTransactions(now int64) Result {
	var res Result
	for _, id := range p.TransactionalIDs() {
		m := p.txns[id]
		if m.pending || m.State != txnlog.Ongoing || m.TxnStartTimestamp+int64(m.TxnTimeoutMs) >= now {
			continue
		}
		ft, err := m.prepareFenceProducerEpoch()
		if err != nil {
			res.event("IllegalStateException: %v", err)
			continue
		}
		res.event("transactional id %s: transaction open since %d ms is older than transaction.timeout.ms=%d: aborting it (fencing producer id %d epoch %d)",
			id, m.TxnStartTimestamp, m.TxnTimeoutMs, m.ProducerID, m.ProducerEpoch)
		p.endTransaction(now, id, ft.ProducerID, ft.ProducerEpoch, false, false, p.cfg.TransactionVersion, protocol.NoProducerID, &res,
			func(code protocol.ErrorCode, _ int64, _ int16, r *Result) {
				if code != protocol.None {
					r.event("transactional id %s: rollback of the timed out transaction failed with %s", id, code.Name())
				}
			})
	}
	return res
}

// ExpireTransactionalIDs is TransactionStateManager.removeExpiredTransactionalIds:
// an id with no transaction in flight, not updated for
// transactional.id.expiration.ms, moves to Dead and its tombstone is
// written; once committed, the id is forgotten.
func (p *Partition) ExpireTransactionalIDs(now int64) Result {
	var res Result
	for _, id := range p.TransactionalIDs() {
		m := p.txns[id]
		if m.pending || !m.State.IsExpirationAllowed() || m.TxnLastUpdateTimestamp > now-p.cfg.TransactionalIDExpirationMs {
			continue
		}
		t, err := m.prepareDead()
		if err != nil {
			res.event("IllegalStateException: %v", err)
			continue
		}
		res.event("transactional id %s: not used for transactional.id.expiration.ms=%d: expiring it (tombstone)", id, p.cfg.TransactionalIDExpirationMs)
		p.appendTransactionToLog(m, t, &res, func(code protocol.ErrorCode, r *Result) {
			if code == protocol.None {
				r.event("transactional id %s expired", id)
			}
		})
	}
	return res
}
