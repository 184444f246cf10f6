package coordinator

import (
	"slices"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// AddPartitions answers an AddPartitionsToTxn from a partition leader or
// the group coordinator: handleAddPartitionsToTransaction (transaction
// version 2: add the partitions, opening the transaction if none is
// Ongoing) or, with VerifyOnly, handleVerifyPartitionsInTransaction
// (version 1's check that they already are in it).
func (p *Partition) AddPartitions(now int64, ref uint64, req protocol.AddPartitionsToTxnRequest) Result {
	var res Result
	answer := func(r *Result, codeOf func(tp protocol.TopicPartition) protocol.ErrorCode) {
		msg := protocol.AddPartitionsToTxnResponse{CorrelationID: req.CorrelationID, TransactionalID: req.TransactionalID}
		for _, tp := range req.Partitions {
			msg.Results = append(msg.Results, protocol.AddPartitionsToTxnResult{TP: tp, Error: codeOf(tp)})
		}
		r.Replies = append(r.Replies, Reply{Ref: ref, Msg: msg})
	}
	all := func(code protocol.ErrorCode) Result {
		answer(&res, func(protocol.TopicPartition) protocol.ErrorCode { return code })
		return res
	}
	if req.TransactionalID == "" {
		return all(protocol.InvalidRequest)
	}
	m := p.txns[req.TransactionalID]
	switch {
	case m == nil || m.ProducerID != req.ProducerID:
		return all(protocol.InvalidProducerIDMapping)
	case m.ProducerEpoch != req.ProducerEpoch:
		return all(protocol.ProducerFenced)
	}
	if req.VerifyOnly {
		// Pending transitions are not checked: the append is checked
		// again against the producer state.
		if m.State == txnlog.PrepareCommit || m.State == txnlog.PrepareAbort {
			return all(protocol.ConcurrentTransactions)
		}
		answer(&res, func(tp protocol.TopicPartition) protocol.ErrorCode {
			if m.hasPartition(tp) {
				return protocol.None
			}
			return protocol.TransactionAbortable
		})
		return res
	}
	switch {
	case m.pending, m.State == txnlog.PrepareCommit, m.State == txnlog.PrepareAbort:
		return all(protocol.ConcurrentTransactions)
	case m.State == txnlog.Ongoing && !slices.ContainsFunc(req.Partitions, func(tp protocol.TopicPartition) bool { return !m.hasPartition(tp) }):
		// Already in the transaction: nothing to write.
		return all(protocol.None)
	}
	wasOngoing := m.State == txnlog.Ongoing
	t, err := m.prepareAddPartitions(req.Partitions, now, 2)
	if err != nil {
		res.event("IllegalStateException: %v", err)
		return all(protocol.CoordinatorNotAvailable)
	}
	p.appendTransactionToLog(m, t, &res, func(code protocol.ErrorCode, r *Result) {
		if code == protocol.None {
			if wasOngoing {
				r.event("transactional id %s: added %s to its transaction", req.TransactionalID, tpList(req.Partitions))
			} else {
				r.event("transactional id %s: transaction started (producer id %d, epoch %d) with %s; it times out after %d ms",
					req.TransactionalID, m.ProducerID, m.ProducerEpoch, tpList(req.Partitions), m.TxnTimeoutMs)
			}
		}
		answer(r, func(protocol.TopicPartition) protocol.ErrorCode { return code })
	})
	return res
}
