package lessons

import "testing"

// One broker and one __consumer_offsets partition keep these scenarios
// cheap; the mechanisms are the same on three.
const offsetsCluster = "cluster brokers=1 seed=3 offsets.topic.num.partitions=1 offsets.topic.replication.factor=1"

// TestMaxPollChecks: a member that processes longer than
// max.poll.interval.ms leaves the group (AbstractCoordinator's
// handlePollTimeoutExpiry), the other member takes its partition and
// reads the uncommitted batch again, and the late commit fails with
// CommitFailedException (ConsumerCoordinator.sendOffsetCommitRequest
// with no generation).
func TestMaxPollChecks(t *testing.T) {
	p := NewPlayer()
	defer p.Close()
	runAll(p, offsetsCluster, "topic create pay partitions=2",
		"produce pay value=a{i} partition=0 count=2", "produce pay value=b{i} partition=1 count=3")
	expectChecks(t, p, "no group yet", []checkCase{
		{"coordinator", []string{"g"}, "none"},
		{"committed-offset", []string{"g", "pay/1"}, "none"},
		{"partition-owner", []string{"g", "pay/1"}, "none"},
		{"processed-again", []string{"g"}, "0"},
		{"committed-unprocessed", []string{"g", "pay/1"}, "0"},
		{"offset-commit-records", []string{"g", "pay/1"}, "0"},
		{"last-exception", nil, "none"},
	})
	opts := " group=g topics=pay max.poll.interval.ms=10000 enable.auto.commit=false auto.offset.reset=earliest"
	runAll(p, "consumer create fast"+opts, "consumer create slow"+opts, "stabilize")
	expectChecks(t, p, "range split the partitions", []checkCase{
		{"coordinator", []string{"g"}, "1"},
		{"partition-owner", []string{"g", "pay/0"}, "fast"},
		{"partition-owner", []string{"g", "pay/1"}, "slow"},
		{"partition-owner", []string{"g", "pay/2"}, "none"},
	})
	runAll(p, "poll fast", "commit fast sync", "poll slow hold=true", "process slow time=15s")
	expectChecks(t, p, "slow left at its poll timeout", []checkCase{
		{"partition-owner", []string{"g", "pay/1"}, "fast"},
		{"processed-again", []string{"g"}, "0"},
	})
	runAll(p, "commit slow sync")
	expectChecks(t, p, "the late commit", []checkCase{
		{"last-exception", nil, "CommitFailedException"},
		{"last-error", nil, "other"},
		{"committed-offset", []string{"g", "pay/1"}, "none"},
	})
	runAll(p, "poll fast max=3", "commit fast sync")
	expectChecks(t, p, "fast read the batch again", []checkCase{
		{"processed-again", []string{"g"}, "3"},
		{"committed-offset", []string{"g", "pay/1"}, "3"},
		{"committed-unprocessed", []string{"g", "pay/1"}, "0"},
		{"offset-commit-records", []string{"g", "pay/1"}, "1"},
		{"last-exception", nil, "none"},
	})
}

// TestCommitTimingChecks: committing before processing and crashing loses
// the batch for the group (at-most-once); close() with auto-commit commits
// what the application held and abandoned (ConsumerCoordinator.close ->
// maybeAutoCommitOffsetsSync); processing before committing and crashing
// processes it again (at-least-once).
func TestCommitTimingChecks(t *testing.T) {
	p := NewPlayer()
	defer p.Close()
	runAll(p, offsetsCluster, "topic create ledger", "produce ledger value=e{i} count=6",
		"consumer create amo group=g-amo topics=ledger enable.auto.commit=false auto.offset.reset=earliest", "stabilize",
		"poll amo max=2 hold=true", "commit amo sync", "consumer crash amo")
	expectChecks(t, p, "committed, then crashed before processing", []checkCase{
		{"never-processed", []string{"amo"}, "2"},
		{"committed-offset", []string{"g-amo", "ledger/0"}, "2"},
		{"committed-unprocessed", []string{"g-amo", "ledger/0"}, "2"},
		{"processed-again", []string{"g-amo"}, "0"},
	})
	runAll(p, "consumer create alo group=g-alo topics=ledger enable.auto.commit=false auto.offset.reset=earliest", "stabilize",
		"poll alo max=4", "consumer crash alo", "consumer restart alo", "stabilize", "poll alo max=4", "commit alo sync")
	expectChecks(t, p, "processed, crashed before the commit, processed again", []checkCase{
		{"never-processed", []string{"alo"}, "0"},
		{"processed-again", []string{"g-alo"}, "4"},
		{"committed-unprocessed", []string{"g-alo", "ledger/0"}, "0"},
		{"processed-again", []string{"g-amo"}, "0"},
	})
	runAll(p, "consumer create closer group=g-close topics=ledger auto.offset.reset=earliest", "stabilize",
		"poll closer max=3 hold=true", "consumer close closer")
	expectChecks(t, p, "closed holding a batch", []checkCase{
		{"never-processed", []string{"closer"}, "3"},
		{"committed-offset", []string{"g-close", "ledger/0"}, "3"},
		{"committed-unprocessed", []string{"g-close", "ledger/0"}, "3"},
	})
	for _, bad := range [][]string{{"coordinator"}, {"committed-offset", "g"}, {"committed-offset", "g", "ledger"},
		{"partition-owner", "g", "x/y"}, {"processed-again"}, {"never-processed", "a", "b"}, {"last-exception", "x"}} {
		if _, err := p.Evaluate(bad[0], bad[1:]); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// TestOffsetCommitRecordChecks: every OffsetCommit appends a record with
// the key (group, topic, partition), even when the offset did not move;
// the cleaner keeps the latest per key outside the active segment.
func TestOffsetCommitRecordChecks(t *testing.T) {
	p := NewPlayer()
	defer p.Close()
	runAll(p, offsetsCluster+" offsets.topic.segment.bytes=400", "topic create t", "produce t value=v{i} count=3",
		"consumer create c group=g topics=t enable.auto.commit=false auto.offset.reset=earliest", "stabilize",
		"poll c max=1", "commit c", "poll c max=1", "commit c", "commit c", "commit c", "commit c")
	expectChecks(t, p, "five commits", []checkCase{
		{"offset-commit-records", []string{"g", "t/0"}, "5"},
		{"offset-commit-records", []string{"g", "t/1"}, "0"},
		{"offset-commit-records", []string{"other", "t/0"}, "0"},
		{"committed-offset", []string{"g", "t/0"}, "2"},
	})
	runAll(p, "tick 16s")
	expectChecks(t, p, "after the cleaner", []checkCase{
		{"committed-offset", []string{"g", "t/0"}, "2"},
	})
	if got, err := p.Evaluate("offset-commit-records", []string{"g", "t/0"}); err != nil || got == "5" {
		t.Errorf("after the cleaner: offset-commit-records g t/0 = %q (err %v), want fewer than 5", got, err)
	}
}
