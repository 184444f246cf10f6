package raft

import (
	"fmt"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// electionState is a prospective's or a candidate's tally.
type electionState struct {
	granted, rejected map[int32]bool
}

// becomeUnattached enters epoch knowing no leader (transitionToUnattached).
// A voter stands after a random election timeout; meanwhile it, like an
// observer, asks the voters for the leader by fetching from them.
func (n *Node) becomeUnattached(epoch, voted int32) {
	n.transition(Unattached)
	n.epoch, n.leaderID, n.votedID = epoch, -1, voted
	if !n.saveState() {
		return
	}
	n.announce(-1)
	if n.IsVoter() {
		n.setTimer(n.randomElectionTimeout(), "election timeout", n.becomeProspective)
	}
	n.startFetching()
}

// becomeProspective asks every voter whether it would vote for this node
// (KIP-996) without changing the epoch or anything durable
// (transitionToProspective): a node cut off from a healthy quorum cannot
// disturb it when it comes back.
func (n *Node) becomeProspective() {
	leader := n.leaderID
	n.transition(Prospective)
	n.leaderID = leader
	n.election = &electionState{granted: map[int32]bool{n.cfg.ID: true}, rejected: map[int32]bool{}}
	n.events(fmt.Sprintf("%s: prospective in epoch %d: asking the voters for pre-votes", n.cfg.Node, n.epoch))
	n.setTimer(n.randomElectionTimeout(), "election timeout", n.prospectiveLost)
	n.requestVotes(true)
	n.maybeWinElection()
}

// prospectiveLost is a pre-vote a majority refused, or that timed out
// (prospectiveTransitionAfterElectionLoss): back to the leader it knew, or
// unattached in the same epoch, to stand again after an election timeout.
func (n *Node) prospectiveLost() {
	if n.leaderID >= 0 && !n.isSelf(n.leaderID) {
		n.becomeFollower(n.epoch, n.leaderID)
		return
	}
	n.becomeUnattached(n.epoch, n.votedID)
}

// becomeCandidate bumps the epoch, votes for itself and asks for votes
// (transitionToCandidate). Since Kafka 4.1 (KAFKA-18345) a candidate that
// cannot win waits out its whole election timeout, then asks for
// pre-votes again: there is no separate backoff.
func (n *Node) becomeCandidate() {
	n.transition(Candidate)
	n.epoch, n.leaderID, n.votedID = n.epoch+1, -1, n.cfg.ID
	if !n.saveState() {
		return
	}
	n.announce(-1)
	n.election = &electionState{granted: map[int32]bool{n.cfg.ID: true}, rejected: map[int32]bool{}}
	n.events(fmt.Sprintf("%s: candidate in epoch %d: votes for itself and asks the voters", n.cfg.Node, n.epoch))
	n.setTimer(n.randomElectionTimeout(), "election timeout", n.becomeProspective)
	n.requestVotes(false)
	n.maybeWinElection()
}

// requestVotes asks every other voter; a pre-vote carries the current
// epoch, a vote the candidate's new one.
func (n *Node) requestVotes(preVote bool) {
	for _, v := range n.otherVoters() {
		n.send(n.cfg.VoterNode(v), protocol.VoteRequest{ClusterID: n.cfg.ClusterID, ReplicaEpoch: n.epoch, CandidateID: n.cfg.ID,
			VoterID: v, LastOffsetEpoch: n.log.LastEpoch(), LastOffset: n.log.EndOffset(), PreVote: preVote})
	}
}

// maybeWinElection moves on once a majority granted: a prospective
// becomes a candidate, a candidate the leader.
func (n *Node) maybeWinElection() {
	if n.election == nil || len(n.election.granted) < n.cfg.majority() {
		return
	}
	if n.role == Prospective {
		n.becomeCandidate()
	} else if n.role == Candidate {
		n.becomeLeader()
	}
}

// logUpToDate is the vote's safety rule: the candidate's last entry must
// be at least the voter's, by epoch and then offset, so that whoever wins
// holds every committed entry (OffsetAndEpoch.compareTo).
func (n *Node) logUpToDate(lastEpoch int32, endOffset int64) bool {
	mine := n.log.LastEpoch()
	return lastEpoch > mine || (lastEpoch == mine && endOffset >= n.log.EndOffset())
}

// handleVote answers a Vote or a pre-vote (KafkaRaftClient.handleVoteRequest,
// QuorumState.canGrantVote).
func (n *Node) handleVote(from sim.NodeID, m protocol.VoteRequest) {
	refuse := func(code protocol.ErrorCode) {
		n.send(from, protocol.VoteResponse{Error: code, LeaderID: n.leaderID, LeaderEpoch: n.epoch, PreVote: m.PreVote})
	}
	invalid := m.LastOffset < 0 || m.LastOffsetEpoch < 0 || m.LastOffsetEpoch > m.ReplicaEpoch ||
		(!m.PreVote && m.LastOffsetEpoch >= m.ReplicaEpoch)
	switch {
	case m.ClusterID != n.cfg.ClusterID:
		refuse(protocol.InconsistentClusterID)
		return
	case invalid:
		refuse(protocol.InvalidRequest)
		return
	case m.ReplicaEpoch < n.epoch:
		refuse(protocol.FencedLeaderEpoch)
		return
	case m.ReplicaEpoch > n.epoch:
		// A later epoch, even in a pre-vote: whatever this node was, it is
		// unattached there.
		n.becomeUnattached(m.ReplicaEpoch, -1)
		if !n.up {
			return // it could not write the new epoch: halted
		}
	}
	if m.VoterID != n.cfg.ID {
		refuse(protocol.InconsistentVoterSet)
		return
	}
	upToDate := n.logUpToDate(m.LastOffsetEpoch, m.LastOffset)
	var granted bool
	switch n.role {
	case Unattached, Prospective:
		switch {
		case m.PreVote:
			granted = upToDate
		case n.votedID >= 0:
			granted = n.votedID == m.CandidateID
		default:
			granted = n.leaderID < 0 && upToDate
		}
	case Follower:
		// A follower that has fetched from its leader in this epoch
		// refuses pre-votes: as far as it knows, the leader is alive.
		granted = m.PreVote && upToDate && !n.fetching.fetchedFromLeader
	case Candidate, Resigned:
		granted = m.PreVote && upToDate
	}
	if granted && !m.PreVote && n.votedID < 0 {
		n.votedID = m.CandidateID
		if !n.saveState() {
			return // the vote is not on disk: it is never sent
		}
		n.events(fmt.Sprintf("%s: votes for %s in epoch %d", n.cfg.Node, n.cfg.VoterNode(m.CandidateID), n.epoch))
		n.setTimer(n.randomElectionTimeout(), "election timeout", n.becomeProspective)
	}
	n.send(from, protocol.VoteResponse{LeaderID: n.leaderID, LeaderEpoch: n.epoch, VoteGranted: granted, PreVote: m.PreVote})
}

// handleVoteResponse counts a vote (or a pre-vote) for the election under way.
func (n *Node) handleVoteResponse(from sim.NodeID, m protocol.VoteResponse) {
	if m.LeaderEpoch > n.epoch {
		n.learnEpoch(m.LeaderEpoch, m.LeaderID)
		return
	}
	if n.election == nil || m.Error != protocol.None || m.LeaderEpoch != n.epoch {
		return
	}
	if (n.role == Prospective) != m.PreVote {
		return // an answer to an election this node no longer holds
	}
	id := n.voterOf(from)
	if id < 0 {
		return
	}
	if m.VoteGranted {
		n.election.granted[id] = true
		n.maybeWinElection()
		return
	}
	n.election.rejected[id] = true
	if n.role != Prospective {
		return // a candidate waits out its election timeout
	}
	if m.LeaderID >= 0 && !n.isSelf(m.LeaderID) && n.leaderID < 0 {
		n.becomeFollower(n.epoch, m.LeaderID) // a voter knows this epoch's leader
		return
	}
	if len(n.election.rejected) > len(n.cfg.Voters)-n.cfg.majority() {
		n.prospectiveLost()
	}
}

// learnEpoch moves to a later epoch a message revealed (maybeTransition):
// following its leader when it names one, unattached otherwise.
func (n *Node) learnEpoch(epoch, leader int32) {
	if leader >= 0 && !n.isSelf(leader) {
		n.becomeFollower(epoch, leader)
		return
	}
	n.becomeUnattached(epoch, -1)
}

// voterOf is the voter at addr, -1 for none.
func (n *Node) voterOf(addr sim.NodeID) int32 {
	for _, v := range n.cfg.Voters {
		if n.cfg.VoterNode(v) == addr {
			return v
		}
	}
	return -1
}

// handleBeginQuorumEpoch follows the leader that announced itself.
func (n *Node) handleBeginQuorumEpoch(from sim.NodeID, m protocol.BeginQuorumEpochRequest) {
	if m.LeaderEpoch < n.epoch || m.ClusterID != n.cfg.ClusterID {
		n.send(from, protocol.BeginQuorumEpochResponse{Error: protocol.FencedLeaderEpoch, LeaderID: n.leaderID, LeaderEpoch: n.epoch})
		return
	}
	if m.LeaderEpoch > n.epoch || n.leaderID < 0 {
		n.becomeFollower(m.LeaderEpoch, m.LeaderID)
	}
	n.send(from, protocol.BeginQuorumEpochResponse{LeaderID: n.leaderID, LeaderEpoch: n.epoch})
}

// handleEndQuorumEpoch: the leader resigned its epoch. A follower of it
// stands sooner the earlier it comes in the leader's preferred successors
// (KafkaRaftClient.endEpochElectionBackoff).
func (n *Node) handleEndQuorumEpoch(from sim.NodeID, m protocol.EndQuorumEpochRequest) {
	if m.LeaderEpoch < n.epoch || m.ClusterID != n.cfg.ClusterID {
		n.send(from, protocol.EndQuorumEpochResponse{Error: protocol.FencedLeaderEpoch, LeaderID: n.leaderID, LeaderEpoch: n.epoch})
		return
	}
	if m.LeaderEpoch > n.epoch || n.leaderID < 0 {
		n.learnEpoch(m.LeaderEpoch, m.LeaderID)
	}
	n.send(from, protocol.EndQuorumEpochResponse{LeaderID: n.leaderID, LeaderEpoch: n.epoch})
	if n.role != Follower || n.leaderID != m.LeaderID || !n.IsVoter() {
		return
	}
	n.setTimer(endEpochBackoff(m.PreferredSuccessors, n.cfg.ID, n.cfg.ElectionBackoffMax), "fetch timeout (EndQuorumEpoch)", n.becomeProspective)
}

// endEpochBackoff is strictExponentialElectionBackoffMs: the first
// preferred successor stands at once, the others after exponentially
// longer waits, a node not in the list after the maximum.
func endEpochBackoff(successors []int32, id int32, maxBackoff time.Duration) time.Duration {
	pos, total := len(successors), len(successors)
	for i, s := range successors {
		if s == id {
			pos = i
		}
	}
	switch {
	case pos == 0:
		return 0
	case pos >= total:
		return maxBackoff
	}
	return min(maxBackoff, (maxBackoff>>(total-1))<<(pos-1))
}
