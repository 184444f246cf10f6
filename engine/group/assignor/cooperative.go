package assignor

import "slices"

// CooperativeSticky is Kafka's CooperativeStickyAssignor
// ("cooperative-sticky"): the sticky assignment, minus every partition
// that changes owner. Under the cooperative protocol members keep
// consuming what they own through a rebalance, so a partition may only be
// given to its new owner after the old owner has revoked it: the old owner
// drops it when it sees it is no longer in its assignment, rejoins, and
// the follow-up rebalance assigns it (KIP-429).
type CooperativeSticky struct{}

func (CooperativeSticky) Name() string { return "cooperative-sticky" }

func (CooperativeSticky) Assign(topics Topics, members []Member) (Assignment, error) {
	r, err := stickyAssign(topics, members)
	if err != nil {
		return nil, err
	}
	a, transferring := r.assignment, r.transferring
	if transferring == nil {
		// the general path does not track moves
		transferring = partitionsTransferringOwnership(members, a)
	}
	for tp, to := range transferring {
		a[to] = slices.DeleteFunc(a[to], func(p TopicPartition) bool { return p == tp })
	}
	return a, nil
}

// partitionsTransferringOwnership is Kafka's
// computePartitionsTransferringOwnership: partitions newly assigned to one
// member that another member owned and loses. A partition nobody gave up
// (new, or its owner left) can be assigned at once.
func partitionsTransferringOwnership(members []Member, a Assignment) map[TopicPartition]string {
	added := map[TopicPartition]string{}
	revoked := map[TopicPartition]bool{}
	for _, m := range members {
		assigned := a[m.ID]
		for _, tp := range assigned {
			if !slices.Contains(m.Owned, tp) {
				added[tp] = m.ID
			}
		}
		for _, tp := range m.Owned {
			if !slices.Contains(assigned, tp) {
				revoked[tp] = true
			}
		}
	}
	for tp := range added {
		if !revoked[tp] {
			delete(added, tp)
		}
	}
	return added
}
