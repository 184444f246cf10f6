package coordinator

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// Metadata is Kafka's TransactionMetadata: the coordinator's current,
// committed state of one transactional id, plus the transition it is
// waiting to commit (pendingState).
type Metadata struct {
	TransactionalID    string
	ProducerID         int64
	PreviousProducerID int64
	// NextProducerID is the id the producer moves to once the transaction
	// completes, set when its end exhausted the epoch (TV2).
	NextProducerID    int64
	ProducerEpoch     int16
	LastProducerEpoch int16
	TxnTimeoutMs      int32
	State             txnlog.TransactionState
	// Partitions in the transaction, sorted. A Prepare* transaction loses
	// each one as its marker is written (removePartition).
	Partitions               []protocol.TopicPartition
	TxnStartTimestamp        int64
	TxnLastUpdateTimestamp   int64
	ClientTransactionVersion int16

	pending     bool
	pendingTo   txnlog.TransactionState
	failedFence bool // hasFailedEpochFence
}

// Transit is Kafka's TxnTransitMetadata: the state a prepared transition
// will make current once its record commits.
type Transit struct {
	ProducerID               int64
	PrevProducerID           int64
	NextProducerID           int64
	ProducerEpoch            int16
	LastProducerEpoch        int16
	TxnTimeoutMs             int32
	State                    txnlog.TransactionState
	Partitions               []protocol.TopicPartition
	TxnStartTimestamp        int64
	TxnLastUpdateTimestamp   int64
	ClientTransactionVersion int16
}

// maxEpoch is Short.MaxValue: the coordinator keeps it back so it can
// always fence a producer (TransactionMetadata.isEpochExhausted).
const maxEpoch = math.MaxInt16

// IsEpochExhausted is TransactionMetadata.isEpochExhausted.
func IsEpochExhausted(epoch int16) bool { return epoch >= maxEpoch-1 }

func newMetadata(id string, pid int64, timeoutMs int32, now int64) *Metadata {
	return &Metadata{TransactionalID: id, ProducerID: pid, PreviousProducerID: protocol.NoProducerID,
		NextProducerID: protocol.NoProducerID, ProducerEpoch: protocol.NoProducerEpoch,
		LastProducerEpoch: protocol.NoProducerEpoch, TxnTimeoutMs: timeoutMs, State: txnlog.Empty,
		TxnStartTimestamp: -1, TxnLastUpdateTimestamp: now}
}

// PendingTransitionInProgress is pendingTransitionInProgress.
func (m *Metadata) PendingTransitionInProgress() bool { return m.pending }

func (m *Metadata) isEpochExhausted() bool { return IsEpochExhausted(m.ProducerEpoch) }

func (m *Metadata) hasPartition(tp protocol.TopicPartition) bool {
	_, ok := slices.BinarySearchFunc(m.Partitions, tp, compareTP)
	return ok
}

func compareTP(a, b protocol.TopicPartition) int {
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return int(a.Partition) - int(b.Partition)
}

func sortedUnion(a, b []protocol.TopicPartition) []protocol.TopicPartition {
	out := slices.Concat(a, b)
	slices.SortFunc(out, compareTP)
	return slices.Compact(out)
}

// transit is the current state as a Transit, to modify.
func (m *Metadata) transit() Transit {
	return Transit{ProducerID: m.ProducerID, PrevProducerID: m.ProducerID, NextProducerID: protocol.NoProducerID,
		ProducerEpoch: m.ProducerEpoch, LastProducerEpoch: m.LastProducerEpoch, TxnTimeoutMs: m.TxnTimeoutMs,
		State: m.State, Partitions: slices.Clone(m.Partitions), TxnStartTimestamp: m.TxnStartTimestamp,
		TxnLastUpdateTimestamp: m.TxnLastUpdateTimestamp, ClientTransactionVersion: m.ClientTransactionVersion}
}

