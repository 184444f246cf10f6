package quorum

import (
	"fmt"
	"time"

	"github.com/hashicorp/raft"
)

// Network partitions between controllers.
//
// The controllers talk through the switchboard, so a partition is a set of
// cut links there: an RPC over a cut link is treated as one to a crashed
// controller (a vote fails at once, a replication RPC is held until the
// link is back and then reset; see link.reach). A leader that can no
// longer reach a majority stops believing in itself after its lease
// (LeaderLeaseTimeout = T) and steps down: it cannot commit anything. A
// majority on the other side elects a new leader after its timeouts, the
// same predictable way as after a crash: Partition restarts the timers of
// the controllers that lost their leader, with the succession of their
// side (timing.go). Timeouts alone do not make that election predictable
// everywhere: in WASM's single thread, or when a partition heals while
// every controller is a candidate with its own timer running, any of them
// may ask first. So until the election is over, only the controller first
// in succession (the most up-to-date log, then the lowest id: one that can
// win) gets its vote requests through; the others' fail as if lost. Raft
// then elects the same controller at the same term on every run.
//
// Kafka's KRaft does the same with its own protocol: a leader that has not
// heard fetches from a majority for controller.quorum.fetch.timeout.ms
// resigns (check-quorum), and the followers elect a new leader after the
// same timeout. As for a crash, loglab's failover takes no virtual time.

// Partition sets which controllers reach each other: connected(a, b) for
// controller ids a and b; nil connects everyone (a heal). It returns once
// the quorum has settled into the new network: a leader cut off from its
// majority has stepped down, a new one is active if a connected majority
// runs, and every controller connected to the leader has caught up.
func (q *Quorum) Partition(connected func(a, b int) bool) error {
	q.life.Lock()
	defer q.life.Unlock()
	if leader := q.Leader(); leader != 0 {
		// As before a crash: followers holding the leader's whole log tie,
		// so the lowest-numbered controller of the majority takes over;
		// and they know it committed, so what a controller cut off shows
		// does not depend on a heartbeat's timing.
		q.quiesce(leader, 4*q.cfg.HeartbeatTimeout)
		if p, err := q.activeController(0); err == nil {
			q.settle(p)
		}
	}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return ErrClosed
	}
	cut := map[[2]raft.ServerAddress]bool{}
	for _, a := range q.nodes {
		for _, b := range q.nodes {
			if a.id != b.id && connected != nil && !connected(a.id, b.id) {
				cut[[2]raft.ServerAddress{a.addr, b.addr}] = true
			}
		}
	}
	leader := q.leaderLocked()
	q.hookFault(leader)
	defer q.sb.setCampaigner("")
	var plan func()
	if leader == 0 || !q.reachesMajorityLocked(leader, cut) {
		// An election follows: by the side that lost its leader, or, with
		// no leader (every controller a candidate whose timer runs since
		// it was cut off), by a side the new network joins into a
		// majority. Its timers restart (as at start-up when no leader is
		// known) and the first in succession campaigns.
		if side := q.electableSideLocked(leader, cut); side != nil {
			pos := q.positionsLocked()
			for id := range pos {
				if !side[id] {
					delete(pos, id)
				}
			}
			order := successionOrder(pos)
			q.sb.setCampaigner(q.nodes[order[0]-1].addr)
			plan = func() { q.applyPlanFor(leader, order, true) }
		}
	}
	q.sb.setCut(cut)
	isolated := leader != 0 && len(q.reachableLocked(leader)) < q.majority()
	if plan != nil {
		plan()
	}
	q.mu.Unlock()

	if isolated {
		if err := q.awaitStepDownOf(leader); err != nil {
			return err
		}
	}
	if q.canElect() {
		// The campaigner holds the most up-to-date log of its side, so it
		// wins; should it not (a bug), let anyone campaign rather than
		// wait for ever.
		stuck := time.Now().Add(50 * q.cfg.HeartbeatTimeout)
		for q.Leader() == 0 && time.Now().Before(stuck) {
			time.Sleep(time.Millisecond)
		}
		q.sb.setCampaigner("")
		if _, err := q.activeController(q.cfg.LeaderWait); err != nil {
			return err
		}
		q.mu.Lock()
		now := q.leaderLocked()
		var reached []int
		if now != 0 {
			reached = q.reachableLocked(now)
		}
		q.mu.Unlock()
		for _, id := range reached {
			// However long raft takes (see Restart).
			if err := q.CatchUp(id, hangBound); err != nil {
				return err
			}
		}
	}
	return q.awaitCandidates()
}

