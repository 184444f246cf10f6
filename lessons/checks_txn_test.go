package lessons

import "testing"

const txnCluster = "cluster brokers=3 seed=13 transaction.state.log.num.partitions=1 offsets.topic.num.partitions=1"

// TestTxnChecks: two transactions interleaved in one partition with a
// plain record between them. The LSO is the first offset of the oldest
// undecided transaction (ProducerStateManager.firstUndecidedOffset, capped
// at the high watermark by UnifiedLog.lastStableOffset); a COMMIT marker of
// one producer decides only that producer's records; an aborted record is
// found through the .txnindex (collectAbortedTransactions), so a
// read_committed reader skips it but keeps the other producer's committed
// record; markers are never values and never handed to a poll.
func TestTxnChecks(t *testing.T) {
	p := NewPlayer()
	defer p.Close()
	runAll(p, txnCluster, "topic create t partitions=1 rf=3",
		"producer create p1 transactional.id=x1", "producer create p2 transactional.id=x2", "producer create plain")
	expectChecks(t, p, "nothing written", []checkCase{
		{"txn-state", []string{"x1"}, "Empty"},
		{"txn-state", []string{"unknown"}, "none"},
		{"txn-partitions", []string{"x1"}, "none"},
		{"lso", []string{"t/0"}, "0"},
		{"values", []string{"t/0", ""}, "none"},
		{"record-state", []string{"t/0", "0"}, "none"},
		{"control-type", []string{"t/0", "0"}, "none"},
	})
	runAll(p, "txn begin p1", "produce t value=a1 producer=p1", "txn begin p2", "produce t value=c1 producer=p2",
		"produce t value=plain producer=plain")
	expectChecks(t, p, "two transactions open", []checkCase{
		{"txn-state", []string{"x1"}, "Ongoing"},
		{"txn-partitions", []string{"x1"}, "t/0"},
		{"lso", []string{"t/0"}, "0"},
		{"record-state", []string{"t/0", "0"}, "open"},
		{"record-state", []string{"t/0", "1"}, "open"},
		{"record-state", []string{"t/0", "2"}, "committed"},
		{"committed-values", []string{"t/0", ""}, "none"},
		{"values", []string{"t/0", ""}, "a1,c1,plain"},
	})
	runAll(p, "txn commit p2", "tick 100ms")
	expectChecks(t, p, "the later transaction committed", []checkCase{
		{"lso", []string{"t/0"}, "0"}, // the earlier one still holds it
		{"record-state", []string{"t/0", "1"}, "committed"},
		{"record-state", []string{"t/0", "3"}, "control"},
		{"control-type", []string{"t/0", "3"}, "COMMIT"},
		{"record-state", []string{"t/0", "0"}, "open"},
		{"txn-state", []string{"x2"}, "CompleteCommit"},
		{"txn-partitions", []string{"x2"}, "none"},
	})
	runAll(p, "txn abort p1", "tick 100ms")
	expectChecks(t, p, "the earlier transaction aborted", []checkCase{
		{"lso", []string{"t/0"}, "5"},
		{"record-state", []string{"t/0", "0"}, "aborted"},
		{"control-type", []string{"t/0", "4"}, "ABORT"},
		{"control-type", []string{"t/0", "2"}, "none"},
		{"values", []string{"t/0", ""}, "a1,c1,plain"},
		{"values", []string{"t/0", "c"}, "c1"},
		{"committed-values", []string{"t/0", ""}, "c1,plain"},
		{"txn-state", []string{"x1"}, "CompleteAbort"},
	})
	runAll(p, "consumer create rc assign=t/0 isolation.level=read_committed auto.offset.reset=earliest",
		"consumer create ru assign=t/0 auto.offset.reset=earliest", "poll rc max=20", "poll ru max=20")
	expectChecks(t, p, "both readers polled", []checkCase{
		{"received", []string{"rc", "t/0"}, "2"},
		{"received", []string{"ru", "t/0"}, "3"},
	})
	// A record no follower fetched yet is above the high watermark.
	runAll(p, "producer create fast acks=1", "net drop type=Fetch count=0", "produce t value=late producer=fast")
	expectChecks(t, p, "an acks=1 record above the high watermark", []checkCase{
		{"record-state", []string{"t/0", "5"}, "uncommitted"},
		{"lso", []string{"t/0"}, "5"},
		{"committed-values", []string{"t/0", ""}, "c1,plain"},
	})
}

// TestSideEffectsAgain: the eos loop's side effect runs when the
// application processes a record, before the transaction; a crash after it
// and a restart from the committed offset run it again for the same input.
func TestSideEffectsAgain(t *testing.T) {
	p := NewPlayer()
	defer p.Close()
	runAll(p, txnCluster, "topic create in partitions=1 rf=3", "topic create out partitions=1 rf=3", "produce in value=v{i} count=2",
		"consumer create app group=g topics=in isolation.level=read_committed enable.auto.commit=false auto.offset.reset=earliest",
		"producer create tp transactional.id=t-1", "stabilize", "eos app tp to=out max=1")
	expectChecks(t, p, "one clean iteration", []checkCase{{"side-effects-again", []string{"app"}, "0"}})
	runAll(p, "eos app tp to=out max=1 crash=after-poll", "producer restart tp", "consumer restart app", "stabilize",
		"eos app tp to=out max=1")
	expectChecks(t, p, "the crashed record processed again", []checkCase{
		{"side-effects-again", []string{"app"}, "1"},
		{"side-effects-again", []string{"other"}, "0"},
	})
}
