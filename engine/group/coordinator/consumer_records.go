package coordinator

import (
	"fmt"

	"github.com/loglab/loglab/engine/group/consumer"
	"github.com/loglab/loglab/engine/group/offsets"
)

// consumerSnapshot is what a KIP-848 group's records say, taken before
// and after an operation: the records written are the difference.
type consumerSnapshot struct {
	groupEpoch, assignmentEpoch int32
	members                     map[string]consumer.Member
	targets                     map[string]consumer.Partitions
}

func snapshot(g *consumer.Group) consumerSnapshot {
	sn := consumerSnapshot{groupEpoch: g.GroupEpoch(), assignmentEpoch: g.AssignmentEpoch(),
		members: map[string]consumer.Member{}, targets: map[string]consumer.Partitions{}}
	for _, m := range g.Members() {
		sn.members[m.ID] = m
		sn.targets[m.ID] = g.Target(m.ID)
	}
	return sn
}

// consumerOp runs op and writes the records Kafka writes for what
// changed, in the order consumerGroupHeartbeat and
// consumerGroupFenceMember write them: a departed member's current
// assignment, target and metadata tombstones; new or changed member
// metadata; the group epoch; the target assignment (members, then its
// epoch); the members' current assignments.
func (s *Shard) consumerOp(e *consumerEntry, op func() []string) Result {
	id := e.g.ID()
	before := snapshot(e.g)
	var out Result
	out.Events = append(out.Events, op()...)
	after := snapshot(e.g)
	for _, mid := range sortedKeys(before.members) {
		if _, ok := after.members[mid]; !ok {
			out.Records = append(out.Records,
				tombstone(memberKey(offsets.TypeConsumerGroupCurrentMemberAssignment, id, mid)),
				tombstone(memberKey(offsets.TypeConsumerGroupTargetAssignmentMember, id, mid)),
				tombstone(memberKey(offsets.TypeConsumerGroupMemberMetadata, id, mid)))
			delete(e.details, mid)
			out.Events = append(out.Events, fmt.Sprintf("group %s: member %s left (group epoch %d)", id, mid, after.groupEpoch))
		}
	}
	for _, mid := range sortedKeys(after.members) {
		m, old := after.members[mid], before.members[mid]
		_, existed := before.members[mid]
		if !existed || m.RebalanceTimeoutMs != old.RebalanceTimeoutMs || m.InstanceID != old.InstanceID ||
			!equalStrings(m.SubscribedTopics, old.SubscribedTopics) {
			out.Records = append(out.Records, s.memberMetadataRecord(e, m))
		}
		if !existed {
			out.Events = append(out.Events, fmt.Sprintf("group %s: member %s joined (group epoch %d)", id, mid, after.groupEpoch))
		}
	}
	if after.groupEpoch != before.groupEpoch {
		out.Records = append(out.Records, rec(&offsets.ConsumerGroupMetadataKey{GroupID: id}, offsets.ConsumerGroupMetadataValueVersion,
			&offsets.ConsumerGroupMetadataValue{Epoch: after.groupEpoch}))
	}
	// A member's target is written when it changed, which includes a
	// static member's new incarnation taking over the old one's target
	// at the same assignment epoch.
	for _, mid := range sortedKeys(after.targets) {
		if prev, ok := before.targets[mid]; !ok || !prev.Equal(after.targets[mid]) {
			out.Records = append(out.Records, rec(memberKey(offsets.TypeConsumerGroupTargetAssignmentMember, id, mid), 0,
				&offsets.ConsumerGroupTargetAssignmentMemberValue{TopicPartitions: toRecordPartitions(after.targets[mid])}))
		}
	}
	if after.assignmentEpoch != before.assignmentEpoch {
		out.Records = append(out.Records, rec(&offsets.TargetAssignmentMetadataKey{GroupID: id}, 0,
			&offsets.ConsumerGroupTargetAssignmentMetadataValue{AssignmentEpoch: after.assignmentEpoch}))
		out.Events = append(out.Events, fmt.Sprintf("group %s: new target assignment at epoch %d", id, after.assignmentEpoch))
	}
	for _, mid := range sortedKeys(after.members) {
		m, old := after.members[mid], before.members[mid]
		_, existed := before.members[mid]
		if !existed || m.State != old.State || m.MemberEpoch != old.MemberEpoch || m.PreviousMemberEpoch != old.PreviousMemberEpoch ||
			!m.Assigned.Equal(old.Assigned) || !m.PendingRevocation.Equal(old.PendingRevocation) {
			out.Records = append(out.Records, rec(memberKey(offsets.TypeConsumerGroupCurrentMemberAssignment, id, mid), 0,
				&offsets.ConsumerGroupCurrentMemberAssignmentValue{MemberEpoch: m.MemberEpoch, PreviousMemberEpoch: m.PreviousMemberEpoch,
					State: memberStateByte(m.State), AssignedPartitions: toRecordPartitions(m.Assigned),
					PartitionsPendingRevocation: toRecordPartitions(m.PendingRevocation)}))
		}
	}
	return out
}

func (s *Shard) memberMetadataRecord(e *consumerEntry, m consumer.Member) offsets.Record {
	d := e.details[m.ID]
	v := &offsets.ConsumerGroupMemberMetadataValue{InstanceID: strPtr(m.InstanceID), RackID: strPtr(d.RackID), ClientID: d.ClientID,
		ClientHost: d.Host, SubscribedTopicNames: append([]string{}, m.SubscribedTopics...), RebalanceTimeoutMs: m.RebalanceTimeoutMs,
		ServerAssignor: strPtr(d.ServerAssignor)}
	return rec(memberKey(offsets.TypeConsumerGroupMemberMetadata, e.g.ID(), m.ID), 0, v)
}

func memberKey(t int16, group, member string) *offsets.MemberKey {
	return &offsets.MemberKey{RecordType: t, GroupID: group, MemberID: member}
}

func groupMetadataKey(group string) *offsets.GroupMetadataKey {
	return &offsets.GroupMetadataKey{Group: group}
}

// memberStateByte is Kafka's MemberState.value(): STABLE 0,
// UNREVOKED_PARTITIONS 1, UNRELEASED_PARTITIONS 2, UNKNOWN 127.
func memberStateByte(st consumer.MemberState) int8 {
	switch st {
	case consumer.Stable:
		return 0
	case consumer.UnrevokedPartitions:
		return 1
	case consumer.UnreleasedPartitions:
		return 2
	}
	return 127
}

func memberStateFromByte(b int8) consumer.MemberState {
	switch b {
	case 0:
		return consumer.Stable
	case 1:
		return consumer.UnrevokedPartitions
	case 2:
		return consumer.UnreleasedPartitions
	}
	return consumer.Unknown
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
