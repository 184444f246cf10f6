package client

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// TransactionManager.State.isTransitionValid, every pair.
func TestTransitionValid(t *testing.T) {
	valid := map[TxnState][]TxnState{ // target <- sources
		TxnUninitialized:  {TxnReady, TxnAbortableError},
		TxnInitializing:   {TxnUninitialized, TxnAborting},
		TxnReady:          {TxnInitializing, TxnCommitting, TxnAborting},
		TxnInTransaction:  {TxnReady},
		TxnCommitting:     {TxnInTransaction},
		TxnAborting:       {TxnInTransaction, TxnAbortableError},
		TxnAbortableError: {TxnInTransaction, TxnCommitting, TxnAbortableError, TxnInitializing},
		TxnFatalError:     {TxnUninitialized, TxnInitializing, TxnReady, TxnInTransaction, TxnCommitting, TxnAborting, TxnAbortableError, TxnFatalError},
	}
	for target := TxnUninitialized; target <= TxnFatalError; target++ {
		for source := TxnUninitialized; source <= TxnFatalError; source++ {
			want := slices.Contains(valid[target], source)
			if got := transitionValid(source, target); got != want {
				t.Errorf("%s -> %s: valid=%t, want %t", source, target, got, want)
			}
		}
	}
}

// The transactional calls in the wrong state throw what KafkaProducer and
// TransactionManager throw, and change nothing.
func TestTransactionalCallsInTheWrongState(t *testing.T) {
	cases := []struct {
		name    string
		call    func(tm *transactionManager) *txnError
		state   TxnState
		wantErr string
	}{
		{"beginTransaction before initTransactions", func(tm *transactionManager) *txnError { return tm.beginTransaction() }, TxnUninitialized,
			"TransactionalId tx: Invalid transition attempted from state UNINITIALIZED to state IN_TRANSACTION"},
		{"beginTransaction twice", func(tm *transactionManager) *txnError { return tm.beginTransaction() }, TxnInTransaction,
			"TransactionalId tx: Invalid transition attempted from state IN_TRANSACTION to state IN_TRANSACTION"},
		{"beginCommit with no transaction", func(tm *transactionManager) *txnError { return opErr(tm.beginCommit()) }, TxnReady,
			"TransactionalId tx: Invalid transition attempted from state READY to state COMMITTING_TRANSACTION"},
		{"beginAbort with no transaction", func(tm *transactionManager) *txnError { return opErr(tm.beginAbort()) }, TxnReady,
			"TransactionalId tx: Invalid transition attempted from state READY to state ABORTING_TRANSACTION"},
		{"sendOffsetsToTransaction outside a transaction", func(tm *transactionManager) *txnError {
			return opErr(tm.sendOffsetsToTransaction([]protocol.OffsetCommitPartition{{Offset: 1}}, ConsumerGroupMetadata{GroupID: "g"}))
		}, TxnReady, "Cannot send offsets if a transaction is not in progress (currentState= READY)"},
		{"send outside a transaction (maybeAddPartition)", func(tm *transactionManager) *txnError {
			return tm.maybeAddPartition(protocol.TopicPartition{Topic: "t", Partition: 0}, false)
		}, TxnReady, "Cannot add partition t-0 to transaction while in state  READY"},
		{"initTransactions twice", func(tm *transactionManager) *txnError { return opErr(tm.initializeTransactions(noProducerIDAndEpoch)) }, TxnReady,
			"TransactionalId tx: Invalid transition attempted from state READY to state INITIALIZING"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tm := newTransactionManager("tx", 60000, nil)
			tm.state = tc.state
			if tc.state != TxnUninitialized {
				tm.pe = producerIDAndEpoch{5000, 0}
			}
			e := tc.call(tm)
			if e == nil || e.message != tc.wantErr {
				t.Fatalf("got %v, want %q", e, tc.wantErr)
			}
			if tm.state != tc.state {
				t.Fatalf("state moved to %s", tm.state)
			}
		})
	}
}

func opErr(op *TxnOp) *txnError {
	if op.Done && op.Err != protocol.None {
		return &txnError{op.Err, op.Message}
	}
	return nil
}

