package assignor

import (
	"cmp"
	"slices"
)

// compareStaticFirst orders members as Kafka's range and roundrobin
// assignors do since KIP-345 (AbstractPartitionAssignor.MemberInfo.compareTo
// on the client, RangeAssignor.sortMemberIds in the group coordinator):
// static members first, by group.instance.id, then dynamic members by
// member id. A static member keeps its instance id across restarts while
// its member id changes, so ordering by instance id gives it the same
// place, and so the same partitions, after a rolling bounce.
func compareStaticFirst(a, b Member) int {
	switch {
	case a.InstanceID != "" && b.InstanceID != "":
		return cmp.Compare(a.InstanceID, b.InstanceID)
	case a.InstanceID != "":
		return -1
	case b.InstanceID != "":
		return 1
	default:
		return cmp.Compare(a.ID, b.ID)
	}
}

// sortedStaticFirst returns a copy of members in compareStaticFirst order.
func sortedStaticFirst(members []Member) []Member {
	sorted := slices.Clone(members)
	slices.SortStableFunc(sorted, compareStaticFirst)
	return sorted
}

// assignmentWithEveryMember gives every member an entry, as Kafka does: a member
// that gets nothing is still told so (an empty assignment), it is not
// left out.
func assignmentWithEveryMember(members []Member) Assignment {
	a := make(Assignment, len(members))
	for _, m := range members {
		a[m.ID] = []TopicPartition{}
	}
	return a
}
