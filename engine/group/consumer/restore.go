package consumer

import (
	"maps"
	"slices"

	"github.com/loglab/loglab/engine/group/assignor"
)

// Restore rebuilds a consumer group from its records after a coordinator
// failover, as Kafka's GroupMetadataManager.replay and onLoaded do: the
// group epoch (ConsumerGroupMetadata), the target assignment and its epoch
// (ConsumerGroupTargetAssignmentMember/Metadata), and each member's
// current assignment (ConsumerGroupCurrentMemberAssignment) with its
// subscription (ConsumerGroupMemberMetadata). Every member's session
// starts again from now, and a member still revoking gets a fresh
// rebalance timeout, so members heartbeating the new coordinator carry on
// where they were.
func Restore(id string, a assignor.Assignor, topics assignor.Topics, cfg Config, now int64,
	groupEpoch, assignmentEpoch int32, members []Member, targets map[string]Partitions) *Group {
	g := NewGroup(id, a, topics, cfg)
	g.groupEpoch, g.assignmentEpoch = groupEpoch, assignmentEpoch
	for _, id := range slices.Sorted(maps.Keys(targets)) {
		g.target[id] = targets[id].normalized()
	}
	for _, rm := range members {
		m := rm
		m.Assigned, m.PendingRevocation = m.Assigned.normalized(), m.PendingRevocation.normalized()
		m.sessionDeadlineMs = now + int64(cfg.SessionTimeoutMs)
		m.revocationDeadlineMs = 0
		if m.State == UnrevokedPartitions {
			m.revocationDeadlineMs = now + int64(m.RebalanceTimeoutMs)
		}
		// Records replayed from one coordinator never overlap; should they,
		// the later member simply does not own the partition.
		_ = g.replaceOwnership(nil, &m)
		g.members[m.ID] = &m
	}
	return g
}
