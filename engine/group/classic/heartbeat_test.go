package classic

import "testing"

// A group whose members keep heartbeating, and rejoin when told to,
// reaches Stable and stays there: no rebalance loop, the generation does
// not move, for ten minutes of virtual time.
func TestHeartbeatingGroupStaysStable(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	j := defaultJoin()
	j.SessionTimeoutMs, j.RebalanceTimeoutMs = 45000, 300000
	ids := h.stableGroup(j, j, j)
	gen := h.g.Generation()
	for step := 0; step < 200; step++ {
		h.sleep(3000) // heartbeat.interval.ms
		for _, id := range ids {
			if err := h.heartbeat(id, gen); err != None {
				t.Fatalf("t=%d: heartbeat of %s: %s", h.now, id, err)
			}
		}
		if h.g.State() != Stable || h.g.Generation() != gen || len(h.g.Members()) != 3 {
			t.Fatalf("t=%d: %s generation %d, %d members", h.now, h.g.State(), h.g.Generation(), len(h.g.Members()))
		}
	}
	// The only pending timers are the three sessions.
	if ts := h.g.Timers(); len(ts) != 3 {
		t.Fatalf("timers %v, want one heartbeat timer per member", ts)
	}
}