// prepareTransitionTo checks the transition and marks it pending, as
// Kafka's does: one pending transition at a time, a valid producer id and
// epoch, and a target state whose validPreviousStates hold the current one.
func (m *Metadata) prepareTransitionTo(t Transit) (Transit, error) {
	switch {
	case m.pending:
		return t, fmt.Errorf("Preparing transaction state transition to %s while it already a pending state %s", t.State, m.pendingTo)
	case t.ProducerID < 0:
		return t, fmt.Errorf("Illegal new producer id %d", t.ProducerID)
	case t.State != txnlog.Dead && t.ProducerEpoch < 0:
		return t, fmt.Errorf("Illegal new producer epoch %d", t.ProducerEpoch)
	case !txnlog.ValidTransition(m.State, t.State):
		return t, fmt.Errorf("Preparing transaction state transition to %s failed since the target state %s is not a valid previous state of the current state %s",
			t.State, t.State, m.State)
	}
	m.pending, m.pendingTo = true, t.State
	return t, nil
}

// prepareFenceProducerEpoch bumps the epoch to fence the producer of an
// Ongoing transaction (a new instance's InitProducerId, a timeout); the
// PrepareEpochFence transit is never written: the abort that follows is.
func (m *Metadata) prepareFenceProducerEpoch() (Transit, error) {
	if m.ProducerEpoch == maxEpoch {
		return Transit{}, fmt.Errorf("Cannot fence producer with epoch equal to Short.MaxValue since this would overflow")
	}
	t := m.transit()
	// A fence whose write failed already bumped the epoch, never returned
	// to a client: do not bump it again.
	if !m.failedFence {
		t.ProducerEpoch = m.ProducerEpoch + 1
	}
	t.LastProducerEpoch = protocol.NoProducerEpoch
	t.State = txnlog.PrepareEpochFence
	return m.prepareTransitionTo(t)
}

// prepareIncrementProducerEpoch is InitProducerId's epoch bump. expected
// is the caller's epoch, or nil for a producer that gave none.
func (m *Metadata) prepareIncrementProducerEpoch(timeoutMs int32, expected *int16, now int64) (Transit, protocol.ErrorCode, error) {
	if m.isEpochExhausted() {
		return Transit{}, protocol.None, fmt.Errorf("Cannot allocate any more producer epochs for producerId %d", m.ProducerID)
	}
	next, last := m.ProducerEpoch+1, protocol.NoProducerEpoch
	if expected != nil {
		switch {
		case m.ProducerEpoch == protocol.NoProducerEpoch || *expected == m.ProducerEpoch:
			// The producer continues after an error and no other instance
			// was initialized since: bump, remembering its epoch.
			last = m.ProducerEpoch
		case *expected == m.LastProducerEpoch:
			// A retry of a bump that succeeded: answer the current epoch.
			next, last = m.ProducerEpoch, m.LastProducerEpoch
		default:
			return Transit{}, protocol.ProducerFenced, nil
		}
	}
	t := m.transit()
	t.ProducerEpoch, t.LastProducerEpoch, t.TxnTimeoutMs = next, last, timeoutMs
	t.State, t.Partitions, t.TxnStartTimestamp, t.TxnLastUpdateTimestamp = txnlog.Empty, nil, -1, now
	t, err := m.prepareTransitionTo(t)
	return t, protocol.None, err
}

// prepareProducerIdRotation moves to a new producer id at epoch 0 when the
// epoch ran out.
func (m *Metadata) prepareProducerIdRotation(pid int64, timeoutMs int32, now int64, recordLastEpoch bool) (Transit, error) {
	if m.State == txnlog.Ongoing || m.State == txnlog.PrepareAbort || m.State == txnlog.PrepareCommit {
		return Transit{}, fmt.Errorf("Cannot rotate producer ids while a transaction is still pending")
	}
	t := m.transit()
	t.ProducerID, t.ProducerEpoch, t.LastProducerEpoch, t.TxnTimeoutMs = pid, 0, protocol.NoProducerEpoch, timeoutMs
	if recordLastEpoch {
		t.LastProducerEpoch = m.ProducerEpoch
	}
	t.State, t.Partitions, t.TxnStartTimestamp, t.TxnLastUpdateTimestamp = txnlog.Empty, nil, -1, now
	return m.prepareTransitionTo(t)
}

