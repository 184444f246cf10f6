package classic

import "testing"

// ClassicGroupTest's transition cases: which state changes the
// coordinator may make (ClassicGroupState's valid previous states).
func TestTransitions(t *testing.T) {
	for _, c := range []struct {
		name     string
		from, to State
		legal    bool
	}{
		{"testStableToPreparingRebalanceTransition", Stable, PreparingRebalance, true},
		{"testStableToDeadTransition", Stable, Dead, true},
		{"testAwaitingRebalanceToPreparingRebalanceTransition", CompletingRebalance, PreparingRebalance, true},
		{"testPreparingRebalanceToDeadTransition", PreparingRebalance, Dead, true},
		{"testPreparingRebalanceToEmptyTransition", PreparingRebalance, Empty, true},
		{"testEmptyToDeadTransition", Empty, Dead, true},
		{"testAwaitingRebalanceToStableTransition", CompletingRebalance, Stable, true},
		{"testEmptyToStableIllegalTransition", Empty, Stable, false},
		{"testStableToStableIllegalTransition", Stable, Stable, false},
		{"testEmptyToAwaitingRebalanceIllegalTransition", Empty, CompletingRebalance, false},
		{"testPreparingRebalanceToPreparingRebalanceIllegalTransition", PreparingRebalance, PreparingRebalance, false},
		{"testPreparingRebalanceToStableIllegalTransition", PreparingRebalance, Stable, false},
		{"testAwaitingRebalanceToAwaitingRebalanceIllegalTransition", CompletingRebalance, CompletingRebalance, false},
		{"testDeadToStableIllegalTransition", Dead, Stable, false},
		{"testDeadToPreparingRebalanceIllegalTransition", Dead, PreparingRebalance, false},
		{"testDeadToAwaitingRebalanceIllegalTransition", Dead, CompletingRebalance, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.to.validFrom(c.from); got != c.legal {
				t.Fatalf("%s -> %s legal=%v, want %v", c.from, c.to, got, c.legal)
			}
		})
	}
}

func TestCanRebalance(t *testing.T) {
	for _, c := range []struct {
		name  string
		state State
		can   bool
	}{
		{"testCanRebalanceWhenStable", Stable, true},
		{"testCanRebalanceWhenCompletingRebalance", CompletingRebalance, true},
		{"testCannotRebalanceWhenPreparingRebalance", PreparingRebalance, false},
		{"testCannotRebalanceWhenDead", Dead, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &Group{state: c.state}
			if g.canRebalance() != c.can {
				t.Fatalf("canRebalance in %s = %v, want %v", c.state, !c.can, c.can)
			}
		})
	}
}

// ClassicGroupTest.testElectNewJoinedLeader and
// testMaybeElectNewJoinedLeaderChooseExisting.
func TestElectNewJoinedLeader(t *testing.T) {
	g := New("group-id", testConfig(), 0)
	for _, id := range []string{"leader", "member", "member2"} {
		g.add(&Member{ID: id, ProtocolType: "consumer", Protocols: []Protocol{{Name: "range"}}})
	}
	g.member("member").joinRef = 1
	if !g.maybeElectNewJoinedLeader() || g.Leader() != "member" {
		t.Fatalf("leader %s, want the rejoined member", g.Leader())
	}
	g.member("member2").joinRef = 2
	g.member("leader").joinRef = 3
	g.leader = "leader"
	if !g.maybeElectNewJoinedLeader() || g.Leader() != "leader" {
		t.Fatalf("leader %s, want the rejoined existing leader kept", g.Leader())
	}
	for _, m := range g.members {
		m.joinRef = 0
	}
	if g.maybeElectNewJoinedLeader() {
		t.Fatal("elected a leader with nobody rejoined")
	}
}
