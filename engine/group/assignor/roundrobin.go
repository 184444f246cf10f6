package assignor

import "slices"

// RoundRobin is the classic protocol's client-side "roundrobin" assignor
// (org.apache.kafka.clients.consumer.RoundRobinAssignor). It lays out all
// partitions of all subscribed topics (topics by name, partitions in
// numeric order) and deals them one at a time to the members in
// compareStaticFirst order, going round in a circle and passing over a
// member not subscribed to the partition's topic. Unlike range it
// balances across topics, so with identical subscriptions member counts
// differ by at most one; with differing subscriptions it can still be
// unbalanced, which is what the sticky assignor was written to fix.
type RoundRobin struct{}

func (RoundRobin) Name() string { return "roundrobin" }

func (RoundRobin) Assign(topics Topics, members []Member) (Assignment, error) {
	assignment := assignmentWithEveryMember(members)
	circle := sortedStaticFirst(members)
	next := 0 // the member the circle points at, as Kafka's CircularIterator
	for _, topic := range allSubscribedTopics(members) {
		// Topics with no metadata contribute no partitions.
		for p := int32(0); p < topics[topic]; p++ {
			// Some member subscribes to topic, so this stops.
			for !slices.Contains(circle[next].Topics, topic) {
				next = (next + 1) % len(circle)
			}
			id := circle[next].ID
			assignment[id] = append(assignment[id], TopicPartition{topic, p})
			next = (next + 1) % len(circle)
		}
	}
	return assignment.normalize(), nil
}