// initTransactions: FindCoordinator(transaction) then InitProducerId with
// the transactional id and timeout; CONCURRENT_TRANSACTIONS (the previous
// instance's transaction still being aborted) and a moved coordinator are
// retried.
func TestInitTransactionsFindsCoordinatorAndRetries(t *testing.T) {
	f := newFakeTxnBroker(t, 1)
	f.initErrors = []protocol.ErrorCode{protocol.ConcurrentTransactions, protocol.NotCoordinator}
	p := f.newProducer(func(c *ProducerConfig) { c.TransactionalID = "tx" })
	if p.TxnState() != "UNINITIALIZED" {
		t.Fatalf("state %s before initTransactions", p.TxnState())
	}
	op := p.InitTransactions()
	f.run(func() bool { return op.Done })
	if op.Err != protocol.None || p.TxnState() != "READY" {
		t.Fatalf("initTransactions %s %q, state %s", op.Err.Name(), op.Message, p.TxnState())
	}
	want := []string{"FindCoordinator", "InitProducerId", "InitProducerId", "FindCoordinator", "InitProducerId"}
	if got := f.kinds(); !slices.Equal(got, want) {
		t.Fatalf("requests %v, want %v", got, want)
	}
	fc := f.got[0].(protocol.FindCoordinatorRequest)
	init := f.got[1].(protocol.InitProducerIdRequest)
	if fc.KeyType != protocol.CoordinatorTypeTransaction || fc.Key != "tx" || init.TransactionalID != "tx" || init.TransactionTimeoutMs != 60000 || init.ProducerID != -1 {
		t.Fatalf("FindCoordinator %+v, InitProducerId %+v", fc, init)
	}
}

func initTxnProducer(t *testing.T, f *fakeTxnBroker, mod func(*ProducerConfig)) *Producer {
	t.Helper()
	p := f.newProducer(func(c *ProducerConfig) {
		c.TransactionalID = "tx"
		if mod != nil {
			mod(c)
		}
	})
	op := p.InitTransactions()
	f.run(func() bool { return op.Done })
	if op.Err != protocol.None {
		t.Fatalf("initTransactions: %s", op.Err.Name())
	}
	return p
}

// A committed transaction: its batches are transactional (attribute bit,
// ProduceRequest.TransactionalID), no AddPartitionsToTxn is sent (TV2),
// EndTxn(COMMIT) goes only once every batch is acknowledged, and its
// answer's bumped epoch is the next transaction's, sequences from 0.
func TestCommitFlushesThenEndTxnAndTakesTheBumpedEpoch(t *testing.T) {
	f := newFakeTxnBroker(t, 2)
	p := initTxnProducer(t, f, nil)
	if err := p.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	d1 := p.Send("t", 0, nil, []byte("a"))
	d2 := p.Send("t", 1, nil, []byte("b"))
	op := p.CommitTransaction()
	if p.TxnState() != "COMMITTING_TRANSACTION" {
		t.Fatalf("state %s after commitTransaction", p.TxnState())
	}
	f.run(func() bool { return op.Done })
	if op.Err != protocol.None || !d1.Done || !d2.Done || d1.Err != protocol.None || d2.Err != protocol.None {
		t.Fatalf("commit %s, deliveries %s %s", op.Err.Name(), d1.Err.Name(), d2.Err.Name())
	}
	var sawProduces int
	for _, m := range f.got {
		switch m := m.(type) {
		case protocol.ProduceRequest:
			sawProduces++
			b := decodeBatch(t, m)
			if !b.IsTransactional() || m.TransactionalID != "tx" || b.ProducerEpoch != 0 || b.BaseSequence != 0 {
				t.Fatalf("batch transactional=%t id=%q epoch %d seq %d", b.IsTransactional(), m.TransactionalID, b.ProducerEpoch, b.BaseSequence)
			}
		case protocol.EndTxnRequest:
			if sawProduces != 2 || !m.Committed || m.ProducerEpoch != 0 {
				t.Fatalf("EndTxn %+v after %d produce requests", m, sawProduces)
			}
		case protocol.AddPartitionsToTxnRequest:
			t.Fatal("a transaction version 2 client sent AddPartitionsToTxn")
		}
	}
	if pid, epoch := p.ProducerIDAndEpoch(); pid != 5000 || epoch != 1 || p.TxnState() != "READY" {
		t.Fatalf("after commit %d/%d %s, want 5000/1 READY", pid, epoch, p.TxnState())
	}
	// The next transaction writes under epoch 1 from sequence 0.
	p.BeginTransaction()
	d3 := p.Send("t", 0, nil, []byte("c"))
	op = p.CommitTransaction()
	f.run(func() bool { return op.Done })
	last := decodeBatch(t, f.produces[len(f.produces)-1])
	if d3.Err != protocol.None || last.ProducerEpoch != 1 || last.BaseSequence != 0 {
		t.Fatalf("second transaction's batch epoch %d seq %d (%s), want 1/0", last.ProducerEpoch, last.BaseSequence, d3.Err.Name())
	}
}

