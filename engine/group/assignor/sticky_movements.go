package assignor

import "slices"

// consumerPair is Kafka's ConsumerPair: a move from src to dst.
type consumerPair struct{ src, dst string }

// partitionMovements is Kafka's PartitionMovements: the moves made while
// balancing, so that the general path can undo a move instead of making
// its mirror image (two members swapping partitions of one topic gains no
// balance and loses stickiness twice).
type partitionMovements struct {
	byPartition map[TopicPartition]consumerPair
	byTopic     map[string]map[consumerPair][]TopicPartition
}

func newPartitionMovements() *partitionMovements {
	return &partitionMovements{
		byPartition: map[TopicPartition]consumerPair{},
		byTopic:     map[string]map[consumerPair][]TopicPartition{},
	}
}

func (m *partitionMovements) remove(tp TopicPartition) consumerPair {
	pair := m.byPartition[tp]
	delete(m.byPartition, tp)
	pairs := m.byTopic[tp.Topic]
	pairs[pair] = slices.DeleteFunc(pairs[pair], func(p TopicPartition) bool { return p == tp })
	if len(pairs[pair]) == 0 {
		delete(pairs, pair)
	}
	if len(pairs) == 0 {
		delete(m.byTopic, tp.Topic)
	}
	return pair
}

func (m *partitionMovements) add(tp TopicPartition, pair consumerPair) {
	m.byPartition[tp] = pair
	if m.byTopic[tp.Topic] == nil {
		m.byTopic[tp.Topic] = map[consumerPair][]TopicPartition{}
	}
	m.byTopic[tp.Topic][pair] = append(m.byTopic[tp.Topic][pair], tp)
}

// move records tp going from -> to; a partition that moves on again is
// recorded as one move from its first owner, and one that comes back home
// as no move at all.
func (m *partitionMovements) move(tp TopicPartition, from, to string) {
	if _, moved := m.byPartition[tp]; !moved {
		m.add(tp, consumerPair{from, to})
		return
	}
	earlier := m.remove(tp)
	if earlier.src != to {
		m.add(tp, consumerPair{earlier.src, to})
	}
}

// actualPartitionToMove is getTheActualPartitionToBeMoved: if some
// partition of the same topic already moved to -> from (from being tp's
// first owner this round), move that one back instead of tp. Kafka takes
// any of them (HashSet order); we take the lowest.
func (m *partitionMovements) actualPartitionToMove(tp TopicPartition, from, to string) TopicPartition {
	pairs, ok := m.byTopic[tp.Topic]
	if !ok {
		return tp
	}
	if earlier, moved := m.byPartition[tp]; moved {
		from = earlier.src
	}
	reverse := pairs[consumerPair{to, from}]
	if len(reverse) == 0 {
		return tp
	}
	return slices.MinFunc(reverse, Compare)
}

// isSticky is Kafka's check that no two members swapped partitions of one
// topic (a cycle of length two among the moves).
func (m *partitionMovements) isSticky() bool {
	for _, pairs := range m.byTopic {
		for pair := range pairs {
			if _, back := pairs[consumerPair{pair.dst, pair.src}]; back {
				return false
			}
		}
	}
	return true
}
