package quorum

import (
	"errors"
	"strconv"
	"time"

	"github.com/hashicorp/raft"
)

// Repeatable snapshots and a settled quorum.
//
// Raft replicates on its own time: a follower learns the commit index a
// heartbeat after the leader, and raft snapshots when a wall-clock timer
// finds enough new entries. A transcript that shows the quorum must not
// depend on either, so the simulation settles the quorum before it looks
// (Settle) and, with Config.SnapshotOnCommit, snapshots at fixed points:
// right after the Append that takes the active controller's log
// SnapshotThreshold entries past its last snapshot, on every live
// controller at the same index.

// snapshotInterval is raft's snapshot timer: practically never when
// snapshots are taken on commit.
func (q *Quorum) snapshotInterval() time.Duration {
	if q.cfg.SnapshotOnCommit {
		return 24 * time.Hour
	}
	return q.cfg.SnapshotInterval
}

// settleWait bounds how long Settle waits for followers.
func (q *Quorum) settleWait() time.Duration { return 4 * q.cfg.HeartbeatTimeout }

// Settle waits (a few heartbeat timeouts at most) until every live
// controller holds and has applied every entry the active controller has
// applied. Without an active controller it returns at once.
func (q *Quorum) Settle() {
	q.mu.Lock()
	id := q.leaderLocked()
	var p *proc
	if id != 0 {
		p = q.nodes[id-1].p
	}
	q.mu.Unlock()
	if p != nil {
		q.settle(p)
		// Every log is now the leader's: plan the timeouts on that, so
		// what Status shows cannot depend on which follower was faster.
		q.mu.Lock()
		if q.leaderLocked() == id {
			q.applyPlan(id, false)
		}
		q.mu.Unlock()
	}
}

// Raft advances a controller's applied index before its state machine has
// run the entries (on another goroutine), and a follower learns the commit
// index only with the next heartbeat: so all three are waited for.
func (q *Quorum) settle(leader *proc) {
	target, end := leader.raft.AppliedIndex(), leader.fsm.end()
	deadline := time.Now().Add(q.settleWait())
	for {
		done := true
		q.mu.Lock()
		for _, n := range q.reachedByLocked(leader) {
			if p := n.p; p.raft.AppliedIndex() < target || p.raft.CommitIndex() < target || p.fsm.end() < end {
				done = false
			}
		}
		q.mu.Unlock()
		if done || !time.Now().Before(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// snapshotIfDue snapshots every live controller once the active one is
// SnapshotThreshold entries past its last snapshot.
func (q *Quorum) snapshotIfDue(leader *proc) {
	last, _ := strconv.ParseUint(leader.raft.Stats()["last_snapshot_index"], 10, 64)
	if leader.raft.AppliedIndex()-last < q.cfg.SnapshotThreshold {
		return
	}
	q.settle(leader)
	q.mu.Lock()
	var procs []*proc
	for _, n := range q.reachedByLocked(leader) {
		procs = append(procs, n.p)
	}
	q.mu.Unlock()
	for _, p := range procs {
		if err := p.wait(p.raft.Snapshot(), "a snapshot on commit"); err != nil && !errors.Is(err, raft.ErrNothingNewToSnapshot) {
			q.cfg.Logger.Warn("snapshot failed", "error", err)
		}
	}
}

// reachedByLocked lists the running controllers that leader's run reaches
// (itself included): a controller cut off by a partition neither follows
// nor snapshots with it. Callers hold q.mu.
func (q *Quorum) reachedByLocked(leader *proc) []*node {
	var from *node
	for _, n := range q.nodes {
		if n.p == leader {
			from = n
		}
	}
	var out []*node
	for _, n := range q.nodes {
		if n.p != nil && (from == nil || n == from || q.sb.connected(from.addr, n.addr)) {
			out = append(out, n)
		}
	}
	return out
}

// live counts the running controllers.
func (q *Quorum) live() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, nd := range q.nodes {
		if nd.p != nil {
			n++
		}
	}
	return n
}
