package coordinator

import (
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// InitProducerID is TransactionCoordinator.handleInitProducerId for a
// transactional id: a new id gets a producer id at epoch 0, a known one an
// epoch bump (a new producer id once the epoch ran out); an Ongoing
// transaction of the previous instance is fenced and aborted first, and
// the caller gets CONCURRENT_TRANSACTIONS until that is done. newPID is a
// fresh producer id when the caller has one, NoProducerID otherwise (the
// Result then says NeedProducerID when one is needed).
func (p *Partition) InitProducerID(now int64, ref uint64, req protocol.InitProducerIdRequest, newPID int64) Result {
	var res Result
	fail := func(code protocol.ErrorCode) Result {
		res.Replies = append(res.Replies, Reply{Ref: ref, Msg: protocol.InitProducerIdResponse{CorrelationID: req.CorrelationID,
			Error: code, ProducerID: protocol.NoProducerID, ProducerEpoch: protocol.NoProducerEpoch}})
		return res
	}
	if req.TransactionalID == "" {
		return fail(protocol.InvalidRequest)
	}
	if req.TransactionTimeoutMs <= 0 || req.TransactionTimeoutMs > p.cfg.TransactionMaxTimeoutMs {
		// TransactionStateManager.validateTransactionTimeoutMs.
		return fail(protocol.InvalidTransactionTimeout)
	}
	// KafkaApis: a producer id and epoch come together or not at all.
	var expected *int16
	switch {
	case req.ProducerID == protocol.NoProducerID && req.ProducerEpoch == protocol.NoProducerEpoch:
	case req.ProducerID == protocol.NoProducerID || req.ProducerEpoch == protocol.NoProducerEpoch:
		return fail(protocol.InvalidRequest)
	default:
		e := req.ProducerEpoch
		expected = &e
	}
	m := p.txns[req.TransactionalID]
	if m == nil {
		if newPID < 0 {
			return Result{NeedProducerID: true}
		}
		// putTransactionStateIfNotExists: the id is known (Empty, epoch
		// -1) from now on, before its first record commits.
		m = newMetadata(req.TransactionalID, newPID, req.TransactionTimeoutMs, now)
		p.txns[req.TransactionalID] = m
		newPID = protocol.NoProducerID
		res.event("transactional id %s is new: producer id %d", req.TransactionalID, m.ProducerID)
	}

	// prepareInitProducerIdTransit.
	isValidProducerID := func() bool {
		// No epoch yet (just created), the current id, or a retry of a
		// bump that rotated the id after an exhausted epoch.
		return m.ProducerEpoch == protocol.NoProducerEpoch || req.ProducerID == m.ProducerID ||
			(req.ProducerID == m.PreviousProducerID && IsEpochExhausted(req.ProducerEpoch))
	}
	var t Transit
	switch {
	case m.pending:
		return fail(protocol.ConcurrentTransactions)
	case expected != nil && !isValidProducerID():
		return fail(protocol.ProducerFenced)
	}
	switch m.State {
	case txnlog.PrepareAbort, txnlog.PrepareCommit:
		return fail(protocol.ConcurrentTransactions)
	case txnlog.CompleteAbort, txnlog.CompleteCommit, txnlog.Empty:
		var err error
		if m.isEpochExhausted() && (expected == nil || *expected == m.ProducerEpoch) {
			if newPID < 0 {
				return Result{NeedProducerID: true}
			}
			t, err = m.prepareProducerIdRotation(newPID, req.TransactionTimeoutMs, now, expected != nil)
			res.event("transactional id %s: epoch %d of producer id %d is exhausted: moving to producer id %d",
				req.TransactionalID, m.ProducerEpoch, m.ProducerID, newPID)
		} else {
			var code protocol.ErrorCode
			t, code, err = m.prepareIncrementProducerEpoch(req.TransactionTimeoutMs, expected, now)
			if code != protocol.None {
				return fail(code)
			}
		}
		if err != nil {
			res.event("IllegalStateException: %v", err)
			return fail(protocol.CoordinatorNotAvailable)
		}
	case txnlog.Ongoing:
		// Fence the previous instance: bump the epoch and abort its
		// transaction. This epoch is never returned: the caller retries
		// after CONCURRENT_TRANSACTIONS and bumps it again.
		ft, err := m.prepareFenceProducerEpoch()
		if err != nil {
			res.event("IllegalStateException: %v", err)
			return fail(protocol.CoordinatorNotAvailable)
		}
		res.event("transactional id %s: a new instance fences producer id %d epoch %d and aborts its Ongoing transaction",
			req.TransactionalID, m.ProducerID, m.ProducerEpoch)
		p.endTransaction(now, req.TransactionalID, ft.ProducerID, ft.ProducerEpoch, false, false, p.cfg.TransactionVersion,
			protocol.NoProducerID, &res, func(code protocol.ErrorCode, _ int64, _ int16, r *Result) {
				if code == protocol.None {
					code = protocol.ConcurrentTransactions
				}
				r.Replies = append(r.Replies, Reply{Ref: ref, Msg: protocol.InitProducerIdResponse{CorrelationID: req.CorrelationID,
					Error: code, ProducerID: protocol.NoProducerID, ProducerEpoch: protocol.NoProducerEpoch}})
			})
		return res
	default: // Dead, PrepareEpochFence
		res.event("IllegalStateException: Found transactionalId %s with state %s. This is illegal as we should never have transitioned to this state.",
			req.TransactionalID, m.State)
		return fail(protocol.CoordinatorNotAvailable)
	}
	p.appendTransactionToLog(m, t, &res, func(code protocol.ErrorCode, r *Result) {
		msg := protocol.InitProducerIdResponse{CorrelationID: req.CorrelationID, Error: code,
			ProducerID: protocol.NoProducerID, ProducerEpoch: protocol.NoProducerEpoch}
		if code == protocol.None {
			msg.ProducerID, msg.ProducerEpoch = t.ProducerID, t.ProducerEpoch
			r.event("transactional id %s initialized: producer id %d, epoch %d", req.TransactionalID, t.ProducerID, t.ProducerEpoch)
		}
		r.Replies = append(r.Replies, Reply{Ref: ref, Msg: msg})
	})
	return res
}
