package quorum

import (
	"slices"
	"strconv"
	"time"

	"github.com/hashicorp/raft"
)

// Making elections predictable.
//
// hashicorp/raft picks every timeout at random between T and 2T. A
// follower that has not heard from a leader for its HeartbeatTimeout
// becomes a candidate; a candidate whose election went nowhere tries again
// after its ElectionTimeout. Two rules of raft (with pre-vote, on by
// default in raft 1.8) decide who wins:
//
//  1. A controller refuses to vote, even in a pre-vote, while it still
//     believes in a leader: only its own heartbeat timeout clears that.
//  2. Pre-vote asks before it campaigns, so a candidate that cannot win
//     raises no term and disturbs nobody; it simply waits.
//
// So at start-up, when nobody knows a leader, the first controller to time
// out wins. After a leader crash it is the other way round: the first
// survivors to time out cannot win, because the rest still believe in the
// dead leader; the winner is the survivor whose time-out completes a
// majority of controllers that stopped believing.
//
// loglab therefore gives each controller timeouts by its role, T being
// Config.HeartbeatTimeout (50 ms by default):
//
//	role                                      heartbeat  election
//	the leader                                T          T
//	the successor (first in succession)       2T         2T
//	the next majority-1 in succession         T          4T
//	the remaining followers                   5T         5T
//	no leader known: first in succession      T          T
//	no leader known: the others               4T         4T
//
// The succession puts the most up-to-date log first (raft's election
// restriction: a controller whose log is behind a majority's cannot win),
// then the lowest id. Quorum sets the timeouts again (raft's ReloadConfig)
// whenever a leader is elected and when a controller crashes or restarts.
//
// Crashing the leader: Crash first waits (at most 4T) until the followers
// hold every entry the leader holds, as they do when the quorum is idle
// between two steps of a lesson, so their logs tie and the succession is
// by id. At the crash it restarts every survivor's timer, so that their
// time-outs count from the crash: the fast followers stop believing after
// [T, 2T), their pre-votes fail for want of a majority, and they wait 4T
// or more before asking again; the successor times out at [2T, 4T), finds
// the majority ready and wins; the remaining followers would time out only
// at [5T, 10T), when the new leader's heartbeats already reach them. With
// T = 50 ms a failover takes 100-200 ms, and the lowest-numbered survivor
// takes over. Timeouts alone do not guarantee it on a loaded machine,
// where a goroutine can wake a timeout or more late and another survivor
// asks again first; so until the successor leads, only its vote requests
// get through (gateElection, as Partition does).
//
// Start-up: controller 1 (or, on reopened stores, the controller with the
// most up-to-date log) times out at [T, 2T), everybody else at [4T, 8T),
// which leaves room for controllers starting one after the other and for
// WASM's pauses; since nobody knows a leader, the first to time out wins.
// A restart while no leader is known works the same way.
//
// Two constraints shape the table. hashicorp/raft requires
// LeaderLeaseTimeout <= HeartbeatTimeout on every controller at all times,
// and step-downs were measured with a lease below the heartbeat timeout,
// so the lease is T and no role has a heartbeat timeout below T. And the
// leader sends heartbeats every HeartbeatTimeout/10 of its own, so the
// leader's role keeps it at T (5-10 ms between heartbeats).
//
// The table makes only crashes done through Crash predictable: when a
// leader stalls instead (a long pause, a WASM tab in the background), the
// survivors' timers were not restarted together and any of them may win.

// timing is a controller's pair of raft timeouts.
type timing struct {
	heartbeat, election time.Duration
}

// planTimings gives every controller in order its timing. order lists the
// live controllers, the preferred successor first (see successionOrder);
// leader is the controller whose followers the plan is for (it may just
// have crashed and be missing from order); 0 means no leader is known.
func planTimings(base time.Duration, controllers, leader int, order []int) map[int]timing {
	out := map[int]timing{}
	if leader == 0 {
		for i, id := range order {
			if i == 0 {
				out[id] = timing{base, base}
			} else {
				out[id] = timing{4 * base, 4 * base}
			}
		}
		return out
	}
	majority := controllers/2 + 1
	rank := 0
	for _, id := range order {
		switch {
		case id == leader:
			out[id] = timing{base, base}
			continue
		case rank == 0:
			out[id] = timing{2 * base, 2 * base}
		case rank < majority:
			out[id] = timing{base, 4 * base}
		default:
			out[id] = timing{5 * base, 5 * base}
		}
		rank++
	}
	return out
}

// logPosition is how up to date a controller's log is, for raft's
// election restriction: the last entry's term, then its index.
type logPosition struct {
	term, index uint64
}

func (a logPosition) less(b logPosition) bool {
	return a.term < b.term || (a.term == b.term && a.index < b.index)
}

// successionOrder sorts controllers for planTimings: the most up-to-date
// log first (only a controller whose log is at least as up to date as a
// majority's can win), then the lowest id.
func successionOrder(pos map[int]logPosition) []int {
	var ids []int
	for id := range pos {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int) int {
		switch {
		case pos[b].less(pos[a]):
			return -1
		case pos[a].less(pos[b]):
			return 1
		}
		return a - b
	})
	return ids
}

