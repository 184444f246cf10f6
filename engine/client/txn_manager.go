package client

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/protocol"
)

// txnError is a Java exception the transaction manager keeps or hands to
// the application: its error (or client-side exception) and message.
type txnError struct {
	code    protocol.ErrorCode
	message string
}

func newTxnError(code protocol.ErrorCode) *txnError {
	return &txnError{code: code, message: errorMessage(code)}
}

// errorMessage is Errors.message(), the text of the exception a broker's
// error code becomes in the Java client.
func errorMessage(code protocol.ErrorCode) string {
	switch code {
	case protocol.OutOfOrderSequenceNumber:
		return "The broker received an out of order sequence number."
	case protocol.DuplicateSequenceNumber:
		return "The broker received a duplicate sequence number."
	case protocol.InvalidProducerEpoch:
		return "Producer attempted to produce with an old epoch."
	case protocol.InvalidTxnState:
		return "The producer attempted a transactional operation in an invalid state."
	case protocol.InvalidProducerIDMapping:
		return "The producer attempted to use a producer id which is not currently assigned to its transactional id."
	case protocol.InvalidTransactionTimeout:
		return "The transaction timeout is larger than the maximum value allowed by the broker (as configured by transaction.max.timeout.ms)."
	case protocol.ConcurrentTransactions:
		return "The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing."
	case protocol.ProducerFenced:
		return "There is a newer producer with the same transactionalId which fences the current one."
	case protocol.TransactionAbortable:
		return "The server encountered an error with the transaction. The client can abort the transaction to continue using this transactional ID."
	case protocol.IllegalGeneration:
		return "Specified group generation id is not valid."
	case protocol.UnknownMemberID:
		return "The coordinator is not aware of this member."
	case protocol.FencedInstanceID:
		return "The broker rejected this static consumer since another consumer with the same group.instance.id has registered with a different member.id."
	case protocol.TransactionAborted:
		return "Failing batch since transaction was aborted"
	}
	return ""
}

// TxnOp is TransactionalRequestResult: the outcome of initTransactions,
// commitTransaction, abortTransaction or sendOffsetsToTransaction, which
// Java's caller blocks on. Message is the Java exception's text.
type TxnOp struct {
	Done    bool
	Err     protocol.ErrorCode
	Message string
}

func (o *TxnOp) done() {
	if !o.Done {
		o.Done = true
	}
}

func (o *TxnOp) fail(e *txnError) {
	if !o.Done {
		o.Done, o.Err, o.Message = true, e.code, e.message
	}
}

// failedOp is a call that threw before anything was sent.
func failedOp(e *txnError) *TxnOp {
	op := &TxnOp{}
	op.fail(e)
	return op
}

type txnRequestKind int

const (
	reqFindCoordinator txnRequestKind = iota
	reqInitProducerID
	reqTxnOffsetCommit
	reqEndTxn
)

// TxnRequestHandler.Priority: FindCoordinator first, then InitProducerId,
// then offsets, EndTxn last, except an epoch bump's InitProducerId which
// follows the EndTxn it completes.
const (
	priorityFindCoordinator = iota
	priorityInitProducerID
	priorityAddPartitionsOrOffsets
	priorityEndTxn
	priorityEpochBump
)

const noCoordinator int8 = -1

// txnRequest is a TxnRequestHandler: one request the sender must get
// answered, with what it was asked with (Kafka builds the request once and
// resends the same builder on retry).
type txnRequest struct {
	kind      txnRequestKind
	op        *TxnOp
	priority  int
	order     int // enqueue order among equal priorities
	isRetry   bool
	epochBump bool
	coordType int8 // noCoordinator: any broker (the least loaded)
	coordKey  string
	find      protocol.FindCoordinatorRequest
	init      protocol.InitProducerIdRequest
	end       protocol.EndTxnRequest
	group     ConsumerGroupMetadata
	pe        producerIDAndEpoch // of a TxnOffsetCommit
	// sentTo is the broker the request went to, corr its correlation id.
	sentTo int32
	corr   int64
}

func (r *txnRequest) needsCoordinator() bool { return r.coordType != noCoordinator }

type pendingTransition struct {
	op        *TxnOp
	state     TxnState
	operation string
}

type unresolvedSequence struct {
	tp   protocol.TopicPartition
	next int32
}

