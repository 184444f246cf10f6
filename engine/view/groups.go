package view

// Group is one consumer group as the group panel draws it: what its
// coordinator holds (state, generation or group epoch, members and their
// assignments, committed offsets) and what its members went through
// (the rebalances, for the timeline).
type Group struct {
	ID string
	// Protocol is the group's type: "classic" or "consumer" (KIP-848).
	Protocol string
	// State is the coordinator's state name as kafka-consumer-groups.sh
	// prints it: Empty, PreparingRebalance, CompletingRebalance, Stable,
	// Dead (classic); Empty, Assigning, Reconciling, Stable (consumer).
	State string
	// Assignor is the selected assignor (classic: the protocol name the
	// group agreed on; consumer: the server-side assignor).
	Assignor string
	// Epoch is the generation (classic) or the group epoch (consumer);
	// AssignmentEpoch is KIP-848's target assignment epoch (0 for classic).
	Epoch           int32
	AssignmentEpoch int32
	// Coordinator is the broker id leading the group's
	// __consumer_offsets partition (0: none); OffsetsPartition is that
	// partition's index, -1 while __consumer_offsets does not exist (no
	// consumer has looked for a coordinator yet).
	Coordinator      int
	OffsetsPartition int
	Members          []GroupMember // in the coordinator's order
	Partitions       []GroupPartition
	Rebalances       []Rebalance // oldest first
	// Ownership is, per partition of Partitions, who owned it over time
	// (ownership.go): what a member's row in the timeline cannot show.
	Ownership []PartitionOwnership
}

// GroupMember is one member as the coordinator knows it, joined with
// what its client reports.
type GroupMember struct {
	MemberID   string
	Client     string // the lab consumer's name (client.id)
	InstanceID string // group.instance.id, "" for a dynamic member
	// Epoch is the member epoch (consumer protocol) or the generation the
	// member last synced (classic).
	Epoch int32
	// Assigned are the partitions the member owns, as "T/P"; Revoking
	// those it must still give up (KIP-848's pending revocation).
	Assigned []string
	Revoking []string
	// Phase is the client's side: "stable", "joining", "syncing",
	// "reconciling", "left", "crashed".
	Phase string
	// Colour is a stable index into the panel's palette, so a member keeps
	// its colour on the partition strips across rebalances.
	Colour  int
	Metrics []Metric
}

// Metric is one client metric by Kafka's name, already formatted.
type Metric struct {
	Name  string // e.g. rebalance-latency-avg
	Value string
}

// GroupPartition is one subscribed partition: who owns it and how far
// the group has committed, as kafka-consumer-groups.sh --describe shows.
type GroupPartition struct {
	TP        string // "T/P"
	Owner     string // the owning member's client name, "" if none
	Colour    int    // the owner's colour, -1 if none
	Committed int64  // -1: no committed offset
	LogEnd    int64
	Lag       int64 // -1: unknown (no committed offset)
}

// Rebalance is one member's part in one rebalance, for the timeline:
// from when it stopped consuming some partitions to when it was
// consuming its new assignment. Times are virtual milliseconds since the
// cluster started.
type Rebalance struct {
	Client   string
	Protocol string // eager, cooperative or consumer
	Start    int64
	End      int64 // -1 while in progress
	// PausedFrom and PausedTo bound when the member consumed nothing at
	// all (eager revokes everything; cooperative and KIP-848 members keep
	// their other partitions, so for them this is usually empty: -1).
	PausedFrom, PausedTo int64
	Revoked              []string
	Assigned             []string
	Reason               string
}
