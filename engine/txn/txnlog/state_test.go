package txnlog

import "testing"

// Every (from, to) pair that Kafka 4.x's TransactionState.validPreviousStates
// allows, each with the coordinator path that takes it. All 64 pairs are
// checked: a pair not listed here must be refused.
var allowedTransitions = []struct {
	from, to TransactionState
	why      string
}{
	{Empty, Empty, "InitProducerId on an idle id: epoch bump, still Empty"},
	{CompleteCommit, Empty, "InitProducerId after a committed transaction"},
	{CompleteAbort, Empty, "InitProducerId after an aborted transaction"},
	{Empty, Ongoing, "AddPartitionsToTxn / AddOffsetsToTxn opens a transaction"},
	{Ongoing, Ongoing, "AddPartitionsToTxn adds more partitions"},
	{CompleteCommit, Ongoing, "the next transaction after a commit"},
	{CompleteAbort, Ongoing, "the next transaction after an abort"},
	{Ongoing, PrepareCommit, "EndTxn(commit)"},
	{Ongoing, PrepareAbort, "EndTxn(abort) or transaction.timeout.ms"},
	{PrepareEpochFence, PrepareAbort, "fencing aborts the old instance's transaction"},
	{Empty, PrepareAbort, "TV2 EndTxn(abort) when the client is unsure (KIP-890)"},
	{CompleteCommit, PrepareAbort, "TV2 EndTxn(abort) retried after a commit"},
	{CompleteAbort, PrepareAbort, "TV2 EndTxn(abort) retried after an abort"},
	{PrepareCommit, CompleteCommit, "every COMMIT marker written"},
	{PrepareAbort, CompleteAbort, "every ABORT marker written"},
	{Empty, Dead, "transactional.id.expiration.ms"},
	{CompleteAbort, Dead, "transactional.id.expiration.ms"},
	{CompleteCommit, Dead, "transactional.id.expiration.ms"},
	{Ongoing, PrepareEpochFence, "InitProducerId of a new instance while Ongoing"},
}

func TestValidTransition(t *testing.T) {
	allowed := map[[2]TransactionState]string{}
	for _, a := range allowedTransitions {
		allowed[[2]TransactionState{a.from, a.to}] = a.why
	}
	for _, from := range AllStates {
		for _, to := range AllStates {
			why, want := allowed[[2]TransactionState{from, to}]
			if got := ValidTransition(from, to); got != want {
				t.Errorf("ValidTransition(%v, %v) = %v, want %v (%s)", from, to, got, want, why)
			}
		}
	}
	// Notable refusals, which learners ask about.
	for _, bad := range [][2]TransactionState{
		{PrepareCommit, PrepareAbort}, // a commit decision is final
		{PrepareAbort, PrepareCommit},
		{Empty, PrepareCommit}, // nothing to commit
		{Dead, Empty},          // a dead id is only ever deleted
		{Ongoing, Empty},       // an open transaction must end first
		{PrepareEpochFence, CompleteAbort},
	} {
		if ValidTransition(bad[0], bad[1]) {
			t.Errorf("ValidTransition(%v, %v) = true, want false", bad[0], bad[1])
		}
	}
	if ValidTransition(TransactionState(9), Empty) || ValidTransition(Empty, TransactionState(-1)) {
		t.Error("an unknown state id may take part in a transition")
	}
}

// Names and ids are Kafka's TransactionState's: both are visible (on disk,
// in DescribeTransactions) and must never drift.
func TestStateNamesAndIDs(t *testing.T) {
	for _, tc := range []struct {
		id     int8
		name   string
		expire bool
	}{
		{0, "Empty", true}, {1, "Ongoing", false}, {2, "PrepareCommit", false}, {3, "PrepareAbort", false},
		{4, "CompleteCommit", true}, {5, "CompleteAbort", true}, {6, "Dead", false}, {7, "PrepareEpochFence", false},
	} {
		s, err := StateFromID(tc.id)
		if err != nil {
			t.Fatalf("StateFromID(%d): %v", tc.id, err)
		}
		if s.String() != tc.name || int8(s) != tc.id {
			t.Errorf("state %d = %q, want %q", tc.id, s, tc.name)
		}
		if s.IsExpirationAllowed() != tc.expire {
			t.Errorf("%v.IsExpirationAllowed() = %v, want %v", s, s.IsExpirationAllowed(), tc.expire)
		}
		if byName, ok := StateFromName(tc.name); !ok || byName != s {
			t.Errorf("StateFromName(%q) = %v, %v", tc.name, byName, ok)
		}
	}
	if _, err := StateFromID(8); err == nil || err.Error() != "Unknown transaction state id 8 from the transaction status message" {
		t.Errorf("StateFromID(8) error = %v", err)
	}
	if _, ok := StateFromName("ongoing"); ok {
		t.Error("StateFromName is case-insensitive; Kafka's is not")
	}
	if got := TransactionState(-3).String(); got != "TransactionState(-3)" {
		t.Errorf("unknown state prints %q", got)
	}
}
