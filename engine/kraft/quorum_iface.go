package kraft

import (
	"time"

	"github.com/loglab/loglab/engine/protocol"
)

// Quorum is a controller quorum outside the simulation: controllers that
// are separate OS processes (engine/kraft/quorum, hashicorp/raft on real
// time). Every method blocks until the quorum has done what it says. The
// simulation's own quorum is KRaft in engine/kraft/raft, driven by
// messages and timers like everything else; a cluster uses this
// interface only when cluster.Config.OpenQuorum supplies one.
type Quorum interface {
	MetadataLog
	// ReadLog is Read that also says from which offset records are still
	// held: records below it were folded into a snapshot (err says so).
	ReadLog(from int64) ([]protocol.MetadataRecord, int64, error)

	// Controllers is how many controllers vote.
	Controllers() int
	// Leader is the active controller (the raft leader), 0 for none.
	Leader() int
	// ActiveImage is the active controller's image once it has applied
	// everything committed before its term, waiting for an election; nil
	// when no controller becomes active.
	ActiveImage() *Image

	// Crash stops controller id as a crash would; Restart starts it again
	// on its stores and waits until it has caught up with the active
	// controller (when there is one).
	Crash(id int) error
	Restart(id int) error
	// TransferLeadership makes controller id the leader again after raft
	// elected another on its own, waiting until it is active.
	TransferLeadership(id int) error
	// Partition sets which controllers reach each other (connected(a, b)
	// for controller ids; nil: all of them, a heal) and returns once the
	// quorum has settled into it: a leader cut off from its majority has
	// stepped down, and a connected majority, if any, has a new one.
	Partition(connected func(a, b int) bool) error
	// Settle waits until every live controller has applied all the active
	// controller committed, so that Status reads the same on every run.
	Settle()
	// Status describes every controller, in id order.
	Status() []ControllerStatus

	// Close stops the quorum; durable stores stay for the next open.
	Close() error
}

// ControllerStatus is one controller as `show quorum` and the UI show it.
// Indexes are raft indexes (they count raft's own entries too); offsets
// are metadata offsets.
type ControllerStatus struct {
	ID     int
	Role   string // leader, follower, candidate, or shutdown while down
	Leader int    // the leader this controller knows, 0 for none
	Term   uint64

	LastIndex     uint64 // last entry in its log
	CommitIndex   uint64
	AppliedIndex  uint64
	FirstIndex    uint64 // first entry still in its log: below, only snapshots
	SnapshotIndex uint64 // last entry its latest snapshot covers
	Voters        []int

	// MetadataStart and MetadataEnd are the metadata offsets it holds
	// records for, [start, end); below start they were folded into a
	// snapshot it restored.
	MetadataStart, MetadataEnd int64
	// Restores counts snapshots it restored since it started;
	// RestoredOffset is the next offset of the last one, -1 for none.
	Restores       int
	RestoredOffset int64

	// HeartbeatTimeout and ElectionTimeout are its current raft timeouts.
	HeartbeatTimeout, ElectionTimeout time.Duration
}
