package assignor

import (
	"cmp"
	"slices"
)

// uniformMaxBalanceIterations bounds the final balancing rounds, as Kafka's
// MAX_ITERATION_COUNT does: when a topic's subscribers all subscribe to
// the same topics one round balances it, but overlapping, non-identical
// subscriptions can take many rounds, each roughly halving the imbalance.
const uniformMaxBalanceIterations = 16

// uniformHetero is Kafka's UniformHeterogeneousAssignmentBuilder (as
// reworked in KAFKA-17710, Kafka 4.0), for members with different
// subscriptions. Every member keeps what it owns of the topics it still
// subscribes to; unowned partitions go, topic by topic, to the topic's
// least loaded subscribers; then partitions move, topic by topic, from a
// topic's most loaded subscribers to its least loaded ones until no move
// improves the balance. Members are numbered in id order and ties go to
// the lower number, which is what makes the result deterministic.
type uniformHetero struct {
	topics      Topics
	ids         []string
	subscribers map[string][]int // each subscribed topic's members, ascending
	owners      map[string][]int // each partition's member, -1 for none
	sizes       []int            // each member's partition count
}

func (u Uniform) assignHeterogeneous(topics Topics, ms []Member) (Assignment, error) {
	h := &uniformHetero{
		topics:      topics,
		subscribers: map[string][]int{},
		owners:      map[string][]int{},
		sizes:       make([]int, len(ms)),
	}
	for i, m := range ms {
		h.ids = append(h.ids, m.ID)
		for _, t := range uniformSortedTopics(uniformTopicSet(m.Topics)) {
			n, err := uniformPartitionCount(topics, t)
			if err != nil {
				return nil, err
			}
			if h.owners[t] == nil {
				h.owners[t] = slices.Repeat([]int{-1}, int(n))
			}
			h.subscribers[t] = append(h.subscribers[t], i)
		}
	}
	if len(h.subscribers) == 0 {
		// Kafka returns an empty assignment, not one empty entry per member.
		return Assignment{}, nil
	}
	h.keepOwned(ms)
	h.assignUnowned()
	h.balance()
	return h.assignment(), nil
}

// keepOwned is Kafka's maybeRevokePartitions: a member keeps every owned
// partition of a topic it still subscribes to, however many; balancing
// later moves what must move. Partitions of topics it dropped are revoked.
func (h *uniformHetero) keepOwned(ms []Member) {
	for i, m := range ms {
		subscribed := uniformTopicSet(m.Topics)
		for _, tp := range m.Owned {
			owners := h.owners[tp.Topic]
			// A partition beyond the topic's count cannot happen in Kafka,
			// whose topics never shrink; loglab drops it.
			if !subscribed[tp.Topic] || int(tp.Partition) >= len(owners) || owners[tp.Partition] == i {
				continue
			}
			h.assign(tp.Topic, tp.Partition, i)
		}
	}
}

// assignUnowned is Kafka's assignRemainingPartitions: topics in
// assignment order, each topic's unowned partitions ascending, each to the
// topic's least loaded subscriber.
func (h *uniformHetero) assignUnowned() {
	var pending []string
	for _, t := range h.subscribedTopics() {
		if slices.Contains(h.owners[t], -1) {
			pending = append(pending, t)
		}
	}
	b := &uniformLoadBalancer{sizes: h.sizes}
	for _, t := range h.sortTopics(pending) {
		b.reset(h.subscribers[t])
		for p, owner := range h.owners[t] {
			if owner == -1 {
				h.assign(t, int32(p), b.nextLeastLoaded())
			}
		}
	}
}