// transactionManager is Kafka 4.x's TransactionManager for an idempotent
// or transactional producer with transaction.version=2: the producer id
// and epoch, the per-partition sequences, the state machine and the queue
// of requests to the coordinators. It decides; the Producer sends.
type transactionManager struct {
	txnID     string
	timeoutMs int32
	events    func(string)

	state   TxnState
	lastErr *txnError
	pe      producerIDAndEpoch

	parts              []*partitionSequences
	unresolved         []unresolvedSequence
	toRewrite          []protocol.TopicPartition
	epochBumpRequired  bool
	transactionStarted bool
	inTxn              []protocol.TopicPartition

	pending           []*txnRequest
	inFlight          *txnRequest
	order             int
	coordinators      [2]int32 // by key type (group, transaction); -1 unknown
	pendingTransition *pendingTransition
	pendingOffsets    []protocol.OffsetCommitPartition
}

func newTransactionManager(txnID string, timeoutMs int32, events func(string)) *transactionManager {
	return &transactionManager{txnID: txnID, timeoutMs: timeoutMs, events: events, pe: noProducerIDAndEpoch, coordinators: [2]int32{-1, -1}}
}

func (tm *transactionManager) isTransactional() bool { return tm.txnID != "" }
func (tm *transactionManager) hasProducerID() bool   { return tm.pe.valid() }
func (tm *transactionManager) hasFatalError() bool   { return tm.state == TxnFatalError }
func (tm *transactionManager) hasAbortableError() bool {
	return tm.state == TxnAbortableError
}
func (tm *transactionManager) hasError() bool { return tm.hasFatalError() || tm.hasAbortableError() }
func (tm *transactionManager) isCompleting() bool {
	return tm.state == TxnCommitting || tm.state == TxnAborting
}
func (tm *transactionManager) isAborting() bool { return tm.state == TxnAborting }

func (tm *transactionManager) idString() string {
	if tm.txnID == "" {
		return ""
	}
	return "TransactionalId " + tm.txnID + ": "
}

// transitionTo is TransactionManager.transitionTo. An invalid move from an
// application call is an IllegalStateException; from the sender (poison)
// it also makes the producer's state fatal.
func (tm *transactionManager) transitionTo(target TxnState, cause *txnError, poison bool) *txnError {
	if !transitionValid(tm.state, target) {
		e := &txnError{protocol.IllegalState, tm.idString() + "Invalid transition attempted from state " + tm.state.String() + " to state " + target.String()}
		if poison {
			tm.state, tm.lastErr = TxnFatalError, e
		}
		return e
	}
	if target == TxnFatalError || target == TxnAbortableError {
		tm.lastErr = cause
	} else {
		tm.lastErr = nil
	}
	if tm.state != target && tm.events != nil && tm.isTransactional() {
		tm.events(fmt.Sprintf("transactional.id %s: %s -> %s", tm.txnID, tm.state, target))
	}
	tm.state = target
	return nil
}

func (tm *transactionManager) ensureTransactional() *txnError {
	if !tm.isTransactional() {
		return &txnError{protocol.IllegalState, "Transactional method invoked on a non-transactional producer."}
	}
	return nil
}

// maybeFailWithError is what a call made in an error state throws.
func (tm *transactionManager) maybeFailWithError() *txnError {
	if !tm.hasError() {
		return nil
	}
	switch tm.lastErr.code {
	case protocol.ProducerFenced:
		return &txnError{protocol.ProducerFenced, fmt.Sprintf("Producer with transactionalId '%s' and %s has been fenced by another producer with the same transactionalId", tm.txnID, tm.pe)}
	case protocol.InvalidProducerEpoch:
		return &txnError{protocol.InvalidProducerEpoch, fmt.Sprintf("Producer with transactionalId '%s' and %s attempted to produce with an old epoch", tm.txnID, tm.pe)}
	}
	// Java wraps the cause: KafkaException("Cannot execute transactional
	// method because we are in an error state", lastError).
	return &txnError{protocol.KafkaException, "Cannot execute transactional method because we are in an error state; caused by " + tm.lastErr.code.Name() + ": " + tm.lastErr.message}
}

func (tm *transactionManager) throwIfPendingState(operation string) *txnError {
	if tm.pendingTransition == nil {
		return nil
	}
	if tm.pendingTransition.op.Done {
		tm.pendingTransition = nil
		return nil
	}
	return &txnError{protocol.IllegalState, "Cannot attempt operation `" + operation + "` because the previous call to `" + tm.pendingTransition.operation + "` timed out and must be retried"}
}

// handleCachedTransactionRequestResult: a call repeated while its first
// attempt is still under way gets the same result; a different call is
// refused until it completes. (Java reaches this after a call timed out
// waiting; loglab's calls never block, so any call still under way counts.)
func (tm *transactionManager) handleCached(next TxnState, operation string, start func() (*TxnOp, *txnError)) *TxnOp {
	if e := tm.ensureTransactional(); e != nil {
		return failedOp(e)
	}
	if pt := tm.pendingTransition; pt != nil {
		switch {
		case pt.op.Done:
			tm.pendingTransition = nil
		case next != pt.state:
			return failedOp(&txnError{protocol.IllegalState, "Cannot attempt operation `" + operation + "` because the previous call to `" + pt.operation + "` timed out and must be retried"})
		default:
			return pt.op
		}
	}
	op, e := start()
	if e != nil {
		return failedOp(e)
	}
	tm.pendingTransition = &pendingTransition{op: op, state: next, operation: operation}
	return op
}

