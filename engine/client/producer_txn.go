package client

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// This file is the Sender's and KafkaProducer's side of idempotence and
// transactions: running the TransactionManager's requests, assigning
// sequences at drain time, and the transactional API.

// runTransactionManager is the first half of Sender.runOnce. It reports
// whether the sender does nothing else this round: while a transactional
// request is in flight (or being backed off) no produce request goes out,
// as Kafka's sender polls for its answer and returns.
func (p *Producer) runTransactionManager() bool {
	tm := p.tm
	tm.maybeResolveSequences()
	if tm.hasFatalError() {
		if tm.lastErr != nil {
			p.abortBatches(tm.lastErr)
		}
		return true
	}
	tm.bumpIdempotentEpochAndResetIdIfNeeded()
	return p.maybeSendTransactionalRequest()
}

// maybeSendTransactionalRequest is Sender.maybeSendAndPollTransactionalRequest.
func (p *Producer) maybeSendTransactionalRequest() bool {
	tm := p.tm
	if tm.inFlight != nil {
		return true
	}
	if (tm.hasAbortableError() || tm.isAborting()) && p.hasIncomplete() {
		cause := tm.lastErr
		if cause == nil {
			cause = newTxnError(protocol.TransactionAborted)
		}
		p.abortUndrainedBatches(cause)
	}
	r := tm.nextRequest(p.hasIncomplete())
	if r == nil {
		return false
	}
	var target int32
	if r.needsCoordinator() {
		target = tm.coordinators[r.coordType]
		if target < 0 || p.net.IsDown(kraft.BrokerNode(target)) {
			// maybeFindCoordinatorAndRetry: the FindCoordinator goes first,
			// at once. A coordinator that refuses the connection is
			// awaitNodeReady's IOException, which Kafka does not back off
			// either: while the brokers' metadata still names a dead
			// coordinator (not fenced yet), the producer asks again once
			// per round trip, as Kafka's does.
			if target >= 0 {
				p.refused++
				p.refusedBy = target
			}
			tm.lookupCoordinator(r.coordType, r.coordKey)
			tm.retry(r)
			p.scheduleDrain(0)
			return true
		}
	} else {
		target = p.leastLoadedBroker()
		if target < 0 {
			// No broker to ask: Kafka's sender sleeps retry.backoff.ms.
			tm.retry(r)
			p.meta.refresh()
			p.scheduleDrain(p.cfg.RetryBackoff)
			return true
		}
	}
	tm.inFlight = r
	if r.isRetry && p.cfg.RetryBackoff > 0 {
		// Kafka's sender thread sleeps retry.backoff.ms before a retried
		// transactional request, sending nothing meanwhile.
		p.txnTimeout = p.sched.After(p.cfg.RetryBackoff, "txn-backoff "+string(p.ID), func() {
			if !p.crashed && tm.inFlight == r {
				p.sendTxnRequest(r, target)
			}
		})
		return true
	}
	p.sendTxnRequest(r, target)
	return true
}

// CoordinatorRefusals counts the transactional requests whose coordinator
// refused the connection since the producer started, each followed at once
// by a FindCoordinator, and names the broker that refused last (-1: none).
func (p *Producer) CoordinatorRefusals() (uint64, int32) {
	if p.refused == 0 {
		return 0, -1
	}
	return p.refused, p.refusedBy
}

// leastLoadedBroker stands for NetworkClient.leastLoadedNode: the broker
// with the fewest requests in flight, from a rotating start, skipping a
// broker whose connection is refused (down).
func (p *Producer) leastLoadedBroker() int32 {
	best, load := int32(-1), 0
	n := len(p.meta.bootstrap)
	for i := range n {
		id := p.meta.bootstrap[(p.meta.next+i)%n]
		if p.net.IsDown(kraft.BrokerNode(id)) {
			continue
		}
		if l := p.inFlightTo(id); best < 0 || l < load {
			best, load = id, l
		}
	}
	return best
}

