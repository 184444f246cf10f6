package raft

// Role is a node's state in QuorumState (Kafka's EpochState classes).
type Role int

const (
	// Unattached knows no leader in its epoch (it may have voted).
	Unattached Role = iota
	// Prospective asks for pre-votes (KIP-996) before standing: it changes
	// no epoch, so a node cut off from the quorum cannot force elections on
	// it when it comes back.
	Prospective
	// Candidate bumped the epoch, voted for itself and asks for votes.
	Candidate
	// Leader won its epoch's election.
	Leader
	// Follower knows its epoch's leader and fetches from it.
	Follower
	// Resigned is a leader that gave up its epoch and waits for the next.
	Resigned
)

func (r Role) String() string {
	return [...]string{"Unattached", "Prospective", "Candidate", "Leader", "Follower", "Resigned"}[r]
}