// prepareAddPartitions opens or widens the transaction; a new transaction
// starts now (its timeout runs from here).
func (m *Metadata) prepareAddPartitions(add []protocol.TopicPartition, now int64, clientTV int16) (Transit, error) {
	t := m.transit()
	switch m.State {
	case txnlog.Empty, txnlog.CompleteAbort, txnlog.CompleteCommit:
		t.TxnStartTimestamp = now
	}
	t.State, t.Partitions, t.TxnLastUpdateTimestamp, t.ClientTransactionVersion = txnlog.Ongoing, sortedUnion(m.Partitions, add), now, clientTV
	return m.prepareTransitionTo(t)
}

// prepareAbortOrCommit is EndTxn's PrepareCommit/PrepareAbort: with
// transaction version 2 it bumps the epoch (the producer's epoch for its
// next transaction). noPartitionAdded: an abort of a transaction that
// added no partition (TV2 allows it from Empty and Complete*), which
// starts now.
func (m *Metadata) prepareAbortOrCommit(state txnlog.TransactionState, clientTV int16, nextPID int64, now int64, noPartitionAdded bool) (Transit, error) {
	t := m.transit()
	if clientTV >= 2 {
		t.ProducerEpoch, t.LastProducerEpoch = m.ProducerEpoch+1, m.ProducerEpoch
	}
	if noPartitionAdded {
		t.TxnStartTimestamp = now
	}
	t.State, t.NextProducerID, t.TxnLastUpdateTimestamp, t.ClientTransactionVersion = state, nextPID, now, clientTV
	return m.prepareTransitionTo(t)
}

// prepareComplete is CompleteCommit/CompleteAbort once every marker is
// written; a TV2 transaction that exhausted its epoch moves to its next
// producer id at epoch 0.
func (m *Metadata) prepareComplete(now int64) (Transit, error) {
	t := m.transit()
	t.State = txnlog.CompleteAbort
	if m.State == txnlog.PrepareCommit {
		t.State = txnlog.CompleteCommit
	}
	// The state change was written: a failed fence is history.
	m.failedFence = false
	if m.ClientTransactionVersion >= 2 && m.NextProducerID != protocol.NoProducerID {
		t.ProducerID, t.ProducerEpoch = m.NextProducerID, 0
	}
	t.Partitions, t.TxnLastUpdateTimestamp = nil, now
	return m.prepareTransitionTo(t)
}

// prepareDead is the transactional id's expiration.
func (m *Metadata) prepareDead() (Transit, error) {
	t := m.transit()
	t.State, t.Partitions = txnlog.Dead, nil
	return m.prepareTransitionTo(t)
}

// completeTransitionTo makes a committed transit current, with Kafka's
// sanity checks of what may change in each state.
func (m *Metadata) completeTransitionTo(t Transit) error {
	fail := func() error {
		return fmt.Errorf("TransactionalId %s failed transition to state %s due to unexpected metadata", m.TransactionalID, t.State)
	}
	if !m.pending || m.pendingTo != t.State {
		return fail()
	}
	validEpoch := func() bool {
		return t.ProducerEpoch == m.ProducerEpoch || t.ProducerEpoch == m.ProducerEpoch+1 ||
			(t.ProducerID != m.ProducerID && t.ProducerEpoch == 0)
	}
	switch t.State {
	case txnlog.Empty: // InitProducerId
		if !validEpoch() || len(t.Partitions) > 0 || t.TxnStartTimestamp != -1 {
			return fail()
		}
		m.TxnTimeoutMs, m.ProducerEpoch, m.LastProducerEpoch = t.TxnTimeoutMs, t.ProducerEpoch, t.LastProducerEpoch
		m.ProducerID, m.PreviousProducerID = t.ProducerID, t.PrevProducerID
		// Kafka's completeTransitionTo overwrites the whole metadata: an
		// Empty id has no transaction, so no start time (describe: None).
		m.TxnStartTimestamp, m.Partitions = t.TxnStartTimestamp, nil
	case txnlog.Ongoing: // AddPartitionsToTxn
		if !validEpoch() || m.TxnTimeoutMs != t.TxnTimeoutMs {
			return fail()
		}
		m.TxnStartTimestamp, m.Partitions = t.TxnStartTimestamp, sortedUnion(m.Partitions, t.Partitions)
		m.ClientTransactionVersion = t.ClientTransactionVersion
	case txnlog.PrepareAbort, txnlog.PrepareCommit: // EndTxn
		emptyAbort := t.State == txnlog.PrepareAbort && t.ClientTransactionVersion >= 2 &&
			(m.State == txnlog.Empty || m.State == txnlog.CompleteCommit || m.State == txnlog.CompleteAbort)
		if !validEpoch() || !slices.Equal(m.Partitions, t.Partitions) || m.TxnTimeoutMs != t.TxnTimeoutMs ||
			(m.TxnStartTimestamp != t.TxnStartTimestamp && !emptyAbort) {
			return fail()
		}
		if t.ClientTransactionVersion >= 2 {
			m.ProducerEpoch, m.LastProducerEpoch = t.ProducerEpoch, t.LastProducerEpoch
			m.NextProducerID, m.TxnStartTimestamp = t.NextProducerID, t.TxnStartTimestamp
		}
		m.ClientTransactionVersion = t.ClientTransactionVersion
	case txnlog.CompleteAbort, txnlog.CompleteCommit: // every marker written
		if !validEpoch() || m.TxnTimeoutMs != t.TxnTimeoutMs || t.TxnStartTimestamp == -1 {
			return fail()
		}
		m.TxnStartTimestamp, m.Partitions = t.TxnStartTimestamp, nil
		if t.ClientTransactionVersion >= 2 {
			m.ProducerID, m.ProducerEpoch, m.LastProducerEpoch = t.ProducerID, t.ProducerEpoch, t.LastProducerEpoch
			m.PreviousProducerID, m.NextProducerID = t.PrevProducerID, t.NextProducerID
		}
	case txnlog.Dead:
		if m.State != txnlog.Empty && m.State != txnlog.CompleteAbort && m.State != txnlog.CompleteCommit {
			return fail()
		}
	default:
		return fail()
	}
	m.State, m.pending, m.TxnLastUpdateTimestamp = t.State, false, t.TxnLastUpdateTimestamp
	return nil
}

