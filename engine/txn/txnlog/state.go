package txnlog

import "fmt"

// TransactionState is the transaction coordinator's state of one
// transactional id, stored as the value's TransactionStatus int8. The byte
// ids are Kafka's TransactionState ids: they are on disk, so they never
// change.
type TransactionState int8

const (
	// Empty: no transaction open (after InitProducerId, or once a
	// Complete* state is written back as Empty).
	Empty TransactionState = 0
	// Ongoing: AddPartitionsToTxn / AddOffsetsToTxn opened a transaction.
	Ongoing TransactionState = 1
	// PrepareCommit: EndTxn(commit) accepted; markers are being written.
	PrepareCommit TransactionState = 2
	// PrepareAbort: EndTxn(abort), a timeout or a fence; markers pending.
	PrepareAbort TransactionState = 3
	// CompleteCommit: every partition has its COMMIT marker.
	CompleteCommit TransactionState = 4
	// CompleteAbort: every partition has its ABORT marker.
	CompleteAbort TransactionState = 5
	// Dead: the transactional id expired and is about to be removed
	// (transactional.id.expiration.ms); its tombstone follows.
	Dead TransactionState = 6
	// PrepareEpochFence: a new instance's InitProducerId (or a timeout)
	// bumps the epoch of an Ongoing transaction to fence the old one,
	// then aborts it.
	PrepareEpochFence TransactionState = 7
)

// AllStates in id order (Kafka's TransactionState.ALL_STATES).
var AllStates = []TransactionState{Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead, PrepareEpochFence}

var stateNames = [...]string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

// Known reports whether s is one of Kafka's eight state ids.
func (s TransactionState) Known() bool { return s >= Empty && s <= PrepareEpochFence }

// String is the state's name as DescribeTransactions and
// kafka-transactions.sh show it; an unknown id prints as its number.
func (s TransactionState) String() string {
	if s.Known() {
		return stateNames[s]
	}
	return fmt.Sprintf("TransactionState(%d)", int8(s))
}

// StateFromID is TransactionState.fromId, with Kafka's error text for a byte
// that names no state.
func StateFromID(id int8) (TransactionState, error) {
	s := TransactionState(id)
	if !s.Known() {
		return 0, fmt.Errorf("Unknown transaction state id %d from the transaction status message", id)
	}
	return s, nil
}

// StateFromName is TransactionState.fromName (case-sensitive, as in Kafka).
func StateFromName(name string) (TransactionState, bool) {
	for _, s := range AllStates {
		if stateNames[s] == name {
			return s, true
		}
	}
	return 0, false
}

// validPreviousStates is Kafka 4.x's TransactionState.validPreviousStates:
// the states a transactional id may move to s from (TransactionMetadata
// refuses any other transition with an IllegalStateException).
//
// PrepareAbort from Empty, CompleteCommit and CompleteAbort is transaction
// version 2 (KIP-890 part 2): the client may not know whether its last
// transaction ended, so it may send EndTxn(abort) when unsure, and the
// coordinator answers it by aborting again. Kafka 3.x allowed PrepareAbort
// only from Ongoing and PrepareEpochFence.
func (s TransactionState) validPreviousStates() []TransactionState {
	switch s {
	case Empty:
		return []TransactionState{Empty, CompleteCommit, CompleteAbort}
	case Ongoing:
		return []TransactionState{Ongoing, Empty, CompleteCommit, CompleteAbort}
	case PrepareCommit:
		return []TransactionState{Ongoing}
	case PrepareAbort:
		return []TransactionState{Ongoing, PrepareEpochFence, Empty, CompleteCommit, CompleteAbort}
	case CompleteCommit:
		return []TransactionState{PrepareCommit}
	case CompleteAbort:
		return []TransactionState{PrepareAbort}
	case Dead:
		return []TransactionState{Empty, CompleteAbort, CompleteCommit}
	case PrepareEpochFence:
		return []TransactionState{Ongoing}
	}
	return nil
}

// ValidTransition reports whether a transactional id in state from may move
// to state to: TransactionMetadata.prepareTransitionTo's check
// `newState.validPreviousStates.contains(state)`. Unknown ids never may.
func ValidTransition(from, to TransactionState) bool {
	for _, p := range to.validPreviousStates() {
		if p == from {
			return true
		}
	}
	return false
}

// IsExpirationAllowed is TransactionState.isExpirationAllowed: only a
// transactional id with no transaction in flight may expire
// (transactional.id.expiration.ms), so never while Ongoing or Prepare*.
func (s TransactionState) IsExpirationAllowed() bool {
	return s == Empty || s == CompleteCommit || s == CompleteAbort
}