func (p *Producer) sendTxnRequest(r *txnRequest, broker int32) {
	tm := p.tm
	p.corr++
	r.corr, r.sentTo = p.corr, broker
	var msg sim.Message
	switch r.kind {
	case reqFindCoordinator:
		m := r.find
		m.CorrelationID = r.corr
		msg = m
	case reqInitProducerID:
		m := r.init
		m.CorrelationID = r.corr
		msg = m
		if p.events != nil {
			p.events(fmt.Sprintf("%s: InitProducerId to broker %d (transactional.id=%q, producer id %d, epoch %d)", p.ID, broker, m.TransactionalID, m.ProducerID, m.ProducerEpoch))
		}
	case reqEndTxn:
		m := r.end
		m.CorrelationID = r.corr
		msg = m
		if p.events != nil {
			result := "ABORT"
			if m.Committed {
				result = "COMMIT"
			}
			p.events(fmt.Sprintf("%s: EndTxn(%s) to coordinator broker %d for transactional.id %s", p.ID, result, broker, m.TransactionalID))
		}
	case reqTxnOffsetCommit:
		// Kafka's builder holds the pending map itself: a retry sends only
		// the partitions not yet committed.
		msg = protocol.TxnOffsetCommitRequest{CorrelationID: r.corr, TransactionalID: tm.txnID, GroupID: r.group.GroupID,
			ProducerID: r.pe.id, ProducerEpoch: r.pe.epoch, GenerationID: r.group.GenerationID, MemberID: r.group.MemberID,
			GroupInstanceID: r.group.GroupInstanceID, Offsets: slices.Clone(tm.pendingOffsets)}
	}
	p.net.Send(p.ID, kraft.BrokerNode(broker), msg)
	corr := r.corr
	p.txnTimeout = p.sched.After(p.cfg.RequestTimeout, "request-timeout "+string(p.ID), func() {
		if !p.crashed && tm.inFlight == r && r.corr == corr {
			p.requestTimedOut(broker)
		}
	})
}

// handleTxnResponse dispatches an answer to the transactional request in
// flight; a late answer to an earlier attempt is ignored.
func (p *Producer) handleTxnResponse(msg sim.Message) {
	tm := p.tm
	if tm == nil || tm.inFlight == nil {
		return
	}
	r := tm.inFlight
	var corr int64
	code := protocol.None
	switch m := msg.(type) {
	case protocol.FindCoordinatorResponse:
		corr, code = m.CorrelationID, m.Error
	case protocol.InitProducerIdResponse:
		corr, code = m.CorrelationID, m.Error
	case protocol.EndTxnResponse:
		corr, code = m.CorrelationID, m.Error
	case protocol.TxnOffsetCommitResponse:
		corr = m.CorrelationID
		for _, pr := range m.Partitions {
			if pr.Error != protocol.None {
				code = pr.Error
				break
			}
		}
	default:
		return
	}
	if corr != r.corr {
		return
	}
	if code != protocol.None && p.events != nil {
		// Say why the same request goes out again (or why it failed).
		p.events(fmt.Sprintf("%s: %s from broker %d: %s", p.ID, msg.Kind(), r.sentTo, code.Name()))
	}
	tm.inFlight = nil
	if p.txnTimeout != nil {
		p.txnTimeout.Cancelled = true
	}
	switch m := msg.(type) {
	case protocol.FindCoordinatorResponse:
		tm.handleFindCoordinator(r, m)
	case protocol.InitProducerIdResponse:
		tm.handleInitProducerID(r, m)
		if m.Error == protocol.None && p.events != nil {
			p.events(fmt.Sprintf("%s: producer id %d, epoch %d", p.ID, m.ProducerID, m.ProducerEpoch))
		}
	case protocol.EndTxnResponse:
		tm.handleEndTxn(r, m)
	case protocol.TxnOffsetCommitResponse:
		tm.handleTxnOffsetCommit(r, m)
	}
	p.scheduleDrain(0)
}

// txnDisconnected: the transactional request in flight will get no answer
// (its broker died or request.timeout.ms passed): TxnRequestHandler's
// wasDisconnected branch looks the coordinator up again and retries.
func (p *Producer) txnDisconnected() {
	r := p.tm.inFlight
	p.tm.inFlight = nil
	if p.txnTimeout != nil {
		p.txnTimeout.Cancelled = true
	}
	p.tm.disconnected(r)
	if !r.needsCoordinator() {
		p.meta.askElsewhere()
	}
	p.scheduleDrain(0)
}

