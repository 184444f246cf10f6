package view

// PartitionOwnership is one partition's owners over virtual time, as the
// members' rebalance logs tell it: who was assigned it when, and the
// gaps between a member giving it up and the next member getting it.
// A member's row in the rebalance timeline cannot show those gaps: a
// cooperative or KIP-848 member keeps consuming the partitions it kept,
// so it never stops, while the partition it revoked is consumed by
// nobody until a later rebalance assigns it again.
type PartitionOwnership struct {
	TP string // "T/P"
	// Spans cover the partition's history, oldest first, from its first
	// assignment (or first revocation, when the logs no longer hold the
	// assignment) to now. Consecutive spans touch: one ends where the
	// next starts.
	Spans []OwnershipSpan
}

// OwnershipSpan is one stretch of a partition's history: owned by one
// member, or by nobody after a revocation.
type OwnershipSpan struct {
	Owner  string // the member's client name, "" for nobody
	Colour int    // the owner's colour, -1 for nobody
	From   int64  // virtual milliseconds since the cluster started
	To     int64  // -1: still so now
	// Lost: nobody owned it because its owner lost it (fenced, session
	// expired) rather than revoked it.
	Lost bool
}
