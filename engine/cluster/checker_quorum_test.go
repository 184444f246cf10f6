package cluster

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// quorumCluster is a cluster with a topic whose metadata every voter has
// committed (stabilized), and one of its followers: the invariants'
// tests break a rule on one voter and ask the checker.
func quorumCluster(t *testing.T) (*Cluster, *voter, *voter) {
	t.Helper()
	c := newTestCluster(t, 21)
	if err := c.CreateTopic("orders", 3, 3, nil); err != nil {
		t.Fatal(err)
	}
	if s, err := c.Stabilize(); err != nil || !s.Converged() {
		t.Fatalf("a healthy cluster did not converge: %+v, %v", s, err)
	}
	noViolations(t, c)
	leader := c.voter(c.ActiveController())
	follower := c.voter(c.ActiveController()%3 + 1)
	if leader == nil || follower.node.Role() != raft.Follower {
		t.Fatalf("no leader and follower: active %d, follower role %v", c.ActiveController(), follower.node.Role())
	}
	if l := follower.node.Log(); follower.node.HighWatermark()-l.StartOffset() < 3 {
		t.Fatalf("follower %d holds only offsets %d-%d (high watermark %d): too few below the high watermark to change",
			follower.id, l.StartOffset(), l.EndOffset(), follower.node.HighWatermark())
	}
	return c, leader, follower
}

// rewrite replaces v's log from offset on by entries, as a faulty
// truncation and append would (the store is left alone).
func rewrite(v *voter, from int64, entries []protocol.MetadataEntry) {
	l := v.node.Log()
	l.TruncateTo(from)
	l.Append(entries)
}

// violated returns the violations of invariant the checker finds now.
func violated(c *Cluster, invariant string) []Violation {
	var out []Violation
	for _, v := range c.Checker().Check() {
		if v.Invariant == invariant {
			out = append(out, v)
		}
	}
	return out
}

// A committed record replaced on a follower below its high watermark
// (what a follower that truncated committed entries and took others would
// hold) is reported as kraft-committed-log, naming both records.
func TestQuorumCheckerCatchesACommittedRecordChangedOnAVoter(t *testing.T) {
	c, _, f := quorumCluster(t)
	hw := f.node.HighWatermark()
	at := hw - 2
	entries := f.node.Log().Entries(at, int(hw-at))
	entries[0].Record = protocol.MetadataRecord{Type: "Topic", Topic: "ghost", Partitions: 1}
	rewrite(f, at, entries)
	vs := violated(c, "kraft-committed-log")
	if len(vs) != 1 || !strings.Contains(vs[0].Detail, "Topic name=ghost") {
		t.Fatalf("a committed record replaced on controller %d: %v", f.id, c.Checker().Violations())
	}
	t.Log(vs[0])
}

// Two committed records swapped on a follower (the same records, in
// another order) are a reordering the checker reports.
func TestQuorumCheckerCatchesCommittedRecordsReordered(t *testing.T) {
	c, _, f := quorumCluster(t)
	hw := f.node.HighWatermark()
	at := hw - 2
	entries := f.node.Log().Entries(at, int(hw-at))
	if reflect.DeepEqual(entries[0].Record, withOffset(entries[1].Record, entries[0].Record.Offset)) {
		t.Fatal("the two last committed records are alike: swapping them proves nothing")
	}
	entries[0], entries[1] = entries[1], entries[0]
	rewrite(f, at, entries)
	if vs := violated(c, "kraft-committed-log"); len(vs) != 1 {
		t.Fatalf("two committed records swapped on controller %d: %v", f.id, c.Checker().Violations())
	}
}

func withOffset(r protocol.MetadataRecord, off int64) protocol.MetadataRecord {
	r.Offset = off
	return r
}

// The same record under another epoch is not the committed one either
// (a record's epoch is part of its identity in KRaft's log: a diverging
// epoch is how a follower finds what to truncate).
func TestQuorumCheckerComparesEpochs(t *testing.T) {
	c, _, f := quorumCluster(t)
	hw := f.node.HighWatermark()
	entries := f.node.Log().Entries(hw-1, 1)
	entries[0].Epoch += 7
	rewrite(f, hw-1, entries)
	if vs := violated(c, "kraft-committed-log"); len(vs) != 1 {
		t.Fatalf("a committed record with another epoch on controller %d: %v", f.id, c.Checker().Violations())
	}
}

// The leader of the newest epoch that lost its last committed record is
// reported under kraft-leader-completeness (and its high watermark now
// past its log end under kraft-high-watermark).
func TestQuorumCheckerCatchesALeaderMissingACommittedRecord(t *testing.T) {
	c, l, _ := quorumCluster(t)
	end := l.node.Log().EndOffset()
	l.node.Log().TruncateTo(end - 1)
	found := map[string]string{}
	for _, v := range c.Checker().Check() {
		found[v.Invariant] = v.Detail
	}
	if !strings.Contains(found["kraft-leader-completeness"], "short of the committed metadata log's end") {
		t.Errorf("the leader lost its last record, no kraft-leader-completeness: %v", c.Checker().Violations())
	}
	if found["kraft-high-watermark"] == "" {
		t.Errorf("the leader's high watermark past its log end was not reported: %v", c.Checker().Violations())
	}
}

// A fake commit of another record at a committed offset (what a voter
// that disagreed with the others would hand its state machine) is
// reported by onVoterCommit as kraft-committed.
func TestQuorumCheckerCatchesADivergentCommit(t *testing.T) {
	c, _, f := quorumCluster(t)
	off := c.meta.End() - 1
	c.onVoterCommit(f, []protocol.MetadataEntry{{Epoch: c.meta.epochs[off-c.meta.first],
		Record: protocol.MetadataRecord{Offset: off, Type: "Topic", Topic: "ghost", Partitions: 1}}})
	vs := c.Checker().Violations()
	if len(vs) != 1 || vs[0].Invariant != "kraft-committed" || !strings.Contains(vs[0].Detail, "ghost") {
		t.Fatalf("a divergent commit: %v", vs)
	}
}

// A healthy quorum through failovers breaks none of them: a crash of the
// active controller, a partition isolating the next one, the heal and the
// restart, with the checker on every event.
func TestQuorumInvariantsHoldThroughFailovers(t *testing.T) {
	c, l, _ := quorumCluster(t)
	if err := c.CrashController(l.id); err != nil {
		t.Fatal(err)
	}
	waitActive(t, c)
	if err := c.CreateTopic("after-crash", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	next := c.ActiveController()
	var rest []sim.NodeID
	for id := 1; id <= 3; id++ {
		if id != next {
			rest = append(rest, controllerNode(id))
		}
	}
	if err := c.PartitionNetwork([][]sim.NodeID{{controllerNode(next)}, rest}); err != nil {
		t.Fatal(err)
	}
	if err := c.RestartController(l.id); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.RunUntil(func() bool { a := c.ActiveController(); return a != 0 && a != next }, time.Minute); err != nil || !ok {
		t.Fatalf("no controller took over from the isolated %d (err %v)", next, err)
	}
	if err := c.CreateTopic("after-partition", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.HealNetwork(); err != nil {
		t.Fatal(err)
	}
	if s, err := c.Stabilize(); err != nil || !s.Converged() {
		t.Fatalf("not converged after the heal: %+v, %v", s, err)
	}
	noViolations(t, c)
}