// shouldStopDrainBatchesForPartition is RecordAccumulator's: nothing is
// drained without a producer id; a new batch waits while the partition
// has batches in flight under an older epoch or unresolved sequences; a
// batch being retried goes only when it is the first in sequence order,
// so during retries one batch at a time is in flight per partition.
func (p *Producer) shouldStopDrainBatchesForPartition(first *producerBatch) bool {
	tm := p.tm
	if !tm.isSendToPartitionAllowed(first.tp) {
		return true
	}
	if !tm.hasProducerID() {
		return true
	}
	if !first.hasSequence() {
		if tm.hasInflightBatches(first.tp) && tm.hasStaleProducerIdAndEpoch(first.tp) {
			return true
		}
		if tm.hasUnresolvedSequence(first.tp) {
			return true
		}
	}
	firstInFlight := tm.firstInFlightSequence(first.tp)
	return firstInFlight >= 0 && first.hasSequence() && first.baseSequence != firstInFlight
}

// assignSequence gives a batch drained for the first time the producer id,
// epoch and the partition's next sequence; a retried batch keeps its own
// (changing them could write it twice).
func (p *Producer) assignSequence(b *producerBatch) {
	tm := p.tm
	if tm == nil || b.hasSequence() {
		return
	}
	tm.maybeUpdateProducerIdAndEpoch(b.tp)
	b.setProducerState(tm.pe, tm.sequenceNumber(b.tp), tm.isTransactional())
	tm.incrementSequenceNumber(b.tp, len(b.records))
	tm.addInFlightBatch(b)
}

// addToTransaction is KafkaProducer.doSend's maybeAddPartition once the
// partition is known; a refused record fails at once, as Java's send()
// throws.
func (p *Producer) addToTransaction(d *Delivery) bool {
	if p.tm == nil {
		return true
	}
	if e := p.tm.maybeAddPartition(protocol.TopicPartition{Topic: d.Topic, Partition: d.Partition}, d.sentInTxn); e != nil {
		p.complete(d, -1, e.code, e.message)
		return false
	}
	return true
}

// hasIncomplete is RecordAccumulator.hasIncomplete: batches not yet
// acknowledged nor failed. Records still waiting for metadata count too:
// Java's send() blocks its caller in waitOnMetadata, so a commit can only
// come after them; loglab's Send returns at once.
func (p *Producer) hasIncomplete() bool {
	return len(p.waiting)+len(p.queues) > 0 || slices.ContainsFunc(p.inFlight, func(b *producerBatch) bool { return !b.expired })
}

// abortBatches is RecordAccumulator.abortBatches after a fatal error: every
// incomplete batch fails; those in flight stay counted until answered.
func (p *Producer) abortBatches(e *txnError) {
	for _, b := range p.queues {
		for _, d := range b.records {
			p.complete(d, -1, e.code, e.message)
		}
	}
	p.queues = nil
	for _, b := range p.inFlight {
		if !b.expired {
			b.expired = true
			for _, d := range b.records {
				p.complete(d, -1, e.code, e.message)
			}
		}
	}
}

// abortUndrainedBatches: aborting a transaction fails the batches never
// sent (they have no sequence); those sent must still be answered.
func (p *Producer) abortUndrainedBatches(e *txnError) {
	var keep []*producerBatch
	// Records still waiting for metadata were never appended: they fail
	// too (in Java their send() would still be blocked).
	n := len(p.waiting)
	for _, d := range p.waiting {
		p.complete(d, -1, e.code, e.message)
	}
	p.waiting = nil
	for _, b := range p.queues {
		if b.hasSequence() {
			keep = append(keep, b)
			continue
		}
		n += len(b.records)
		for _, d := range b.records {
			p.complete(d, -1, e.code, e.message)
		}
	}
	if n > 0 && p.events != nil {
		p.events(fmt.Sprintf("%s: aborting %d unsent record(s): %s", p.ID, n, e.code.Name()))
	}
	p.queues = keep
}

// InitTransactions is KafkaProducer.initTransactions: find the transaction
// coordinator and get the producer id and a bumped epoch, which fences any
// earlier producer with the same transactional.id.
func (p *Producer) InitTransactions() *TxnOp {
	if p.tm == nil {
		return failedOp(&txnError{protocol.IllegalState, "Cannot use transactional methods without enabling transactions by setting the transactional.id configuration property"})
	}
	op := p.tm.initializeTransactions(noProducerIDAndEpoch)
	p.scheduleDrain(0)
	return op
}

// BeginTransaction is KafkaProducer.beginTransaction: local only.
func (p *Producer) BeginTransaction() error {
	if p.tm == nil {
		return &TxnError{protocol.IllegalState, "Cannot use transactional methods without enabling transactions by setting the transactional.id configuration property"}
	}
	if e := p.tm.beginTransaction(); e != nil {
		return &TxnError{e.code, e.message}
	}
	return nil
}