// An empty transaction sends no EndTxn (TransactionManager.nextRequest:
// nothing was added).
func TestEmptyTransactionSendsNoEndTxn(t *testing.T) {
	f := newFakeTxnBroker(t, 1)
	p := initTxnProducer(t, f, nil)
	p.BeginTransaction()
	op := p.CommitTransaction()
	f.run(func() bool { return op.Done })
	if slices.Contains(f.kinds(), "EndTxn") || p.TxnState() != "READY" || op.Err != protocol.None {
		t.Fatalf("requests %v, state %s", f.kinds(), p.TxnState())
	}
}

// abortTransaction fails the batches never sent with
// TransactionAbortedException, then sends EndTxn(ABORT).
func TestAbortDropsUnsentBatches(t *testing.T) {
	f := newFakeTxnBroker(t, 1)
	p := initTxnProducer(t, f, func(c *ProducerConfig) { c.Linger = 1000 * 1000 * 1000 }) // 1 s: still lingering
	p.BeginTransaction()
	first := p.Send("t", 0, nil, []byte("sent"))
	f.runUntilDone(first) // the first record waited its linger.ms and was sent
	d := p.Send("t", 0, nil, []byte("a"))
	op := p.AbortTransaction()
	f.run(func() bool { return op.Done })
	if d.Err != protocol.TransactionAborted || d.Message != "Failing batch since transaction was aborted" {
		t.Fatalf("unsent record %s %q", d.Err.Name(), d.Message)
	}
	if len(f.produces) != 1 || !slices.Contains(f.kinds(), "EndTxn") {
		t.Fatalf("%d produce requests, requests %v", len(f.produces), f.kinds())
	}
	end := f.got[len(f.got)-1].(protocol.EndTxnRequest)
	if end.Committed || op.Err != protocol.None || p.TxnState() != "READY" {
		t.Fatalf("EndTxn committed=%t, abort %s, state %s", end.Committed, op.Err.Name(), p.TxnState())
	}
}

// A batch of the transaction that fails (here INVALID_PRODUCER_EPOCH, a
// zombie's write) moves the producer to ABORTABLE_ERROR: commit fails
// with the cause, abort works and the producer goes on.
func TestFailedBatchMakesTheTransactionAbortable(t *testing.T) {
	f := newFakeTxnBroker(t, 1)
	f.produce = func(int, protocol.ProduceRequest) (protocol.ErrorCode, bool) {
		return protocol.InvalidProducerEpoch, false
	}
	p := initTxnProducer(t, f, nil)
	p.BeginTransaction()
	d := p.Send("t", 0, nil, []byte("a"))
	f.runUntilDone(d)
	if d.Err != protocol.InvalidProducerEpoch || p.TxnState() != "ABORTABLE_ERROR" {
		t.Fatalf("record %s, state %s", d.Err.Name(), p.TxnState())
	}
	commit := p.CommitTransaction()
	f.run(func() bool { return commit.Done })
	if commit.Err != protocol.InvalidProducerEpoch || !strings.Contains(commit.Message, "attempted to produce with an old epoch") {
		t.Fatalf("commit %s %q", commit.Err.Name(), commit.Message)
	}
	abort := p.AbortTransaction()
	f.run(func() bool { return abort.Done })
	if abort.Err != protocol.None || p.TxnState() != "READY" {
		t.Fatalf("abort %s, state %s", abort.Err.Name(), p.TxnState())
	}
}

