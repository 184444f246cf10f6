package broker

import (
	"fmt"
	"testing"

	"github.com/loglab/loglab/engine/producerstate"
	"github.com/loglab/loglab/engine/protocol"
)

// TestCoordinatorOperationError mirrors CoordinatorOperationExceptionHelper.handleOperationException
// for a TxnOffsetCommit whose verification or write failed.
func TestCoordinatorOperationError(t *testing.T) {
	cases := []struct {
		in, want protocol.ErrorCode
	}{
		{protocol.NetworkException, protocol.CoordinatorLoadInProgress},
		{protocol.UnknownTopicOrPartition, protocol.CoordinatorNotAvailable},
		{protocol.NotEnoughReplicas, protocol.CoordinatorNotAvailable},
		{protocol.RequestTimedOut, protocol.CoordinatorNotAvailable},
		{protocol.NotLeaderOrFollower, protocol.NotCoordinator},
		{protocol.ProducerFenced, protocol.ProducerFenced},
		{protocol.InvalidProducerEpoch, protocol.InvalidProducerEpoch},
		{protocol.ConcurrentTransactions, protocol.ConcurrentTransactions},
		{protocol.InvalidTxnState, protocol.InvalidTxnState},
	}
	for _, c := range cases {
		if got := coordinatorOperationError(c.in); got != c.want {
			t.Errorf("%s: got %s, want %s", c.in.Name(), got.Name(), c.want.Name())
		}
	}
	// A write the producer state refused answers its error; any other
	// append failure COORDINATOR_NOT_AVAILABLE.
	if got := groupAppendError(fmt.Errorf("append: %w", producerstate.Error{Code: 47, Name: "INVALID_PRODUCER_EPOCH"})); got != protocol.InvalidProducerEpoch {
		t.Errorf("producer state refusal: %s", got.Name())
	}
	if got := groupAppendError(fmt.Errorf("disk full")); got != protocol.CoordinatorNotAvailable {
		t.Errorf("other failure: %s", got.Name())
	}
}
