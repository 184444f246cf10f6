package describe

import "strconv"

// Node is a broker as Kafka's Node names it: the group's coordinator.
type Node struct {
	ID   int32
	Host string
	Port int32
}

// Partition is one partition of a topic.
type Partition struct {
	Topic     string
	Partition int32
}

// Group is what the Admin client's describeConsumerGroups,
// listConsumerGroupOffsets and listOffsets tell the tool about a group.
type Group struct {
	ID string
	// Type is GroupType's name: "Classic" or "Consumer".
	Type string
	// State is GroupState's name: "Empty", "Stable", "Dead",
	// "PreparingRebalance", "CompletingRebalance" (classic groups),
	// "Assigning", "Reconciling" (consumer groups).
	State       string
	Coordinator Node
	// AssignmentStrategy is ConsumerGroupDescription.partitionAssignor:
	// the protocol the classic group chose ("range", "cooperative-sticky";
	// "" while it has none) or the consumer group's server assignor
	// ("uniform", "range").
	AssignmentStrategy string
	// GroupEpoch and TargetAssignmentEpoch exist for consumer groups
	// (KIP-848) only: nil for a classic group.
	GroupEpoch            *int32
	TargetAssignmentEpoch *int32
	// Members in the order the coordinator lists them.
	Members []Member
	// Committed is the group's committed offsets (OffsetFetch).
	Committed []Committed
	// LogEndOffsets is each partition's log end offset (ListOffsets
	// latest); a partition missing from it (no leader) prints "-".
	LogEndOffsets map[Partition]int64
}

// Member is Kafka's MemberDescription.
type Member struct {
	ConsumerID      string
	GroupInstanceID string // "" for a dynamic member
	// Host is the client's address as Kafka prints it: InetAddress's
	// toString, e.g. "/10.0.0.7".
	Host       string
	ClientID   string
	Assignment []Partition
	// TargetAssignment and MemberEpoch exist for consumer-protocol
	// members (KIP-848) only.
	TargetAssignment []Partition
	MemberEpoch      *int32
}

// Committed is one committed offset, with the leader epoch the consumer
// committed with it (nil: none).
type Committed struct {
	Partition
	Offset      int64
	LeaderEpoch *int32
}

// missing is Kafka's MISSING_COLUMN_VALUE.
const missing = "-"

func optional(v *int32) string {
	if v == nil {
		return missing
	}
	return strconv.Itoa(int(*v))
}

// coordinator is how printStates writes the coordinator (two spaces
// before the id).
func (n Node) coordinator() string {
	return n.Host + ":" + strconv.Itoa(int(n.Port)) + "  (" + strconv.Itoa(int(n.ID)) + ")"
}