func (tm *transactionManager) enqueue(r *txnRequest) {
	if r.order == 0 {
		tm.order++
		r.order = tm.order
	}
	tm.pending = append(tm.pending, r)
	slices.SortStableFunc(tm.pending, func(a, b *txnRequest) int {
		if a.priority != b.priority {
			return a.priority - b.priority
		}
		return a.order - b.order
	})
}

// initializeTransactions: InitProducerId to the transaction coordinator.
// With a producer id and epoch it is the epoch bump that ends an aborted
// transaction; without, the first call (state INITIALIZING).
func (tm *transactionManager) initializeTransactions(pe producerIDAndEpoch) *TxnOp {
	bump := pe != noProducerIDAndEpoch
	return tm.handleCached(TxnInitializing, "initTransactions", func() (*TxnOp, *txnError) {
		if e := tm.maybeFailWithError(); e != nil {
			return nil, e
		}
		if !bump {
			if e := tm.transitionTo(TxnInitializing, nil, false); e != nil {
				return nil, e
			}
		}
		return tm.enqueueInitProducerID(pe, bump), nil
	})
}

func (tm *transactionManager) enqueueInitProducerID(pe producerIDAndEpoch, bump bool) *TxnOp {
	r := &txnRequest{kind: reqInitProducerID, op: &TxnOp{}, priority: priorityInitProducerID, epochBump: bump, coordType: noCoordinator,
		init: protocol.InitProducerIdRequest{TransactionalID: tm.txnID, TransactionTimeoutMs: tm.timeoutMs, ProducerID: pe.id, ProducerEpoch: pe.epoch}}
	if bump {
		r.priority = priorityEpochBump
	}
	if tm.isTransactional() {
		r.coordType, r.coordKey = protocol.CoordinatorTypeTransaction, tm.txnID
	} else {
		// An idempotent producer's transaction timeout is Integer.MAX_VALUE.
		r.init.TransactionTimeoutMs = 1<<31 - 1
	}
	tm.enqueue(r)
	return r.op
}

func (tm *transactionManager) beginTransaction() *txnError {
	if e := tm.ensureTransactional(); e != nil {
		return e
	}
	if e := tm.throwIfPendingState("beginTransaction"); e != nil {
		return e
	}
	if e := tm.maybeFailWithError(); e != nil {
		return e
	}
	return tm.transitionTo(TxnInTransaction, nil, false)
}

func (tm *transactionManager) beginCommit() *TxnOp {
	return tm.handleCached(TxnCommitting, "commitTransaction", func() (*TxnOp, *txnError) {
		if e := tm.maybeFailWithError(); e != nil {
			return nil, e
		}
		if e := tm.transitionTo(TxnCommitting, nil, false); e != nil {
			return nil, e
		}
		return tm.beginCompletingTransaction(true), nil
	})
}

func (tm *transactionManager) beginAbort() *TxnOp {
	return tm.handleCached(TxnAborting, "abortTransaction", func() (*TxnOp, *txnError) {
		if tm.state != TxnAbortableError {
			if e := tm.maybeFailWithError(); e != nil {
				return nil, e
			}
		}
		if e := tm.transitionTo(TxnAborting, nil, false); e != nil {
			return nil, e
		}
		return tm.beginCompletingTransaction(false), nil
	})
}

// beginCompletingTransaction queues the EndTxn, which the sender holds
// back until every batch of the transaction is complete. After an
// INVALID_PRODUCER_ID_MAPPING the coordinator would refuse it: straight to
// InitProducerId. With transaction version 2 the EndTxn itself bumps the
// epoch, so no client-side bump follows it.
func (tm *transactionManager) beginCompletingTransaction(committed bool) *TxnOp {
	if tm.lastErr == nil || tm.lastErr.code != protocol.InvalidProducerIDMapping {
		r := &txnRequest{kind: reqEndTxn, op: &TxnOp{}, priority: priorityEndTxn, coordType: protocol.CoordinatorTypeTransaction, coordKey: tm.txnID,
			end: protocol.EndTxnRequest{TransactionalID: tm.txnID, ProducerID: tm.pe.id, ProducerEpoch: tm.pe.epoch, Committed: committed}}
		tm.enqueue(r)
		if !tm.epochBumpRequired {
			return r.op
		}
	}
	return tm.enqueueInitProducerID(tm.pe, true)
}

