package broker

import (
	"testing"

	"github.com/loglab/loglab/engine/protocol"
)

// VerificationError is what a produce answers for the transaction
// coordinator's answer to the leader's AddPartitionsToTxn.
func TestVerificationError(t *testing.T) {
	cases := []struct {
		mirrors  string
		from, to protocol.ErrorCode
	}{
		{"success appends", protocol.None, protocol.None},
		{"AddPartitionsToTxnManager: PRODUCER_FENCED is the produce's INVALID_PRODUCER_EPOCH", protocol.ProducerFenced, protocol.InvalidProducerEpoch},
		{"ReplicaManager: CONCURRENT_TRANSACTIONS is retried as NOT_ENOUGH_REPLICAS", protocol.ConcurrentTransactions, protocol.NotEnoughReplicas},
		{"ReplicaManager: NETWORK_EXCEPTION (coordinator gone, timed out)", protocol.NetworkException, protocol.NotEnoughReplicas},
		{"ReplicaManager: COORDINATOR_LOAD_IN_PROGRESS", protocol.CoordinatorLoadInProgress, protocol.NotEnoughReplicas},
		{"ReplicaManager: COORDINATOR_NOT_AVAILABLE (no coordinator known)", protocol.CoordinatorNotAvailable, protocol.NotEnoughReplicas},
		{"ReplicaManager: NOT_COORDINATOR", protocol.NotCoordinator, protocol.NotEnoughReplicas},
		{"INVALID_PRODUCER_ID_MAPPING is passed on (fatal to the producer)", protocol.InvalidProducerIDMapping, protocol.InvalidProducerIDMapping},
		{"INVALID_TXN_STATE is passed on", protocol.InvalidTxnState, protocol.InvalidTxnState},
	}
	for _, c := range cases {
		if got := VerificationError(c.from); got != c.to {
			t.Errorf("%s: %s -> %s, want %s", c.mirrors, c.from.Name(), got.Name(), c.to.Name())
		}
	}
}
