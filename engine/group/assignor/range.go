package assignor

// Range is the classic protocol's client-side "range" assignor
// (org.apache.kafka.clients.consumer.RangeAssignor), run by the group's
// leader member. It works topic by topic: the topic's partitions in
// numeric order are cut into contiguous ranges, one per subscribed member
// in compareStaticFirst order, and the first (partitions % members)
// members get one partition more. Because every topic is cut the same
// way, members subscribed to the same topics with equal partition counts
// get the same partition numbers of each (co-partitioning, which joins
// rely on); the price is imbalance across topics, since the first members
// get the extra partition of every topic.
//
// Difference from Kafka: no rack-aware assignment (KIP-881). Kafka uses it
// only when consumers set client.rack AND the partitions' replicas have
// broker racks that differ between partitions; Topics carries partition
// counts, not replica racks, so Member.Rack is ignored here. That is what
// Kafka itself does when brokers have no broker.rack.
type Range struct{}

func (Range) Name() string { return "range" }

func (Range) Assign(topics Topics, members []Member) (Assignment, error) {
	assignment := assignmentWithEveryMember(members)
	sorted := sortedStaticFirst(members)
	for _, topic := range allSubscribedTopics(members) {
		// Kafka skips topics with no metadata (unknown, or no partitions):
		// their subscribers simply get nothing from them.
		n := topics[topic]
		if n <= 0 {
			continue
		}
		subscribers := membersSubscribedTo(topic, sorted)
		perMember := n / int32(len(subscribers))
		extra := n % int32(len(subscribers))
		next := int32(0)
		for i, m := range subscribers {
			count := perMember
			if int32(i) < extra {
				count++
			}
			for p := next; p < next+count; p++ {
				assignment[m.ID] = append(assignment[m.ID], TopicPartition{topic, p})
			}
			next += count
		}
	}
	return assignment.normalize(), nil
}
