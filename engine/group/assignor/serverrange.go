package assignor

import "fmt"

// ServerRange is KIP-848's server-side "range" assignor
// (org.apache.kafka.coordinator.group.assignor.RangeAssignor), which the
// group coordinator runs to compute a consumer group's target assignment
// (group.remote.assignor=range). Like the classic range assignor it cuts
// each topic into contiguous ranges over its subscribers in
// compareStaticFirst order, the first (partitions % subscribers) getting
// one more, so members with the same subscriptions are co-partitioned.
//
// It is not sticky: it ignores Member.Owned and recomputes the ranges from
// scratch every time. Before KAFKA-16944 (Kafka 3.9) it tried to keep partitions with
// their current owners, but KAFKA-16944 (3.9, so all of 4.x) dropped that
// because stickiness and co-partitioning could not both be kept
// efficiently. What stability remains comes from static members: ordering
// by group.instance.id gives a restarted static member its old range.
//
// Unlike the classic one it refuses a subscription to a topic that does
// not exist (Kafka's PartitionAssignorException) instead of skipping it.
type ServerRange struct{}

func (ServerRange) Name() string { return "range" }

func (ServerRange) Assign(topics Topics, members []Member) (Assignment, error) {
	assignment := assignmentWithEveryMember(members)
	sorted := sortedStaticFirst(members)
	for _, topic := range allSubscribedTopics(members) {
		n, ok := topics[topic]
		if !ok {
			return nil, fmt.Errorf("member is subscribed to a non-existent topic %q", topic)
		}
		subscribers := membersSubscribedTo(topic, sorted)
		minQuota := n / int32(len(subscribers))
		extra := n % int32(len(subscribers))
		next := int32(0)
		for _, m := range subscribers {
			quota := minQuota
			if extra > 0 {
				quota++
				extra--
			}
			for p := next; p < next+quota; p++ {
				assignment[m.ID] = append(assignment[m.ID], TopicPartition{topic, p})
			}
			next += quota
		}
	}
	return assignment.normalize(), nil
}