// sendOffsetsToTransaction, transaction version 2: no AddOffsetsToTxn, the
// TxnOffsetCommit goes straight to the group coordinator, which adds its
// __consumer_offsets partition to the transaction.
func (tm *transactionManager) sendOffsetsToTransaction(offsets []protocol.OffsetCommitPartition, g ConsumerGroupMetadata) *TxnOp {
	if e := tm.ensureTransactional(); e != nil {
		return failedOp(e)
	}
	if e := tm.throwIfPendingState("sendOffsetsToTransaction"); e != nil {
		return failedOp(e)
	}
	if e := tm.maybeFailWithError(); e != nil {
		return failedOp(e)
	}
	if tm.state != TxnInTransaction {
		return failedOp(&txnError{protocol.IllegalState, "Cannot send offsets if a transaction is not in progress (currentState= " + tm.state.String() + ")"})
	}
	for _, o := range offsets {
		i := slices.IndexFunc(tm.pendingOffsets, func(x protocol.OffsetCommitPartition) bool { return x.TP == o.TP })
		if i >= 0 {
			tm.pendingOffsets[i] = o
		} else {
			tm.pendingOffsets = append(tm.pendingOffsets, o)
		}
	}
	r := &txnRequest{kind: reqTxnOffsetCommit, op: &TxnOp{}, priority: priorityAddPartitionsOrOffsets, coordType: protocol.CoordinatorTypeGroup, coordKey: g.GroupID, group: g, pe: tm.pe}
	tm.transactionStarted = true
	tm.enqueue(r)
	return r.op
}

// maybeAddPartition is called by send() once the partition is known. With
// transaction version 2 the partition is in the transaction at once: the
// partition leader adds it at the coordinator when the batch arrives.
//
// sentInTxn: Send was called inside the transaction. Java's send() blocks
// while it waits for metadata, so commitTransaction cannot come before the
// record is added; loglab's Send returns at once, so a record sent in the
// transaction still joins it if the commit started meanwhile.
func (tm *transactionManager) maybeAddPartition(tp protocol.TopicPartition, sentInTxn bool) *txnError {
	if e := tm.maybeFailWithError(); e != nil {
		return e
	}
	if !sentInTxn {
		if e := tm.throwIfPendingState("send"); e != nil {
			return e
		}
	}
	if !tm.isTransactional() {
		return nil
	}
	name := fmt.Sprintf("%s-%d", tp.Topic, tp.Partition)
	switch {
	case !tm.hasProducerID():
		return &txnError{protocol.IllegalState, "Cannot add partition " + name + " to transaction before completing a call to initTransactions"}
	case tm.state != TxnInTransaction && !(sentInTxn && tm.state == TxnCommitting):
		// Kafka's message has the two spaces.
		return &txnError{protocol.IllegalState, "Cannot add partition " + name + " to transaction while in state  " + tm.state.String()}
	}
	tm.entry(tp)
	if !slices.Contains(tm.inTxn, tp) {
		tm.inTxn = append(tm.inTxn, tp)
	}
	tm.transactionStarted = true
	return nil
}

func (tm *transactionManager) isSendToPartitionAllowed(tp protocol.TopicPartition) bool {
	if tm.hasFatalError() {
		return false
	}
	return !tm.isTransactional() || slices.Contains(tm.inTxn, tp)
}

func (tm *transactionManager) transitionToAbortableError(e *txnError) {
	if tm.state == TxnAborting {
		return // already being aborted
	}
	if err := tm.transitionTo(TxnAbortableError, e, true); err != nil {
		return
	}
	if tm.events != nil {
		tm.events(fmt.Sprintf("transactional.id %s: abortable error %s: %s", tm.txnID, e.code.Name(), e.message))
	}
}

func (tm *transactionManager) transitionToFatalError(e *txnError) {
	tm.transitionTo(TxnFatalError, e, true)
	if tm.pendingTransition != nil {
		tm.pendingTransition.op.fail(e)
	}
}

// entry is TxnPartitionMap.getOrCreate.
func (tm *transactionManager) entry(tp protocol.TopicPartition) *partitionSequences {
	for _, e := range tm.parts {
		if e.tp == tp {
			return e
		}
	}
	e := newPartitionSequences(tp)
	tm.parts = append(tm.parts, e)
	return e
}

func (tm *transactionManager) lookup(tp protocol.TopicPartition) *partitionSequences {
	for _, e := range tm.parts {
		if e.tp == tp {
			return e
		}
	}
	return nil
}

