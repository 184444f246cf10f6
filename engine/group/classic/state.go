// Package classic is the group coordinator's side of the classic consumer
// group protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), modelled on
// Kafka 4.x's new group coordinator (ClassicGroup and the classic-group
// handling of GroupMetadataManager). It is a pure state machine: requests
// and virtual time (milliseconds) go in, responses come out, and the
// coordinator's timers are data the caller drives with Tick. It does no
// I/O and reads no clock, so the engine can replay it deterministically.
package classic

import "fmt"

// State is a classic group's state, named as Kafka names it in
// kafka-consumer-groups.sh --describe --state.
type State int

const (
	// Empty: no members; the group exists for its committed offsets.
	Empty State = iota
	// PreparingRebalance: the coordinator waits for members to (re)join.
	PreparingRebalance
	// CompletingRebalance: the join phase is over; the coordinator waits
	// for the leader's SyncGroup with the assignment.
	CompletingRebalance
	// Stable: every member has its assignment for the current generation.
	Stable
	// Dead: the group's metadata is gone (deleted, or the coordinator
	// moved); requests are answered COORDINATOR_NOT_AVAILABLE.
	Dead
)

func (s State) String() string {
	switch s {
	case Empty:
		return "Empty"
	case PreparingRebalance:
		return "PreparingRebalance"
	case CompletingRebalance:
		return "CompletingRebalance"
	case Stable:
		return "Stable"
	case Dead:
		return "Dead"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// validFrom is ClassicGroupState's transition table: the states a group
// may enter each state from. Anything else is a coordinator bug.
func (s State) validFrom(prev State) bool {
	switch s {
	case Empty:
		return prev == PreparingRebalance
	case PreparingRebalance:
		return prev == Stable || prev == CompletingRebalance || prev == Empty
	case CompletingRebalance:
		return prev == PreparingRebalance
	case Stable:
		return prev == CompletingRebalance
	case Dead:
		return true
	}
	return false
}

// Error is a Kafka error code name as the coordinator returns it.
type Error string

// The errors the classic group coordinator returns.
const (
	None                    Error = "NONE"
	UnknownMemberID         Error = "UNKNOWN_MEMBER_ID"
	IllegalGeneration       Error = "ILLEGAL_GENERATION"
	RebalanceInProgress     Error = "REBALANCE_IN_PROGRESS"
	MemberIDRequired        Error = "MEMBER_ID_REQUIRED"
	InconsistentGroupProto  Error = "INCONSISTENT_GROUP_PROTOCOL"
	GroupMaxSizeReached     Error = "GROUP_MAX_SIZE_REACHED"
	FencedInstanceID        Error = "FENCED_INSTANCE_ID"
	CoordinatorNotAvailable Error = "COORDINATOR_NOT_AVAILABLE"
	NotCoordinator          Error = "NOT_COORDINATOR"
	InvalidSessionTimeout   Error = "INVALID_SESSION_TIMEOUT"
)

// Config is the broker configuration the classic coordinator reads, with
// Kafka's keys.
type Config struct {
	// InitialRebalanceDelayMs is group.initial.rebalance.delay.ms: how long
	// an empty group's first rebalance waits for more members, so a fleet
	// of consumers starting together causes one rebalance, not one each.
	InitialRebalanceDelayMs int64
	// MinSessionTimeoutMs and MaxSessionTimeoutMs are
	// group.min.session.timeout.ms and group.max.session.timeout.ms.
	MinSessionTimeoutMs, MaxSessionTimeoutMs int64
	// MaxSize is group.max.size: the most members a classic group admits.
	MaxSize int
	// NewMemberJoinTimeoutMs is how long a new member's parked JoinGroup
	// may wait (Kafka's CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS, not a
	// config): a new member has no id to heartbeat with yet.
	NewMemberJoinTimeoutMs int64
}

// DefaultConfig is Kafka 4.x's defaults.
func DefaultConfig() Config {
	return Config{
		InitialRebalanceDelayMs: 3000,
		MinSessionTimeoutMs:     6000,
		MaxSessionTimeoutMs:     1800000,
		MaxSize:                 1<<31 - 1,
		NewMemberJoinTimeoutMs:  5 * 60 * 1000,
	}
}

// Protocol is one entry of a JoinGroup's protocol list: an assignor name
// (partition.assignment.strategy) and the member's subscription metadata
// for it, opaque to the coordinator.
type Protocol struct {
	Name     string
	Metadata string
}

// Member is one member of a classic group.
type Member struct {
	ID                 string
	InstanceID         string // group.instance.id; "" for a dynamic member
	ClientID           string
	ProtocolType       string
	Protocols          []Protocol // in the member's preference order
	SessionTimeoutMs   int64
	RebalanceTimeoutMs int64
	Assignment         string // opaque; what the leader's SyncGroup gave it

	// isNew: joined but not yet through a completed join phase; such a
	// member can be expired even while its JoinGroup is parked.
	isNew bool
	// joinRef/syncRef identify the parked JoinGroup/SyncGroup request, 0
	// when none; Kafka's awaitingJoinFuture/awaitingSyncFuture.
	joinRef, syncRef uint64
}

func (m *Member) awaitingJoin() bool { return m.joinRef != 0 }
func (m *Member) awaitingSync() bool { return m.syncRef != 0 }

// matches reports whether a rejoin carries the same protocols and
// metadata: only then can the coordinator skip a rebalance for it.
func (m *Member) matches(ps []Protocol) bool {
	if len(ps) != len(m.Protocols) {
		return false
	}
	for i := range ps {
		if ps[i] != m.Protocols[i] {
			return false
		}
	}
	return true
}

func (m *Member) metadata(protocol string) string {
	for _, p := range m.Protocols {
		if p.Name == protocol {
			return p.Metadata
		}
	}
	return ""
}

// Group is one classic group as its coordinator holds it.
type Group struct {
	ID  string
	cfg Config

	state, previousState State
	stateSince           int64
	generation           int32
	protocolType         string
	protocolName         string
	leader               string

	// members in join order. Kafka keeps a HashMap; the order only shows
	// where Kafka picks "any" member (a new leader), and join order makes
	// that choice reproducible.
	members       []*Member
	staticMembers map[string]string // instance id -> member id
	pendingJoin   []string          // ids handed out with MEMBER_ID_REQUIRED
	pendingSync   []string          // members yet to SyncGroup this generation
	// newMemberAdded lets the initial rebalance extend its delay while
	// members keep arriving.
	newMemberAdded bool

	timers  []*timer
	seq     uint64
	replies []Reply
}

// New makes an Empty group, as the coordinator does on the first
// JoinGroup for an unknown group id.
func New(id string, cfg Config, now int64) *Group {
	return &Group{ID: id, cfg: cfg, state: Empty, previousState: Dead, stateSince: now,
		staticMembers: map[string]string{}}
}

// State is the group's current state.
func (g *Group) State() State { return g.state }

// Generation is the group's generation id.
func (g *Group) Generation() int32 { return g.generation }

// Leader is the leader member's id, "" when none.
func (g *Group) Leader() string { return g.leader }

// ProtocolName is the selected assignor, "" while none.
func (g *Group) ProtocolName() string { return g.protocolName }

// ProtocolType is the group's protocol type ("consumer" for consumers).
func (g *Group) ProtocolType() string { return g.protocolType }

// Members lists the members in join order.
func (g *Group) Members() []Member {
	out := make([]Member, len(g.members))
	for i, m := range g.members {
		out[i] = *m
	}
	return out
}

// Member finds a member by id.
func (g *Group) Member(id string) (Member, bool) {
	if m := g.member(id); m != nil {
		return *m, true
	}
	return Member{}, false
}

func (g *Group) member(id string) *Member {
	for _, m := range g.members {
		if m.ID == id {
			return m
		}
	}
	return nil
}

func (g *Group) isLeader(id string) bool { return g.leader != "" && g.leader == id }

func (g *Group) transitionTo(now int64, s State) {
	if !s.validFrom(g.state) {
		panic(fmt.Sprintf("classic group %s: illegal transition %s -> %s", g.ID, g.state, s))
	}
	g.previousState, g.state, g.stateSince = g.state, s, now
}

func (g *Group) canRebalance() bool { return PreparingRebalance.validFrom(g.state) }

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func without(ids []string, id string) []string {
	out := ids[:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}
