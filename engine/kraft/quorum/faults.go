package quorum

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hashicorp/raft"
)

// Crash stops controller id as a crash would: it stops answering at once,
// its memory (state machine, image) is lost, its stores survive.
//
// Crashing the active controller first waits up to 4×HeartbeatTimeout for
// the followers to hold every entry it holds, as they do when the quorum is
// idle between two steps of a lesson: then their logs tie and the
// lowest-numbered survivor takes over (timing.go).
func (q *Quorum) Crash(id int) error { return q.crash(id, true) }

func (q *Quorum) crash(id int, quiesce bool) error {
	q.life.Lock()
	defer q.life.Unlock()
	n, err := q.node(id)
	if err != nil {
		return err
	}
	if quiesce {
		q.quiesce(id, 4*q.cfg.HeartbeatTimeout)
	}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return ErrClosed
	}
	p := n.p
	if p == nil {
		q.mu.Unlock()
		return fmt.Errorf("quorum: controller %d is already down", id)
	}
	leader := q.leaderLocked()
	q.hookFault(leader)
	n.p = nil
	close(p.stopped)
	q.sb.detach(n.addr)
	// Restart the survivors' timers from the moment of the crash, with the
	// roles of a quorum whose leader is (or was) leader. Without a leader
	// they are not restarted: a survivor that heard from no leader for a
	// while would start an election the moment its timer restarts.
	order := successionOrder(q.positionsLocked())
	if leader == id && quiesce && q.canElectLocked() {
		q.gateElection(order[0])
	} else if q.sb.isCampaigner(n.addr) {
		// The controller meant to win crashed first: anyone may now.
		q.sb.setCampaigner("")
	}
	q.applyPlanFor(leader, order, leader != 0)
	q.mu.Unlock()

	if err = p.shutdown(id); !errors.Is(err, errRaftHung) {
		q.mu.Lock()
		err = errors.Join(err, q.closeStores(n))
		q.mu.Unlock()
	}
	if quiesce {
		q.awaitStepDown()
	}
	return err
}

// gateElection lets only controller id, the first in succession, ask for
// votes until it leads: after the active controller crashed, at start-up,
// and when a restart brings a majority back. The timeouts by role
// (timing.go) make it win on an idle machine; on a loaded one a goroutine
// can wake a heartbeat timeout late, and another survivor won the
// election (TestFailover, 5 controllers, once in a loaded test run). The
// gate makes the winner the same on every run, as Partition's does. id
// holds the most up-to-date log of a majority that runs, so raft elects
// it; should it somehow not lead within 100 heartbeat timeouts, everyone
// may campaign again rather than nobody win. Callers hold q.mu (or, in
// New, run before anyone else can).
func (q *Quorum) gateElection(id int) {
	n := q.sb.setCampaigner(q.nodes[id-1].addr)
	time.AfterFunc(100*q.cfg.HeartbeatTimeout, func() { q.sb.endCampaign(n) })
}

// awaitStepDown waits, when too few controllers run to elect one, until
// the leader has stepped down (its lease expires after about a heartbeat
// timeout without a majority), so that what follows does not depend on how
// fast the next command came: a restart then always starts an election.
func (q *Quorum) awaitStepDown() {
	if q.canElect() {
		return
	}
	deadline := time.Now().Add(10 * q.cfg.HeartbeatTimeout)
	for q.Leader() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
}