// value is TransactionLog.valueToBytes' content for a transit: Empty
// carries no partition list (null on the wire).
func (t Transit) value() *txnlog.Value {
	v := txnlog.NewValue()
	v.ProducerID, v.PreviousProducerID, v.NextProducerID = t.ProducerID, t.PrevProducerID, t.NextProducerID
	v.ProducerEpoch, v.TransactionTimeoutMs, v.TransactionStatus = t.ProducerEpoch, t.TxnTimeoutMs, t.State
	v.TransactionLastUpdateTimestampMs, v.TransactionStartTimestampMs = t.TxnLastUpdateTimestamp, t.TxnStartTimestamp
	v.ClientTransactionVersion = t.ClientTransactionVersion
	if t.State != txnlog.Empty {
		v.TransactionPartitions = []txnlog.TopicPartitions{}
		for _, tp := range t.Partitions {
			if n := len(v.TransactionPartitions); n > 0 && v.TransactionPartitions[n-1].Topic == tp.Topic {
				v.TransactionPartitions[n-1].PartitionIDs = append(v.TransactionPartitions[n-1].PartitionIDs, tp.Partition)
				continue
			}
			v.TransactionPartitions = append(v.TransactionPartitions, txnlog.TopicPartitions{Topic: tp.Topic, PartitionIDs: []int32{tp.Partition}})
		}
	}
	return v
}

// fromValue is TransactionLog.readTxnRecordValue: the metadata a loaded
// record stands for (no pending transition, last epoch unknown).
func fromValue(id string, v *txnlog.Value) *Metadata {
	m := &Metadata{TransactionalID: id, ProducerID: v.ProducerID, PreviousProducerID: v.PreviousProducerID,
		NextProducerID: v.NextProducerID, ProducerEpoch: v.ProducerEpoch, LastProducerEpoch: protocol.NoProducerEpoch,
		TxnTimeoutMs: v.TransactionTimeoutMs, State: v.TransactionStatus, TxnStartTimestamp: v.TransactionStartTimestampMs,
		TxnLastUpdateTimestamp: v.TransactionLastUpdateTimestampMs, ClientTransactionVersion: v.ClientTransactionVersion}
	for _, tps := range v.TransactionPartitions {
		for _, p := range tps.PartitionIDs {
			m.Partitions = append(m.Partitions, protocol.TopicPartition{Topic: tps.Topic, Partition: p})
		}
	}
	m.Partitions = sortedUnion(m.Partitions, nil)
	return m
}