// maybeUpdateProducerIdAndEpoch: a partition whose numbering belongs to an
// older id or epoch starts again from 0 once nothing of it is in flight.
func (tm *transactionManager) maybeUpdateProducerIdAndEpoch(tp protocol.TopicPartition) {
	if tm.hasFatalError() {
		return
	}
	if tm.hasStaleProducerIdAndEpoch(tp) && !tm.hasInflightBatches(tp) {
		tm.entry(tp).startSequencesAtBeginning(tm.pe)
	}
}

func (tm *transactionManager) resetSequenceForPartition(tp protocol.TopicPartition) {
	tm.parts = slices.DeleteFunc(tm.parts, func(e *partitionSequences) bool { return e.tp == tp })
	tm.unresolved = slices.DeleteFunc(tm.unresolved, func(u unresolvedSequence) bool { return u.tp == tp })
}

func (tm *transactionManager) resetSequenceNumbers() {
	tm.parts, tm.unresolved = nil, nil
}

func (tm *transactionManager) requestEpochBumpForPartition(tp protocol.TopicPartition) {
	tm.epochBumpRequired = true
	if !slices.Contains(tm.toRewrite, tp) {
		tm.toRewrite = append(tm.toRewrite, tp)
	}
}

// bumpIdempotentProducerEpoch: KIP-360's bump for an idempotent producer
// is local, no request: the broker accepts the higher epoch from sequence
// 0. The partitions that asked for it renumber their in-flight batches.
func (tm *transactionManager) bumpIdempotentProducerEpoch() {
	if tm.pe.epoch == 1<<15-1 {
		// resetIdempotentProducerId: a new producer id instead.
		tm.pe = noProducerIDAndEpoch
		tm.transitionTo(TxnUninitialized, nil, true)
	} else {
		tm.pe.epoch++
		if tm.events != nil {
			tm.events(fmt.Sprintf("idempotent producer %d: bumping its epoch to %d and renumbering sequences from 0 (KIP-360)", tm.pe.id, tm.pe.epoch))
		}
	}
	for _, tp := range tm.toRewrite {
		if e := tm.lookup(tp); e != nil {
			e.startSequencesAtBeginning(tm.pe)
		}
		tm.unresolved = slices.DeleteFunc(tm.unresolved, func(u unresolvedSequence) bool { return u.tp == tp })
	}
	tm.toRewrite = nil
	tm.epochBumpRequired = false
}

// bumpIdempotentEpochAndResetIdIfNeeded runs at each sender loop: an
// idempotent producer without a producer id asks any broker for one.
func (tm *transactionManager) bumpIdempotentEpochAndResetIdIfNeeded() {
	if tm.isTransactional() {
		return
	}
	if tm.epochBumpRequired {
		tm.bumpIdempotentProducerEpoch()
	}
	if tm.state != TxnInitializing && !tm.hasProducerID() {
		tm.transitionTo(TxnInitializing, nil, true)
		tm.enqueueInitProducerID(noProducerIDAndEpoch, false)
	}
}

func (tm *transactionManager) sequenceNumber(tp protocol.TopicPartition) int32 {
	return tm.entry(tp).nextSequence
}

func (tm *transactionManager) incrementSequenceNumber(tp protocol.TopicPartition, n int) {
	e := tm.entry(tp)
	e.nextSequence = incrementSequence(e.nextSequence, n)
}

func (tm *transactionManager) addInFlightBatch(b *producerBatch) { tm.entry(b.tp).addInFlight(b) }

func (tm *transactionManager) removeInFlightBatch(b *producerBatch) {
	if e := tm.lookup(b.tp); e != nil {
		e.removeInFlight(b)
	}
}

func (tm *transactionManager) firstInFlightSequence(tp protocol.TopicPartition) int32 {
	return tm.entry(tp).firstInFlightSequence()
}

func (tm *transactionManager) hasInflightBatches(tp protocol.TopicPartition) bool {
	return len(tm.entry(tp).inFlight) > 0
}

func (tm *transactionManager) hasStaleProducerIdAndEpoch(tp protocol.TopicPartition) bool {
	return tm.pe != tm.entry(tp).pe
}

func (tm *transactionManager) lastAckedSequence(tp protocol.TopicPartition) int32 {
	if e := tm.lookup(tp); e != nil {
		return e.lastAcked
	}
	return noLastAckedSequence
}

func (tm *transactionManager) isNextSequence(tp protocol.TopicPartition, seq int32) bool {
	return int64(seq)-int64(tm.lastAckedSequence(tp)) == 1
}

func (tm *transactionManager) unresolvedIndex(tp protocol.TopicPartition) int {
	return slices.IndexFunc(tm.unresolved, func(u unresolvedSequence) bool { return u.tp == tp })
}

func (tm *transactionManager) hasUnresolvedSequence(tp protocol.TopicPartition) bool {
	return tm.unresolvedIndex(tp) >= 0
}

