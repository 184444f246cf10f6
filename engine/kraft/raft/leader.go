package raft

import (
	"fmt"
	"slices"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// checkQuorumFactor is LeaderState's CHECK_QUORUM_TIMEOUT_FACTOR: a leader
// that a majority of the voters has not fetched from within 1.5 fetch
// timeouts resigns (KIP-996's check-quorum).
const checkQuorumFactor = 1.5

// replicaState is what the leader knows of a voter or an observer
// (LeaderState.ReplicaState).
type replicaState struct {
	id           int32
	voter        bool
	endOffset    int64         // -1 until it fetched in this epoch
	lastFetch    time.Duration // -1: never
	lastCaughtUp time.Duration // -1: never
	begun        bool          // it acknowledged BeginQuorumEpoch or fetched
}

type parkedFetch struct {
	from sim.NodeID
	req  protocol.QuorumFetchRequest
	wait *sim.Event
}

// leaderState is the leader's epoch: where it began, the replicas' fetch
// positions, and the voters that fetched since check-quorum last passed.
type leaderState struct {
	epochStart int64
	replicas   []*replicaState // voters, then observers, each ascending
	fetched    map[int32]bool
	parked     []*parkedFetch
}

// becomeLeader starts the epoch this node won (transitionToLeader): a
// LeaderChange record marks its start, and the high watermark moves only
// once that record is committed, so nothing of an earlier epoch is counted
// committed on this leader's word alone.
func (n *Node) becomeLeader() {
	votes := n.election.granted
	n.transition(Leader)
	n.leaderID = n.cfg.ID
	if !n.saveState() {
		return
	}
	ls := &leaderState{epochStart: n.log.EndOffset(), fetched: map[int32]bool{n.cfg.ID: true}}
	for _, v := range n.cfg.Voters {
		r := &replicaState{id: v, voter: true, endOffset: -1, lastFetch: -1, lastCaughtUp: -1}
		if v == n.cfg.ID {
			r.begun = true
		}
		ls.replicas = append(ls.replicas, r)
	}
	n.leader = ls
	var voted []int32
	for _, v := range n.cfg.Voters {
		if votes[v] {
			voted = append(voted, v)
		}
	}
	n.events(fmt.Sprintf("%s: leader in epoch %d (votes from %s); its epoch starts at offset %d", n.cfg.Node, n.epoch, protocol.JoinIDs(voted), ls.epochStart))
	change := protocol.MetadataRecord{Type: "LeaderChange", BrokerID: n.cfg.ID, Replicas: slices.Clone(n.cfg.Voters)}
	if _, err := n.appendLocal([]protocol.MetadataEntry{{Epoch: n.epoch, Record: change}}); err != nil {
		return // the node halted
	}
	n.sendBeginQuorumEpoch()
	n.scheduleCheckQuorum()
	n.maybeUpdateHW()
}

// sendBeginQuorumEpoch announces the epoch to every other voter, and
// again every half fetch timeout for as long as it leads
// (maybeSendBeginQuorumEpochRequests): a voter that missed the election
// learns of it without an election of its own.
func (n *Node) sendBeginQuorumEpoch() {
	for _, v := range n.otherVoters() {
		n.send(n.cfg.VoterNode(v), protocol.BeginQuorumEpochRequest{ClusterID: n.cfg.ClusterID, LeaderID: n.cfg.ID, LeaderEpoch: n.epoch, VoterID: v})
	}
	if len(n.cfg.Voters) > 1 {
		n.after(n.cfg.FetchTimeout/2, "BeginQuorumEpoch", n.sendBeginQuorumEpoch)
	}
}

func (n *Node) handleBeginQuorumEpochResponse(from sim.NodeID, m protocol.BeginQuorumEpochResponse) {
	if m.LeaderEpoch > n.epoch {
		n.learnEpoch(m.LeaderEpoch, m.LeaderID)
		return
	}
	if n.role == Leader && m.Error == protocol.None && m.LeaderEpoch == n.epoch {
		if id := n.voterOf(from); id >= 0 {
			n.replica(id, true).begun = true
		}
	}
}

// scheduleCheckQuorum arms check-quorum (LeaderState.timeUntilCheckQuorumExpires).
func (n *Node) scheduleCheckQuorum() {
	if len(n.cfg.Voters) == 1 {
		return // a quorum of one always has its majority
	}
	d := time.Duration(float64(n.cfg.FetchTimeout) * checkQuorumFactor)
	n.setTimer(d, "check-quorum", func() {
		n.events(fmt.Sprintf("%s: no majority of the voters fetched within %v (check-quorum): resigning epoch %d", n.cfg.Node, d, n.epoch))
		n.becomeResigned(n.preferredSuccessors())
	})
}

// noteVoterFetch counts a voter's fetch for check-quorum: once a majority
// fetched, the timer starts again.
func (n *Node) noteVoterFetch(id int32) {
	ls := n.leader
	ls.fetched[id] = true
	if len(ls.fetched) >= n.cfg.majority() {
		ls.fetched = map[int32]bool{n.cfg.ID: true}
		n.scheduleCheckQuorum()
	}
}

// preferredSuccessors are the other voters, the most caught up first
// (LeaderState.nonLeaderVotersByDescendingFetchOffset).
func (n *Node) preferredSuccessors() []int32 {
	if n.leader == nil {
		return nil
	}
	var rs []*replicaState
	for _, r := range n.leader.replicas {
		if r.voter && r.id != n.cfg.ID {
			rs = append(rs, r)
		}
	}
	slices.SortStableFunc(rs, func(a, b *replicaState) int {
		switch {
		case a.endOffset > b.endOffset:
			return -1
		case a.endOffset < b.endOffset:
			return 1
		}
		return 0
	})
	out := make([]int32, len(rs))
	for i, r := range rs {
		out[i] = r.id
	}
	return out
}

// becomeResigned gives up the epoch (transitionToResigned): the voters are
// told with EndQuorumEpoch, the preferred successors stand first, and
// after an election timeout this node is unattached in the next epoch.
func (n *Node) becomeResigned(successors []int32) {
	n.transition(Resigned)
	n.leaderID = n.cfg.ID
	n.announce(-1)
	for _, v := range n.otherVoters() {
		n.send(n.cfg.VoterNode(v), protocol.EndQuorumEpochRequest{ClusterID: n.cfg.ClusterID, LeaderID: n.cfg.ID, LeaderEpoch: n.epoch, PreferredSuccessors: successors})
	}
	n.setTimer(n.randomElectionTimeout(), "election timeout", func() { n.becomeUnattached(n.epoch+1, -1) })
}

// replica returns the leader's record of voter or observer id, adding an
// observer it has not seen. Difference from Kafka: loglab numbers
// controllers and brokers apart (controller 1 and broker 1 are two
// nodes), where Kafka requires node ids unique across the cluster; so a
// replica is known by its id and whether it votes.
func (n *Node) replica(id int32, voter bool) *replicaState {
	for _, r := range n.leader.replicas {
		if r.id == id && r.voter == voter {
			return r
		}
	}
	r := &replicaState{id: id, endOffset: -1, lastFetch: -1, lastCaughtUp: -1}
	n.leader.replicas = append(n.leader.replicas, r)
	slices.SortStableFunc(n.leader.replicas, func(a, b *replicaState) int {
		if a.voter != b.voter {
			if a.voter {
				return -1
			}
			return 1
		}
		return int(a.id - b.id)
	})
	return r
}

// handleFetch answers a follower's or an observer's Fetch
// (KafkaRaftClient.handleFetchRequest).
func (n *Node) handleFetch(from sim.NodeID, m protocol.QuorumFetchRequest) {
	reply := protocol.QuorumFetchResponse{LeaderID: n.leaderID, LeaderEpoch: n.epoch, HighWatermark: n.hw, LogStart: n.log.StartOffset()}
	switch {
	case m.ClusterID != n.cfg.ClusterID:
		reply.Error = protocol.InconsistentClusterID
	case n.role != Leader:
		reply.Error = protocol.NotLeaderOrFollower
	case m.CurrentLeaderEpoch > n.epoch:
		reply.Error = protocol.UnknownLeaderEpoch
	case m.CurrentLeaderEpoch < n.epoch:
		reply.Error = protocol.FencedLeaderEpoch
	}
	if reply.Error != protocol.None {
		n.send(from, reply)
		return
	}
	if snap := n.log.LatestSnapshot(); snap != nil && (m.FetchOffset < n.log.StartOffset() || m.FetchOffset == 0 ||
		(m.FetchOffset == n.log.StartOffset() && m.LastFetchedEpoch != snap.ID.Epoch)) {
		reply.Snapshot = &snap.ID
		n.send(from, reply)
		return
	}
	if m.FetchOffset > 0 {
		epoch, end := n.log.EndOffsetForEpoch(m.LastFetchedEpoch)
		if epoch != m.LastFetchedEpoch || m.FetchOffset > end {
			if snap := n.log.LatestSnapshot(); snap != nil && end < n.log.StartOffset() {
				reply.Snapshot = &snap.ID
			} else {
				// No epoch in common: epoch 0 at offset 0, as Kafka's
				// endOffsetForEpoch answers, which the follower truncates
				// to (truncateDiverging's epoch 0).
				reply.Diverging = &protocol.SnapshotID{Epoch: max(epoch, 0), EndOffset: max(end, 0)}
			}
			n.send(from, reply)
			return
		}
	}
	// A valid fetch: it tells where the replica is, and counts for
	// check-quorum.
	r := n.replica(m.ReplicaID, n.voterOf(from) == m.ReplicaID)
	now := n.sched.Clock.Elapsed()
	r.lastFetch, r.begun = now, true
	if m.FetchOffset >= n.log.EndOffset() {
		r.lastCaughtUp = now
	}
	r.endOffset = m.FetchOffset
	if r.voter {
		n.noteVoterFetch(r.id)
		n.maybeUpdateHW()
	}
	if n.role != Leader {
		return // the fetch made it resign (it cannot, but be safe)
	}
	reply.HighWatermark = n.hw
	reply.Entries = n.log.Entries(m.FetchOffset, n.cfg.MaxFetchEntries)
	if len(reply.Entries) > 0 || n.hw > m.HighWatermark || m.MaxWaitMs <= 0 {
		n.send(from, reply)
		return
	}
	// Nothing new: hold the fetch until there is, or its wait is up.
	p := &parkedFetch{from: from, req: m}
	p.wait = n.after(time.Duration(m.MaxWaitMs)*time.Millisecond, "fetch wait "+string(from), func() { n.completeParked(p) })
	n.leader.parked = append(n.leader.parked, p)
}

// completeParked answers a held fetch with whatever there is now.
func (n *Node) completeParked(p *parkedFetch) {
	ls := n.leader
	i := slices.Index(ls.parked, p)
	if i < 0 {
		return
	}
	ls.parked = slices.Delete(ls.parked, i, i+1)
	p.wait.Cancelled = true
	n.send(p.from, protocol.QuorumFetchResponse{LeaderID: n.cfg.ID, LeaderEpoch: n.epoch, HighWatermark: n.hw,
		LogStart: n.log.StartOffset(), Entries: n.log.Entries(p.req.FetchOffset, n.cfg.MaxFetchEntries)})
}

// wakeParked answers every held fetch: there are new entries or a new
// high watermark to tell.
func (n *Node) wakeParked() {
	for len(n.leader.parked) > 0 {
		n.completeParked(n.leader.parked[0])
	}
}

// leaderAppended is called after the leader wrote entries.
func (n *Node) leaderAppended() {
	n.maybeUpdateHW() // a quorum of one commits at once
	if n.leader != nil {
		n.wakeParked()
	}
}

// maybeUpdateHW is LeaderState.maybeUpdateHighWatermark: the largest
// offset a majority of the voters has reached, once it passed the epoch's
// start (the LeaderChange record), never backwards. It reports whether
// the high watermark moved.
func (n *Node) maybeUpdateHW() bool {
	ls := n.leader
	if ls == nil {
		return false
	}
	var ends []int64
	for _, r := range ls.replicas {
		switch {
		case !r.voter:
		case r.id == n.cfg.ID:
			ends = append(ends, n.log.EndOffset())
		default:
			ends = append(ends, r.endOffset)
		}
	}
	slices.Sort(ends)
	slices.Reverse(ends)
	candidate := ends[n.cfg.majority()-1]
	if candidate <= ls.epochStart || candidate <= n.hw {
		return false
	}
	n.advanceHW(candidate)
	if n.role == Leader && n.leader != nil {
		n.wakeParked()
	}
	return true
}

// handleFetchSnapshot sends the leader's latest snapshot.
func (n *Node) handleFetchSnapshot(from sim.NodeID, m protocol.FetchSnapshotRequest) {
	reply := protocol.FetchSnapshotResponse{LeaderID: n.leaderID, LeaderEpoch: n.epoch, SnapshotID: m.SnapshotID}
	snap := n.log.LatestSnapshot()
	switch {
	case n.role != Leader:
		reply.Error = protocol.NotLeaderOrFollower
	case m.CurrentLeaderEpoch != n.epoch:
		reply.Error = protocol.FencedLeaderEpoch
	case snap == nil || snap.ID != m.SnapshotID:
		reply.Error = protocol.PositionOutOfRange // Kafka's SNAPSHOT_NOT_FOUND: fetch again
	default:
		r := n.replica(m.ReplicaID, n.voterOf(from) == m.ReplicaID)
		r.lastFetch, r.begun = n.sched.Clock.Elapsed(), true
		if r.voter {
			n.noteVoterFetch(r.id)
		}
		reply.Records = slices.Clone(snap.Records)
	}
	n.send(from, reply)
}
