package cluster

import (
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/sim"
)

// stabilize excuses a follower a cut link keeps from its leader, and says
// it is the cut link, not a partition or a drop rule; a follower of the
// same leader whose link is not cut is blamed on no fault at all, and a
// cut elsewhere is named as such.
func TestLivenessNamesTheCutLink(t *testing.T) {
	c, _, leader := livenessCluster(t)
	fid := follower(c, leader)
	lb, fb := kraft.BrokerNode(int32(leader)), kraft.BrokerNode(int32(fid))
	if err := c.CutLink(fb, lb); err != nil {
		t.Fatal(err)
	}
	if err := c.CutLink(lb, fb); err == nil {
		t.Fatal("cutting a cut link again succeeded")
	}
	p := c.Producer("p1")
	c.Send(p, "orders", []Message{{Value: []byte("w")}})
	s, err := c.Stabilize()
	if err != nil {
		t.Fatal(err)
	}
	a, b := lb, fb
	if b < a {
		a, b = b, a
	}
	want := "the cut link " + string(a) + "-" + string(b) + " cuts " + string(fb) + " off from its leader " + string(lb)
	blocked := []string{}
	for _, l := range s.Lags {
		blocked = append(blocked, l.Blocked)
	}
	if !s.Settled || len(s.Lags) == 0 || !strings.Contains(strings.Join(blocked, "|"), want) {
		t.Fatalf("behind a cut link: want %q among %q (%+v)", want, blocked, s)
	}
	for _, w := range blocked {
		if strings.Contains(w, "drop rule") || strings.Contains(w, "partition") {
			t.Errorf("a cut link is explained as %q", w)
		}
	}
	if err := c.HealLink(lb, fb); err != nil {
		t.Fatal(err)
	}
	if err := c.HealLink(lb, fb); err == nil {
		t.Fatal("healing a link that is not cut succeeded")
	}
	if s, err := c.Stabilize(); err != nil || !s.Converged() {
		t.Fatalf("after healing the link: %+v, %v", s, err)
	}
}

// A broker cut from the controller only is fenced, and every lag that
// follows is excused by the cut link, never by drop rules there are none of.
func TestLivenessCutFromTheControllerIsNotADropRule(t *testing.T) {
	c, _, leader := livenessCluster(t)
	fb := kraft.BrokerNode(int32(follower(c, leader)))
	if err := c.CutLink(fb, kraft.ControllerNode); err != nil {
		t.Fatal(err)
	}
	s, err := c.Stabilize()
	if err != nil {
		t.Fatal(err)
	}
	if !s.Settled || len(s.Lags) == 0 {
		t.Fatalf("a broker cut from the controller converged: %+v", s)
	}
	for _, l := range s.Lags {
		if l.Blocked == "" || strings.Contains(l.Blocked, "drop rule") || strings.Contains(l.Blocked, "partition") {
			t.Errorf("lag %q is excused by %q, want the cut link", l.Detail, l.Blocked)
		}
	}
}

// When no fault separates the two nodes a lag is about, stabilize names the
// faults in force that could still be why (a drop rule, a cut link
// elsewhere, a partition elsewhere), as they are.
func TestNetFaultWords(t *testing.T) {
	cases := []struct {
		name  string
		fault func(c *Cluster)
		want  string
	}{
		{"healthy", func(*Cluster) {}, ""},
		{"a drop rule", func(c *Cluster) { c.net.Drop(sim.DropRule{Kind: "Fetch", Remaining: -1}) }, "net drop rules are in force"},
		{"a cut link", func(c *Cluster) { c.net.CutLink("b2", "b1") }, "a link is cut (cut b1-b2)"},
		{"a partition", func(c *Cluster) { c.net.Partition([][]sim.NodeID{{"b1"}, {"b2"}}) }, "a net partition is in force (partitioned (b1) (b2))"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _, _ := livenessCluster(t)
			tc.fault(c)
			if got := c.netFaultWords(); got != tc.want {
				t.Errorf("netFaultWords() = %q, want %q", got, tc.want)
			}
		})
	}
}

// A cut between a broker and the controller that is active cuts the
// broker from ctl too, the address that controller answers on: one
// process, one network interface. The broker is fenced, the lags name the
// cut link, and once another controller is active the broker reaches ctl
// again.
func TestCutFromTheActiveControllerCutsItsAddress(t *testing.T) {
	c, _, leader := livenessCluster(t)
	fid := follower(c, leader)
	fb := kraft.BrokerNode(int32(fid))
	active := controllerNode(c.activeID)
	if err := c.CutLink(fb, active); err != nil {
		t.Fatal(err)
	}
	if c.net.Connected(fb, kraft.ControllerNode) {
		t.Fatalf("%s is cut from %s, the active controller, but still reaches ctl", fb, active)
	}
	s, err := c.Stabilize()
	if err != nil {
		t.Fatal(err)
	}
	if b := c.controller.Image().Broker(int32(fid)); b == nil || !b.Fenced {
		t.Errorf("b%d cut from the active controller is not fenced: %+v", fid, b)
	}
	x, y := min(fb, active), max(fb, active)
	want := "the cut link " + string(x) + "-" + string(y)
	named := false
	for _, l := range s.Lags {
		named = named || strings.Contains(l.Blocked, want)
	}
	if !s.Settled || !named {
		t.Fatalf("want a lag blocked by %q: %+v", want, s)
	}
	c.net.Host(kraft.ControllerNode, controllerNode(c.activeID%3+1))
	if !c.net.Connected(fb, kraft.ControllerNode) {
		t.Errorf("ctl hosted by another controller is still cut from %s", fb)
	}
}
