package coordinator

import (
	"slices"
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

func endResp(t *testing.T, v any) protocol.EndTxnResponse {
	t.Helper()
	r, ok := v.(protocol.EndTxnResponse)
	if !ok {
		t.Fatalf("reply %T, want EndTxnResponse", v)
	}
	return r
}

func addResp(t *testing.T, v any) map[protocol.TopicPartition]protocol.ErrorCode {
	t.Helper()
	r, ok := v.(protocol.AddPartitionsToTxnResponse)
	if !ok {
		t.Fatalf("reply %T, want AddPartitionsToTxnResponse", v)
	}
	out := map[protocol.TopicPartition]protocol.ErrorCode{}
	for _, x := range r.Results {
		out[x.TP] = x.Error
	}
	return out
}

func wantInit(t *testing.T, v any, code protocol.ErrorCode, pid int64, epoch int16) {
	t.Helper()
	r := initResp(t, v)
	if r.Error != code || r.ProducerID != pid || r.ProducerEpoch != epoch {
		t.Fatalf("InitProducerId answered %s pid %d epoch %d, want %s pid %d epoch %d", r.Error.Name(), r.ProducerID, r.ProducerEpoch,
			code.Name(), pid, epoch)
	}
}

func wantEnd(t *testing.T, v any, code protocol.ErrorCode, pid int64, epoch int16) {
	t.Helper()
	r := endResp(t, v)
	if r.Error != code || r.ProducerID != pid || r.ProducerEpoch != epoch {
		t.Fatalf("EndTxn answered %s pid %d epoch %d, want %s pid %d epoch %d", r.Error.Name(), r.ProducerID, r.ProducerEpoch,
			code.Name(), pid, epoch)
	}
}

func wantState(t *testing.T, m *Metadata, s txnlog.TransactionState, pid int64, epoch int16) {
	t.Helper()
	if m.State != s || m.ProducerID != pid || m.ProducerEpoch != epoch {
		t.Fatalf("state %s pid %d epoch %d, want %s pid %d epoch %d", m.State, m.ProducerID, m.ProducerEpoch, s, pid, epoch)
	}
}

// The cases name the Kafka method (TransactionCoordinator unless said)
// whose behaviour they pin.
func TestCoordinator(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"handleInitProducerId: a new transactional id gets a new producer id at epoch 0, answered once Empty is committed", func(t *testing.T) {
			h := newHarness(t)
			ref := h.init("tx", -1, -1)
			h.noReply(ref)
			if len(h.writes) != 1 || h.writes[0].Record.Value.TransactionStatus != txnlog.Empty || h.writes[0].Record.Value.TransactionPartitions != nil {
				t.Fatalf("writes %+v, want one Empty record with a null partition list", h.writes)
			}
			h.commitAll()
			wantInit(t, h.reply(ref), protocol.None, 1000, 0)
			wantState(t, h.state("tx"), txnlog.Empty, 1000, 0)
		}},
		{"handleInitProducerId: a known id bumps the epoch, keeping its producer id", func(t *testing.T) {
			h := ready(t)
			ref := h.init("tx", -1, -1)
			h.commitAll()
			wantInit(t, h.reply(ref), protocol.None, 1000, 1)
		}},
		{"handleInitProducerId: transaction.timeout.ms above transaction.max.timeout.ms is INVALID_TRANSACTION_TIMEOUT", func(t *testing.T) {
			h := newHarness(t)
			h.ref++
			h.apply(h.p.InitProducerID(0, h.ref, protocol.InitProducerIdRequest{TransactionalID: "tx", TransactionTimeoutMs: 900001,
				ProducerID: -1, ProducerEpoch: -1}, 5))
			wantInit(t, h.reply(h.ref), protocol.InvalidTransactionTimeout, -1, -1)
			if h.p.Get("tx") != nil || len(h.writes) != 0 {
				t.Fatalf("refused request changed state")
			}
		}},
		{"handleInitProducerId: a second request while the first one's write is pending is CONCURRENT_TRANSACTIONS", func(t *testing.T) {
			h := ready(t)
			h.init("tx", -1, -1)
			ref := h.init("tx", -1, -1)
			wantInit(t, h.reply(ref), protocol.ConcurrentTransactions, -1, -1)
		}},
		{"prepareInitProducerIdTransit: an expected producer id that is not the current one is PRODUCER_FENCED", func(t *testing.T) {
			h := ready(t)
			ref := h.init("tx", 999, 0)
			wantInit(t, h.reply(ref), protocol.ProducerFenced, -1, -1)
		}},
		{"prepareIncrementProducerEpoch: an expected epoch older than the last one is PRODUCER_FENCED; the last one is a retry answered without a bump", func(t *testing.T) {
			h := ready(t)
			r1 := h.init("tx", 1000, 0) // bump 0 -> 1, last epoch 0
			h.commitAll()
			wantInit(t, h.reply(r1), protocol.None, 1000, 1)
			r2 := h.init("tx", 1000, 0) // a retry of that bump
			h.commitAll()
			wantInit(t, h.reply(r2), protocol.None, 1000, 1)
			h.init("tx", -1, -1) // a new instance: epoch 2, last epoch -1
			h.commitAll()
			r3 := h.init("tx", 1000, 1)
			wantInit(t, h.reply(r3), protocol.ProducerFenced, -1, -1)
		}},
		{"prepareInitProducerIdTransit: Ongoing is fenced (PrepareEpochFence then PrepareAbort) and the caller gets CONCURRENT_TRANSACTIONS until CompleteAbort", func(t *testing.T) {
			h := ongoing(t)
			ref := h.init("tx", -1, -1)
			// The fence is current at once: the old instance is fenced
			// before anything commits.
			if m := h.state("tx"); m.ProducerEpoch != 1 {
				t.Fatalf("epoch %d after the fence, want 1", m.ProducerEpoch)
			}
			h.noReply(ref)
			h.commitAll()
			wantInit(t, h.reply(ref), protocol.ConcurrentTransactions, -1, -1)
			// TV2: the abort bumps the fenced epoch once more.
			wantState(t, h.state("tx"), txnlog.PrepareAbort, 1000, 2)
			if len(h.markers) != 1 || h.markers[0].Committed || h.markers[0].ProducerEpoch != 2 ||
				!slices.Equal(h.markers[0].Partitions, []protocol.TopicPartition{tp0, tp1}) || h.markers[0].CoordinatorEpoch != 3 {
				t.Fatalf("markers %+v, want ABORT at epoch 2 to t/0 and t/1 with coordinator epoch 3", h.markers)
			}
			retry := h.init("tx", -1, -1)
			wantInit(t, h.reply(retry), protocol.ConcurrentTransactions, -1, -1)
			h.markAll()
			h.commitAll()
			wantState(t, h.state("tx"), txnlog.CompleteAbort, 1000, 2)
			last := h.init("tx", -1, -1)
			h.commitAll()
			wantInit(t, h.reply(last), protocol.None, 1000, 3)
		}},
		{"prepareInitProducerIdTransit: an exhausted epoch moves the id to a new producer id at epoch 0", func(t *testing.T) {
			h := ready(t)
			h.state("tx").ProducerEpoch = maxEpoch - 1
			ref := h.init("tx", -1, -1)
			h.commitAll()
			wantInit(t, h.reply(ref), protocol.None, 1001, 0)
			if m := h.state("tx"); m.PreviousProducerID != 1000 {
				t.Fatalf("previous producer id %d, want 1000", m.PreviousProducerID)
			}
		}},
		{"handleAddPartitionsToTransaction: an unknown id or another producer id is INVALID_PRODUCER_ID_MAPPING, another epoch PRODUCER_FENCED", func(t *testing.T) {
			h := ready(t)
			if c := addResp(t, h.reply(h.add("nope", 1000, 0, tp0)))[tp0]; c != protocol.InvalidProducerIDMapping {
				t.Fatalf("unknown id: %s", c.Name())
			}
			if c := addResp(t, h.reply(h.add("tx", 1001, 0, tp0)))[tp0]; c != protocol.InvalidProducerIDMapping {
				t.Fatalf("other pid: %s", c.Name())
			}
			if c := addResp(t, h.reply(h.add("tx", 1000, 1, tp0)))[tp0]; c != protocol.ProducerFenced {
				t.Fatalf("other epoch: %s", c.Name())
			}
		}},
		{"handleAddPartitionsToTransaction: the first partition starts the transaction (Ongoing, its timer from now); one already in it answers NONE without a write", func(t *testing.T) {
			h := ready(t)
			h.now = 500
			ref := h.add("tx", 1000, 0, tp0)
			h.noReply(ref)
			h.commitAll()
			if c := addResp(t, h.reply(ref))[tp0]; c != protocol.None {
				t.Fatalf("add: %s", c.Name())
			}
			m := h.state("tx")
			if m.State != txnlog.Ongoing || m.TxnStartTimestamp != 500 || !slices.Equal(m.Partitions, []protocol.TopicPartition{tp0}) {
				t.Fatalf("state %s start %d partitions %v", m.State, m.TxnStartTimestamp, m.Partitions)
			}
			h.now = 900
			again := h.add("tx", 1000, 0, tp0)
			if len(h.writes) != 0 || addResp(t, h.reply(again))[tp0] != protocol.None {
				t.Fatalf("a partition already in the transaction was written again")
			}
			more := h.add("tx", 1000, 0, tp1)
			h.commitAll()
			if c := addResp(t, h.reply(more))[tp1]; c != protocol.None || h.state("tx").TxnStartTimestamp != 500 {
				t.Fatalf("second partition: %s, start %d (want 500)", c.Name(), h.state("tx").TxnStartTimestamp)
			}
		}},
		{"handleAddPartitionsToTransaction: while PrepareCommit is CONCURRENT_TRANSACTIONS", func(t *testing.T) {
			h := ongoing(t)
			h.end("tx", 1000, 0, true)
			h.commitAll()
			if c := addResp(t, h.reply(h.add("tx", 1000, 1, protocol.TopicPartition{Topic: "u"})))[protocol.TopicPartition{Topic: "u"}]; c != protocol.ConcurrentTransactions {
				t.Fatalf("add while PrepareCommit: %s", c.Name())
			}
		}},
		{"handleVerifyPartitionsInTransaction: a partition not in the transaction is TRANSACTION_ABORTABLE", func(t *testing.T) {
			h := newHarness(t)
			h.init("tx", -1, -1)
			h.commitAll()
			h.add("tx", 1000, 0, tp0)
			h.commitAll()
			h.ref++
			h.apply(h.p.AddPartitions(0, h.ref, protocol.AddPartitionsToTxnRequest{TransactionalID: "tx", ProducerID: 1000,
				Partitions: []protocol.TopicPartition{tp0, tp1}, VerifyOnly: true}))
			got := addResp(t, h.reply(h.ref))
			if got[tp0] != protocol.None || got[tp1] != protocol.TransactionAbortable || len(h.writes) != 0 {
				t.Fatalf("verify: %v", got)
			}
		}},
		{"handleEndTransaction: commit writes PrepareCommit with the epoch bumped (TV2), answers it, then markers, then CompleteCommit", func(t *testing.T) {
			h := ongoing(t)
			ref := h.end("tx", 1000, 0, true)
			h.noReply(ref)
			if len(h.markers) != 0 {
				t.Fatalf("markers before PrepareCommit committed")
			}
			h.commitAll()
			wantEnd(t, h.reply(ref), protocol.None, 1000, 1)
			wantState(t, h.state("tx"), txnlog.PrepareCommit, 1000, 1)
			if len(h.markers) != 1 || !h.markers[0].Committed || h.markers[0].ProducerEpoch != 1 || h.markers[0].TransactionVersion != 2 {
				t.Fatalf("markers %+v, want COMMIT at epoch 1, transaction version 2", h.markers)
			}
			h.apply(h.p.MarkerWritten(0, "tx", 1000, 1, tp0))
			if len(h.writes) != 0 {
				t.Fatalf("CompleteCommit written before every marker")
			}
			h.apply(h.p.MarkerWritten(0, "tx", 1000, 1, tp1))
			if len(h.writes) != 1 || h.writes[0].Record.Value.TransactionStatus != txnlog.CompleteCommit {
				t.Fatalf("writes %+v, want CompleteCommit", h.writes)
			}
			h.commitAll()
			wantState(t, h.state("tx"), txnlog.CompleteCommit, 1000, 1)
			if len(h.state("tx").Partitions) != 0 {
				t.Fatalf("partitions left after CompleteCommit")
			}
		}},
		{"TransactionMetadata.prepareIncrementProducerEpoch: InitProducerId after a transaction moves to Empty with no start time (describe prints None)", func(t *testing.T) {
			h := ongoing(t)
			h.end("tx", 1000, 0, true)
			h.commitAll()
			h.markAll()
			h.commitAll()
			wantState(t, h.state("tx"), txnlog.CompleteCommit, 1000, 1)
			h.init("tx", -1, -1)
			h.commitAll()
			m := h.state("tx")
			if m.State != txnlog.Empty || m.TxnStartTimestamp != -1 || len(m.Partitions) != 0 {
				t.Fatalf("after InitProducerId: state %s start %d partitions %v, want Empty, -1, none", m.State, m.TxnStartTimestamp, m.Partitions)
			}
			if d, _ := h.p.Describe("tx"); d.TransactionStartTimeMs != -1 {
				t.Fatalf("describe: start %d, want -1", d.TransactionStartTimeMs)
			}
		}},
		{"handleEndTransaction: a retried commit with the old epoch after CompleteCommit answers NONE with the bumped epoch (isRetry)", func(t *testing.T) {
			h := ongoing(t)
			h.end("tx", 1000, 0, true)
			h.commitAll()
			h.markAll()
			h.commitAll()
			ref := h.end("tx", 1000, 0, true)
			wantEnd(t, h.reply(ref), protocol.None, 1000, 1)
			if len(h.writes) != 0 {
				t.Fatalf("a retry wrote %v", h.writes)
			}
			// The same retry as an abort is INVALID_TXN_STATE.
			wantEnd(t, h.reply(h.end("tx", 1000, 0, false)), protocol.InvalidTxnState, -1, -1)
		}},
		{"handleEndTransaction: after CompleteCommit, a commit with the current epoch (no transaction) is INVALID_TXN_STATE; an abort with it aborts an empty transaction (TV2)", func(t *testing.T) {
			h := ongoing(t)
			h.end("tx", 1000, 0, true)
			h.commitAll()
			h.markAll()
			h.commitAll()
			wantEnd(t, h.reply(h.end("tx", 1000, 1, true)), protocol.InvalidTxnState, -1, -1)
			ref := h.end("tx", 1000, 1, false)
			h.commitAll()
			wantEnd(t, h.reply(ref), protocol.None, 1000, 2)
			wantState(t, h.state("tx"), txnlog.CompleteAbort, 1000, 2)
		}},
		{"handleEndTransaction: a retry while the markers are written is CONCURRENT_TRANSACTIONS", func(t *testing.T) {
			h := ongoing(t)
			h.end("tx", 1000, 0, true)
			h.commitAll()
			wantEnd(t, h.reply(h.end("tx", 1000, 0, true)), protocol.ConcurrentTransactions, -1, -1)
		}},
		{"handleEndTransaction: an old epoch while Ongoing is PRODUCER_FENCED; another producer id INVALID_PRODUCER_ID_MAPPING", func(t *testing.T) {
			h := ready(t)
			h.init("tx", -1, -1) // epoch 1
			h.commitAll()
			h.add("tx", 1000, 1, tp0)
			h.commitAll()
			wantEnd(t, h.reply(h.end("tx", 1000, 0, true)), protocol.ProducerFenced, -1, -1)
			wantEnd(t, h.reply(h.end("tx", 1001, 1, true)), protocol.InvalidProducerIDMapping, -1, -1)
			wantEnd(t, h.reply(h.end("nope", 1000, 1, true)), protocol.InvalidProducerIDMapping, -1, -1)
		}},
		{"handleEndTransaction: commit with no transaction (Empty) is INVALID_TXN_STATE; abort is allowed (TV2) and completes with no marker", func(t *testing.T) {
			h := ready(t)
			wantEnd(t, h.reply(h.end("tx", 1000, 0, true)), protocol.InvalidTxnState, -1, -1)
			ref := h.end("tx", 1000, 0, false)
			h.commitAll()
			wantEnd(t, h.reply(ref), protocol.None, 1000, 1)
			if len(h.markers) != 0 {
				t.Fatalf("markers %v for a transaction with no partition", h.markers)
			}
			wantState(t, h.state("tx"), txnlog.CompleteAbort, 1000, 1)
		}},
		{"handleEndTransaction: an exhausted epoch gets a next producer id; the producer continues with it at epoch 0", func(t *testing.T) {
			h := ongoing(t)
			h.state("tx").ProducerEpoch = maxEpoch - 1
			ref := h.end("tx", 1000, maxEpoch-1, true)
			h.commitAll()
			wantEnd(t, h.reply(ref), protocol.None, 1001, 0)
			if len(h.markers) != 1 || h.markers[0].ProducerID != 1000 || h.markers[0].ProducerEpoch != maxEpoch {
				t.Fatalf("markers %+v, want producer id 1000 at epoch %d", h.markers, maxEpoch)
			}
			h.markAll()
			h.commitAll()
			wantState(t, h.state("tx"), txnlog.CompleteCommit, 1001, 0)
			// retryOnOverflow: the retry with the old id and epoch succeeds.
			wantEnd(t, h.reply(h.end("tx", 1000, maxEpoch-1, true)), protocol.None, 1001, 0)
		}},
		{"appendTransactionToLog: a failed write answers COORDINATOR_NOT_AVAILABLE and leaves the state as it was", func(t *testing.T) {
			h := ongoing(t)
			ref := h.end("tx", 1000, 0, true)
			h.failNext(protocol.NotEnoughReplicas)
			wantEnd(t, h.reply(ref), protocol.CoordinatorNotAvailable, -1, -1)
			m := h.state("tx")
			wantState(t, m, txnlog.Ongoing, 1000, 0)
			if m.PendingTransitionInProgress() {
				t.Fatalf("pending transition kept after a failed write")
			}
			again := h.end("tx", 1000, 0, true)
			h.commitAll()
			wantEnd(t, h.reply(again), protocol.None, 1000, 1)
		}},
		{"appendTransactionToLog: the write waits for the high watermark as long as the transaction timeout of the state it writes (appendRecords' timeout, newMetadata.txnTimeoutMs)", func(t *testing.T) {
			h := ready(t)
			h.ref++
			h.apply(h.p.InitProducerID(h.now, h.ref, protocol.InitProducerIdRequest{TransactionalID: "tx", TransactionTimeoutMs: 5000,
				ProducerID: -1, ProducerEpoch: -1}, protocol.NoProducerID))
			if len(h.writes) != 1 || h.writes[0].TimeoutMs != 5000 {
				t.Fatalf("writes %+v, want one with the new timeout, 5000 ms", h.writes)
			}
			h.commitAll()
			h.add("tx", 1000, 1, tp0)
			if len(h.writes) != 1 || h.writes[0].TimeoutMs != 5000 {
				t.Fatalf("writes %+v, want one with the transaction's timeout, 5000 ms", h.writes)
			}
		}},
		{"abortTimedOutTransactions: an Ongoing transaction older than its timeout is fenced and aborted; the zombie's EndTxn is PRODUCER_FENCED", func(t *testing.T) {
			h := ongoing(t)
			h.now = 60000
			h.apply(h.p.AbortTimedOutTransactions(h.now))
			if len(h.writes) != 0 {
				t.Fatalf("aborted at exactly its timeout")
			}
			h.now = 60001
			h.apply(h.p.AbortTimedOutTransactions(h.now))
			h.commitAll()
			wantState(t, h.state("tx"), txnlog.PrepareAbort, 1000, 2)
			wantEnd(t, h.reply(h.end("tx", 1000, 0, true)), protocol.ProducerFenced, -1, -1)
			h.markAll()
			h.commitAll()
			wantState(t, h.state("tx"), txnlog.CompleteAbort, 1000, 2)
			if c := addResp(t, h.reply(h.add("tx", 1000, 0, tp0)))[tp0]; c != protocol.ProducerFenced {
				t.Fatalf("zombie's add: %s", c.Name())
			}
		}},
		{"loadTransactionsForTxnTopicPartition: the log's last record per id is its state; PrepareCommit resumes its markers; a tombstone forgets the id", func(t *testing.T) {
			h := ongoing(t)
			h.init("gone", -1, -1)
			h.commitAll()
			h.end("tx", 1000, 0, true)
			h.commitAll() // PrepareCommit committed; the coordinator dies before the markers
			h.log = append(h.log, txnlog.Record{Key: txnlog.Key{TransactionalID: "gone"}})
			p := New(7, 4, DefaultConfig())
			p.Replay(h.log)
			if p.Get("gone") != nil {
				t.Fatalf("tombstoned id loaded")
			}
			wantState(t, p.Get("tx"), txnlog.PrepareCommit, 1000, 1)
			res := p.Loaded(100)
			if len(res.Markers) != 1 || !res.Markers[0].Committed || res.Markers[0].ProducerEpoch != 1 || res.Markers[0].CoordinatorEpoch != 4 ||
				!slices.Equal(res.Markers[0].Partitions, []protocol.TopicPartition{tp0, tp1}) {
				t.Fatalf("markers after load %+v", res.Markers)
			}
			// While they are written, the producer's retry waits.
			res = p.EndTxn(100, 1, protocol.EndTxnRequest{TransactionalID: "tx", ProducerID: 1000, ProducerEpoch: 0, Committed: true}, -1)
			wantEnd(t, res.Replies[0].Msg, protocol.ConcurrentTransactions, -1, -1)
			p.MarkerWritten(100, "tx", 1000, 1, tp0)
			res = p.MarkerWritten(100, "tx", 1000, 1, tp1)
			if len(res.Writes) != 1 || res.Writes[0].Record.Value.TransactionStatus != txnlog.CompleteCommit {
				t.Fatalf("writes %+v", res.Writes)
			}
			p.WriteCompleted(100, res.Writes[0].ID, protocol.None)
			wantState(t, p.Get("tx"), txnlog.CompleteCommit, 1000, 1)
		}},
		{"removeExpiredTransactionalIds: an id idle for transactional.id.expiration.ms is written Dead as a tombstone and forgotten", func(t *testing.T) {
			h := ready(t)
			h.now = 604800000 - 1
			h.apply(h.p.ExpireTransactionalIDs(h.now))
			if len(h.writes) != 0 {
				t.Fatalf("expired too early")
			}
			h.now = 604800000
			h.apply(h.p.ExpireTransactionalIDs(h.now))
			if len(h.writes) != 1 || h.writes[0].Record.Value != nil {
				t.Fatalf("writes %+v, want a tombstone", h.writes)
			}
			h.commitAll()
			if h.p.Get("tx") != nil {
				t.Fatalf("expired id still known")
			}
		}},
		{"onResignation: requests waiting for a write are answered NOT_COORDINATOR", func(t *testing.T) {
			h := ready(t)
			ref := h.init("tx", -1, -1)
			h.apply(h.p.Unload())
			wantInit(t, h.reply(ref), protocol.NotCoordinator, -1, -1)
		}},
		{"TransactionMarkerRequestCompletionHandler: a failed Complete write is retried later", func(t *testing.T) {
			h := ongoing(t)
			h.end("tx", 1000, 0, true)
			h.commitAll()
			h.markAll()
			h.failNext(protocol.NotEnoughReplicas)
			if !h.retry || len(h.writes) != 0 {
				t.Fatalf("retry %v writes %v", h.retry, h.writes)
			}
			h.apply(h.p.RetryCompletions(h.now))
			h.commitAll()
			wantState(t, h.state("tx"), txnlog.CompleteCommit, 1000, 1)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
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
