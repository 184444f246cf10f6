package assignor

import (
	"cmp"
	"fmt"
	"slices"
)

// Uniform is KIP-848's server-side "uniform" assignor (Kafka 4.x
// UniformAssignor), the group coordinator's default for consumer groups.
// It spreads partitions so members differ by at most one partition where
// their subscriptions allow it, and keeps every member's current
// partitions where balance allows: Kafka puts balance before stickiness.
//
// Like Kafka it picks one of two builders: when every member subscribes to
// the same topics the homogeneous one (a single pass over quotas), else
// the heterogeneous one (which has to balance each topic among only the
// members subscribed to it).
type Uniform struct {
	// TopicOrder is the order the assignor walks topics in when it hands
	// out unassigned partitions. Kafka walks a HashSet of topic ids, so its
	// order is the hash order of the (random) topic ids: fixed for one
	// cluster, arbitrary across clusters. loglab has no topic ids; topics
	// not listed here are walked by name after the listed ones.
	TopicOrder []string
}

// Name is the value of group.remote.assignor / group.consumer.assignors.
func (Uniform) Name() string { return "uniform" }

// Assign computes the group's target assignment. Members are walked in
// member id order (Kafka walks its member map, a HashMap in the
// coordinator and a TreeMap in Kafka's tests); each member's Owned list is
// walked topic by topic in the order it lists them, which is how Kafka
// walks a member's current assignment map.
func (u Uniform) Assign(topics Topics, members []Member) (Assignment, error) {
	if len(members) == 0 {
		return Assignment{}, nil
	}
	ms := uniformSortedMembers(members)
	var out Assignment
	var err error
	if uniformSameSubscriptions(ms) {
		out, err = u.assignHomogeneous(topics, ms)
	} else {
		out, err = u.assignHeterogeneous(topics, ms)
	}
	if err != nil {
		return nil, err
	}
	return out.normalize(), nil
}

// uniformSortedMembers sorts members by id so the result does not depend on the
// order they arrive in.
func uniformSortedMembers(members []Member) []Member {
	ms := slices.Clone(members)
	slices.SortFunc(ms, func(a, b Member) int { return cmp.Compare(a.ID, b.ID) })
	return ms
}

// uniformSameSubscriptions is Kafka's SubscriptionType.HOMOGENEOUS: every member
// subscribes to the same set of topics.
func uniformSameSubscriptions(ms []Member) bool {
	first := uniformTopicSet(ms[0].Topics)
	for _, m := range ms[1:] {
		s := uniformTopicSet(m.Topics)
		if len(s) != len(first) {
			return false
		}
		for t := range s {
			if !first[t] {
				return false
			}
		}
	}
	return true
}

func uniformTopicSet(ts []string) map[string]bool {
	s := make(map[string]bool, len(ts))
	for _, t := range ts {
		s[t] = true
	}
	return s
}

// orderTopics returns the set's topics in the assignor's walking order:
// TopicOrder first, then the rest by name.
func (u Uniform) orderTopics(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	seen := make(map[string]bool, len(set))
	for _, t := range u.TopicOrder {
		if set[t] && !seen[t] {
			out = append(out, t)
			seen[t] = true
		}
	}
	var rest []string
	for t := range set {
		if !seen[t] {
			rest = append(rest, t)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// uniformPartitionCount looks a subscribed topic up, failing as Kafka's
// assignor does when a member subscribes to a topic the metadata does not
// have. (Kafka's coordinator never lets that happen: it resolves
// subscriptions to topic ids first and drops names that do not exist. A
// caller must do the same.)
func uniformPartitionCount(topics Topics, topic string) (int32, error) {
	n, ok := topics[topic]
	if !ok {
		return 0, fmt.Errorf("members are subscribed to topic %s which doesn't exist in the topic metadata", topic)
	}
	return n, nil
}

// uniformOwnedByTopic groups a member's Owned list by topic, in the order the
// topics first appear, each topic's partitions ascending (the order Java
// walks a small HashSet of partition numbers in).
func uniformOwnedByTopic(owned []TopicPartition) (order []string, parts map[string][]int32) {
	parts = make(map[string][]int32)
	for _, tp := range owned {
		if _, ok := parts[tp.Topic]; !ok {
			order = append(order, tp.Topic)
		}
		if !slices.Contains(parts[tp.Topic], tp.Partition) {
			parts[tp.Topic] = append(parts[tp.Topic], tp.Partition)
		}
	}
	for _, t := range order {
		slices.Sort(parts[t])
	}
	return order, parts
}

// uniformOwnedPartitions is Kafka's GroupSpec.isPartitionAssigned: which
// partitions some member of the group owns now.
func uniformOwnedPartitions(ms []Member) map[TopicPartition]bool {
	a := make(map[TopicPartition]bool)
	for _, m := range ms {
		for _, tp := range m.Owned {
			a[tp] = true
		}
	}
	return a
}