// tune gives controllers their role's timeouts whenever a leader is elected.
func (q *Quorum) tune() {
	defer q.wg.Done()
	for {
		select {
		case o := <-q.obs:
			lo, ok := o.Data.(raft.LeaderObservation)
			if ok && lo.LeaderID == "" {
				q.hookLost(&o)
			}
			if !ok || lo.LeaderID == "" {
				continue
			}
			q.sb.wonCampaign(lo.LeaderAddr)
			if id, err := strconv.Atoi(string(lo.LeaderID)); err == nil {
				q.hookElected(id, &o)
			}
			q.mu.Lock()
			if !q.closed {
				if leader := q.leaderLocked(); leader != 0 {
					q.applyPlanAt(leader, false, q.nodes[leader-1].p.raft.CommitIndex())
				}
			}
			q.mu.Unlock()
		case <-q.done:
			return
		}
	}
}

// applyPlan gives every live controller its timeouts for a leader (0: none
// known); reset restarts their timers now. Callers hold q.mu.
func (q *Quorum) applyPlan(leader int, reset bool) { q.applyPlanAt(leader, reset, 0) }

// applyPlanAt is applyPlan counting log positions only up to index upTo
// (0: all). A newly elected leader's followers receive its first entries a
// moment apart; counting only what the leader has committed makes them tie
// instead, so the succession (and the timeouts `show quorum` prints) does
// not depend on which follower happened to be faster.
func (q *Quorum) applyPlanAt(leader int, reset bool, upTo uint64) {
	pos := q.positionsLocked()
	var at raft.Log
	if upTo > 0 && q.nodes[leader-1].logs.GetLog(upTo, &at) == nil {
		for id, p := range pos {
			if p.index > upTo {
				pos[id] = logPosition{term: at.Term, index: upTo}
			}
		}
	}
	q.applyPlanFor(leader, successionOrder(pos), reset)
}

// applyPlanFor gives the controllers in order (the succession, see
// planTimings) their timeouts for a leader; the others keep theirs.
// Callers hold q.mu.
func (q *Quorum) applyPlanFor(leader int, order []int, reset bool) {
	plan := planTimings(q.cfg.HeartbeatTimeout, q.cfg.Controllers, leader, order)
	q.stretchCampaignerLocked(plan)
	for _, n := range q.nodes {
		t, ok := plan[n.id]
		if !ok || n.p == nil || (!reset && n.p.timing == t) {
			continue
		}
		rc := q.reloadable(t)
		if reset {
			// Raft restarts a follower's timer when its heartbeat timeout
			// shrinks: raise it a little, then set it.
			bump := rc
			bump.HeartbeatTimeout += time.Millisecond
			bump.ElectionTimeout = max(bump.ElectionTimeout, bump.HeartbeatTimeout)
			n.p.raft.ReloadConfig(bump)
			// A candidate restarts its election timer when it finds its
			// election timeout changed, but raft coalesces the two
			// notifications: should the timeout end where it started,
			// the candidate would see no change. So it ends 1 ms off
			// (Status shows the plan's value).
			if rc.ElectionTimeout == n.p.election {
				rc.ElectionTimeout += time.Millisecond
			}
		}
		n.p.raft.ReloadConfig(rc)
		n.p.timing, n.p.election = t, rc.ElectionTimeout
	}
}

// gatedElectionTimeouts is how many heartbeat timeouts the one controller
// allowed to campaign (see gateElection) waits, natively, before it starts
// another election round. A round writes the term and the vote to disk
// (fsync) on the candidate and on every voter; beside other disk-heavy
// tests that took longer than the role's election timeout (T or 2T), so
// every round was cut short by the next, and nobody was elected until the
// gate opened (first elections of 4 to 18 s, failovers of 5 s).
const gatedElectionTimeouts = 20

// stretchCampaignerLocked gives the controller allowed to campaign, if any,
// an election timeout long enough for a round to complete, natively; its
// heartbeat timeout, which decides when it first asks, stays the plan's.
// In memory a round takes microseconds and the plan's timeouts stay.
// Callers hold q.mu.
func (q *Quorum) stretchCampaignerLocked(plan map[int]timing) {
	if q.fs == nil {
		return
	}
	for id, t := range plan {
		if q.sb.isCampaigner(q.nodes[id-1].addr) {
			t.election = max(t.election, gatedElectionTimeouts*q.cfg.HeartbeatTimeout)
			plan[id] = t
		}
	}
}

// positionsLocked is where every live controller's log ends. Callers hold q.mu.
func (q *Quorum) positionsLocked() map[int]logPosition {
	pos := map[int]logPosition{}
	for _, n := range q.nodes {
		if n.p != nil {
			pos[n.id] = lastEntry(n.p.raft.Stats())
		}
	}
	return pos
}

// lastEntry is the last entry a controller holds, in its log or, when it
// restored a snapshot past its log, in that snapshot, as raft's election
// restriction counts it.
func lastEntry(stats map[string]string) logPosition {
	num := func(k string) uint64 { v, _ := strconv.ParseUint(stats[k], 10, 64); return v }
	logPos := logPosition{term: num("last_log_term"), index: num("last_log_index")}
	snapPos := logPosition{term: num("last_snapshot_term"), index: num("last_snapshot_index")}
	if logPos.less(snapPos) {
		return snapPos
	}
	return logPos
}