// awaitCandidates waits until every live controller the leader does not
// reach (all of them without a leader) is a candidate: cut off, it stops
// hearing from a leader and, after its heartbeat timeout, asks for votes
// it cannot get (pre-vote keeps its term), and stays a candidate until it
// hears from a leader again. Waiting for that makes `show quorum` the same
// on every run. The bound only turns a bug into an error.
func (q *Quorum) awaitCandidates() error {
	bound := time.Now().Add(100 * q.cfg.HeartbeatTimeout)
	for {
		q.mu.Lock()
		var waiting []int
		leader := q.leaderLocked()
		for _, n := range q.nodes {
			if n.p == nil || n.id == leader || (leader != 0 && q.sb.connected(q.nodes[leader-1].addr, n.addr)) {
				continue
			}
			if n.p.raft.State() != raft.Candidate {
				waiting = append(waiting, n.id)
			}
		}
		q.mu.Unlock()
		if len(waiting) == 0 {
			return nil
		}
		if !time.Now().Before(bound) {
			return fmt.Errorf("quorum: controllers %v, cut off from the leader, did not become candidates", waiting)
		}
		time.Sleep(time.Millisecond)
	}
}

// awaitStepDownOf waits until controller id is no longer a raft leader:
// its lease runs out a heartbeat timeout after it last heard from a
// majority. Raft guarantees it; the bound only turns a bug into an error.
func (q *Quorum) awaitStepDownOf(id int) error {
	bound := time.Now().Add(100 * q.cfg.HeartbeatTimeout)
	for {
		q.mu.Lock()
		p := q.nodes[id-1].p
		leading := p != nil && p.raft.State() == raft.Leader
		q.mu.Unlock()
		if !leading {
			return nil
		}
		if !time.Now().Before(bound) {
			return fmt.Errorf("quorum: controller %d, cut off from its majority, did not step down", id)
		}
		time.Sleep(time.Millisecond)
	}
}

func (q *Quorum) majority() int { return q.cfg.Controllers/2 + 1 }

// idOf is the id of the controller whose run p is, 0 for none.
func (q *Quorum) idOf(p *proc) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, n := range q.nodes {
		if p != nil && n.p == p {
			return n.id
		}
	}
	return 0
}

// reachesMajorityLocked says whether the live controllers id reaches
// under cut (itself included) make a majority. Callers hold q.mu.
func (q *Quorum) reachesMajorityLocked(id int, cut map[[2]raft.ServerAddress]bool) bool {
	n := 0
	for _, o := range q.nodes {
		if o.p != nil && (o.id == id || !cut[[2]raft.ServerAddress{q.nodes[id-1].addr, o.addr}]) {
			n++
		}
	}
	return n >= q.majority()
}

// reachableLocked lists the live controllers id reaches, itself included,
// in id order. Callers hold q.mu.
func (q *Quorum) reachableLocked(id int) []int {
	var out []int
	for _, n := range q.nodes {
		if n.p != nil && (n.id == id || q.sb.connected(q.nodes[id-1].addr, n.addr)) {
			out = append(out, n.id)
		}
	}
	return out
}

// electableSideLocked is the largest set of live controllers that reach
// each other, leave out controller not and make a majority (the lowest ids
// on a tie); nil when there is none. Callers hold q.mu.
func (q *Quorum) electableSideLocked(not int, cut map[[2]raft.ServerAddress]bool) map[int]bool {
	var best []int
	q.eachConnectedSetLocked(func(a, b raft.ServerAddress) bool { return !cut[[2]raft.ServerAddress{a, b}] }, func(ids []int) {
		for _, id := range ids {
			if id == not {
				return
			}
		}
		if len(ids) >= q.majority() && len(ids) > len(best) {
			best = ids
		}
	})
	if best == nil {
		return nil
	}
	side := map[int]bool{}
	for _, id := range best {
		side[id] = true
	}
	return side
}

// eachConnectedSetLocked calls f with every set of live controllers that
// all reach each other, in id order, sets in order of their bitmask (at
// most 2^5). Callers hold q.mu.
func (q *Quorum) eachConnectedSetLocked(connected func(a, b raft.ServerAddress) bool, f func(ids []int)) {
	for mask := 1; mask < 1<<len(q.nodes); mask++ {
		var ids []int
		ok := true
		for i, n := range q.nodes {
			if mask&(1<<i) == 0 {
				continue
			}
			if n.p == nil {
				ok = false
				break
			}
			for _, other := range ids {
				if !connected(n.addr, q.nodes[other-1].addr) {
					ok = false
				}
			}
			ids = append(ids, n.id)
		}
		if ok {
			f(ids)
		}
	}
}

// canElect says whether raft will elect a leader on its own: a majority of
// the controllers runs and reaches each other. Raft guarantees it then
// (the most up-to-date of them wins the votes of the others), whatever the
// timing.
func (q *Quorum) canElect() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.canElectLocked()
}

// canElectLocked is canElect for callers that hold q.mu.
func (q *Quorum) canElectLocked() bool {
	can := false
	q.eachConnectedSetLocked(q.sb.connected, func(ids []int) { can = can || len(ids) >= q.majority() })
	return can
}

// Connected says whether controllers a and b reach each other.
func (q *Quorum) Connected(a, b int) bool {
	na, err := q.node(a)
	if err != nil {
		return false
	}
	nb, err := q.node(b)
	if err != nil {
		return false
	}
	return a == b || q.sb.connected(na.addr, nb.addr)
}
