package consumer

// MemberState is Kafka's MemberState: where a member is in reconciling
// its current assignment towards its target assignment.
type MemberState int

const (
	// Stable: the member owns its whole target assignment at the
	// target assignment epoch (or waits for a newer one).
	Stable MemberState = iota
	// UnrevokedPartitions: the member must first give up partitions the
	// target takes away; it keeps its old epoch until it reports them
	// gone, so it cannot be handed anything new meanwhile.
	UnrevokedPartitions
	// UnreleasedPartitions: the member is at the target epoch but some
	// of its target partitions are still owned by other members; it gets
	// each one as soon as its previous owner releases it.
	UnreleasedPartitions
	// Unknown exists in Kafka for a state a newer coordinator wrote that
	// an older one cannot read: the member is fenced so it starts over.
	Unknown
)

func (s MemberState) String() string {
	switch s {
	case Stable:
		return "STABLE"
	case UnrevokedPartitions:
		return "UNREVOKED_PARTITIONS"
	case UnreleasedPartitions:
		return "UNRELEASED_PARTITIONS"
	}
	return "UNKNOWN"
}

// GroupState is Kafka's ConsumerGroupState, derived from the epochs and
// the members (ConsumerGroup.maybeUpdateGroupState), never stored.
type GroupState string

const (
	GroupEmpty       GroupState = "Empty"
	GroupAssigning   GroupState = "Assigning"
	GroupReconciling GroupState = "Reconciling"
	GroupStable      GroupState = "Stable"
)
