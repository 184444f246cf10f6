package assignor

import "slices"

// Rack-aware range assignment (KIP-881, Kafka 3.5): a consumer fetching
// from a replica in its own rack (KIP-392) saves cross-rack traffic, so
// when consumers give client.rack the range assignor first gives each
// consumer the partitions with a replica on its rack, as far as that
// keeps Kafka's range guarantees: each topic stays balanced exactly as the
// plain assignment would be, and topics with the same subscribers and
// partition count stay co-partitioned, which comes before rack alignment.
// What cannot be aligned is then assigned by plain ranges. Kafka counts
// every replica, in the ISR or not: consumers do not rebalance on ISR
// changes, and a lagging replica is expected to rejoin soon.

func (r Range) newRangeTopicState(topic string, partitions int32, consumers []Member) *rangeTopicState {
	s := &rangeTopicState{
		topic:           topic,
		consumers:       consumers,
		assigned:        map[string]int32{},
		perConsumer:     partitions / int32(len(consumers)),
		remainingExtras: partitions % int32(len(consumers)),
	}
	for p := int32(0); p < partitions; p++ {
		s.unassigned = append(s.unassigned, TopicPartition{topic, p})
	}
	var consumerRacks, partitionRacks []string
	for _, c := range consumers {
		if c.Rack != "" {
			consumerRacks = append(consumerRacks, c.Rack)
		}
	}
	if len(consumerRacks) > 0 {
		s.partitionRacks = map[TopicPartition][]string{}
		for _, tp := range s.unassigned {
			racks := slices.DeleteFunc(slices.Clone(r.ReplicaRacks[tp]), func(rack string) bool { return rack == "" })
			slices.Sort(racks)
			racks = slices.Compact(racks)
			s.partitionRacks[tp] = racks
			partitionRacks = append(partitionRacks, racks...)
		}
		slices.Sort(partitionRacks)
		partitionRacks = slices.Compact(partitionRacks)
	}
	s.needsRackAware = r.useRackAwareAssignment(consumerRacks, partitionRacks, s)
	return s
}

// useRackAwareAssignment is Kafka's test for a topic: some consumer rack
// must hold a replica, and it is only worth it when partitions differ in
// their racks (with every partition on every rack, any assignment is
// aligned already).
func (r Range) useRackAwareAssignment(consumerRacks, partitionRacks []string, s *rangeTopicState) bool {
	if !slices.ContainsFunc(consumerRacks, func(rack string) bool { return slices.Contains(partitionRacks, rack) }) {
		return false
	}
	if r.preferRackAwareLogic {
		return true
	}
	for _, tp := range s.unassigned {
		if !slices.Equal(s.partitionRacks[tp], partitionRacks) {
			return true
		}
	}
	return false
}

// racksMatch: a consumer without a rack matches every partition.
func (s *rangeTopicState) racksMatch(c Member, tp TopicPartition) bool {
	return c.Rack == "" || slices.Contains(s.partitionRacks[tp], c.Rack)
}

// assignWithRackMatching runs the rack-aware pass: topics with the same
// subscribers and partition count are assigned together, partition number
// by partition number, to keep them co-partitioned; a topic alone is
// assigned by ranges restricted to rack-matching partitions.
func assignWithRackMatching(states []*rangeTopicState, assignment Assignment) {
	done := make([]bool, len(states))
	for i, s := range states {
		if done[i] {
			continue
		}
		group := []*rangeTopicState{s}
		for j := i + 1; j < len(states); j++ {
			if !done[j] && sameConsumers(s, states[j]) && len(s.partitionRacks) == len(states[j].partitionRacks) {
				group = append(group, states[j])
				done[j] = true
			}
		}
		if len(group) > 1 {
			assignCoPartitionedWithRackMatching(group, len(s.partitionRacks), assignment)
		} else if s.needsRackAware {
			s.assignRanges(s.racksMatch, assignment)
		}
	}
}

func sameConsumers(a, b *rangeTopicState) bool {
	return slices.EqualFunc(a.consumers, b.consumers, func(x, y Member) bool { return x.ID == y.ID })
}

// assignCoPartitionedWithRackMatching gives partition p of every topic of
// the group to the first consumer whose rack holds p of all of them and
// that may still take one of each.
func assignCoPartitionedWithRackMatching(group []*rangeTopicState, partitions int, assignment Assignment) {
	remaining := slices.Clone(group[0].consumers)
	for p := int32(0); p < int32(partitions); p++ {
		i := slices.IndexFunc(remaining, func(c Member) bool {
			for _, s := range group {
				if !s.racksMatch(c, TopicPartition{s.topic, p}) || s.maxAssignable(c.ID) == 0 {
					return false
				}
			}
			return true
		})
		if i < 0 {
			continue
		}
		c := remaining[i]
		for _, s := range group {
			s.assign(c.ID, []TopicPartition{{s.topic, p}}, assignment)
		}
		if !slices.ContainsFunc(group, func(s *rangeTopicState) bool { return s.maxAssignable(c.ID) > 0 }) {
			remaining = slices.Delete(remaining, i, i+1)
			if len(remaining) == 0 {
				return
			}
		}
	}
}