func (tm *transactionManager) isNextSequenceForUnresolvedPartition(tp protocol.TopicPartition, seq int32) bool {
	i := tm.unresolvedIndex(tp)
	return i >= 0 && tm.unresolved[i].next == seq
}

// markSequenceUnresolved: a batch expired by delivery.timeout.ms after it
// was retried may or may not be in the log; nothing new goes to its
// partition until the batches in flight tell.
func (tm *transactionManager) markSequenceUnresolved(b *producerBatch) {
	next := b.lastSequence() + 1
	if i := tm.unresolvedIndex(b.tp); i >= 0 {
		tm.unresolved[i].next = max(tm.unresolved[i].next, next)
		return
	}
	tm.unresolved = append(tm.unresolved, unresolvedSequence{b.tp, next})
}

// maybeResolveSequences: once nothing is in flight to an unresolved
// partition, either the acknowledged sequence caught up (resolved) or a
// sequence is lost for good: an idempotent producer bumps its epoch, a
// transactional one must abort.
func (tm *transactionManager) maybeResolveSequences() {
	var keep []unresolvedSequence
	for _, u := range tm.unresolved {
		if tm.hasInflightBatches(u.tp) {
			keep = append(keep, u)
			continue
		}
		if tm.isNextSequence(u.tp, tm.sequenceNumber(u.tp)) {
			continue
		}
		const msg = "The client hasn't received acknowledgment for some previously sent messages and can no longer retry them. "
		if tm.isTransactional() {
			// Transaction version 2: the EndTxn of the abort bumps the epoch.
			tm.transitionToAbortableError(&txnError{protocol.KafkaException, msg + "It is safe to abort the transaction and continue."})
		} else {
			tm.requestEpochBumpForPartition(u.tp)
		}
	}
	tm.unresolved = keep
}

// handleCompletedBatch records the batch's last sequence as acknowledged.
func (tm *transactionManager) handleCompletedBatch(b *producerBatch, baseOffset int64) {
	e := tm.lookup(b.tp)
	if e == nil {
		if tm.isTransactional() {
			return
		}
		e = tm.entry(b.tp)
	}
	if last := b.lastSequence(); last > e.lastAcked {
		e.lastAcked = last
	}
	if baseOffset >= 0 {
		e.lastAckedOffset = max(e.lastAckedOffset, baseOffset+int64(len(b.records))-1)
	}
	e.removeInFlight(b)
}

// maybeTransitionToErrorState: a fenced producer is done for; any failed
// batch of a transaction makes the transaction abortable (with transaction
// version 2 no client-side epoch bump: the abort's EndTxn bumps it).
func (tm *transactionManager) maybeTransitionToErrorState(e *txnError) {
	if e.code == protocol.ProducerFenced || e.code == protocol.InvalidProducerIDMapping {
		tm.transitionToFatalError(e)
	} else if tm.isTransactional() {
		tm.transitionToAbortableError(e)
	}
}

// handleFailedBatch: adjust is false when the batch ran out of retries or
// time (it may be in the log, its sequence must not be reused).
func (tm *transactionManager) handleFailedBatch(b *producerBatch, e *txnError, adjust bool) {
	tm.maybeTransitionToErrorState(e)
	tm.removeInFlightBatch(b)
	if tm.hasFatalError() {
		return
	}
	switch {
	case e.code == protocol.OutOfOrderSequenceNumber && !tm.isTransactional():
		tm.requestEpochBumpForPartition(b.tp)
	case e.code == protocol.UnknownProducerID:
		tm.resetSequenceForPartition(b.tp)
	case adjust:
		if !tm.isTransactional() {
			tm.requestEpochBumpForPartition(b.tp)
		} else if en := tm.lookup(b.tp); en != nil {
			en.adjustSequencesDueToFailedBatch(b)
		}
	}
}

// canRetry is TransactionManager.canRetry for a produce error.
// OUT_OF_ORDER_SEQUENCE_NUMBER for a batch that is not the next one after
// the last acknowledged means an earlier batch failed and is being
// retried: this one just waits its turn. For the next batch it is a real
// gap: an idempotent producer bumps its epoch and retries.
func (tm *transactionManager) canRetry(code protocol.ErrorCode, logStartOffset int64, b *producerBatch) bool {
	switch code {
	case protocol.UnknownProducerID:
		if logStartOffset == -1 || b.sequenceReset {
			return true
		}
		if e := tm.lookup(b.tp); e == nil || e.lastAckedOffset < logStartOffset {
			if tm.isTransactional() {
				tm.entry(b.tp).startSequencesAtBeginning(tm.pe)
			} else {
				tm.requestEpochBumpForPartition(b.tp)
			}
			return true
		}
		if !tm.isTransactional() {
			tm.requestEpochBumpForPartition(b.tp)
			return true
		}
	case protocol.OutOfOrderSequenceNumber:
		if !tm.hasUnresolvedSequence(b.tp) && (b.sequenceReset || !tm.isNextSequence(b.tp, b.baseSequence)) {
			return true
		}
		if !tm.isTransactional() {
			if !tm.hasUnresolvedSequence(b.tp) || tm.isNextSequenceForUnresolvedPartition(b.tp, b.baseSequence) {
				tm.requestEpochBumpForPartition(b.tp)
			}
			return true
		}
	}
	return code.Retriable()
}

