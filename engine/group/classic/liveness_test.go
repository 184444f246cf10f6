package classic

import (
	"fmt"
	"testing"
)

// client is a minimal classic consumer's group loop (the Java client's
// AbstractCoordinator): join, sync, heartbeat every heartbeat.interval.ms,
// rejoin when told to.
type client struct {
	name       string
	memberID   string
	generation int32
	phase      string // "join", "joining", "sync", "syncing", "stable"
	ref        uint64
	nextBeat   int64
	start      int64 // when the consumer starts
}

// TestClientsConvergeAndStayStable: three consumers start one after
// another, a fourth joins later; the group must settle in Stable after
// each change and then stay there (no rebalance loop), with every member
// heartbeating.
func TestClientsConvergeAndStayStable(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	clients := []*client{{name: "c1", phase: "join"}, {name: "c2", phase: "join", start: 1000}, {name: "c3", phase: "join", start: 2500}}
	byRef := map[uint64]*client{}
	step := func() {
		for _, c := range clients {
			if h.now < c.start {
				continue
			}
			switch c.phase {
			case "join":
				req := defaultJoin()
				req.ClientID, req.MemberID = c.name, c.memberID
				req.SessionTimeoutMs, req.RebalanceTimeoutMs = 45000, 300000
				c.phase = "joining"
				h.ref++
				req.Ref, req.UUID = h.ref, fmt.Sprintf("%s-%d", c.name, h.ref)
				byRef[h.ref] = c
				h.collect(h.g.Join(h.now, req))
			case "sync":
				var as []SyncAssignment
				if h.g.Leader() == c.memberID {
					for _, m := range h.g.Members() {
						as = append(as, SyncAssignment{MemberID: m.ID, Assignment: "p"})
					}
				}
				c.phase = "syncing"
				h.ref++
				byRef[h.ref] = c
				h.collect(h.g.Sync(h.now, SyncRequest{Ref: h.ref, MemberID: c.memberID, GenerationID: c.generation, Assignments: as}))
			case "stable", "syncing":
				if h.now >= c.nextBeat {
					c.nextBeat = h.now + 3000
					switch h.heartbeat(c.memberID, c.generation) {
					case None:
					case RebalanceInProgress:
						c.phase = "join"
					default:
						c.memberID, c.phase = "", "join"
					}
				}
			}
		}
		// Hand out the responses, in ref order so the loop replays
		// exactly.
		for ref := uint64(1); ref <= h.ref; ref++ {
			r, ok := h.got[ref]
			if !ok {
				continue
			}
			delete(h.got, ref)
			c := byRef[ref]
			switch {
			case r.Join != nil && r.Join.Error == MemberIDRequired:
				c.memberID, c.phase = r.Join.MemberID, "join"
			case r.Join != nil && r.Join.Error == None:
				c.memberID, c.generation, c.phase = r.Join.MemberID, r.Join.GenerationID, "sync"
			case r.Sync != nil && r.Sync.Error == None:
				c.phase = "stable"
			case r.Join != nil && r.Join.Error == UnknownMemberID:
				c.memberID, c.phase = "", "join"
			default:
				c.phase = "join"
			}
		}
	}
	run := func(ms int64) {
		for end := h.now + ms; h.now < end; {
			step()
			h.sleep(100)
		}
	}
	settled := func(n int) int32 {
		t.Helper()
		if h.g.State() != Stable || len(h.g.Members()) != n {
			t.Fatalf("t=%d: %s with %d members, want Stable with %d", h.now, h.g.State(), len(h.g.Members()), n)
		}
		for _, c := range clients {
			if c.phase != "stable" || c.generation != h.g.Generation() {
				t.Fatalf("t=%d: %s is %s in generation %d, group at %d", h.now, c.name, c.phase, c.generation, h.g.Generation())
			}
		}
		return h.g.Generation()
	}

	run(30000)
	gen := settled(3)
	if gen != 1 {
		// group.initial.rebalance.delay.ms gathers the three starters
		// into one first generation.
		t.Fatalf("generation %d after start, want 1", gen)
	}
	run(600000)
	if settled(3) != gen {
		t.Fatalf("generation moved from %d to %d with nothing changing: a rebalance loop", gen, h.g.Generation())
	}

	clients = append(clients, &client{name: "c4", phase: "join"})
	run(30000)
	gen = settled(4)
	if gen != 2 {
		t.Fatalf("generation %d after a member joined, want 2 (one rebalance)", gen)
	}
	run(600000)
	if settled(4) != gen {
		t.Fatalf("generation moved from %d to %d: a rebalance loop", gen, h.g.Generation())
	}
}