// quiesce waits, up to wait, until every live follower's log reaches the
// end of the log of leader id; it returns at once if id is not the leader.
func (q *Quorum) quiesce(id int, wait time.Duration) {
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		q.mu.Lock()
		done := true
		if q.leaderLocked() == id {
			leader := q.nodes[id-1].p
			end := leader.raft.LastIndex()
			for _, n := range q.reachedByLocked(leader) {
				if n.p.raft.LastIndex() < end {
					done = false
				}
			}
		}
		q.mu.Unlock()
		if done {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// Restart starts controller id again on its stores. It restores its latest
// snapshot, then catches up from the active controller: from the log, or
// from the leader's snapshot when the entries it misses were compacted.
// When there is an active controller Restart waits until it has caught
// up, however long raft takes (hangBound at most: raft replicates to a
// follower it reaches, so only a bug ends that wait; LeaderWait, 2 s, was
// too short for 50 entries written with fsync on a loaded machine); with
// none, it returns once the controller runs.
func (q *Quorum) Restart(id int) error {
	if err := q.restart(id); err != nil {
		return err
	}
	if q.Leader() == 0 && !q.canElect() {
		return nil
	}
	if leader, err := q.activeController(q.cfg.LeaderWait); err != nil || !q.Connected(id, q.idOf(leader)) {
		// No leader, or one a partition cuts it off from: it catches up
		// once the network heals (Partition waits for that).
		return nil
	}
	if err := q.CatchUp(id, hangBound); err != nil {
		return err
	}
	// Caught up, it may now be first in succession: plan the timeouts
	// again rather than leave them to when raft next reports a leader.
	q.mu.Lock()
	defer q.mu.Unlock()
	if leader := q.leaderLocked(); leader != 0 {
		q.applyPlanAt(leader, false, q.nodes[leader-1].p.raft.CommitIndex())
	}
	return nil
}

func (q *Quorum) restart(id int) error {
	q.life.Lock()
	defer q.life.Unlock()
	n, err := q.node(id)
	if err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrClosed
	}
	if n.p != nil {
		return fmt.Errorf("quorum: controller %d is running", id)
	}
	if err := q.openStores(n); err != nil {
		return err
	}
	leader := q.leaderLocked()
	pos := q.positionsLocked()
	pos[id] = storedPosition(n)
	order := successionOrder(pos)
	plan := planTimings(q.cfg.HeartbeatTimeout, q.cfg.Controllers, leader, order)
	if err := q.start(n, plan[id]); err != nil {
		return errors.Join(err, q.closeStores(n))
	}
	if leader == 0 && q.canElectLocked() {
		// This restart brings a majority back: an election follows, which
		// the first in succession wins, as at start-up. (applyPlan below
		// gives it its election timeout for a gated election.)
		q.gateElection(order[0])
	}
	q.applyPlan(leader, false)
	return nil
}

// CatchUp waits until controller id has applied everything the active
// controller had committed when CatchUp was called: every metadata record,
// and raft's own entries too (so it has heard from the leader).
func (q *Quorum) CatchUp(id int, wait time.Duration) error {
	n, err := q.node(id)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(wait)
	leader, err := q.activeController(wait)
	if err != nil {
		return err
	}
	end, index := leader.fsm.end(), leader.raft.CommitIndex()
	for {
		q.mu.Lock()
		p := n.p
		q.mu.Unlock()
		if p == nil {
			return fmt.Errorf("quorum: controller %d is down", id)
		}
		if p.fsm.end() >= end && p.raft.AppliedIndex() >= index {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("quorum: controller %d applied up to offset %d (index %d), not %d (index %d), within %s",
				id, p.fsm.end(), p.raft.AppliedIndex(), end, index, wait)
		}
		time.Sleep(time.Millisecond)
	}
}

// Snapshot makes controller id take a snapshot now (and compact its log,
// keeping TrailingLogs entries), as its SnapshotThreshold would.
func (q *Quorum) Snapshot(id int) error {
	n, err := q.node(id)
	if err != nil {
		return err
	}
	q.mu.Lock()
	p := n.p
	q.mu.Unlock()
	if p == nil {
		return fmt.Errorf("quorum: controller %d is down", id)
	}
	return p.wait(p.raft.Snapshot(), fmt.Sprintf("controller %d's snapshot", id))
}

// TransferLeadership makes controller id the active controller: the
// current leader hands it the leadership (raft's leadership transfer, which
// needs id to be up to date; it is, once the quorum has settled).
func (q *Quorum) TransferLeadership(id int) error {
	n, err := q.node(id)
	if err != nil {
		return err
	}
	for attempt := 0; attempt < 3; attempt++ {
		p, err := q.activeController(q.cfg.LeaderWait)
		if err != nil {
			return err
		}
		q.mu.Lock()
		leader := q.leaderLocked()
		target := n.p
		q.mu.Unlock()
		if leader == id {
			return nil
		}
		if target == nil {
			return fmt.Errorf("quorum: controller %d is down", id)
		}
		q.settle(p)
		_ = p.wait(p.raft.LeadershipTransferToServer(raft.ServerID(strconv.Itoa(id)), n.addr), fmt.Sprintf("handing the leadership to controller %d", id))
		if _, err := q.activeController(q.cfg.LeaderWait); err != nil {
			return err
		}
	}
	if q.Leader() != id {
		return fmt.Errorf("quorum: controller %d did not take the leadership back", id)
	}
	return nil
}

// StepDown makes the active controller hand its leadership to another
// controller (raft's leadership transfer), as happens on its own when a
// busy machine delays the leader's heartbeats; tests use it to reproduce
// that without a busy machine.
func (q *Quorum) StepDown() error {
	p, err := q.activeController(q.cfg.LeaderWait)
	if err != nil {
		return err
	}
	if err := p.wait(p.raft.LeadershipTransfer(), "handing the leadership over"); err != nil {
		return err
	}
	_, err = q.activeController(q.cfg.LeaderWait)
	return err
}
