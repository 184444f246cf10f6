package sim

import (
	"slices"
	"testing"
)

// TestLinkCuts drives the cut set through the steps `net cut` and `net
// heal A B` take; each step says whether it changed anything and which
// messages it then stops.
func TestLinkCuts(t *testing.T) {
	type step struct {
		op      string // "cut" or "heal"
		a, b    NodeID
		changed bool
		// stopped are the directions the set then refuses; open, ones it lets through.
		stopped, open [][2]NodeID
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"a cut stops both directions and nothing else", []step{
			{"cut", "b1", "b2", true, [][2]NodeID{{"b1", "b2"}, {"b2", "b1"}}, [][2]NodeID{{"b1", "b3"}, {"b3", "b2"}, {"b1", "ctl"}}},
		}},
		{"the ends may be named in either order", []step{
			{"cut", "b2", "b1", true, [][2]NodeID{{"b1", "b2"}}, nil},
			{"cut", "b1", "b2", false, [][2]NodeID{{"b2", "b1"}}, nil},
			{"heal", "b1", "b2", true, nil, [][2]NodeID{{"b1", "b2"}, {"b2", "b1"}}},
		}},
		{"healing a link that is not cut changes nothing", []step{
			{"cut", "b1", "ctl", true, [][2]NodeID{{"ctl", "b1"}}, nil},
			{"heal", "b1", "b2", false, [][2]NodeID{{"b1", "ctl"}}, [][2]NodeID{{"b1", "b2"}}},
		}},
		{"healing one of two cuts keeps the other", []step{
			{"cut", "b1", "b2", true, nil, nil},
			{"cut", "p1", "b1", true, nil, nil},
			{"heal", "b2", "b1", true, [][2]NodeID{{"p1", "b1"}, {"b1", "p1"}}, [][2]NodeID{{"b1", "b2"}}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := linkCuts{}
			for i, s := range tc.steps {
				var changed bool
				if s.op == "cut" {
					changed = c.cut(s.a, s.b)
				} else {
					changed = c.heal(s.a, s.b)
				}
				if changed != s.changed {
					t.Fatalf("step %d %s %s %s changed=%v, want %v", i, s.op, s.a, s.b, changed, s.changed)
				}
				for _, d := range s.stopped {
					if !c.separates(d[0], d[1]) {
						t.Errorf("step %d: %s->%s goes through, want it cut", i, d[0], d[1])
					}
				}
				for _, d := range s.open {
					if c.separates(d[0], d[1]) {
						t.Errorf("step %d: %s->%s is cut, want it open", i, d[0], d[1])
					}
				}
			}
		})
	}
}

func TestLinkCutsListSorted(t *testing.T) {
	c := linkCuts{}
	c.cut("p1", "b2")
	c.cut("b3", "b1")
	c.cut("ctl", "b2")
	got := c.list()
	want := [][2]NodeID{{"b1", "b3"}, {"b2", "ctl"}, {"b2", "p1"}}
	if !slices.Equal(got, want) {
		t.Fatalf("list() = %v, want %v", got, want)
	}
}

// An address a node hosts (Network.Host) shares the node's cut links, and
// only while the node hosts it.
func TestHostedAddressSharesTheHostsCuts(t *testing.T) {
	n := NewNetwork(NewScheduler(&Clock{}))
	n.CutLink("ctl2", "b1")
	if !n.Connected("b1", "ctl") {
		t.Fatal("ctl, hosted by nobody, is cut from b1")
	}
	n.Host("ctl", "ctl2")
	if n.Connected("b1", "ctl") || n.Connected("ctl", "b1") {
		t.Error("ctl hosted by ctl2 still reaches b1 across the cut ctl2-b1")
	}
	if !n.Connected("b2", "ctl") {
		t.Error("ctl hosted by ctl2 is cut from b2, whose link is whole")
	}
	n.Host("ctl", "ctl3")
	if !n.Connected("b1", "ctl") {
		t.Error("ctl hosted by ctl3 is still cut from b1")
	}
	n.Host("ctl", "")
	if got := n.HostOf("ctl"); got != "ctl" {
		t.Errorf("HostOf(ctl) after Host(ctl, \"\") = %s", got)
	}
}
