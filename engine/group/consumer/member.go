package consumer

// Member is Kafka's ConsumerGroupMember as the coordinator keeps it.
type Member struct {
	ID string
	// InstanceID is the member's group.instance.id, "" if dynamic.
	InstanceID string
	State      MemberState
	// MemberEpoch is the target assignment epoch the member last
	// reconciled to; PreviousMemberEpoch the one before, kept because the
	// response carrying the new epoch may be lost and the member may
	// come back with the old one.
	MemberEpoch         int32
	PreviousMemberEpoch int32
	SubscribedTopics    []string
	// RebalanceTimeoutMs is the client's max.poll.interval.ms: how long
	// it may take to revoke partitions before it is fenced.
	RebalanceTimeoutMs int32
	// Assigned is the member's current assignment; PendingRevocation
	// what it must still give up. Both count as owned by it, so nobody
	// else gets them meanwhile.
	Assigned          Partitions
	PendingRevocation Partitions

	sessionDeadlineMs    int64 // group.consumer.session.timeout.ms after the last heartbeat
	revocationDeadlineMs int64 // 0 unless UNREVOKED_PARTITIONS: rebalance timeout
}

// isReconciledTo is Kafka's isReconciledTo: nothing left to do for
// this target epoch.
func (m *Member) isReconciledTo(targetEpoch int32) bool {
	return m.State == Stable && m.MemberEpoch == targetEpoch
}

// withEpoch is Kafka's Builder.updateMemberEpoch: the previous epoch
// always moves along, even when the epoch stays the same.
func (m Member) withEpoch(epoch int32) Member {
	m.PreviousMemberEpoch = m.MemberEpoch
	m.MemberEpoch = epoch
	return m
}
