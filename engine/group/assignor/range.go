package assignor

import "slices"

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
// Given ReplicaRacks, and consumers that set client.rack, it is also
// rack-aware as Kafka's is since 3.5 (KIP-881, see rangerack.go).
type Range struct {
	// ReplicaRacks gives the broker.rack of each partition's replicas
	// (those with a rack); nil when brokers have no racks, which turns
	// rack-aware assignment off as in Kafka.
	ReplicaRacks map[TopicPartition][]string

	// preferRackAwareLogic makes the rack-aware pass run even when every
	// partition has a replica on every rack: Kafka's test-only switch
	// (AbstractPartitionAssignor.preferRackAwareLogic), so its tests can
	// check that pass leaves the plain range assignment alone.
	preferRackAwareLogic bool
}

func (Range) Name() string { return "range" }

func (r Range) Assign(topics Topics, members []Member) (Assignment, error) {
	assignment := assignmentWithEveryMember(members)
	sorted := sortedStaticFirst(members)
	var states []*rangeTopicState
	for _, topic := range allSubscribedTopics(members) {
		// Kafka skips topics with no metadata (unknown, or no partitions):
		// their subscribers simply get nothing from them.
		if topics[topic] <= 0 {
			continue
		}
		states = append(states, r.newRangeTopicState(topic, topics[topic], membersSubscribedTo(topic, sorted)))
	}
	if slices.ContainsFunc(states, func(s *rangeTopicState) bool { return s.needsRackAware }) {
		assignWithRackMatching(states, assignment)
	}
	for _, s := range states {
		s.assignRanges(func(Member, TopicPartition) bool { return true }, assignment)
	}
	return assignment.normalize(), nil
}

// rangeTopicState is one topic's assignment in progress: its partitions
// not assigned yet, and how many each subscriber may still take so that
// the topic stays balanced (the first partitions%subscribers members take
// one more).
type rangeTopicState struct {
	topic           string
	consumers       []Member // the subscribers, in compareStaticFirst order
	unassigned      []TopicPartition
	assigned        map[string]int32
	perConsumer     int32
	remainingExtras int32

	partitionRacks map[TopicPartition][]string // nil when no subscriber has a rack
	needsRackAware bool
}

// maxAssignable is how many more partitions of the topic consumer may take.
func (s *rangeTopicState) maxAssignable(consumer string) int32 {
	limit := s.perConsumer - s.assigned[consumer]
	if s.remainingExtras > 0 {
		limit++
	}
	return max(0, limit)
}

func (s *rangeTopicState) assign(consumer string, tps []TopicPartition, assignment Assignment) {
	assignment[consumer] = append(assignment[consumer], tps...)
	s.assigned[consumer] += int32(len(tps))
	if s.assigned[consumer] > s.perConsumer {
		s.remainingExtras--
	}
	s.unassigned = slices.DeleteFunc(s.unassigned, func(tp TopicPartition) bool { return slices.Contains(tps, tp) })
}

// assignRanges gives each consumer in order the first unassigned
// partitions mayAssign allows, up to what it may still take. With every
// partition allowed this is the plain range assignment.
func (s *rangeTopicState) assignRanges(mayAssign func(Member, TopicPartition) bool, assignment Assignment) {
	for _, c := range s.consumers {
		if len(s.unassigned) == 0 {
			return
		}
		var tps []TopicPartition
		for _, tp := range s.unassigned {
			if int32(len(tps)) == s.maxAssignable(c.ID) {
				break
			}
			if mayAssign(c, tp) {
				tps = append(tps, tp)
			}
		}
		if len(tps) > 0 {
			s.assign(c.ID, tps, assignment)
		}
	}
}
