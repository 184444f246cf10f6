package raft

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// Listener is what a node tells its owner (Kafka's RaftClient.Listener):
// the controller's state machine, or a broker's metadata image.
type Listener interface {
	// Commit hands over entries the high watermark passed, in offset order,
	// each exactly once per run of the node.
	Commit(entries []protocol.MetadataEntry)
	// LoadSnapshot replaces the state with a snapshot's, before the
	// commits that follow it.
	LoadSnapshot(snap Snapshot)
	// LeaderChange says who leads which epoch (-1: nobody known). The
	// leader hears of its own leadership only once every entry from earlier
	// epochs is committed and handed over (Kafka fires handleLeaderChange
	// for the leader when its listener reached the epoch's start): from
	// then on it may Append.
	LeaderChange(leader, epoch int32)
	// SnapshotRecords is the state through the last committed entry, as
	// records, for a snapshot.
	SnapshotRecords() []protocol.MetadataRecord
}

// Node is one replica of the metadata log: a voter (a controller) or an
// observer (a broker).
type Node struct {
	cfg      Config
	net      *sim.Network
	sched    *sim.Scheduler
	rng      *rand.Rand
	store    Store
	listener Listener
	events   func(string)

	up  bool
	gen uint64 // bumped by every transition and crash: stale timers and answers do nothing

	// Durable (QuorumState and the log).
	epoch    int32
	leaderID int32 // -1: none known in this epoch
	votedID  int32 // -1: no vote in this epoch
	log      Log

	// Volatile.
	role       Role
	hw         int64 // high watermark: offsets below it are committed
	applied    int64 // next offset the listener is handed
	timer      *sim.Event
	lastCommit int64 // HW when the last snapshot was taken
	// announced is the leader the listener last heard of, and epoch.
	announced      int32
	announcedEpoch int32

	leader    *leaderState
	election  *electionState
	fetching  *fetchState
	errorText string // the last storage failure, for Status
	// halted is the store failure that stopped the node (halt.go); onHalt
	// tells the owner.
	halted error
	onHalt func(err error)
}

// NewNode makes a node; Start boots it.
func NewNode(cfg Config, net *sim.Network, sched *sim.Scheduler, rng *rand.Rand, store Store, l Listener, events func(string)) *Node {
	if events == nil {
		events = func(string) {}
	}
	return &Node{cfg: cfg, net: net, sched: sched, rng: rng, store: store, listener: l, events: events, leaderID: -1, votedID: -1}
}

// IsVoter says whether the node votes (a controller) rather than observes.
func (n *Node) IsVoter() bool {
	return slices.Contains(n.cfg.Voters, n.cfg.ID) && n.cfg.VoterNode(n.cfg.ID) == n.cfg.Node
}

// Up says whether the node runs.
func (n *Node) Up() bool { return n.up }

// Start boots the node from its store, as QuorumState.initialize does: a
// node that led its epoch resigns it (it cannot know what it lost), one
// that knew a leader follows it, any other is unattached.
func (n *Node) Start() error {
	st, snap, entries, err := n.store.Load()
	if err != nil {
		return err
	}
	n.log = Log{}
	if snap != nil {
		n.log.InstallSnapshot(*snap)
	}
	if len(entries) > 0 {
		n.log.start = entries[0].Record.Offset
		if snap != nil && n.log.start != snap.ID.EndOffset {
			return fmt.Errorf("metadata log starts at %d, its snapshot ends at %d", n.log.start, snap.ID.EndOffset)
		}
		n.log.entries = entries
	}
	n.epoch, n.leaderID, n.votedID = st.LeaderEpoch, st.LeaderID, st.VotedID
	n.up, n.gen, n.halted = true, n.gen+1, nil
	n.hw, n.applied, n.announced, n.announcedEpoch = 0, 0, -2, -1
	n.leader, n.election, n.fetching = nil, nil, nil
	// The listener starts from the snapshot: what follows it is handed
	// over as the high watermark (learned from the leader) passes it.
	if snap != nil {
		n.listener.LoadSnapshot(*snap)
		n.applied, n.hw, n.lastCommit = snap.ID.EndOffset, snap.ID.EndOffset, snap.ID.EndOffset
	}
	switch {
	case n.epoch < n.log.LastEpoch():
		n.becomeUnattached(n.log.LastEpoch(), -1)
	case n.isSelf(n.leaderID):
		n.becomeResigned(nil)
	case n.votedID == n.cfg.ID && n.IsVoter():
		// It stood as a candidate in this epoch: it stands again, having
		// voted for itself already, knowing no leader (Kafka's
		// CandidateState), so the leader's BeginQuorumEpoch is followed.
		n.transition(Candidate)
		n.leaderID = -1
		n.election = &electionState{granted: map[int32]bool{n.cfg.ID: true}, rejected: map[int32]bool{}}
		n.setTimer(n.randomElectionTimeout(), "election timeout", n.becomeProspective)
		n.requestVotes(false)
		n.maybeWinElection()
	case n.leaderID >= 0:
		n.becomeFollower(n.epoch, n.leaderID)
	default:
		n.becomeUnattached(n.epoch, n.votedID)
		if n.IsVoter() && len(n.cfg.Voters) == 1 {
			n.becomeProspective() // a quorum of one elects itself at once
		}
	}
	return nil
}