// balance is Kafka's balance/balanceTopics: round after round over the
// topics with two or more subscribers, rebalance each; stop when a whole
// round moved nothing, or after uniformMaxBalanceIterations rounds.
func (h *uniformHetero) balance() {
	var movable []string
	for _, t := range h.subscribedTopics() {
		if len(h.subscribers[t]) >= 2 {
			movable = append(movable, t)
		}
	}
	movable = h.sortTopics(movable)
	b := &uniformLoadBalancer{sizes: h.sizes}
	lastMoved := -1
	for range uniformMaxBalanceIterations {
		for i, t := range movable {
			if i == lastMoved {
				return // a whole round since the last move: nothing more to do
			}
			if h.balanceTopic(t, b) > 0 || lastMoved == -1 {
				lastMoved = i
			}
		}
	}
}

// balanceTopic is Kafka's balanceTopic: move the topic's partitions from
// its most loaded subscribers (each giving up its highest-numbered one)
// to its least loaded, until they are within one partition of each other
// or the most loaded have none of this topic left to give.
func (h *uniformHetero) balanceTopic(t string, b *uniformLoadBalancer) int {
	if b.reset(h.subscribers[t]) <= 1 {
		return 0
	}
	owners := h.owners[t]
	// The topic's partitions grouped by owner, each group ascending: a
	// member gives up the last partition of its group.
	parts := make([]int32, len(owners))
	for p := range parts {
		parts[p] = int32(p)
	}
	slices.SortFunc(parts, func(a, b int32) int {
		if owners[a] != owners[b] {
			return owners[a] - owners[b]
		}
		return int(a - b)
	})
	start, end := map[int]int{}, map[int]int{}
	for i, p := range parts {
		if _, ok := start[owners[p]]; !ok {
			start[owners[p]] = i
		}
		end[owners[p]] = i + 1
	}

	moved := 0
	for !b.balanced() {
		from := -1
		for {
			from = b.nextMostLoaded()
			if from == -1 {
				break
			}
			if e, ok := end[from]; !ok || e-start[from] <= 0 {
				b.excludeMostLoaded() // nothing of this topic to give up
				continue
			}
			break
		}
		if from == -1 {
			break
		}
		end[from]--
		p := parts[end[from]]
		to := b.nextLeastLoaded()
		if b.balanced() {
			break
		}
		h.assign(t, p, to)
		moved++
	}
	return moved
}

// assign gives partition p of t to member m, taking it from its owner.
func (h *uniformHetero) assign(t string, p int32, m int) {
	if old := h.owners[t][p]; old != -1 {
		h.sizes[old]--
	}
	h.owners[t][p] = m
	h.sizes[m]++
}

// sortTopics orders topics as Kafka's topicComparator: most partitions
// per subscriber first, then fewest subscribers, then topic id (loglab
// has no topic ids: topic name). Topics with more partitions to share
// out go first, where they are most likely to balance.
func (h *uniformHetero) sortTopics(ts []string) []string {
	out := slices.Clone(ts)
	slices.SortFunc(out, func(a, b string) int {
		pa, sa := int64(h.topics[a]), int64(len(h.subscribers[a]))
		pb, sb := int64(h.topics[b]), int64(len(h.subscribers[b]))
		// pb/sb vs pa/sa without floating point.
		if x, y := pb*sa, pa*sb; x != y {
			return cmp.Compare(x, y)
		}
		if sa != sb {
			return cmp.Compare(sa, sb)
		}
		return cmp.Compare(a, b)
	})
	return out
}

func (h *uniformHetero) subscribedTopics() []string {
	s := make(map[string]bool, len(h.subscribers))
	for t := range h.subscribers {
		s[t] = true
	}
	return uniformSortedTopics(s)
}

// assignment reads each member's partitions off the owner table; every
// member has an entry, as in Kafka.
func (h *uniformHetero) assignment() Assignment {
	out := make(Assignment, len(h.ids))
	for _, id := range h.ids {
		out[id] = []TopicPartition{}
	}
	for _, t := range h.subscribedTopics() {
		for p, m := range h.owners[t] {
			if m != -1 {
				out[h.ids[m]] = append(out[h.ids[m]], TopicPartition{t, int32(p)})
			}
		}
	}
	return out
}

func uniformSortedTopics(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}
