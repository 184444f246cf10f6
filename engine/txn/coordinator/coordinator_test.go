package coordinator

import (
	"testing"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

func initResp(t *testing.T, v any) protocol.InitProducerIdResponse {
	t.Helper()
	r, ok := v.(protocol.InitProducerIdResponse)
	if !ok {
		t.Fatalf("reply %T, want InitProducerIdResponse", v)
	}
	return r
}

func wantInit(t *testing.T, v any, code protocol.ErrorCode, pid int64, epoch int16) {
	t.Helper()
	r := initResp(t, v)
	if r.Error != code || r.ProducerID != pid || r.ProducerEpoch != epoch {
		t.Fatalf("InitProducerId answered %s pid %d epoch %d, want %s pid %d epoch %d", r.Error.Name(), r.ProducerID, r.ProducerEpoch,
			code.Name(), pid, epoch)
	}
}

func wantState(t *testing.T, m *Metadata, s txnlog.TransactionState, pid int64, epoch int16) {
	t.Helper()
	if m.State != s || m.ProducerID != pid || m.ProducerEpoch != epoch {
		t.Fatalf("state %s pid %d epoch %d, want %s pid %d epoch %d", m.State, m.ProducerID, m.ProducerEpoch, s, pid, epoch)
	}
}

// TestInitProducerIDWriteFails mirrors TransactionStateManagerTest's
// testAppendFailToCoordinatorNotAvailableError and
// testAppendFailToNotCoordinatorError for InitProducerId, which appends
// without retryOnError: the produce error is mapped to the coordinator's,
// the pending state is reset (only a caller passing retryOnError keeps it,
// testPendingStateNotResetOnRetryAppend) and the state stays as it was. The
// producer's retry then prepares the same bump and writes Empty again, as
// often as the write fails: seed 896, whose __transaction_state partition
// had fewer replicas running than min.insync.replicas, did so until the
// end of the run.
func TestInitProducerIDWriteFails(t *testing.T) {
	for _, c := range []struct {
		produce, want protocol.ErrorCode
	}{
		{protocol.NotEnoughReplicas, protocol.CoordinatorNotAvailable},
		{protocol.NotEnoughReplicasAfterAppend, protocol.CoordinatorNotAvailable},
		{protocol.RequestTimedOut, protocol.CoordinatorNotAvailable},
		{protocol.UnknownTopicOrPartition, protocol.CoordinatorNotAvailable},
		{protocol.NotLeaderOrFollower, protocol.NotCoordinator},
	} {
		t.Run(c.produce.Name(), func(t *testing.T) {
			h := ready(t)
			for attempt := 1; attempt <= 3; attempt++ {
				ref := h.init("tx", -1, -1)
				if len(h.writes) != 1 || h.writes[0].Record.Value.TransactionStatus != txnlog.Empty || h.writes[0].Record.Value.ProducerEpoch != 1 {
					t.Fatalf("attempt %d: writes %+v, want Empty at epoch 1", attempt, h.writes)
				}
				// While it is pending, another InitProducerId waits.
				wantInit(t, h.reply(h.init("tx", -1, -1)), protocol.ConcurrentTransactions, -1, -1)
				h.failNext(c.produce)
				wantInit(t, h.reply(ref), c.want, -1, -1)
				m := h.state("tx")
				wantState(t, m, txnlog.Empty, 1000, 0)
				if m.PendingTransitionInProgress() {
					t.Fatalf("attempt %d: the pending state was kept after %s", attempt, c.produce.Name())
				}
			}
			ref := h.init("tx", -1, -1)
			h.commitAll()
			wantInit(t, h.reply(ref), protocol.None, 1000, 1)
		})
	}
}
