// Package assignor computes consumer group assignments: the client-side
// assignors of the classic protocol (range, roundrobin, sticky,
// cooperative-sticky), which the group's leader member runs, and the
// server-side assignors of KIP-848 (uniform, range), which the group
// coordinator runs. They are pure functions of their input, ported from
// Kafka's own behaviour and checked against the cases of Kafka's own
// assignor tests, so that a learner sees exactly the assignment Kafka
// would make.
package assignor

import (
	"cmp"
	"fmt"
	"slices"
)

// TopicPartition is one partition of a topic.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// Compare orders partitions by topic, then partition, as Kafka's tests
// list them.
func Compare(a, b TopicPartition) int {
	return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
}

// Member is one group member as an assignor sees it: what it subscribes
// to and, for the sticky assignors and KIP-848, what it owns now.
type Member struct {
	ID         string // the member id
	InstanceID string // group.instance.id; "" for a dynamic member
	Rack       string // client.rack; "" when unknown
	Topics     []string
	// Owned is what the member owns now (the classic protocol's
	// ownedPartitions, KIP-848's current assignment), with Generation the
	// generation it was owned in (-1 when unknown).
	Owned      []TopicPartition
	Generation int32
}

// Topics is the cluster metadata an assignor reads: each topic's
// partition count. Look topics up in it; never range over it for order.
type Topics map[string]int32

// Assignment is each member's partitions, by member id, each list sorted
// with Compare.
type Assignment map[string][]TopicPartition

// Assignor is one assignment strategy, named as Kafka names it in
// partition.assignment.strategy or group.remote.assignor.
type Assignor interface {
	Name() string
	Assign(topics Topics, members []Member) (Assignment, error)
}

// sortedMemberIDs lists member ids in order: an assignor's output must not
// depend on the order members arrive in.
func sortedMemberIDs(members []Member) []string {
	ids := make([]string, len(members))
	for i, m := range members {
		ids[i] = m.ID
	}
	slices.Sort(ids)
	return ids
}

// normalize sorts every member's list, so assignments compare equal
// however an assignor built them.
func (a Assignment) normalize() Assignment {
	for id := range a {
		slices.SortFunc(a[id], Compare)
	}
	return a
}
