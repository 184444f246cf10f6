package sim

import (
	"testing"
	"time"
)

type ping struct{}

func (ping) Kind() string { return "Ping" }

// wire is a network of nodes that record what reaches them.
func wire(nodes ...NodeID) (*Network, *Scheduler, map[NodeID][]uint64) {
	sched := NewScheduler(&Clock{})
	n := NewNetwork(sched)
	got := map[NodeID][]uint64{}
	for _, id := range nodes {
		n.Attach(id, func(e *Envelope) {
			if _, ok := e.Msg.(ping); ok {
				got[id] = append(got[id], e.ID)
			}
		})
	}
	return n, sched, got
}

func settle(t *testing.T, s *Scheduler) {
	t.Helper()
	if _, err := s.RunUntil(s.Clock.Elapsed()+time.Second, 1000); err != nil {
		t.Fatal(err)
	}
}

// A cut link drops what is sent across it, both ways, and what was on it
// when it was cut; every other link still carries messages, and healing
// the one link (or the whole network) lets messages through again.
func TestCutLinkDropsBothWaysOnly(t *testing.T) {
	n, sched, got := wire("b1", "b2", "b3")
	onWire := n.Send("b1", "b2", ping{})
	n.CutLink("b2", "b1")
	a := n.Send("b1", "b2", ping{})
	b := n.Send("b2", "b1", ping{})
	c := n.Send("b1", "b3", ping{})
	d := n.Send("b3", "b2", ping{})
	settle(t, sched)
	for _, e := range []*Envelope{onWire, a, b} {
		if e.Fate != "dropped" {
			t.Errorf("%s->%s #%d across the cut link: fate %q, want dropped", e.From, e.To, e.ID, e.Fate)
		}
	}
	for _, e := range []*Envelope{c, d} {
		if e.Fate != "delivered" {
			t.Errorf("%s->%s #%d on another link: fate %q, want delivered", e.From, e.To, e.ID, e.Fate)
		}
	}
	if len(got["b2"]) != 1 || got["b2"][0] != d.ID || len(got["b1"]) != 0 {
		t.Errorf("received %v, want only b3's message at b2", got)
	}
	if !n.Faulty() || n.Describe() != "cut b1-b2" {
		t.Errorf("Faulty()=%v Describe()=%q, want a fault described as cut b1-b2", n.Faulty(), n.Describe())
	}
	if n.Partitioned("b1", "b2") {
		t.Error("a cut link reads as a partition")
	}
	if !n.HealLink("b1", "b2") {
		t.Fatal("HealLink of a cut link reported nothing to heal")
	}
	e := n.Send("b2", "b1", ping{})
	settle(t, sched)
	if e.Fate != "delivered" || n.Faulty() {
		t.Errorf("after healing: fate %q, Faulty()=%v; want delivered and a healthy network", e.Fate, n.Faulty())
	}
	n.CutLink("b1", "b3")
	n.Heal()
	if n.LinkCut("b1", "b3") {
		t.Error("net heal left a link cut")
	}
}

// Dropping one message by its id takes exactly that message off the wire:
// its delivery never runs, the others on the same link still arrive.
func TestDropInFlightByID(t *testing.T) {
	n, sched, got := wire("b1", "b2")
	first := n.Send("b1", "b2", ping{})
	second := n.Send("b1", "b2", ping{})
	dropped, err := n.DropInFlight(second.ID)
	if err != nil {
		t.Fatal(err)
	}
	if dropped != second || second.Fate != "dropped" {
		t.Fatalf("dropped %v with fate %q, want message %d dropped", dropped, second.Fate, second.ID)
	}
	if len(n.InFlight()) != 1 || sched.Pending() != 1 {
		t.Errorf("after the drop %d in flight and %d events pending, want 1 and 1", len(n.InFlight()), sched.Pending())
	}
	settle(t, sched)
	if first.Fate != "delivered" || len(got["b2"]) != 1 || got["b2"][0] != first.ID {
		t.Errorf("b2 received %v (first's fate %q), want only message %d", got["b2"], first.Fate, first.ID)
	}
	if _, err := n.DropInFlight(first.ID); err == nil {
		t.Error("dropping a delivered message succeeded")
	}
	if _, err := n.DropInFlight(99); err == nil {
		t.Error("dropping a message never sent succeeded")
	}
}
