package raft

import (
	"time"
)

// Status is one node as `show quorum` and the quorum panel describe it.
type Status struct {
	ID            int32
	Up            bool
	Voter         bool
	Role          Role
	Epoch         int32
	LeaderID      int32 // -1: none known
	VotedID       int32 // -1: none
	LogStart      int64
	LogEnd        int64
	LastEpoch     int32
	HighWatermark int64
	// Snapshot is the latest snapshot's end offset and epoch (-1: none).
	SnapshotEnd   int64
	SnapshotEpoch int32
	// Replicas is what a leader knows of every voter and observer that
	// fetched from it (DescribeQuorum), voters first.
	Replicas []ReplicaStatus
	// Error is the last storage failure, if any.
	Error string
}

// ReplicaStatus is one replica as the leader sees it: its log end offset
// from its last fetch, and when it last fetched and was last caught up
// (virtual time; -1: never).
type ReplicaStatus struct {
	ID           int32
	Voter        bool
	LogEndOffset int64
	LastFetch    time.Duration
	LastCaughtUp time.Duration
}

// Status describes the node now.
func (n *Node) Status() Status {
	s := Status{ID: n.cfg.ID, Up: n.up, Voter: n.IsVoter(), Role: n.role, Epoch: n.epoch, LeaderID: n.leaderID, VotedID: n.votedID,
		LogStart: n.log.StartOffset(), LogEnd: n.log.EndOffset(), LastEpoch: n.log.LastEpoch(), HighWatermark: n.hw,
		SnapshotEnd: -1, SnapshotEpoch: -1, Error: n.errorText}
	if snap := n.log.LatestSnapshot(); snap != nil {
		s.SnapshotEnd, s.SnapshotEpoch = snap.ID.EndOffset, snap.ID.Epoch
	}
	if n.up && n.role == Leader && n.leader != nil {
		now := n.sched.Clock.Elapsed()
		// n.leader.replicas is kept voters first, each by id.
		for _, r := range n.leader.replicas {
			rs := ReplicaStatus{ID: r.id, Voter: r.voter, LogEndOffset: r.endOffset, LastFetch: r.lastFetch, LastCaughtUp: r.lastCaughtUp}
			if r.voter && r.id == n.cfg.ID {
				// The leader's own row (not an observer sharing its id):
				// its log end, as of now.
				rs.LogEndOffset, rs.LastFetch, rs.LastCaughtUp = n.log.EndOffset(), now, now
			}
			s.Replicas = append(s.Replicas, rs)
		}
	}
	return s
}
