package raft

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// Mirrors RaftEventSimulationTest.canElectNewLeaderAfterOldLeaderFailure
// and canMakeProgressAfterBackToBackLeaderFailures, with
// KafkaRaftClientTest.testVoterBecomeProspectiveAfterFetchTimeout and
// testInitializeAsResignedLeaderFromStateStore: the leader crashes, the two
// others elect a leader in a later epoch within seconds, no committed entry
// is lost or reordered, and the old leader restarts as a follower and
// converges.
func TestLeaderCrashAndRestart(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6, 7, 8} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			c := newCluster(t, clusterOpts{voters: 3, seed: seed})
			old := c.waitLeader(10 * time.Second)
			c.appendOn(old, 5, "before")
			c.must(3*time.Second, "converged", c.converged)
			before := entriesFrom(old.node, 0)
			epoch := old.node.Epoch()
			c.crash(old.addr)
			crashed := c.clock.Elapsed()
			nl := c.waitLeader(10 * time.Second)
			if nl == old || nl.node.Epoch() <= epoch {
				t.Fatalf("new leader %s in epoch %d (old epoch %d)", nl.addr, nl.node.Epoch(), epoch)
			}
			if d := c.clock.Elapsed() - crashed; d > 8*time.Second {
				t.Fatalf("a new leader only after %v", d)
			}
			// Every committed entry, in place.
			for _, e := range before {
				got, ok := nl.node.Log().Entry(e.Record.Offset)
				if !ok || !reflect.DeepEqual(got, e) {
					t.Fatalf("offset %d on the new leader: %+v, want %+v", e.Record.Offset, got, e)
				}
			}
			c.appendOn(nl, 5, "after")
			c.must(3*time.Second, "converged without the old leader", c.converged)
			// The old leader comes back: resigned (it cannot know what it
			// lost), then a follower of the new leader.
			c.start(old.addr)
			if old.node.Role() != Resigned || old.node.Epoch() != epoch {
				t.Fatalf("restarted old leader %v in epoch %d", old.node.Role(), old.node.Epoch())
			}
			c.must(5*time.Second, "converged with the old leader", c.converged)
			if old.node.Role() != Follower || old.node.LeaderID() != nl.id || old.node.Epoch() != nl.node.Epoch() {
				t.Fatalf("old leader %v of %d in %d", old.node.Role(), old.node.LeaderID(), old.node.Epoch())
			}
			for _, m := range c.ms {
				if diff := sameLogs(m.node, nl.node); diff != "" {
					t.Fatalf("%s: %s", m.addr, diff)
				}
				if !reflect.DeepEqual(m.l.state, nl.l.state) {
					t.Fatalf("%s's committed state differs from the leader's", m.addr)
				}
				for off, e := range m.l.all {
					if other, ok := nl.l.all[off]; ok && !reflect.DeepEqual(other, e) {
						t.Fatalf("offset %d: %s committed %+v, the leader %+v", off, m.addr, e, other)
					}
				}
			}
			// Back to back: the new leader crashes too.
			c.crash(nl.addr)
			third := c.waitLeader(10 * time.Second)
			c.appendOn(third, 1, "third")
			c.start(nl.addr)
			c.must(10*time.Second, "converged after a second failure", c.converged)
			if third.node.Log().EndOffset() != 1+5+1+5+1+1 {
				t.Fatalf("log end %d", third.node.Log().EndOffset())
			}
			c.checkInvariants()
		})
	}
}

// Mirrors RaftEventSimulationTest.canRecoverAfterAllNodesKilled: every node
// crashes and restarts; they elect a leader in a later epoch with every
// committed record.
func TestAllVotersRestart(t *testing.T) {
	c := newCluster(t, clusterOpts{voters: 3, observers: 1, seed: 12, cfg: func(c *Config) { c.SnapshotEvery = 4 }})
	l := c.waitLeader(10 * time.Second)
	c.appendOn(l, 9, "x")
	c.must(3*time.Second, "converged", c.converged)
	state := l.l.state
	epoch := l.node.Epoch()
	for _, m := range c.ms {
		c.crash(m.addr)
	}
	c.run(5 * time.Second)
	for _, m := range c.ms {
		c.start(m.addr)
	}
	nl := c.waitLeader(20 * time.Second)
	c.must(5*time.Second, "converged", c.converged)
	if nl.node.Epoch() <= epoch {
		t.Fatalf("epoch %d after a restart of epoch %d", nl.node.Epoch(), epoch)
	}
	for _, m := range c.ms {
		if len(m.l.state) <= len(state) || !reflect.DeepEqual(m.l.state[:len(state)], state) {
			t.Fatalf("%s's state after the restart: %d records, want the %d before and more", m.addr, len(m.l.state), len(state))
		}
		for _, r := range m.l.state[len(state):] {
			if r.Type != "LeaderChange" {
				t.Fatalf("%s: %+v after the restart", m.addr, r)
			}
		}
	}
	c.checkInvariants()
}

// Mirrors the determinism RaftEventSimulationTest relies on (a seed names a
// run): the same seed and the same script give the same transitions, at
// the same virtual times, and the same logs.
func TestDeterminism(t *testing.T) {
	type result struct {
		Transitions []transitionRec
		Logs        map[sim.NodeID][]protocol.MetadataEntry
		Events      []string
		End         time.Duration
	}
	script := func(seed uint64) result {
		c := newCluster(t, clusterOpts{voters: 3, observers: 1, seed: seed, cfg: func(c *Config) { c.SnapshotEvery = 6 }})
		l := c.waitLeader(10 * time.Second)
		c.appendOn(l, 4, "a")
		c.run(time.Second)
		c.crash(l.addr)
		nl := c.waitLeader(10 * time.Second)
		c.appendOn(nl, 3, "b")
		c.isolate(nl.addr)
		c.appendOn(nl, 2, "lost")
		c.run(8 * time.Second)
		c.start(l.addr)
		c.heal()
		c.must(20*time.Second, "converged", c.converged)
		c.appendOn(c.leader(), 5, "c")
		c.run(3 * time.Second)
		c.checkInvariants()
		r := result{Transitions: c.transitions, Logs: map[sim.NodeID][]protocol.MetadataEntry{}, Events: c.events, End: c.clock.Elapsed()}
		for _, m := range c.ms {
			r.Logs[m.addr] = entriesFrom(m.node, 0)
		}
		return r
	}
	differs := false
	first := script(100)
	for _, seed := range []uint64{100, 101, 102} {
		a, b := script(seed), script(seed)
		if !reflect.DeepEqual(a, b) {
			for i := range min(len(a.Transitions), len(b.Transitions)) {
				if a.Transitions[i] != b.Transitions[i] {
					t.Fatalf("seed %d: transition %d: %+v vs %+v", seed, i, a.Transitions[i], b.Transitions[i])
				}
			}
			t.Fatalf("seed %d: two runs differ", seed)
		}
		if len(a.Transitions) < 10 {
			t.Fatalf("seed %d: only %d transitions", seed, len(a.Transitions))
		}
		differs = differs || !reflect.DeepEqual(a.Transitions, first.Transitions)
	}
	if !differs {
		t.Fatalf("seeds 100-102 all gave the same transitions: the seed is not used")
	}
}