// A newer instance with the same transactional.id bumped the epoch: the
// coordinator answers the old one PRODUCER_FENCED, which is fatal; every
// later call throws ProducerFencedException.
func TestFencedProducerIsFatal(t *testing.T) {
	f := newFakeTxnBroker(t, 1)
	old := initTxnProducer(t, f, nil)
	old.BeginTransaction()
	d := old.Send("t", 0, nil, []byte("zombie"))
	f.runUntilDone(d)
	// The restart: a new producer with the same transactional.id.
	old.Crash()
	_ = old
	f2 := f.newProducer(func(c *ProducerConfig) { c.TransactionalID = "tx" })
	op := f2.InitTransactions()
	f.run(func() bool { return op.Done })
	if _, epoch := f2.ProducerIDAndEpoch(); epoch != 1 {
		t.Fatalf("restarted producer epoch %d, want 1", epoch)
	}

	// A zombie that was not crashed, only slow: its EndTxn is fenced.
	g := newFakeTxnBroker(t, 1)
	g.endTxn = func(protocol.EndTxnRequest) protocol.ErrorCode { return protocol.ProducerFenced }
	z := initTxnProducer(t, g, nil)
	z.BeginTransaction()
	z.Send("t", 0, nil, []byte("x"))
	commit := z.CommitTransaction()
	g.run(func() bool { return commit.Done })
	if commit.Err != protocol.ProducerFenced || z.TxnState() != "FATAL_ERROR" {
		t.Fatalf("commit %s, state %s", commit.Err.Name(), z.TxnState())
	}
	err := z.BeginTransaction()
	want := "PRODUCER_FENCED: Producer with transactionalId 'tx' and ProducerIdAndEpoch(producerId=5000, epoch=0) has been fenced by another producer with the same transactionalId"
	if err == nil || err.Error() != want {
		t.Fatalf("beginTransaction after fencing: %v, want %q", err, want)
	}
	late := z.Send("t", 0, nil, []byte("y"))
	g.runUntilDone(late)
	if late.Err != protocol.ProducerFenced {
		t.Fatalf("send after fencing: %s", late.Err.Name())
	}
}

// sendOffsetsToTransaction (TV2): FindCoordinator(group) then
// TxnOffsetCommit with the consumer's group metadata, no AddOffsetsToTxn;
// a zombie consumer's generation makes the transaction abortable.
func TestSendOffsetsToTransaction(t *testing.T) {
	f := newFakeTxnBroker(t, 1)
	p := initTxnProducer(t, f, nil)
	p.BeginTransaction()
	offsets := []protocol.OffsetCommitPartition{{TP: protocol.TopicPartition{Topic: "in", Partition: 0}, Offset: 42, LeaderEpoch: -1}}
	g := ConsumerGroupMetadata{GroupID: "g", GenerationID: 3, MemberID: "m-1"}
	op := p.SendOffsetsToTransaction(offsets, g)
	f.run(func() bool { return op.Done })
	if op.Err != protocol.None {
		t.Fatalf("sendOffsetsToTransaction %s", op.Err.Name())
	}
	var fc protocol.FindCoordinatorRequest
	var tc protocol.TxnOffsetCommitRequest
	for _, m := range f.got {
		switch m := m.(type) {
		case protocol.FindCoordinatorRequest:
			fc = m
		case protocol.TxnOffsetCommitRequest:
			tc = m
		}
	}
	if fc.KeyType != protocol.CoordinatorTypeGroup || fc.Key != "g" {
		t.Fatalf("FindCoordinator %+v", fc)
	}
	if tc.TransactionalID != "tx" || tc.GroupID != "g" || tc.GenerationID != 3 || tc.MemberID != "m-1" || tc.ProducerID != 5000 || !slices.Equal(tc.Offsets, offsets) {
		t.Fatalf("TxnOffsetCommit %+v", tc)
	}
	commit := p.CommitTransaction()
	f.run(func() bool { return commit.Done })
	if !slices.Contains(f.kinds(), "EndTxn") {
		t.Fatal("a transaction with only offsets must still send EndTxn")
	}

	f.txnOffsetCommit = func(protocol.TxnOffsetCommitRequest) protocol.ErrorCode { return protocol.IllegalGeneration }
	p.BeginTransaction()
	op = p.SendOffsetsToTransaction(offsets, g)
	f.run(func() bool { return op.Done })
	if op.Err != protocol.IllegalGeneration || p.TxnState() != "ABORTABLE_ERROR" ||
		op.Message != "Transaction offset Commit failed due to consumer group metadata mismatch: Specified group generation id is not valid." {
		t.Fatalf("zombie consumer's offsets: %s %q, state %s", op.Err.Name(), op.Message, p.TxnState())
	}
}