// Crash stops the node as a crash would: the volatile state is gone; the
// store keeps the rest for the next Start.
func (n *Node) Crash() {
	n.up = false
	n.gen++
	n.cancelTimer()
	n.leader, n.election, n.fetching = nil, nil, nil
}

// Close releases the store.
func (n *Node) Close() error { return n.store.Close() }

// Epoch is the node's current epoch.
func (n *Node) Epoch() int32 { return n.epoch }

// LeaderID is the leader the node knows in its epoch, -1 for none.
func (n *Node) LeaderID() int32 { return n.leaderID }

// Role is the node's state.
func (n *Node) Role() Role { return n.role }

// HighWatermark is the node's high watermark (offsets below are committed).
func (n *Node) HighWatermark() int64 { return n.hw }

// Log is the node's log (read only).
func (n *Node) Log() *Log { return &n.log }

// Ready says whether this node leads and may Append: every entry of
// earlier epochs is committed and handed to the listener.
func (n *Node) Ready() bool {
	return n.up && n.role == Leader && n.leader != nil && n.applied > n.leader.epochStart
}

// ErrNotLeader is an Append on a node that is not the ready leader.
var ErrNotLeader = fmt.Errorf("NOT_CONTROLLER")

// Append writes records at the end of the leader's log in its epoch and
// returns them with their offsets. They are committed once a majority of
// the voters has them (Listener.Commit says when).
func (n *Node) Append(records []protocol.MetadataRecord) ([]protocol.MetadataRecord, error) {
	if !n.Ready() {
		return nil, ErrNotLeader
	}
	entries := make([]protocol.MetadataEntry, len(records))
	for i, r := range records {
		entries[i] = protocol.MetadataEntry{Epoch: n.epoch, Record: r}
	}
	out, err := n.appendLocal(entries)
	if err != nil {
		return nil, err
	}
	recs := make([]protocol.MetadataRecord, len(out))
	for i, e := range out {
		recs[i] = e.Record
	}
	n.leaderAppended()
	return recs, nil
}

// appendLocal writes entries to the log and the store.
func (n *Node) appendLocal(entries []protocol.MetadataEntry) ([]protocol.MetadataEntry, error) {
	out := n.log.Append(entries)
	if err := n.store.Append(out); err != nil {
		// Back to where the append began, which is at or past the start.
		_ = n.log.TruncateTo(out[0].Record.Offset)
		n.halt(err)
		return nil, err // the store's error says "metadata log: ..."
	}
	return out, nil
}

// Handle takes a message addressed to this node and reports whether it
// was one of KRaft's.
func (n *Node) Handle(env *sim.Envelope) bool {
	if d, ok := env.Msg.(sim.Disconnected); ok {
		// Not only KRaft's: the owner hears of it too.
		if n.up {
			n.peerDisconnected(d.Peer)
		}
		return false
	}
	switch env.Msg.(type) {
	case protocol.VoteRequest, protocol.VoteResponse, protocol.BeginQuorumEpochRequest, protocol.BeginQuorumEpochResponse,
		protocol.EndQuorumEpochRequest, protocol.EndQuorumEpochResponse, protocol.QuorumFetchRequest,
		protocol.QuorumFetchResponse, protocol.FetchSnapshotRequest, protocol.FetchSnapshotResponse:
	default:
		return false
	}
	if !n.up {
		return true
	}
	switch m := env.Msg.(type) {
	case protocol.VoteRequest:
		n.handleVote(env.From, m)
	case protocol.VoteResponse:
		n.handleVoteResponse(env.From, m)
	case protocol.BeginQuorumEpochRequest:
		n.handleBeginQuorumEpoch(env.From, m)
	case protocol.BeginQuorumEpochResponse:
		n.handleBeginQuorumEpochResponse(env.From, m)
	case protocol.EndQuorumEpochRequest:
		n.handleEndQuorumEpoch(env.From, m)
	case protocol.EndQuorumEpochResponse:
		// Nothing to do: the resigned leader waits for the next epoch.
	case protocol.QuorumFetchRequest:
		n.handleFetch(env.From, m)
	case protocol.QuorumFetchResponse:
		n.handleFetchResponse(m)
	case protocol.FetchSnapshotRequest:
		n.handleFetchSnapshot(env.From, m)
	case protocol.FetchSnapshotResponse:
		n.handleFetchSnapshotResponse(m)
	}
	return true
}

