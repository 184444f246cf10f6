package cluster

import (
	"slices"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/kraft/quorum"
	"github.com/loglab/loglab/engine/sim"
)

// `net partition (c1) (c2,c3)`: the active controller 1 is cut off from
// the other controllers. It steps down and commits nothing more; the
// majority's controller 2 becomes active, ctl (what brokers talk to)
// follows it, and it commits. After the heal, controller 1 catches up and
// controller 2 stays active.
func TestPartitionIsolatesTheActiveController(t *testing.T) {
	c := newTestCluster(t, 11)
	if c.ActiveController() != 1 {
		t.Fatalf("active controller %d, want 1", c.ActiveController())
	}
	if err := c.PartitionNetwork([][]sim.NodeID{{"c1"}, {"c2", "c3"}}); err != nil {
		t.Fatal(err)
	}
	if c.ActiveController() != 2 || c.quorum.Leader() != 2 {
		t.Fatalf("active controller %d, raft leader %d, want 2", c.ActiveController(), c.quorum.Leader())
	}
	q := c.quorum.(*quorum.Quorum)
	stale := q.Image(1).Offset
	if err := c.CreateTopic("t", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	if got := q.Image(1).Offset; got != stale {
		t.Fatalf("the isolated controller 1 applied up to %d, was %d: it must not see new metadata", got, stale)
	}
	if q.Image(2).Offset <= stale {
		t.Fatalf("controller 2 did not commit the topic: offset %d", q.Image(2).Offset)
	}
	if got := c.Network().Describe(); got != "partitioned (c1) (c2,c3,ctl)" {
		t.Errorf("network: %q", got)
	}
	v := c.View()
	if q1, q2 := v.Quorum[0], v.Quorum[1]; !q1.Isolated || !slices.Equal(q1.CutFrom, []int{2, 3}) || q2.Isolated || !slices.Equal(q2.CutFrom, []int{1}) || v.ActiveController != 2 {
		t.Errorf("quorum view: active %d, %+v, %+v", v.ActiveController, q1, q2)
	}
	if err := c.HealNetwork(); err != nil {
		t.Fatal(err)
	}
	if c.ActiveController() != 2 {
		t.Errorf("active controller %d after the heal, want 2", c.ActiveController())
	}
	if got, want := q.Image(1).Offset, q.Image(2).Offset; got != want {
		t.Errorf("controller 1 at offset %d after the heal, controller 2 at %d", got, want)
	}
	if events := c.DrainEvents(); len(events) < 2 {
		t.Errorf("events: %q", events)
	}
	noViolations(t, c)
}

// A broker grouped with a controller that is not active cannot reach the
// active one (ctl sits on its side): it is fenced a session timeout later.
func TestBrokerCutOffFromTheActiveControllerIsFenced(t *testing.T) {
	c := newTestCluster(t, 11)
	if err := c.PartitionNetwork([][]sim.NodeID{{"b1", "c2"}, {"b2", "b3", "c1", "c3"}}); err != nil {
		t.Fatal(err)
	}
	if c.ActiveController() != 1 {
		t.Fatalf("active controller %d, want 1 (it kept its majority)", c.ActiveController())
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
	if err := c.PartitionNetwork([][]sim.NodeID{{"c1", "ctl"}, {"c2", "c3"}}); err == nil {
		t.Fatal("ctl and c1 in one partition: no error")
	}
	if err := c.PartitionNetwork([][]sim.NodeID{{"c1"}, {"c2"}, {"c3"}}); err != nil {
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
	if c.ActiveController() != 1 {
		t.Fatalf("active controller %d after the heal, want 1 (first in succession)", c.ActiveController())
	}
	if err := c.CreateTopic("t", 1, 1, nil); err != nil {
		t.Fatal(err)
	}
}