// The EndTxn's answer is lost: after request.timeout.ms the request counts
// as disconnected (TxnRequestHandler.onComplete's wasDisconnected), so the
// producer finds the coordinator again and resends the same EndTxn.
func TestLostEndTxnAnswerFindsCoordinatorAndRetries(t *testing.T) {
	f := newFakeTxnBroker(t, 1)
	p := initTxnProducer(t, f, nil)
	p.BeginTransaction()
	f.runUntilDone(p.Send("t", 0, nil, []byte("a")))
	f.net.Drop(sim.DropRule{Kind: "EndTxnResponse", Remaining: 1})
	op := p.CommitTransaction()
	f.run(func() bool { return op.Done })
	got := f.kinds()
	want := []string{"FindCoordinator", "InitProducerId", "EndTxn", "FindCoordinator", "EndTxn"}
	if !slices.Equal(got, want) || op.Err != protocol.None {
		t.Fatalf("requests %v (commit %s), want %v", got, op.Err.Name(), want)
	}
	var ends []protocol.EndTxnRequest
	for _, m := range f.got {
		if e, ok := m.(protocol.EndTxnRequest); ok {
			ends = append(ends, e)
		}
	}
	first, second := ends[0], ends[1]
	if first.ProducerEpoch != second.ProducerEpoch || !second.Committed {
		t.Fatalf("the retried EndTxn %+v differs from the first %+v", second, first)
	}
}

// A crashed producer is a dead process: nothing of it runs any more (no
// drain, no metadata retry, no request), whatever it was doing.
func TestCrashedProducerGoesQuiet(t *testing.T) {
	f := newFakeTxnBroker(t, 1)
	f.net.Drop(sim.DropRule{Kind: "MetadataResponse", Remaining: 1}) // a metadata request stays in flight
	p := initTxnProducer(t, f, nil)
	p.BeginTransaction()
	p.Send("t", 0, nil, []byte("a"))
	p.Crash()
	sent := f.net.Sent("p")
	for steps := 0; ; steps++ {
		if _, ok := f.sched.Step(); !ok {
			break
		}
		if steps > 10_000 {
			t.Fatal("events keep firing after the crash")
		}
	}
	if f.net.Sent("p") != sent {
		t.Fatalf("the crashed producer sent %d more messages", f.net.Sent("p")-sent)
	}
}

// TransactionManagerTest.testLookupCoordinatorOnDisconnectBeforeSend: a
// coordinator whose connection fails before the send (awaitNodeReady's
// IOException) makes Sender.maybeFindCoordinatorAndRetry look it up again
// at once, with no retry.backoff.ms: it sleeps only for a request that
// needs no coordinator. While the broker asked still names the dead one
// (its metadata has not heard it was fenced), the producer asks once per
// round trip, as Kafka's does, and counts each refusal for the liveness
// checker (CoordinatorRefusals). Once a live coordinator is named, the
// retried InitProducerId waits retry.backoff.ms (isRetry).
func TestCoordinatorRefusingTheConnectionIsLookedUpAgainAtOnce(t *testing.T) {
	f := newFakeTxnBroker(t, 1)
	f.net.Attach(kraft.BrokerNode(2), func(*sim.Envelope) {})
	f.net.SetDown(kraft.BrokerNode(2), true)
	f.run(func() bool { return len(f.got) == 1 }) // b1 hears b2's sockets close
	f.got = nil
	f.coordinator = 2
	p := f.newProducer(func(c *ProducerConfig) {
		c.TransactionalID = "tx"
		c.RetryBackoff = 100 * time.Millisecond
	})
	op := p.InitTransactions()
	start := f.sched.Clock.Elapsed()
	f.run(func() bool { return f.sched.Clock.Elapsed() >= start+20*time.Millisecond })
	finds := len(f.got)
	refused, by := p.CoordinatorRefusals()
	if slices.ContainsFunc(f.got, func(m sim.Message) bool { return m.Kind() != "FindCoordinator" }) || finds < 9 || by != 2 || refused < uint64(finds-1) || refused > uint64(finds) {
		t.Fatalf("in 20 ms with the named coordinator b2 down: requests %v, %d refusals by b%d; want a FindCoordinator per 2 ms round trip, each after a refusal", f.kinds(), refused, by)
	}
	f.coordinator = 1
	f.run(func() bool {
		return slices.ContainsFunc(f.got, func(m sim.Message) bool { return m.Kind() == "InitProducerId" })
	})
	found := f.sched.Clock.Elapsed() // the InitProducerId just arrived, 1 ms after it left
	f.run(func() bool { return op.Done })
	if op.Err != protocol.None {
		t.Fatalf("initTransactions: %s", op.Err.Name())
	}
	// The FindCoordinator answered b1 went at once; the retried
	// InitProducerId after it waited retry.backoff.ms.
	if i := slices.IndexFunc(f.got, func(m sim.Message) bool { return m.Kind() == "InitProducerId" }); f.got[i-1].Kind() != "FindCoordinator" || found < start+20*time.Millisecond+100*time.Millisecond {
		t.Fatalf("the InitProducerId arrived at %v, requests %v: want it retry.backoff.ms after the coordinator was found", found, f.kinds())
	}
}
