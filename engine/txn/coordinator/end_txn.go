package coordinator

import (
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// endTxnCallback gets the answer of endTransaction: the error and, on
// success, the producer id and epoch the producer continues with.
type endTxnCallback func(code protocol.ErrorCode, pid int64, epoch int16, res *Result)

// EndTxn is TransactionCoordinator.handleEndTransaction for a transaction
// version 2 client: commit or abort, answered once the PrepareCommit or
// PrepareAbort record is committed, with the bumped epoch; the markers
// follow. newPID: see InitProducerID (needed when the epoch ran out).
func (p *Partition) EndTxn(now int64, ref uint64, req protocol.EndTxnRequest, newPID int64) Result {
	var res Result
	need := p.endTransaction(now, req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Committed, true, 2, newPID, &res,
		func(code protocol.ErrorCode, pid int64, epoch int16, r *Result) {
			r.Replies = append(r.Replies, Reply{Ref: ref, Msg: protocol.EndTxnResponse{CorrelationID: req.CorrelationID,
				Error: code, ProducerID: pid, ProducerEpoch: epoch}})
		})
	if need {
		return Result{NeedProducerID: true}
	}
	return res
}

// endTransaction is TransactionCoordinator.endTransaction, for a client's
// EndTxn (fromClient) and for the coordinator's own aborts (a fence, a
// timeout), which come with the fenced epoch while PrepareEpochFence is
// pending. It reports true, changing nothing, when it needs a new producer
// id and newPID is none.
func (p *Partition) endTransaction(now int64, txnID string, pid int64, epoch int16, commit, fromClient bool, clientTV int16,
	newPID int64, res *Result, cb endTxnCallback) (needPID bool) {
	fail := func(code protocol.ErrorCode) bool {
		cb(code, protocol.NoProducerID, protocol.NoProducerEpoch, res)
		return false
	}
	if txnID == "" {
		return fail(protocol.InvalidRequest)
	}
	m := p.txns[txnID]
	if m == nil {
		return fail(protocol.InvalidProducerIDMapping)
	}
	result := "ABORT"
	if commit {
		result = "COMMIT"
	}
	// The coordinator's own abort of an Ongoing transaction; it bumps the
	// epoch its own way.
	isEpochFence := m.pending && m.pendingTo == txnlog.PrepareEpochFence
	// A retry of an EndTxn that bumped the epoch past its limit: the
	// producer moved to a new id at epoch 0.
	retryOnOverflow := !isEpochFence && m.PreviousProducerID == pid && epoch == maxEpoch-1 && m.ProducerEpoch == 0
	// A retry of an EndTxn whose epoch bump is already done.
	retryOnEpochBump := !isEpochFence && int32(m.ProducerEpoch) == int32(epoch)+1
	var validEpoch bool
	if !isEpochFence {
		// TV2: the same epoch means the next transaction's EndTxn, not a
		// retry; a retry is recognized by the bumped epoch only.
		switch m.State {
		case txnlog.PrepareCommit, txnlog.PrepareAbort:
			validEpoch = retryOnEpochBump
		case txnlog.CompleteCommit, txnlog.CompleteAbort:
			validEpoch = retryOnEpochBump || retryOnOverflow || epoch == m.ProducerEpoch
		default: // Ongoing, Empty, Dead, PrepareEpochFence
			validEpoch = epoch == m.ProducerEpoch
		}
	} else {
		validEpoch = (!fromClient || epoch == m.ProducerEpoch) && epoch >= m.ProducerEpoch
	}
	isRetry := retryOnEpochBump || retryOnOverflow
	invalidState := func() bool {
		res.event("transactional id %s is %s: EndTxn(%s) refused with INVALID_TXN_STATE", txnID, m.State, result)
		return fail(protocol.InvalidTxnState)
	}
	switch {
	case m.ProducerID != pid && !retryOnOverflow:
		return fail(protocol.InvalidProducerIDMapping)
	case !validEpoch:
		return fail(protocol.ProducerFenced)
	case m.pending && m.pendingTo != txnlog.PrepareEpochFence:
		return fail(protocol.ConcurrentTransactions)
	}
	var next txnlog.TransactionState
	noPartitionAdded := false
	switch m.State {
	case txnlog.Ongoing:
		next = txnlog.PrepareAbort
		if commit {
			next = txnlog.PrepareCommit
		}
	case txnlog.CompleteCommit, txnlog.CompleteAbort:
		done := (m.State == txnlog.CompleteCommit) == commit
		switch {
		case done && isRetry:
			// The retried EndTxn already did its work: success, with the
			// epoch it got.
			cb(protocol.None, m.ProducerID, m.ProducerEpoch, res)
			return false
		case commit || isRetry:
			return invalidState()
		}
		// TV2: an abort when unsure whether the last transaction ended.
		next, noPartitionAdded = txnlog.PrepareAbort, true
	case txnlog.PrepareCommit, txnlog.PrepareAbort:
		if (m.State == txnlog.PrepareCommit) == commit {
			return fail(protocol.ConcurrentTransactions)
		}
		return invalidState()
	case txnlog.Empty:
		if commit {
			return invalidState()
		}
		next, noPartitionAdded = txnlog.PrepareAbort, true
	default:
		res.event("IllegalStateException: Found transactionalId %s with state %s. This is illegal as we should never have transitioned to this state.", txnID, m.State)
		return fail(protocol.CoordinatorNotAvailable)
	}

	// generateTxnTransitMetadataForTxnCompletion.
	nextPID := protocol.NoProducerID
	if !isEpochFence && m.isEpochExhausted() {
		if newPID < 0 {
			return true
		}
		nextPID = newPID
	}
	if next == txnlog.PrepareAbort && isEpochFence {
		// Make way for PrepareAbort; the fenced epoch is current at once.
		m.pending = false
		m.ProducerEpoch, m.LastProducerEpoch = epoch, protocol.NoProducerEpoch
	}
	t, err := m.prepareAbortOrCommit(next, clientTV, nextPID, now, noPartitionAdded)
	if err != nil {
		res.event("IllegalStateException: %v", err)
		return fail(protocol.CoordinatorNotAvailable)
	}
	p.appendTransactionToLog(m, t, res, func(code protocol.ErrorCode, r *Result) {
		if code != protocol.None {
			if isEpochFence && code != protocol.NotCoordinator {
				// The bumped epoch was never returned to anyone: the next
				// fence must not bump it again.
				m.failedFence = true
			}
			cb(code, protocol.NoProducerID, protocol.NoProducerEpoch, r)
			return
		}
		// sendTxnMarkersCallback: still the same transaction?
		switch {
		case p.txns[txnID] != m:
			cb(protocol.NotCoordinator, protocol.NoProducerID, protocol.NoProducerEpoch, r)
			return
		case m.ProducerID != pid:
			cb(protocol.InvalidProducerIDMapping, protocol.NoProducerID, protocol.NoProducerEpoch, r)
			return
		case m.ProducerEpoch != epoch && int32(m.ProducerEpoch) != int32(epoch)+1:
			cb(protocol.ProducerFenced, protocol.NoProducerID, protocol.NoProducerEpoch, r)
			return
		case m.pending:
			cb(protocol.ConcurrentTransactions, protocol.NoProducerID, protocol.NoProducerEpoch, r)
			return
		}
		complete, err := m.prepareComplete(now)
		if err != nil {
			r.event("IllegalStateException: %v", err)
			cb(protocol.CoordinatorNotAvailable, protocol.NoProducerID, protocol.NoProducerEpoch, r)
			return
		}
		r.event("transactional id %s is %s (producer id %d, epoch %d): writing %s markers to %s",
			txnID, m.State, m.ProducerID, m.ProducerEpoch, result, partitionCount(len(m.Partitions)))
		// The producer continues with the complete state's id and epoch
		// (a new id at epoch 0 if this bump exhausted the epoch).
		cb(protocol.None, complete.ProducerID, complete.ProducerEpoch, r)
		p.addTxnMarkersToSend(m, complete, r)
	})
	return false
}
