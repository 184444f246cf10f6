//go:build !js

package quorum

import (
	"time"

	"github.com/hashicorp/raft"
)

// Predictable elections between processes.
//
// The in-process quorum plans every controller's timeouts from what it
// sees of all of them: who is up, whose log is ahead, the moment of a crash
// (timing.go). A controller process sees none of that. So each one applies
// the same table, planTimings, from what it alone knows: the leader it last
// heard of, assuming every controller is up and their logs tie, so that the
// succession is by id. With T the HeartbeatTimeout:
//
//   - Start-up, no leader known: controller 1 times out after [T, 2T), the
//     others after [4T, 8T). Once controller 1 and a majority run,
//     controller 1 wins, unless its log is behind theirs (raft's election
//     restriction: after a whole-quorum restart, the controllers that went
//     on without it), when one of the others wins after 4T or more. Start
//     2 and 3 well before 1, and one of them wins before 1 arrives.
//   - The leader crashes: its followers heard its last heartbeat at almost
//     the same moment (heartbeats go every T/10), so their timers already
//     count from the crash; the in-process quorum has to restart them to
//     get that. The successor, the lowest id other than the leader's, times
//     out after [2T, 4T); the next majority-1 followers after [T, 2T), but
//     their pre-votes fail while the successor still believes in the
//     leader, and they wait 4T or more before they try again. So the
//     successor wins: with three controllers, 2 takes over from 1, 1 from
//     2 and 3. Any other follower waits [5T, 10T).
//   - Close hands leadership over instead (LeadershipTransfer), to the
//     follower with the longest log, the lowest id on a tie.
//
// Not predictable: when the successor is down or its log is behind (entries
// in flight at the crash), another follower wins, after a few T more; and
// when the leader stalls instead of crashing, any follower may.

// plan is this controller's timing while leader is the active controller
// (0: none known yet).
func (p *Process) plan(leader int) timing {
	ids := make([]int, len(p.cfg.Voters))
	for i := range ids {
		ids[i] = i + 1
	}
	return planTimings(p.q.cfg.HeartbeatTimeout, len(ids), leader, ids)[p.cfg.ID]
}

// retime gives this controller its timing for the leader it knows. A
// shorter heartbeat timeout restarts a follower's timer, which then fires
// at once unless the leader was heard from within the new timeout (raft's
// runFollower), so it is set only once a heartbeat was just heard; tune
// calls retime again every T/2 until then.
func (p *Process) retime() {
	q := p.q
	q.mu.Lock()
	defer q.mu.Unlock()
	pr := p.n.p
	if pr == nil || p.known == 0 {
		return
	}
	t := p.plan(p.known)
	if pr.timing == t {
		return
	}
	if t.heartbeat < pr.timing.heartbeat && pr.raft.State() != raft.Leader &&
		time.Since(pr.raft.LastContact()) > t.heartbeat/2 {
		return
	}
	if err := pr.raft.ReloadConfig(q.reloadable(t)); err != nil {
		q.cfg.Logger.Warn("setting the election timeouts failed", "error", err)
		return
	}
	pr.timing, pr.election = t, t.election
}
