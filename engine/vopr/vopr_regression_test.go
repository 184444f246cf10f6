package vopr

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/lab"
)

// TestVOPRRegressionScripts replays scripts of seeds the checker once
// failed, cut at the step that reported the violation: replayed on
// today's engine and checker, none may break an invariant, and none may
// show its absent text again. (Known bugs not fixed yet had a test of
// their own, TestVOPRKnownEngineBugs, until the last of them was fixed.)
func TestVOPRRegressionScripts(t *testing.T) {
	nativeOnly(t, "every regression script replayed, 78 s under node")
	for _, c := range []struct{ file, why, absent string }{
		// The cleaner removed a compacted topic's aborted transaction
		// (LogCleaner discards aborted transactions' records, KIP-98), and
		// the checker called its acknowledged records lost.
		{"seed62-aborted-txn-compacted-away.lab", "acknowledged records of an aborted transaction compacted away", ""},
		// A stabilize while two of three brokers were down: the coordinator's
		// timed-out abort could not write PrepareAbort (its
		// __transaction_state partition under min ISR) and kept the epoch
		// it had bumped (Kafka's hasFailedEpochFence); liveness called the
		// transaction hanging instead of blocked by the fault.
		{"seed2-coordinator-under-min-isr-failed-epoch-fence.lab", "a timed-out abort blocked by a coordinator under min ISR", ""},
		// A COMMIT marker above a high watermark that stands still while
		// the partition's ISR is under min.insync.replicas (KAFKA-15583)
		// and its other replicas are down: a fault, not a bug.
		{"seed35-marker-above-a-still-hw.lab", "a marker held above the high watermark by replicas that are down", ""},
		// 200 steps: a net partition cut the coordinator off from the
		// leader its markers had to reach; liveness named no fault.
		{"seed70-markers-cut-off-from-coordinator.lab", "markers unanswered behind a net partition", ""},
		// 200 steps: an unclean election on t0/0 elected a replica without
		// the ABORT marker its old leader had acknowledged, so the
		// transaction hangs there, as it would in Kafka.
		{"seed37-unclean-election-loses-marker.lab", "a hanging transaction an unclean election made", ""},
		// 200 steps: a follower whose log was empty at offset 33 (its start
		// and end) fetched from a leader whose batch 28-35 straddles it, and
		// refused it for ever ("batch at offset 28 is below the log end
		// offset 33"); Kafka's Partition.appendRecordsToFollowerOrFutureReplica
		// restarts such an empty log at the batch's base offset.
		{"seed26-follower-log-ends-inside-a-leader-batch.lab", "an empty follower log inside the leader's batch", ""},
		// The KRaft workload (controllers crashed, partitioned, cut off):
		// a registration lost to a partition was never resent; the checker
		// measured a deposed leader after the new one crashed; a snapshot
		// older than the leader's own AlterPartition put its old ISR back.
		{"seed85-registration-lost-to-a-partition.lab", "a broker fenced for good after its registration was lost", ""},
		{"seed141-checker-measured-a-deposed-leader.lab", "acknowledged records measured on a deposed leader", ""},
		{"seed358-snapshot-older-than-alterpartition.lab", "an ISR put back by an older metadata snapshot", ""},
		// A cooperative member whose generation was reset while its
		// coordinator was out of reach rejoined still owning its partitions.
		{"seed158-cooperative-reset-keeps-partitions.lab", "partitions kept through a generation reset", ""},
		// A broker crashed before its registration was answered and
		// restarted: the new incarnation took the dead one's answer (both
		// attempt 1), ran on an epoch the controller had superseded and
		// stayed fenced, so the last stabilize ran out of events saying so.
		// Registrations now carry the incarnation.
		{"seed471-restarted-broker-takes-a-dead-incarnations-answer.lab", "a restarted broker took its dead incarnation's registration", "\n  b1 is fenced\n"},
		// 200 steps: a follower that took its leader's log start offset
		// (epoch cache truncated from the start to 68) crashed before its
		// retention deleted the segment below it and came back with the
		// log start of that segment, 33; Kafka keeps such a cache, and the
		// converged check, comparing from 33, waited for it until the last
		// stabilize ran out of events. It compares from where both
		// histories start.
		{"seed391-follower-epoch-cache-starts-above-its-log-start.lab", "a follower's epoch cache starting above its reloaded log start", "simulation events a command may run"},
		// 200 steps: one of __transaction_state/0's three replicas runs
		// (min ISR 2), its leader still counting a dead replica in the ISR
		// it cannot shrink (its metadata cut off): every InitProducerId
		// write times out and the producer's retry writes again. A fault,
		// not a loop; the checker excused it only under the leader's ISR.
		{"seed896-coordinator-writes-below-min-isr-stale-isr.lab", "a coordinator's writes timing out with fewer replicas running than min ISR", ""},
		// no-busy-loop, a checker bug: a transactional producer whose
		// coordinator refused the connection (down, but still named by the
		// brokers' metadata: not fenced yet, or the broker asked is cut off
		// from the quorum) looks it up again at once, once per round trip, as
		// Kafka's Sender does (maybeFindCoordinatorAndRetry); the checker
		// called the producer and the broker answering it busy. The last
		// stabilize's quiet window must now say so instead.
		{"seed645-dead-coordinator-named-until-fenced.lab", "FindCoordinator at once after a dead coordinator refused", "\n  busy loop:"},
		{"seed857-dead-coordinator-named-until-fenced.lab", "FindCoordinator at once after a dead coordinator refused", "\n  busy loop:"},
		{"seed326-dead-coordinator-named-until-fenced.lab", "five producers told of a dead coordinator", "\n  busy loop:"},
		{"seed323-dead-coordinator-named-by-a-cut-off-broker.lab", "a dead coordinator named by a broker cut off from the quorum", "\n  busy loop:"},
		{"seed818-dead-coordinator-named-by-a-cut-off-broker.lab", "a dead coordinator named by a broker cut off from the quorum", "\n  busy loop:"},
		// no-busy-loop, a checker bug: three transactional producers retrying
		// FindCoordinator every retry.backoff.ms at one broker made the
		// broker's answers exceed its own bound.
		{"seed945-broker-answering-retrying-producers.lab", "a broker answering producers that retry at their retry.backoff.ms", "\n  busy loop:"},
		// -lift=controller-partitions: a broker cut off from the
		// controllers, which named no leader of its __consumer_offsets
		// partition, went on coordinating the group and fenced a member
		// whose session expired; the checker kept counting the member from
		// its last description and called its overlap with the partitions'
		// new owner, before it heard, a double owner. Kafka allows it.
		{"seed908-checker-counted-a-fenced-member.lab", "a fenced member's partitions, counted from a stale member list", ""},
		// A stabilize while a net partition cut brokers off from the
		// controllers: t1/0's last ISR member ran fenced behind it, so the
		// partition had no leader, as in Kafka, and the converged property
		// named no fault for it.
		{"seed32-leaderless-behind-a-fenced-isr-not-excused.lab", "a partition leaderless behind its fenced last ISR member", ""},
		// A broker restarted while a cut link kept it from the quorum's
		// leader could not replay its registration and heartbeated on a
		// growing number of 50 ms chains (297/s); it now loops as Kafka's
		// BrokerLifecycleManager does in STARTING, once every 10 ms, which
		// the checker says with the cut. The workload no longer keeps such
		// restarts out (Options.UnsettledRegistrations is gone).
		{"seed719-starting-broker-cut-off-from-the-quorum-leader.lab", "a starting broker's 10 ms heartbeats while cut off from the quorum's leader", "\n  busy loop:"},
		// 200 steps: broker 1 restarted cut off from the quorum's leader
		// and replayed no metadata; the cluster looked transactional ids'
		// coordinator partitions up in broker 1's metadata, so liveness
		// called a transaction its coordinator held Ongoing (its abort
		// blocked under min ISR) one no coordinator knows, unexcused.
		{"seed583-txn-coordinator-read-from-a-broker-without-metadata.lab", "a transaction's coordinator looked up in a broker without metadata", "no transaction coordinator knows"},
		// 200 steps: b2 lost t1/0's ABORT markers in a power cut, kept the
		// aborted transaction's data and fetched the markers again after
		// b1's cleaner had emptied them; Kafka's ProducerAppendInfo skips an
		// empty control batch, so the transaction hung on b2 once it led.
		// Kafka's own outcome; the checker named no fault and the last
		// stabilize ran out of events.
		{"seed628-follower-fetched-an-emptied-marker.lab", "a hanging transaction whose marker a replica fetched emptied by the cleaner", "(a hanging transaction)\n"},
	} {
		script, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		l := lab.New()
		var out strings.Builder
		if _, err := l.RunScript(strings.NewReader(string(script)), &out); err != nil {
			t.Fatal(err)
		}
		for _, v := range (Options{Acks: "all"}).bugs(l.Cluster().Checker().Violations()) {
			t.Errorf("%s (%s): %s", c.file, c.why, v)
		}
		if c.absent != "" && strings.Contains(out.String(), c.absent) {
			t.Errorf("%s (%s): the transcript shows %q again", c.file, c.why, c.absent)
		}
		l.Close()
	}
}
