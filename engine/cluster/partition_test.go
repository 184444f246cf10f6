package cluster

import (
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/sim"
)

// `net partition (cA) (others)`: the active controller is cut off from
// the other controllers. It commits nothing more and resigns by
// check-quorum; the majority elects another, ctl (what brokers talk to)
// follows it, and it commits. After the heal the old leader truncates
// whatever it wrote alone and catches up.
func TestPartitionIsolatesTheActiveController(t *testing.T) {
	c := newTestCluster(t, 11)
	old := c.ActiveController()
	var rest []sim.NodeID
	for id := 1; id <= 3; id++ {
		if id != old {
			rest = append(rest, controllerNode(id))
		}
	}
	if err := c.PartitionNetwork([][]sim.NodeID{{controllerNode(old)}, rest}); err != nil {
		t.Fatal(err)
	}
	stale := c.voter(old).image.Offset
	if ok, err := c.RunUntil(func() bool { a := c.ActiveController(); return a != 0 && a != old }, time.Minute); err != nil || !ok {
		t.Fatalf("the majority elected no controller (err %v)", err)
	}
	if st := c.VoterStatuses()[old-1]; st.Role == raft.Leader {
		t.Fatalf("the isolated controller %d still leads: %+v", old, st)
	}
	now := c.ActiveController()
	if err := c.CreateTopic("t", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	if got := c.voter(old).image.Offset; got != stale {
		t.Fatalf("the isolated controller %d applied up to %d, was %d: it must not see new metadata", old, got, stale)
	}
	if c.voter(now).image.Offset <= stale {
		t.Fatalf("controller %d did not commit the topic: offset %d", now, c.voter(now).image.Offset)
	}
	v := c.View()
	if q := v.Quorum[old-1]; !q.Isolated || len(q.CutFrom) != 2 || v.ActiveController != now {
		t.Errorf("quorum view: active %d, %+v", v.ActiveController, q)
	}
	if err := c.HealNetwork(); err != nil {
		t.Fatal(err)
	}
	if err := c.Tick(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	if c.ActiveController() != now {
		t.Errorf("active controller %d after the heal, want %d (pre-vote keeps the healed one from disturbing it)", c.ActiveController(), now)
	}
	if got, want := c.voter(old).image.Offset, c.voter(now).image.Offset; got != want {
		t.Errorf("controller %d at offset %d after the heal, controller %d at %d", old, got, now, want)
	}
	noViolations(t, c)
}

// A broker grouped with a controller that is not active cannot reach the
// active one (ctl sits on its side): it is fenced a session timeout later.
func TestBrokerCutOffFromTheActiveControllerIsFenced(t *testing.T) {
	c := newTestCluster(t, 11)
	active := c.ActiveController()
	lone := active%3 + 1
	var big []sim.NodeID
	for id := 1; id <= 3; id++ {
		if id != lone {
			big = append(big, controllerNode(id))
		}
	}
	if err := c.PartitionNetwork([][]sim.NodeID{{"b1", controllerNode(lone)}, append([]sim.NodeID{"b2", "b3"}, big...)}); err != nil {
		t.Fatal(err)
	}
	if c.ActiveController() != active {
		t.Fatalf("active controller %d, want %d (it kept its majority)", c.ActiveController(), active)
	}
	if c.Network().Connected("b1", kraft.ControllerNode) || !c.Network().Connected("b2", kraft.ControllerNode) {
		t.Fatal("ctl is not on the active controller's side")
	}
	if err := c.Tick(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if !c.Controller().Image().Broker(1).Fenced || c.Controller().Image().Broker(2).Fenced {
		t.Fatalf("brokers after 10 s: %+v %+v", c.Controller().Image().Broker(1), c.Controller().Image().Broker(2))
	}
}

// A partition names controllers or ctl, not both; and one with no
// majority on any side leaves no active controller until it heals.
func TestPartitionWithoutAMajorityAndItsErrors(t *testing.T) {
	c := newTestCluster(t, 11)
	if err := c.PartitionNetwork([][]sim.NodeID{{"ctl1", "ctl"}, {"ctl2", "ctl3"}}); err == nil {
		t.Fatal("ctl and c1 in one partition: no error")
	}
	if err := c.PartitionNetwork([][]sim.NodeID{{"ctl1"}, {"ctl2"}, {"ctl3"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Tick(4 * time.Second); err != nil { // check-quorum: 1.5 fetch timeouts
		t.Fatal(err)
	}
	if c.ActiveController() != 0 {
		t.Fatalf("active controller %d with every controller alone", c.ActiveController())
	}
	if err := c.CreateTopic("t", 1, 1, nil); err == nil {
		t.Fatal("a topic created without an active controller")
	}
	if err := c.HealNetwork(); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.RunUntil(func() bool { return c.ActiveController() != 0 }, time.Minute); err != nil || !ok {
		t.Fatalf("no controller active after the heal (err %v)", err)
	}
	if err := c.CreateTopic("t", 1, 1, nil); err != nil {
		t.Fatal(err)
	}
}