// transition leaves the current role: its timers and requests are void.
func (n *Node) transition(role Role) {
	n.gen++
	n.cancelTimer()
	n.role = role
	n.leader, n.election, n.fetching = nil, nil, nil
}

// saveState makes the quorum state durable, and says whether it did: if
// not, the node has halted and the caller must stop where it is (a vote
// not on disk must not be sent).
func (n *Node) saveState() bool {
	if err := n.store.SaveState(QuorumState{LeaderID: n.leaderID, LeaderEpoch: n.epoch, VotedID: n.votedID}); err != nil {
		n.halt(err)
		return false
	}
	return true
}

// after schedules fire in the current role; it does nothing once the node
// changed role or crashed.
func (n *Node) after(d time.Duration, name string, fire func()) *sim.Event {
	gen := n.gen
	return n.sched.After(d, "kraft "+string(n.cfg.Node)+" "+name, func() {
		if n.up && n.gen == gen {
			fire()
		}
	})
}

// setTimer replaces the role's single timer (election, fetch or resign).
func (n *Node) setTimer(d time.Duration, name string, fire func()) {
	n.cancelTimer()
	n.timer = n.after(d, name, fire)
}

func (n *Node) cancelTimer() {
	if n.timer != nil {
		n.timer.Cancelled = true
		n.timer = nil
	}
}

// send sends msg, unless the node is down: one that halted in the middle
// of a handler (halt.go) says nothing more.
func (n *Node) send(to sim.NodeID, msg sim.Message) {
	if n.up {
		n.net.Send(n.cfg.Node, to, msg)
	}
}

// otherVoters lists the voters but this node, ascending.
func (n *Node) otherVoters() []int32 {
	var out []int32
	for _, v := range n.cfg.Voters {
		if v != n.cfg.ID {
			out = append(out, v)
		}
	}
	return out
}

// announce tells the listener who leads, once per change.
func (n *Node) announce(leader int32) {
	if leader == n.announced && n.epoch == n.announcedEpoch {
		return
	}
	n.announced, n.announcedEpoch = leader, n.epoch
	n.listener.LeaderChange(leader, n.epoch)
}

// advanceHW moves the high watermark to hw (never back) and hands the
// newly committed entries to the listener.
func (n *Node) advanceHW(hw int64) {
	if hw <= n.hw {
		return
	}
	n.hw = hw
	n.handOver()
}

// handOver gives the listener what it has not seen below the high
// watermark: the snapshot first when the entries it needs are gone.
func (n *Node) handOver() {
	if n.applied < n.log.StartOffset() {
		if snap := n.log.LatestSnapshot(); snap != nil {
			n.listener.LoadSnapshot(*snap)
			n.applied = snap.ID.EndOffset
		}
	}
	if n.applied < n.hw {
		to := min(n.hw, n.log.EndOffset())
		if entries := n.log.Entries(n.applied, int(to-n.applied)); len(entries) > 0 {
			n.listener.Commit(entries)
			n.applied = to
		}
	}
	if n.role == Leader && n.Ready() {
		n.announce(n.cfg.ID)
	}
	n.maybeSnapshot()
}

// maybeSnapshot snapshots the committed state every SnapshotEvery records
// and drops the entries it covers. Difference from Kafka: Kafka keeps the
// log below a snapshot until metadata.max.retention.bytes or .ms removes
// it; loglab drops it at once, so a lagging replica needs the snapshot.
func (n *Node) maybeSnapshot() {
	if n.cfg.SnapshotEvery <= 0 || n.applied-n.lastCommit < n.cfg.SnapshotEvery {
		return
	}
	last, ok := n.log.Entry(n.applied - 1)
	if !ok {
		return
	}
	snap := Snapshot{ID: protocol.SnapshotID{EndOffset: n.applied, Epoch: last.Epoch}, Records: n.listener.SnapshotRecords()}
	if err := n.store.SaveSnapshot(snap); err != nil {
		n.halt(err)
		return
	}
	n.log.InstallSnapshot(snap)
	n.lastCommit = n.applied
}

// randomElectionTimeout is Kafka's randomElectionTimeoutMs: the election
// timeout plus a random share of it, so voters rarely stand together.
func (n *Node) randomElectionTimeout() time.Duration {
	t := n.cfg.ElectionTimeout
	if t <= 0 {
		return 0
	}
	return t + time.Duration(n.rng.Int64N(t.Milliseconds()))*time.Millisecond
}

// isSelf says whether a leader id names this node: only a voter can lead,
// and loglab's observers (brokers) share ids with controllers.
func (n *Node) isSelf(id int32) bool { return id == n.cfg.ID && n.IsVoter() }
