package cluster

import (
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
)

// livenessCluster is three brokers with a replicated topic holding a few
// records, stabilized.
func livenessCluster(t *testing.T) (*Cluster, protocol.TopicPartition, int) {
	t.Helper()
	c := newTestCluster(t, 3)
	if err := c.CreateTopic("orders", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	p, _ := c.CreateProducer("p1", client.DefaultProducerConfig())
	produceN(t, c, p, "orders", 3, "v")
	s, err := c.Stabilize()
	if err != nil || !s.Converged() {
		t.Fatalf("a healthy cluster did not converge: %+v, %v", s, err)
	}
	if vs := c.Checker().Violations(); len(vs) > 0 {
		t.Fatalf("a healthy cluster violates %v", vs)
	}
	info, _ := c.PartitionInfo("orders", 0)
	return c, protocol.TopicPartition{Topic: "orders"}, int(info.Leader)
}

func follower(c *Cluster, leader int) int { return leader%3 + 1 }

func oneRecordBatch(v string) *record.Batch {
	return &record.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		Records: []record.Record{{Value: []byte(v)}}}
}

func lagsOf(c *Cluster, property string) []Lag {
	var out []Lag
	for _, l := range c.Lags() {
		if l.Property == property {
			out = append(out, l)
		}
	}
	return out
}

// Converged fails when a follower's log end differs from its leader's,
// and when the log ends agree but the epochs that wrote them do not (the
// diverging-epoch livelock's state: a record from an epoch the leader
// never had).
func TestLivenessConvergedCanFail(t *testing.T) {
	c, tp, leader := livenessCluster(t)
	f := c.Broker(follower(c, leader)).Replica(tp)
	if _, err := f.Log.AppendAsLeader(oneRecordBatch("stray"), 7); err != nil {
		t.Fatal(err)
	}
	lags := lagsOf(c, Converged)
	if len(lags) != 1 || !strings.Contains(lags[0].Detail, "log end 4, leader") || lags[0].Blocked != "" {
		t.Fatalf("a follower one record ahead: lags %v", lags)
	}
	l := c.Broker(leader).Replica(tp)
	if _, err := l.Log.AppendAsLeader(oneRecordBatch("other"), 6); err != nil {
		t.Fatal(err)
	}
	lags = lagsOf(c, Converged) // the other follower is now one behind
	if len(lags) != 2 || !strings.Contains(lags[0].String()+lags[1].String(), "leader epochs [0@0 7@3], leader") {
		t.Fatalf("same log end, epoch 7 where the leader has 6: lags %v", lags)
	}
}

// A follower that cannot catch up within the limit (its leader's answers
// take longer than it) is a converged violation; behind a drop rule it is
// excused, and named as such.
func TestLivenessStabilizeReportsWhatDoesNotConverge(t *testing.T) {
	c, tp, leader := livenessCluster(t)
	fid := follower(c, leader)
	c.Network().Drop(sim.DropRule{From: kraft.BrokerNode(int32(leader)), To: kraft.BrokerNode(int32(fid)), Kind: "FetchResponse", Remaining: -1})
	p := c.Producer("p1")
	c.Send(p, "orders", []Message{{Value: []byte("w")}})
	s, err := c.Stabilize()
	if err != nil {
		t.Fatal(err)
	}
	if !s.Settled || len(s.Lags) == 0 || s.Lags[0].Blocked != "net drop rules are in force" {
		t.Fatalf("behind a drop rule: %+v", s)
	}
	if vs := c.Checker().Violations(); len(vs) > 0 {
		t.Fatalf("an excused lag was reported: %v", vs)
	}
	c.Network().Heal()
	c.Network().Delay(kraft.BrokerNode(int32(leader)), kraft.BrokerNode(int32(fid)), 2*StabilizeLimit)
	c.Send(p, "orders", []Message{{Value: []byte("x")}})
	if s, err = c.Stabilize(); err != nil {
		t.Fatal(err)
	}
	if s.Settled || s.Converged() {
		t.Fatalf("a follower whose leader answers in 20 minutes converged in 10: %+v", s)
	}
	vs := c.Checker().Violations()
	if len(vs) == 0 || vs[0].Invariant != Converged || !strings.Contains(vs[0].Detail, name(tp)) {
		t.Fatalf("want a converged violation for %s, got %v", name(tp), vs)
	}
}

// UnfencedInISR fails while a restarted broker has not registered and
// caught up, excuses a broker a partition cuts off from the controller,
// and holds again once it is healed.
func TestLivenessUnfencedInISRCanFail(t *testing.T) {
	c, _, leader := livenessCluster(t)
	fid := follower(c, leader)
	c.CrashBroker(fid, false)
	c.Tick(12 * time.Second) // fenced, out of the ISR
	if err := c.RestartBroker(fid); err != nil {
		t.Fatal(err)
	}
	lags := lagsOf(c, UnfencedInISR)
	if len(lags) != 2 || lags[0].Blocked != "" || !strings.Contains(lags[0].Detail, "is fenced") || !strings.Contains(lags[1].Detail, "is not in orders/0's ISR") {
		t.Fatalf("a broker just restarted: lags %v", lags)
	}
	if s, err := c.Stabilize(); err != nil || !s.Converged() {
		t.Fatalf("the restarted broker did not rejoin: %+v, %v", s, err)
	}
	c.Network().Partition([][]sim.NodeID{{kraft.BrokerNode(int32(fid))}, {kraft.ControllerNode}})
	s, err := c.Stabilize()
	if err != nil {
		t.Fatal(err)
	}
	want := "a net partition cuts b" + string(rune('0'+fid)) + " off from the controller"
	if !s.Settled || len(s.Lags) == 0 || s.Lags[0].Blocked != want {
		t.Fatalf("a broker cut off from the controller: %+v", s)
	}
	if vs := c.Checker().Violations(); len(vs) > 0 {
		t.Fatalf("an excused lag was reported: %v", vs)
	}
}