// CommitTransaction is KafkaProducer.commitTransaction: every batch of the
// transaction is sent and acknowledged, then EndTxn(COMMIT).
func (p *Producer) CommitTransaction() *TxnOp {
	if p.tm == nil {
		return failedOp(&txnError{protocol.IllegalState, "Cannot use transactional methods without enabling transactions by setting the transactional.id configuration property"})
	}
	op := p.tm.beginCommit()
	p.scheduleDrain(0)
	return op
}

// AbortTransaction is KafkaProducer.abortTransaction: unsent batches fail
// with TransactionAbortedException, the sent ones are awaited, then
// EndTxn(ABORT).
func (p *Producer) AbortTransaction() *TxnOp {
	if p.tm == nil {
		return failedOp(&txnError{protocol.IllegalState, "Cannot use transactional methods without enabling transactions by setting the transactional.id configuration property"})
	}
	op := p.tm.beginAbort()
	p.scheduleDrain(0)
	return op
}

// SendOffsetsToTransaction is KafkaProducer.sendOffsetsToTransaction: the
// consumer's offsets commit with the transaction (TxnOffsetCommit to the
// group coordinator, KIP-447's group metadata for fencing zombies).
func (p *Producer) SendOffsetsToTransaction(offsets []protocol.OffsetCommitPartition, g ConsumerGroupMetadata) *TxnOp {
	if p.tm == nil {
		return failedOp(&txnError{protocol.IllegalState, "Cannot use transactional methods without enabling transactions by setting the transactional.id configuration property"})
	}
	if len(offsets) == 0 {
		return &TxnOp{Done: true}
	}
	op := p.tm.sendOffsetsToTransaction(offsets, g)
	p.scheduleDrain(0)
	return op
}

// TxnError is an exception a transactional call throws at once.
type TxnError struct {
	Code    protocol.ErrorCode
	Message string
}

func (e *TxnError) Error() string { return e.Code.Name() + ": " + e.Message }

// Crash is the producer's process dying: everything it had is gone, its
// connections close. A restart is a new Producer with the same name (and
// transactional.id), whose InitTransactions fences this one's epoch.
func (p *Producer) Crash() {
	p.crashed = true
	for _, ev := range []*sim.Event{p.drainEv, p.blockEv, p.txnTimeout} {
		if ev != nil {
			ev.Cancelled = true
		}
	}
	for _, b := range p.inFlight {
		if b.timeout != nil {
			b.timeout.Cancelled = true
		}
	}
	p.waiting, p.queues, p.inFlight = nil, nil, nil
	p.meta.stop()
	if p.tm != nil {
		p.tm = newTransactionManager(p.tm.txnID, p.tm.timeoutMs, p.tm.events)
	}
	p.net.SetDown(p.ID, true)
}

// Crashed reports whether Crash was called.
func (p *Producer) Crashed() bool { return p.crashed }

// ProducerIDAndEpoch is the producer id and epoch in use (-1, -1: none).
func (p *Producer) ProducerIDAndEpoch() (int64, int16) {
	if p.tm == nil {
		return protocol.NoProducerID, protocol.NoProducerEpoch
	}
	return p.tm.pe.id, p.tm.pe.epoch
}

// TxnState is the TransactionManager's state name ("" without
// idempotence: Kafka's producer then has no TransactionManager).
func (p *Producer) TxnState() string {
	if p.tm == nil {
		return ""
	}
	return p.tm.state.String()
}

// Transactional reports whether the producer has a transactional.id.
func (p *Producer) Transactional() bool { return p.tm != nil && p.tm.isTransactional() }

// Sequences lists the per-partition numbering, sorted by topic and partition.
func (p *Producer) Sequences() []PartitionSequence {
	if p.tm == nil {
		return nil
	}
	var out []PartitionSequence
	for _, e := range p.tm.parts {
		out = append(out, PartitionSequence{TP: e.tp, ProducerID: e.pe.id, ProducerEpoch: e.pe.epoch,
			NextSequence: e.nextSequence, LastAckedSequence: e.lastAcked, InFlight: len(e.inFlight)})
	}
	slices.SortFunc(out, func(a, b PartitionSequence) int {
		if a.TP.Topic != b.TP.Topic {
			if a.TP.Topic < b.TP.Topic {
				return -1
			}
			return 1
		}
		return int(a.TP.Partition - b.TP.Partition)
	})
	return out
}
