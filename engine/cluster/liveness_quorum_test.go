package cluster

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/sim"
)

// A healthy, stabilized cluster's quorum has converged: a leader, every
// voter at its high watermark, every broker's image at the committed end.
func TestLivenessQuorumConvergedHolds(t *testing.T) {
	c, l, _ := quorumCluster(t)
	if lags := lagsOf(c, QuorumConverged); len(lags) != 0 {
		t.Fatalf("a stabilized cluster's quorum: %v", lags)
	}
	for _, b := range c.Brokers() {
		if got, want := b.MetadataOffset(), l.node.HighWatermark()-1; got != want {
			t.Errorf("b%d at metadata offset %d, want %d", b.ID, got, want)
		}
	}
}

// A controller a partition isolates falls behind: its lag is excused by
// the partition, so stabilize reports nothing; healed, it catches up.
func TestLivenessQuorumPartitionExcusesAndHealConverges(t *testing.T) {
	c, _, f := quorumCluster(t)
	var rest []sim.NodeID
	for id := 1; id <= 3; id++ {
		if id != f.id {
			rest = append(rest, controllerNode(id))
		}
	}
	if err := c.PartitionNetwork([][]sim.NodeID{{controllerNode(f.id)}, rest}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTopic("more", 2, 3, nil); err != nil {
		t.Fatal(err)
	}
	s, err := c.Stabilize()
	if err != nil {
		t.Fatal(err)
	}
	var lags []Lag
	for _, l := range s.Lags {
		if l.Property == QuorumConverged {
			lags = append(lags, l)
		}
	}
	if len(lags) == 0 || !strings.Contains(lags[0].Blocked, "a net partition cuts controller ") {
		t.Fatalf("an isolated controller behind: %v", s.Lags)
	}
	noViolations(t, c)
	if err := c.HealNetwork(); err != nil {
		t.Fatal(err)
	}
	if s, err := c.Stabilize(); err != nil || !s.Converged() {
		t.Fatalf("not converged after the heal: %+v, %v", s, err)
	}
	noViolations(t, c)
}

// Without a majority there is no leader, excused by the controllers down.
func TestLivenessQuorumWithoutMajorityIsExcused(t *testing.T) {
	c, l, f := quorumCluster(t)
	for _, id := range []int{l.id, f.id} {
		if err := c.CrashController(id); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Tick(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	lags := lagsOf(c, QuorumConverged)
	if len(lags) != 1 || lags[0].Detail != "no controller leads the KRaft quorum" || lags[0].Blocked != "1 of 3 controllers run, a majority is 2" {
		t.Fatalf("two of three controllers down: %v", lags)
	}
}

// QuorumConverged can fail: a voter that stops fetching while the
// cluster believes it runs (a hung process) keeps its log end and high
// watermark, and a broker whose metadata observer stops keeps its image;
// no fault excuses either, so stabilize reports both once its limit runs
// out.
func TestLivenessQuorumConvergedCanFail(t *testing.T) {
	c, _, f := quorumCluster(t)
	f.node.Crash() // hung: the cluster still counts it as running
	c.Broker(2).MetadataObserver().Crash()
	if err := c.CreateTopic("more", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	s, err := c.Stabilize()
	if err != nil {
		t.Fatal(err)
	}
	if s.Settled || s.Converged() {
		t.Fatalf("a hung voter and a hung observer converged: %+v", s)
	}
	var details []string
	for _, v := range c.Checker().Violations() {
		if v.Invariant == QuorumConverged {
			details = append(details, v.Detail)
		}
	}
	got := strings.Join(details, "\n")
	if !strings.Contains(got, fmt.Sprintf("controller %d's metadata log ends at", f.id)) || !strings.Contains(got, "b2 replayed the metadata log to offset") {
		t.Fatalf("want quorum-converged violations for controller %d and b2, got %v", f.id, c.Checker().Violations())
	}
	t.Log(got)
}
