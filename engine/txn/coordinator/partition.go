package coordinator

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// Partition is the coordinator of the transactional ids of one
// __transaction_state partition (TransactionStateManager's
// TxnMetadataCacheEntry for it, with the coordinator's logic on top).
type Partition struct {
	ID               int32
	CoordinatorEpoch int32
	cfg              Config
	txns             map[string]*Metadata
	writes           map[uint64]*pendingWrite
	nextWrite        uint64
	// markers: the transactions whose markers are being sent, with the
	// Complete* transit to write once they all are.
	markers map[string]*markerJob
	retries []string // Complete* writes to try again
}

// Result is what a call decided.
type Result struct {
	// NeedProducerID: the request needs a new producer id; nothing
	// changed. Call it again with one.
	NeedProducerID bool
	Writes         []Write
	Replies        []Reply
	Markers        []MarkerRequest
	Events         []string
	// RetryLater: a write failed and must be retried; call
	// RetryCompletions after a backoff.
	RetryLater bool
}

// Write is one record to append to the partition; WriteCompleted tells
// its outcome.
type Write struct {
	ID     uint64
	Record txnlog.Record
	// TimeoutMs is how long the append may wait for the high watermark
	// before it fails with REQUEST_TIMED_OUT: the transaction timeout of
	// the state written, as appendTransactionToLog passes
	// newMetadata.txnTimeoutMs to ReplicaManager.appendRecords.
	TimeoutMs int32
}

// Reply is a response to the request the caller passed as Ref.
type Reply struct {
	Ref uint64
	Msg sim.Message
}

// MarkerRequest asks for COMMIT or ABORT markers of one transaction in
// each of its partitions (TransactionMarkerChannelManager.addTxnMarkersToSend).
type MarkerRequest struct {
	TransactionalID    string
	ProducerID         int64
	ProducerEpoch      int16
	Committed          bool
	Partitions         []protocol.TopicPartition
	CoordinatorEpoch   int32
	TransactionVersion int8
}

type pendingWrite struct {
	txnID   string
	transit Transit
	// done runs once the write committed (code None) or failed, with
	// the error Kafka's appendTransactionToLog callback gives.
	done func(code protocol.ErrorCode, res *Result)
}

type markerJob struct {
	req      MarkerRequest
	complete Transit
	done     func(code protocol.ErrorCode, res *Result)
}

// New is an empty partition coordinator for a partition loaded at
// coordinatorEpoch (its leader epoch).
func New(partition, coordinatorEpoch int32, cfg Config) *Partition {
	return &Partition{ID: partition, CoordinatorEpoch: coordinatorEpoch, cfg: cfg, txns: map[string]*Metadata{},
		writes: map[uint64]*pendingWrite{}, markers: map[string]*markerJob{}}
}

// Get is the current metadata of a transactional id (nil when unknown).
func (p *Partition) Get(txnID string) *Metadata { return p.txns[txnID] }

// TransactionalIDs lists the ids held, sorted.
func (p *Partition) TransactionalIDs() []string {
	ids := make([]string, 0, len(p.txns))
	for id := range p.txns {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func (r *Result) event(format string, args ...any) {
	r.Events = append(r.Events, fmt.Sprintf(format, args...))
}

// appendTransactionToLog is TransactionStateManager.appendTransactionToLog:
// the record for the transit goes out as a Write; once it commits the
// transition completes, then done runs. A failed write leaves the state as
// it was (the pending transition is dropped).
func (p *Partition) appendTransactionToLog(m *Metadata, t Transit, res *Result, done func(code protocol.ErrorCode, res *Result)) {
	p.nextWrite++
	rec := txnlog.Record{Key: txnlog.Key{TransactionalID: m.TransactionalID}, ValueVersion: txnlog.ValueVersionFor(p.cfg.TransactionVersion)}
	if t.State != txnlog.Dead {
		rec.Value = t.value()
	}
	p.writes[p.nextWrite] = &pendingWrite{txnID: m.TransactionalID, transit: t, done: done}
	res.Writes = append(res.Writes, Write{ID: p.nextWrite, Record: rec, TimeoutMs: t.TxnTimeoutMs})
}

// WriteCompleted is the outcome of a Write: code is None once the high
// watermark passed it, else the produce error (NOT_ENOUGH_REPLICAS,
// REQUEST_TIMED_OUT, NOT_LEADER_OR_FOLLOWER ...).
func (p *Partition) WriteCompleted(now int64, id uint64, code protocol.ErrorCode) Result {
	var res Result
	w := p.writes[id]
	if w == nil {
		return res
	}
	delete(p.writes, id)
	m := p.txns[w.txnID]
	code = appendError(code)
	if m == nil {
		w.done(protocol.NotCoordinator, &res)
		return res
	}
	if code != protocol.None {
		// Kafka: reset the pending state, it is not active anymore.
		res.event("transactional id %s: writing %s to %s failed with %s: the state stays %s", w.txnID, w.transit.State,
			p.name(), code.Name(), m.State)
		m.pending = false
		w.done(code, &res)
		return res
	}
	if err := m.completeTransitionTo(w.transit); err != nil {
		res.event("IllegalStateException: %v", err)
		m.pending = false
		w.done(protocol.CoordinatorNotAvailable, &res)
		return res
	}
	if m.State == txnlog.Dead {
		delete(p.txns, w.txnID)
	}
	w.done(protocol.None, &res)
	return res
}

// appendError is appendTransactionToLog's mapping of a failed append to
// what the coordinator answers.
func appendError(code protocol.ErrorCode) protocol.ErrorCode {
	switch code {
	case protocol.UnknownTopicOrPartition, protocol.NotEnoughReplicas, protocol.NotEnoughReplicasAfterAppend, protocol.RequestTimedOut:
		return protocol.CoordinatorNotAvailable
	case protocol.NotLeaderOrFollower, protocol.KafkaStorageError:
		return protocol.NotCoordinator
	case protocol.MessageTooLarge, protocol.RecordListTooLarge:
		return protocol.CoordinatorNotAvailable // Kafka: UNKNOWN_SERVER_ERROR, which loglab has no code for
	}
	return code
}

func (p *Partition) name() string { return fmt.Sprintf("__transaction_state/%d", p.ID) }

// Unload drops the partition (TransactionCoordinator.onResignation): the
// requests waiting for a write are answered NOT_COORDINATOR, markers in
// flight are forgotten (the new coordinator resends them).
func (p *Partition) Unload() Result {
	var res Result
	ids := make([]uint64, 0, len(p.writes))
	for id := range p.writes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		p.writes[id].done(protocol.NotCoordinator, &res)
	}
	p.writes, p.markers, p.txns, p.retries = map[uint64]*pendingWrite{}, map[string]*markerJob{}, map[string]*Metadata{}, nil
	return res
}
