package vopr

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/engine/protocol"
)

// corruptCommittedRecord returns a hook that, once the metadata log has
// committed past offset 30, rewrites the last committed record in a
// following controller's log (what a voter that truncated below its high
// watermark and took another record would hold), once.
func corruptCommittedRecord() func(*cluster.Cluster) {
	done := false
	return func(c *cluster.Cluster) {
		if done || c.MetadataLog().End() < 30 {
			return
		}
		for _, n := range c.QuorumNodes() {
			l, hw := n.Log(), n.HighWatermark()
			if !n.Up() || n.Role() != raft.Follower || hw <= l.StartOffset() || hw > l.EndOffset() {
				continue
			}
			tail := l.Entries(hw-1, int(l.EndOffset()-hw+1))
			tail[0].Record = protocol.MetadataRecord{Type: "Topic", Topic: "injected", Partitions: 1}
			l.TruncateTo(hw - 1)
			l.Append(tail)
			done = true
			return
		}
	}
}

// TestVOPRQuorumCheckerFailsAndReplays: the KRaft invariants run in the
// VOPR and can fail. A committed metadata record changed on a following
// controller mid-run is reported as kraft-committed-log, the run stops
// there with its script, and the script replayed through the lab (with
// the same hook after every line) gives the same transcript and the same
// violations.
func TestVOPRQuorumCheckerFailsAndReplays(t *testing.T) {
	opts := Options{Mix: testMix(), Transcript: true, afterLine: corruptCommittedRecord()}
	r := Run(3, 60, opts)
	if r.OK() || r.Violations[0].Invariant != "kraft-committed-log" || !strings.Contains(r.Violations[0].Detail, "Topic name=injected") {
		t.Fatalf("a corrupted committed record: %s", r.Report())
	}
	l := lab.New()
	defer l.Close()
	var transcript strings.Builder
	hook := corruptCommittedRecord()
	errs := 0
	for _, line := range r.Script {
		writeTranscript(&transcript, l, line, &errs)
		if l.Cluster() != nil {
			hook(l.Cluster())
		}
	}
	if transcript.String() != r.Transcript {
		t.Fatalf("the replayed transcript differs from the run's\n%s", firstDifference(r.Transcript, transcript.String()))
	}
	if got := (Options{}).bugs(l.Cluster().Checker().Violations()); !slices.Equal(got, r.Violations) {
		t.Fatalf("replay found %v, the run %v", got, r.Violations)
	}
	t.Logf("%d violation(s), first: %s", len(r.Violations), r.Violations[0])
}

// TestVOPRQuorumLivenessCanFail: the quorum's liveness runs in the VOPR's
// stabilize. A following controller hangs once the metadata log passes
// offset 30 (the cluster still counts it as running; the others keep a
// majority), so a stabilize, the run's last at the latest, finds the
// quorum not converged: it stays a follower of an old epoch.
func TestVOPRQuorumLivenessCanFail(t *testing.T) {
	nativeOnly(t, "the liveness checker failing on a hung quorum, 24 s under node")
	hung := 0
	hang := func(c *cluster.Cluster) {
		for i, n := range c.QuorumNodes() {
			if hung == 0 && c.MetadataLog().End() >= 30 && n.Up() && n.Role() == raft.Follower {
				hung = i + 1
			}
			if i+1 == hung && n.Up() && !slices.Contains(c.ControllersDown(), hung) {
				n.Crash() // again after a restart of the workload's
			}
		}
	}
	r := Run(3, 60, Options{Mix: testMix(), afterLine: hang})
	// Its lag holds every stabilize back until the limit, or, with the
	// checker's cost on every event, the command's budget: the run reports
	// that (TestVOPRFinalStabilizeBudget), naming the lag.
	i := slices.IndexFunc(r.Violations, func(v cluster.Violation) bool {
		return v.Invariant == cluster.QuorumConverged || v.Invariant == FinalStabilizeBudget
	})
	if i < 0 || !strings.Contains(r.Violations[i].Detail, fmt.Sprintf("controller %d ", hung)) {
		t.Fatalf("controller %d hung: %s", hung, r.Report())
	}
	t.Logf("%s", r.Violations[i])
}

// TestVOPRFinalStabilizeBudget: a run whose last stabilize, every fault
// healed, runs out of the command's events is a failed run. Broker 1's
// metadata observer hangs once the metadata log passes offset 30 (the
// broker runs on, its image frozen): it sends its clients to coordinators
// that moved, they ask again at once, and the cluster spins; the report
// names the lags, the frozen image among them.
func TestVOPRFinalStabilizeBudget(t *testing.T) {
	nativeOnly(t, "the final stabilize budget on a hung quorum, 23 s under node")
	hang := func(c *cluster.Cluster) {
		if b := c.Broker(1); c.MetadataLog().End() >= 30 && b.Alive() && b.MetadataObserver().Up() {
			b.MetadataObserver().Crash()
		}
	}
	r := Run(3, 60, Options{Mix: testMix(), afterLine: hang})
	i := slices.IndexFunc(r.Violations, func(v cluster.Violation) bool {
		return v.Invariant == cluster.QuorumConverged || v.Invariant == FinalStabilizeBudget
	})
	if i < 0 || !strings.Contains(r.Violations[i].Detail, "b1 replayed the metadata log to offset") {
		t.Fatalf("broker 1's metadata observer hung: %s", r.Report())
	}
	t.Logf("%s", r.Violations[i])
}
