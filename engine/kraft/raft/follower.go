package raft

import (
	"fmt"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// fetchState is a follower's or an observer's fetch loop.
type fetchState struct {
	inFlight    bool
	seq         uint64 // the request in flight; answers to others are stale
	lastSuccess time.Duration
	target      sim.NodeID
	bootstrap   int // the next voter to ask while the leader is unknown or silent
	// fetchedFromLeader: a fetch from this epoch's leader succeeded (a
	// follower that has it refuses pre-votes).
	fetchedFromLeader bool
	// lost: the leader's fetch timeout passed for an observer, which keeps
	// following but asks any voter (maybeSendFetchToBestNode).
	lost bool
	// timeout is the request in flight's controller.quorum.request.timeout.ms.
	timeout *sim.Event
}

// sent marks a request in flight and arms its timeout: a request nobody
// answers (a partition, a dropped message) is given up and retried.
func (n *Node) sent(f *fetchState, what string) {
	f.inFlight = true
	f.seq++
	seq := f.seq
	f.timeout = n.after(n.cfg.RequestTimeout, what+" request timeout", func() {
		if n.fetching == f && f.inFlight && f.seq == seq {
			f.answered()
			n.retryFetch()
		}
	})
}

// answered ends the request in flight; its timeout is void.
func (f *fetchState) answered() {
	f.inFlight = false
	if f.timeout != nil {
		f.timeout.Cancelled = true
		f.timeout = nil
	}
}

// becomeFollower follows leader in epoch (transitionToFollower) and
// starts fetching from it. A voter that hears nothing from it for
// controller.quorum.fetch.timeout.ms becomes a prospective.
func (n *Node) becomeFollower(epoch, leader int32) {
	if epoch > n.epoch {
		n.votedID = -1
	}
	n.transition(Follower)
	n.epoch, n.leaderID = epoch, leader
	if !n.saveState() {
		return
	}
	n.announce(leader)
	n.fetching = &fetchState{lastSuccess: n.sched.Clock.Elapsed(), bootstrap: n.rng.IntN(len(n.cfg.Voters))}
	n.armFetchTimeout()
	n.sendFetch()
}

func (n *Node) armFetchTimeout() {
	n.setTimer(n.cfg.FetchTimeout, "fetch timeout", func() {
		if n.IsVoter() {
			n.events(fmt.Sprintf("%s: nothing from leader %s for %v (controller.quorum.fetch.timeout.ms)", n.cfg.Node, n.cfg.VoterNode(n.leaderID), n.cfg.FetchTimeout))
			n.becomeProspective()
			return
		}
		// An observer keeps following, but asks any voter for the leader.
		n.fetching.lost = true
		n.armFetchTimeout()
	})
}

// startFetching is an unattached observer's search for the leader: it
// fetches from the voters in turn until one answers as the leader or
// names it (Kafka's observers fetch from a bootstrap voter).
func (n *Node) startFetching() {
	n.fetching = &fetchState{lastSuccess: n.sched.Clock.Elapsed(), bootstrap: n.rng.IntN(len(n.cfg.Voters))}
	n.sendFetch()
}

// sendFetch asks the leader (or, unattached, a voter) for what follows
// this node's log end.
func (n *Node) sendFetch() {
	f := n.fetching
	if f == nil || f.inFlight {
		return
	}
	if n.role == Follower && !f.lost {
		f.target = n.cfg.VoterNode(n.leaderID)
	} else {
		others := n.cfg.Voters
		if n.IsVoter() {
			others = n.otherVoters()
		}
		if len(others) == 0 {
			f.inFlight = false
			return // a quorum of one: nobody to ask
		}
		f.target = n.cfg.VoterNode(others[f.bootstrap%len(others)])
		f.bootstrap++
	}
	n.send(f.target, protocol.QuorumFetchRequest{ClusterID: n.cfg.ClusterID, ReplicaID: n.cfg.ID, CurrentLeaderEpoch: n.epoch,
		FetchOffset: n.log.EndOffset(), LastFetchedEpoch: n.log.LastEpoch(), MaxWaitMs: int32(n.fetchMaxWait().Milliseconds()), HighWatermark: n.hw})
	n.sent(f, "fetch")
}

// retryFetch sends the next fetch after controller.quorum.retry.backoff.ms.
// Difference from Kafka: while no leader is known, loglab asks the next
// voter only after FetchMaxWait (500 ms), where Kafka asks again after the
// retry backoff (20 ms); a cluster without a quorum for an hour of virtual
// time would otherwise spend its command's event budget on the asking.
func (n *Node) retryFetch() {
	f := n.fetching
	wait := n.cfg.RetryBackoff
	if n.role != Follower || f.lost {
		wait = n.cfg.FetchMaxWait
	}
	n.after(wait, "fetch retry", func() {
		if n.fetching == f {
			n.sendFetch()
		}
	})
}

// handleFetchResponse appends what the leader sent, truncates a diverging
// suffix, or goes for the snapshot (KafkaRaftClient.handleFetchResponse).
// An answer naming a later epoch, or a leader this node did not know,
// moves it there first (maybeHandleCommonResponse).
func (n *Node) handleFetchResponse(m protocol.QuorumFetchResponse) {
	f := n.fetching
	if f == nil || !f.inFlight {
		return
	}
	f.answered()
	newLeader := m.LeaderID >= 0 && !n.isSelf(m.LeaderID)
	switch {
	case m.LeaderEpoch > n.epoch:
		n.learnEpoch(m.LeaderEpoch, m.LeaderID)
		return
	case m.LeaderEpoch == n.epoch && newLeader && n.leaderID < 0 && n.role != Candidate:
		n.becomeFollower(m.LeaderEpoch, m.LeaderID)
		if m.Error != protocol.None {
			return
		}
		f = n.fetching
	}
	if m.Error != protocol.None || m.LeaderEpoch < n.epoch || n.role != Follower || m.LeaderID != n.leaderID {
		n.retryFetch()
		return
	}
	f.lastSuccess, f.fetchedFromLeader, f.lost = n.sched.Clock.Elapsed(), true, false
	n.armFetchTimeout()
	switch {
	case m.Diverging != nil:
		n.truncateDiverging(*m.Diverging)
	case m.Snapshot != nil:
		n.fetchSnapshot(*m.Snapshot)
		return
	default:
		if len(m.Entries) > 0 && m.Entries[0].Record.Offset == n.log.EndOffset() {
			if _, err := n.appendLocal(m.Entries); err != nil {
				return // the node halted
			}
		}
		if m.HighWatermark >= 0 {
			n.advanceHW(min(m.HighWatermark, n.log.EndOffset()))
		}
	}
	n.sendFetch()
}

// fetchSnapshot asks the leader for the snapshot it named.
func (n *Node) fetchSnapshot(id protocol.SnapshotID) {
	f := n.fetching
	n.send(f.target, protocol.FetchSnapshotRequest{ClusterID: n.cfg.ClusterID, ReplicaID: n.cfg.ID, CurrentLeaderEpoch: n.epoch, SnapshotID: id})
	n.sent(f, "fetch snapshot")
}

// truncateDiverging cuts the suffix the leader does not have: to where
// the diverging epoch ends on the leader, or on this node if sooner
// (KafkaRaftClient.handleFetchResponse with a DivergingEpoch). Committed
// entries never diverge, so the cut never reaches the high watermark.
func (n *Node) truncateDiverging(d protocol.SnapshotID) {
	epoch, mine := n.log.EndOffsetForEpoch(d.Epoch)
	to := max(mine, 0) // -1: no epoch that early here, nothing in common
	if epoch == d.Epoch || d.Epoch == 0 {
		to = min(mine, d.EndOffset)
	}
	if d.Epoch == 0 {
		to = min(d.EndOffset, n.log.EndOffset())
	}
	if to < n.hw {
		n.events(fmt.Sprintf("%s: INVARIANT: the leader's log diverges below this node's high watermark %d (at %d)", n.cfg.Node, n.hw, to))
		to = n.hw
	}
	if to < n.log.StartOffset() {
		to = n.log.StartOffset()
	}
	if to >= n.log.EndOffset() {
		return
	}
	cut := fmt.Sprintf("offsets %d-%d", to, n.log.EndOffset()-1)
	if to == n.log.EndOffset()-1 {
		cut = fmt.Sprintf("offset %d", to)
	}
	n.events(fmt.Sprintf("%s: its metadata log diverges from the leader's after epoch %d: truncating %s", n.cfg.Node, d.Epoch, cut))
	if err := n.log.TruncateTo(to); err != nil {
		n.halt(err)
		return
	}
	if err := n.store.TruncateTo(to); err != nil {
		n.halt(err)
	}
}

// handleFetchSnapshotResponse installs the leader's snapshot in place of
// the log this node lacks, then fetches what follows it.
func (n *Node) handleFetchSnapshotResponse(m protocol.FetchSnapshotResponse) {
	f := n.fetching
	if f == nil || !f.inFlight || n.role != Follower {
		return
	}
	f.answered()
	if m.Error != protocol.None || m.LeaderEpoch != n.epoch {
		n.retryFetch()
		return
	}
	f.lastSuccess = n.sched.Clock.Elapsed()
	n.armFetchTimeout()
	snap := Snapshot{ID: m.SnapshotID, Records: m.Records}
	if snap.ID.EndOffset <= n.hw {
		// It holds all of it already (the answer to a fetch slower than
		// the request timeout named it): loading it again would drop the
		// committed entries that follow it (Kafka's truncateToLatestSnapshot
		// truncates only to a snapshot past the log).
		n.sendFetch()
		return
	}
	if n.IsVoter() {
		n.events(fmt.Sprintf("%s: the metadata it lacks is only in a snapshot: loading the leader's snapshot at offset %d", n.cfg.Node, snap.ID.EndOffset))
	}
	keep := false
	if e, ok := n.log.Entry(snap.ID.EndOffset - 1); ok && e.Epoch == snap.ID.Epoch {
		keep = true
	}
	if !keep {
		if err := n.store.TruncateTo(n.log.StartOffset()); err != nil {
			n.halt(err)
			return
		}
	}
	if err := n.store.SaveSnapshot(snap); err != nil {
		n.halt(err)
		return
	}
	n.log.InstallSnapshot(snap)
	n.lastCommit = snap.ID.EndOffset
	n.hw = max(n.hw, snap.ID.EndOffset)
	n.handOver()
	n.sendFetch()
}

// peerDisconnected: the connection to a node closed (its process died).
// A fetch in flight to it is answered by nobody: ask again (the leader
// that died is found missing by the next fetch, or the fetch timeout).
func (n *Node) peerDisconnected(peer sim.NodeID) {
	if f := n.fetching; f != nil && f.inFlight && f.target == peer {
		f.answered()
		if n.role == Follower && !n.IsVoter() {
			f.lost = true // an observer asks the other voters for the leader
		}
		n.retryFetch()
	}
}

// fetchMaxWait is how long the leader may hold this node's fetch.
// Difference from Kafka: Kafka always asks for 500 ms; loglab asks for at
// most half the fetch timeout, so that a lab that shortens
// controller.quorum.fetch.timeout.ms below 500 ms does not have healthy
// followers time out while their fetch is held.
func (n *Node) fetchMaxWait() time.Duration {
	return min(n.cfg.FetchMaxWait, n.cfg.FetchTimeout/2)
}
