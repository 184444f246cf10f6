package assignor

import (
	"fmt"
	"slices"
)

// Sticky is Kafka's classic client-side StickyAssignor ("sticky"): a
// balanced assignment that keeps as many partitions as possible where they
// were, used with the eager protocol (every member revokes everything when
// a rebalance starts, so stickiness only saves re-initialising state).
//
// Under the eager protocol a member revokes everything before it rejoins,
// so its subscription's ownedPartitions is empty; StickyAssignor carries
// the previous assignment and generation in its own user data instead.
// Either way, a Member's Owned must be what it was last assigned and
// Generation the generation of that assignment (-1 on a first join).
type Sticky struct{}

func (Sticky) Name() string { return "sticky" }

func (Sticky) Assign(topics Topics, members []Member) (Assignment, error) {
	r, err := stickyAssign(topics, members)
	if err != nil {
		return nil, err
	}
	return r.assignment, nil
}

// noGeneration is Kafka's AbstractStickyAssignor.DEFAULT_GENERATION: what a
// member that reports no generation is taken to be in.
const noGeneration = -1

// stickyInput is the assignor's view of the group after
// AbstractStickyAssignor.allSubscriptionsEqual: each member's claims with
// conflicting claims resolved by generation.
type stickyInput struct {
	// partitionsPerTopic holds only topics some member subscribes to and
	// the metadata knows with at least one partition, as
	// AbstractPartitionAssignor.assign builds it.
	partitionsPerTopic Topics
	sortedTopics       []string
	members            map[string]Member
	ids                []string // member ids, sorted
	// owned is each member's previously owned partitions that it keeps a
	// claim on (still existing, not claimed by a newer generation).
	owned map[string][]TopicPartition
	// multiOwned are partitions claimed by two members of the same
	// generation: Kafka trusts neither claim.
	multiOwned    map[TopicPartition]bool
	maxGeneration int32
	allEqual      bool
}

// stickyResult is what AbstractStickyAssignor.assignPartitions leaves
// behind: the assignment, and the assignor state Kafka's tests inspect.
type stickyResult struct {
	assignment Assignment
	// transferring is Kafka's partitionsTransferringOwnership: partitions
	// the constrained path gave to a member while another still owned
	// them. It is nil after the general path, which leaves the
	// cooperative assignor to compute it from scratch.
	transferring map[TopicPartition]string
	// moves are the general path's partition movements (nil after the
	// constrained path), for Kafka's isSticky check.
	moves *partitionMovements
}

func stickyAssign(topics Topics, members []Member) (*stickyResult, error) {
	in, err := newStickyInput(topics, members)
	if err != nil {
		return nil, err
	}
	if in.allEqual {
		a, transferring, err := in.constrainedAssign()
		if err != nil {
			return nil, err
		}
		return &stickyResult{assignment: a.normalize(), transferring: transferring}, nil
	}
	a, moves := in.generalAssign()
	return &stickyResult{assignment: a.normalize(), moves: moves}, nil
}

func newStickyInput(topics Topics, members []Member) (*stickyInput, error) {
	in := &stickyInput{
		partitionsPerTopic: Topics{},
		members:            map[string]Member{},
		owned:              map[string][]TopicPartition{},
		multiOwned:         map[TopicPartition]bool{},
		maxGeneration:      noGeneration,
		allEqual:           true,
	}
	for _, m := range members {
		if _, dup := in.members[m.ID]; dup {
			return nil, fmt.Errorf("member %q appears twice", m.ID)
		}
		in.members[m.ID] = m
		for _, t := range m.Topics {
			if n := topics[t]; n > 0 {
				in.partitionsPerTopic[t] = n
			}
		}
	}
	in.ids = sortedMemberIDs(members)
	for t := range in.partitionsPerTopic {
		in.sortedTopics = append(in.sortedTopics, t)
	}
	slices.Sort(in.sortedTopics)
	in.resolveClaims()
	return in, nil
}

// resolveClaims mirrors allSubscriptionsEqual, walking the members in
// Kafka's HashMap order (javaHashMapOrder).
func (in *stickyInput) resolveClaims() {
	var first []string
	owner := map[TopicPartition]string{}
	for i, id := range javaHashMapOrder(in.ids) {
		m := in.members[id]
		// Kafka re-seeds its reference set when the first member seen has
		// no topics; we compare every member with the first one, since an
		// empty subscription is not the same subscription.
		if i == 0 {
			first = sortedSet(m.Topics)
		} else if !slices.Equal(first, sortedSet(m.Topics)) {
			in.allEqual = false
		}
		in.maxGeneration = max(in.maxGeneration, m.Generation)
		in.owned[id] = []TopicPartition{}
		for _, tp := range m.Owned {
			n, ok := in.partitionsPerTopic[tp.Topic]
			if !ok || tp.Partition < 0 || tp.Partition >= n {
				// a deleted or unsubscribed-by-everyone topic: nothing to keep
				continue
			}
			other, claimed := owner[tp]
			if !claimed {
				in.owned[id] = append(in.owned[id], tp)
				owner[tp] = id
				continue
			}
			otherGen := in.members[other].Generation
			switch {
			case m.Generation == otherGen:
				// Two owners in one generation is invalid input (a
				// zombie, or a bug): Kafka invalidates both claims.
				in.multiOwned[tp] = true
				in.owned[other] = slices.DeleteFunc(in.owned[other], func(p TopicPartition) bool { return p == tp })
				owner[tp] = id
			case m.Generation > otherGen:
				// The newer generation's claim is the current one; the
				// older member missed a rebalance.
				in.owned[id] = append(in.owned[id], tp)
				in.owned[other] = slices.DeleteFunc(in.owned[other], func(p TopicPartition) bool { return p == tp })
				owner[tp] = id
			}
		}
	}
}

func sortedSet(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return slices.Compact(c)
}

// allPartitions lists every partition of the given topics in that order.
func (in *stickyInput) allPartitions(topics []string) []TopicPartition {
	var all []TopicPartition
	for _, t := range topics {
		for p := int32(0); p < in.partitionsPerTopic[t]; p++ {
			all = append(all, TopicPartition{t, p})
		}
	}
	return all
}

func (in *stickyInput) totalPartitions() int {
	n := 0
	for _, t := range in.sortedTopics {
		n += int(in.partitionsPerTopic[t])
	}
	return n
}