// nextRequest is the request the sender may send now, if any. The EndTxn
// waits until every batch is complete: committing flushes.
func (tm *transactionManager) nextRequest(hasIncompleteBatches bool) *txnRequest {
	if len(tm.pending) == 0 {
		return nil
	}
	r := tm.pending[0]
	if r.kind == reqEndTxn && hasIncompleteBatches {
		return nil
	}
	tm.pending = tm.pending[1:]
	if tm.maybeTerminateRequestWithError(r) {
		return nil
	}
	if r.kind == reqEndTxn && !tm.transactionStarted {
		// Nothing was sent in this transaction: no EndTxn.
		r.op.done()
		if tm.state != TxnFatalError {
			tm.completeTransaction()
		}
		if len(tm.pending) == 0 {
			return nil
		}
		r = tm.pending[0]
		tm.pending = tm.pending[1:]
	}
	return r
}

func (tm *transactionManager) maybeTerminateRequestWithError(r *txnRequest) bool {
	if !tm.hasError() {
		return false
	}
	if tm.hasAbortableError() && r.kind == reqFindCoordinator {
		return false // no harm finding the coordinator before aborting
	}
	r.op.fail(tm.lastErr)
	return true
}

func (tm *transactionManager) retry(r *txnRequest) {
	r.isRetry = true
	tm.enqueue(r)
}

// lookupCoordinator forgets the coordinator and queues a FindCoordinator.
func (tm *transactionManager) lookupCoordinator(keyType int8, key string) {
	tm.coordinators[keyType] = -1
	tm.enqueue(&txnRequest{kind: reqFindCoordinator, op: &TxnOp{}, priority: priorityFindCoordinator, coordType: noCoordinator,
		find: protocol.FindCoordinatorRequest{KeyType: keyType, Key: key}})
}

func (tm *transactionManager) completeTransaction() {
	if tm.epochBumpRequired {
		tm.transitionTo(TxnInitializing, nil, true)
	} else {
		tm.transitionTo(TxnReady, nil, true)
	}
	tm.lastErr = nil
	tm.epochBumpRequired = false
	tm.transactionStarted = false
	tm.inTxn = nil
}

func (tm *transactionManager) fatalError(r *txnRequest, e *txnError) {
	r.op.fail(e)
	tm.transitionToFatalError(e)
}

func (tm *transactionManager) abortableError(r *txnRequest, e *txnError) {
	r.op.fail(e)
	tm.transitionToAbortableError(e)
}

func (tm *transactionManager) reenqueue(r *txnRequest) {
	r.isRetry = true
	tm.enqueue(r)
}

// disconnected: the request got no answer (the broker died or the request
// timed out): find the coordinator again if it needs one, and retry.
func (tm *transactionManager) disconnected(r *txnRequest) {
	if r.needsCoordinator() {
		tm.lookupCoordinator(r.coordType, r.coordKey)
	}
	tm.reenqueue(r)
}

// handleFindCoordinator is FindCoordinatorHandler.handleResponse.
func (tm *transactionManager) handleFindCoordinator(r *txnRequest, m protocol.FindCoordinatorResponse) {
	switch {
	case m.Error == protocol.None:
		tm.coordinators[r.find.KeyType] = m.NodeID
		r.op.done()
	case m.Error.Retriable():
		tm.reenqueue(r)
	case m.Error == protocol.TransactionAbortable:
		tm.abortableError(r, newTxnError(m.Error))
	default:
		kind := "GROUP"
		if r.find.KeyType == protocol.CoordinatorTypeTransaction {
			kind = "TRANSACTION"
		}
		tm.fatalError(r, &txnError{protocol.KafkaException, fmt.Sprintf("Could not find a coordinator with type %s with key %s due to unexpected error: %s", kind, r.find.Key, m.Error.Name())})
	}
}