// A partition whose last ISR member runs fenced behind a net partition
// has no leader for as long as the partition lasts (the controller elects
// only an unfenced ISR member: kraft's TestFenceMultipleBrokers): the lag
// names the partition that keeps it so, and is no violation; once healed
// the broker is unfenced, elected, and everything converges (VOPR seed 32).
func TestLivenessLeaderlessBehindFencedISRIsExcused(t *testing.T) {
	c, tp, _ := livenessCluster(t)
	c.Network().Partition([][]sim.NodeID{{kraft.BrokerNode(1), kraft.BrokerNode(2), kraft.BrokerNode(3)}, {kraft.ControllerNode}})
	s, err := c.Stabilize()
	if err != nil {
		t.Fatal(err)
	}
	var leaderless *Lag
	for i, l := range s.Lags {
		if l.Detail == name(tp)+" has no leader" {
			leaderless = &s.Lags[i]
		}
	}
	if !s.Settled || leaderless == nil || !strings.Contains(leaderless.Blocked, "is down or fenced") || !strings.Contains(leaderless.Blocked, "off from the controller") {
		t.Fatalf("every broker cut off from the controller: %+v", s)
	}
	if vs := c.Checker().Violations(); len(vs) > 0 {
		t.Fatalf("an excused lag was reported: %v", vs)
	}
	if err := c.HealNetwork(); err != nil {
		t.Fatal(err)
	}
	if s, err := c.Stabilize(); err != nil || !s.Converged() {
		t.Fatalf("not converged after the heal: %+v, %v", s, err)
	}
	if vs := c.Checker().Violations(); len(vs) > 0 {
		t.Fatalf("violations after the heal: %v", vs)
	}
}

// NoBusyLoop fails when a node sends every 2 ms while nothing changes, as
// the diverging-epoch livelock's follower did, and names the node.
func TestLivenessBusyLoopCanFail(t *testing.T) {
	c, _, leader := livenessCluster(t)
	b := c.Broker(leader)
	var loop func()
	loop = func() {
		c.net.Send(b.Node, "nowhere", protocol.MetadataRequest{})
		c.sched.After(2*time.Millisecond, "busy", loop)
	}
	loop()
	s, err := c.Stabilize()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Busy) != 1 || s.Busy[0].Node != b.Node || s.Busy[0].PerSecond() < 400 {
		t.Fatalf("a broker sending every 2 ms: busy %v", s.Busy)
	}
	vs := c.Checker().Violations()
	if len(vs) != 1 || vs[0].Invariant != NoBusyLoop {
		t.Fatalf("want one no-busy-loop violation, got %v", vs)
	}
}

// settledByLags is what settled must answer: every lag is one a fault keeps.
func settledByLags(c *Cluster) bool {
	for _, l := range c.Lags() {
		if l.Blocked == "" {
			return false
		}
	}
	return true
}

// Stabilize asks settled after every event that leaves the network
// quiet: 91,000 times in a ten-minute stabilize of a cluster whose
// restarted brokers could not register (server fuzzer, seed 1). It
// formatted every lag of every partition each time, seconds of wall time
// for a command whose events cost a fraction of that, and wall time is
// how long every other workshop page waits. settled must answer as Lags
// says, and while a lag no fault keeps is left it must format nothing:
// its cost must not grow with the lags, so allocations are counted
// (deterministic), not time.
func TestLivenessSettledFormatsNothing(t *testing.T) {
	c, _, leader := livenessCluster(t)
	if err := c.CreateTopic("many", 20, 3, nil); err != nil {
		t.Fatal(err)
	}
	if s, err := c.Stabilize(); err != nil || !s.Converged() {
		t.Fatalf("a healthy cluster did not converge: %+v, %v", s, err)
	}
	if !c.settled() || !settledByLags(c) {
		t.Fatalf("a converged cluster: settled %v, lags %v", c.settled(), c.Lags())
	}
	fid := follower(c, leader)
	c.CrashBroker(fid, false)
	c.Tick(12 * time.Second) // fenced, out of every ISR
	if err := c.RestartBroker(fid); err != nil {
		t.Fatal(err)
	}
	lags := c.Lags()
	if len(lags) < 20 || c.settled() || settledByLags(c) {
		t.Fatalf("a broker just restarted: settled %v, lags %v", c.settled(), lags)
	}
	if allocs := testing.AllocsPerRun(10, func() { c.settled() }); allocs != 0 {
		t.Fatalf("settled allocated %v times with %d lags left, the first one no fault keeps: it formats them", allocs, len(lags))
	}
	// Behind a drop rule every lag is excused: settled walks them all.
	c.Network().Drop(sim.DropRule{From: kraft.BrokerNode(int32(leader)), To: kraft.BrokerNode(int32(fid)), Kind: "FetchResponse", Remaining: -1})
	if !c.settled() || !settledByLags(c) {
		t.Fatalf("behind a drop rule: settled %v, lags %v", c.settled(), c.Lags())
	}
}