// handleInitProducerID is InitProducerIdHandler.handleResponse.
func (tm *transactionManager) handleInitProducerID(r *txnRequest, m protocol.InitProducerIdResponse) {
	switch {
	case m.Error == protocol.None:
		tm.pe = producerIDAndEpoch{m.ProducerID, m.ProducerEpoch}
		tm.transitionTo(TxnReady, nil, true)
		tm.lastErr = nil
		if r.epochBump {
			tm.resetSequenceNumbers()
		}
		r.op.done()
	case m.Error == protocol.NotCoordinator || m.Error == protocol.CoordinatorNotAvailable:
		tm.lookupCoordinator(protocol.CoordinatorTypeTransaction, tm.txnID)
		tm.reenqueue(r)
	case m.Error.Retriable():
		tm.reenqueue(r)
	case m.Error == protocol.InvalidProducerEpoch || m.Error == protocol.ProducerFenced:
		tm.fatalError(r, newTxnError(protocol.ProducerFenced))
	case m.Error == protocol.TransactionAbortable:
		tm.abortableError(r, newTxnError(m.Error))
	default:
		tm.fatalError(r, &txnError{protocol.KafkaException, "Unexpected error in InitProducerIdResponse; " + messageOrName(m.Error)})
	}
}

// handleEndTxn is EndTxnHandler.handleResponse with transaction version 2:
// the answer carries the epoch (or new producer id) for the next
// transaction, whose sequences start at 0.
func (tm *transactionManager) handleEndTxn(r *txnRequest, m protocol.EndTxnResponse) {
	switch {
	case m.Error == protocol.None:
		if m.ProducerID != protocol.NoProducerID {
			tm.pe = producerIDAndEpoch{m.ProducerID, m.ProducerEpoch}
			tm.resetSequenceNumbers()
		}
		tm.completeTransaction()
		r.op.done()
	case m.Error == protocol.CoordinatorNotAvailable || m.Error == protocol.NotCoordinator:
		tm.lookupCoordinator(protocol.CoordinatorTypeTransaction, tm.txnID)
		tm.reenqueue(r)
	case m.Error.Retriable():
		tm.reenqueue(r)
	case m.Error == protocol.InvalidProducerEpoch || m.Error == protocol.ProducerFenced:
		tm.fatalError(r, newTxnError(protocol.ProducerFenced))
	case m.Error == protocol.InvalidTxnState || m.Error == protocol.InvalidProducerIDMapping:
		tm.fatalError(r, newTxnError(m.Error))
	case m.Error == protocol.UnknownProducerID:
		// abortableErrorIfPossible: with transaction version 2 the abort's
		// EndTxn bumps the epoch, so no client-side bump is needed.
		tm.abortableError(r, newTxnError(m.Error))
	case m.Error == protocol.TransactionAbortable:
		tm.abortableError(r, newTxnError(m.Error))
	default:
		tm.fatalError(r, &txnError{protocol.KafkaException, "Unhandled error in EndTxnResponse: " + messageOrName(m.Error)})
	}
}

// handleTxnOffsetCommit is TxnOffsetCommitHandler.handleResponse: the
// partitions committed leave the pending set; retriable errors retry the
// rest; a zombie consumer's metadata makes the transaction abortable.
func (tm *transactionManager) handleTxnOffsetCommit(r *txnRequest, m protocol.TxnOffsetCommitResponse) {
	reloaded := false
	for _, p := range m.Partitions {
		code := p.Error
		stop := false
		switch {
		case code == protocol.None:
			tm.pendingOffsets = slices.DeleteFunc(tm.pendingOffsets, func(o protocol.OffsetCommitPartition) bool { return o.TP == p.TP })
		case code == protocol.CoordinatorNotAvailable || code == protocol.NotCoordinator || code == protocol.RequestTimedOut:
			if !reloaded {
				reloaded = true
				tm.lookupCoordinator(protocol.CoordinatorTypeGroup, r.group.GroupID)
			}
		case code.Retriable():
		case code == protocol.FencedInstanceID || code == protocol.TransactionAbortable:
			tm.abortableError(r, newTxnError(code))
			stop = true
		case code == protocol.UnknownMemberID || code == protocol.IllegalGeneration:
			tm.abortableError(r, &txnError{code, "Transaction offset Commit failed due to consumer group metadata mismatch: " + errorMessage(code)})
			stop = true
		case code == protocol.InvalidProducerEpoch || code == protocol.ProducerFenced:
			tm.fatalError(r, newTxnError(protocol.ProducerFenced))
			stop = true
		default:
			tm.fatalError(r, &txnError{protocol.KafkaException, "Unexpected error in TxnOffsetCommitResponse: " + messageOrName(code)})
			stop = true
		}
		if stop {
			break
		}
	}
	switch {
	case r.op.Done:
		tm.pendingOffsets = nil
	case len(tm.pendingOffsets) == 0:
		r.op.done()
	default:
		tm.reenqueue(r)
	}
}

func messageOrName(code protocol.ErrorCode) string {
	if m := errorMessage(code); m != "" {
		return m
	}
	return code.Name()
}
