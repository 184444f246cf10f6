package assignor

import (
	"cmp"
	"slices"
)

// general is Kafka's GeneralAssignmentBuilder, used when members subscribe
// to different topics: no fixed quota exists, so it keeps every valid
// claim, gives each unassigned partition to the least loaded member that
// can take it, then moves partitions from the most to the least loaded
// member until no move improves the balance, preferring to move a
// partition back to its previous-generation owner.
//
// Where Kafka iterates a HashMap or HashSet (members, a set of moved
// partitions) we go in member id or partition order, so ties can break
// differently from a Java run; Kafka's tests check only balance and
// stickiness in those cases.
type general struct {
	in             *stickyInput
	consumersOf    map[string][]string // topic2AllPotentialConsumers
	topicsOf       map[string][]string // consumer2AllPotentialTopics
	current        map[string][]TopicPartition
	owner          map[TopicPartition]string
	sortedAll      []TopicPartition
	revocationReqd bool
	moves          *partitionMovements
}

// prevOwner is Kafka's ConsumerGenerationPair: the newest claim older than
// the current generation.
type prevOwner struct {
	id         string
	generation int32
}

func (in *stickyInput) generalAssign() (Assignment, *partitionMovements) {
	g := &general{
		in:          in,
		consumersOf: map[string][]string{},
		topicsOf:    map[string][]string{},
		current:     map[string][]TopicPartition{},
		owner:       map[TopicPartition]string{},
		moves:       newPartitionMovements(),
	}
	for _, id := range in.ids {
		g.topicsOf[id] = []string{}
		for _, t := range sortedSet(in.members[id].Topics) {
			if _, ok := in.partitionsPerTopic[t]; ok {
				g.topicsOf[id] = append(g.topicsOf[id], t)
				g.consumersOf[t] = append(g.consumersOf[t], id)
			}
		}
		g.current[id] = slices.Clone(in.owned[id])
		for _, tp := range g.current[id] {
			g.owner[tp] = id
		}
	}
	// Partitions of the topics with fewest candidates go first: they have
	// the least room to be placed well.
	topics := slices.Clone(in.sortedTopics)
	slices.SortStableFunc(topics, func(a, b string) int {
		return cmp.Compare(len(g.consumersOf[a]), len(g.consumersOf[b]))
	})
	g.sortedAll = in.allPartitions(topics)

	prev := g.previousAssignment()
	g.keepOwned()
	var unassigned []TopicPartition
	for _, tp := range g.sortedAll {
		if _, ok := g.owner[tp]; !ok {
			unassigned = append(unassigned, tp)
		}
	}
	g.balance(prev, unassigned)
	return Assignment(g.current), g.moves
}

// previousAssignment is prepopulateCurrentAssignments: for each partition,
// the newest claim by a member behind the group's newest generation, so a
// partition can go back to where it was before a missed rebalance. Of two
// equal-generation claims the first seen wins, so members are visited in
// Kafka's HashMap order.
func (g *general) previousAssignment() map[TopicPartition]prevOwner {
	prev := map[TopicPartition]prevOwner{}
	for _, id := range javaHashMapOrder(g.in.ids) {
		m := g.in.members[id]
		if m.Generation >= g.in.maxGeneration {
			continue
		}
		for _, tp := range m.Owned {
			if p, ok := prev[tp]; !ok || m.Generation > p.generation {
				prev[tp] = prevOwner{id, m.Generation}
			}
		}
	}
	return prev
}

// keepOwned is assignOwnedPartitions: drop claims on topics the member no
// longer subscribes to; that is a revocation, so balancing may move more.
func (g *general) keepOwned() {
	for _, id := range g.in.ids {
		subscribed := g.topicsOf[id]
		g.current[id] = slices.DeleteFunc(g.current[id], func(tp TopicPartition) bool {
			if !slices.Contains(subscribed, tp.Topic) {
				delete(g.owner, tp)
				g.revocationReqd = true
				return true
			}
			return false
		})
	}
}

// sorted is Kafka's sortedCurrentSubscriptions: members by how many
// partitions they have, then by id.
func (g *general) sorted() []string {
	ids := make([]string, 0, len(g.current))
	for _, id := range g.in.ids {
		if _, ok := g.current[id]; ok {
			ids = append(ids, id)
		}
	}
	slices.SortStableFunc(ids, func(a, b string) int {
		return cmp.Compare(len(g.current[a]), len(g.current[b]))
	})
	return ids
}

func (g *general) maxAssignmentSize(id string) int {
	n := 0
	for _, t := range g.topicsOf[id] {
		n += int(g.in.partitionsPerTopic[t])
	}
	return n
}

// canTopicMove: a topic with fewer than two candidates cannot be rebalanced.
func (g *general) canTopicMove(t string) bool { return len(g.consumersOf[t]) >= 2 }

// canConsumerMove: a member that has all it can get, only of topics nobody
// else wants, is out of the balancing.
func (g *general) canConsumerMove(id string) bool {
	if len(g.current[id]) < g.maxAssignmentSize(id) {
		return true
	}
	for _, tp := range g.current[id] {
		if g.canTopicMove(tp.Topic) {
			return true
		}
	}
	return false
}

func (g *general) balance(prev map[TopicPartition]prevOwner, unassigned []TopicPartition) {
	sorted := g.sorted()
	initializing := len(sorted) == 0 || len(g.current[sorted[len(sorted)-1]]) == 0

	// each unassigned partition goes to the least loaded member that wants it
	for _, tp := range unassigned {
		for _, id := range g.sorted() {
			if slices.Contains(g.topicsOf[id], tp.Topic) {
				g.current[id] = append(g.current[id], tp)
				g.owner[tp] = id
				break
			}
		}
	}

	fixedTopic := func(tp TopicPartition) bool { return !g.canTopicMove(tp.Topic) }
	g.sortedAll = slices.DeleteFunc(g.sortedAll, fixedTopic)
	unassigned = slices.DeleteFunc(slices.Clone(unassigned), fixedTopic)

	fixed := map[string][]TopicPartition{}
	for _, id := range g.in.ids {
		if !g.canConsumerMove(id) {
			fixed[id] = g.current[id]
			delete(g.current, id)
		}
	}

	before := cloneAssignment(g.current)
	beforeOwner := make(map[TopicPartition]string, len(g.owner))
	for tp, id := range g.owner {
		beforeOwner[tp] = id
	}
	// Without a subscription change, first try moving only the new
	// partitions, which disturbs nobody's current work.
	if !g.revocationReqd {
		g.performReassignments(unassigned, prev)
	}
	performed := g.performReassignments(g.sortedAll, prev)
	// Moves must buy balance; if they did not, stickiness wins.
	if !initializing && performed && balanceScore(g.current) >= balanceScore(before) {
		g.current = before
		g.owner = beforeOwner
	}
	for id, tps := range fixed {
		g.current[id] = tps
	}
}

func cloneAssignment(a map[string][]TopicPartition) map[string][]TopicPartition {
	c := make(map[string][]TopicPartition, len(a))
	for id, tps := range a {
		c[id] = slices.Clone(tps)
	}
	return c
}

// balanceScore sums the size difference over every pair of members: 0 is
// perfectly balanced.
func balanceScore(a map[string][]TopicPartition) int {
	sizes := make([]int, 0, len(a))
	for _, tps := range a {
		sizes = append(sizes, len(tps))
	}
	score := 0
	for i := range sizes {
		for j := i + 1; j < len(sizes); j++ {
			score += max(sizes[i]-sizes[j], sizes[j]-sizes[i])
		}
	}
	return score
}

// isBalanced: sizes within one of each other, or no member short of
// partitions could take one from a member with two more.
func (g *general) isBalanced() bool {
	sorted := g.sorted()
	if len(sorted) == 0 {
		return true
	}
	if len(g.current[sorted[0]]) >= len(g.current[sorted[len(sorted)-1]])-1 {
		return true
	}
	for _, id := range sorted {
		n := len(g.current[id])
		if n == g.maxAssignmentSize(id) {
			continue
		}
		for _, t := range g.topicsOf[id] {
			for p := int32(0); p < g.in.partitionsPerTopic[t]; p++ {
				tp := TopicPartition{t, p}
				other, ok := g.owner[tp]
				if !ok || other == id {
					continue
				}
				if o, active := g.current[other]; active && n+1 < len(o) {
					return false
				}
			}
		}
	}
	return true
}

func (g *general) performReassignments(partitions []TopicPartition, prev map[TopicPartition]prevOwner) bool {
	performed := false
	for modified := true; modified; {
		modified = false
		for _, tp := range partitions {
			if g.isBalanced() {
				break
			}
			id, ok := g.owner[tp]
			if !ok {
				continue
			}
			n := len(g.current[id])
			// Back to the previous-generation owner if that helps: it may
			// still hold the partition's state. (Kafka does not check the
			// previous owner still wants the topic; we do, so that an
			// assignment never holds an unsubscribed topic.)
			if p, ok := prev[tp]; ok && slices.Contains(g.topicsOf[p.id], tp.Topic) {
				if pc, active := g.current[p.id]; active && n > len(pc)+1 {
					g.reassignTo(tp, p.id)
					performed, modified = true, true
					continue
				}
			}
			for _, other := range g.consumersOf[tp.Topic] {
				if oc, active := g.current[other]; active && n > len(oc)+1 {
					g.reassign(tp)
					performed, modified = true, true
					break
				}
			}
		}
	}
	return performed
}

// reassign moves tp to the least loaded member that wants it.
func (g *general) reassign(tp TopicPartition) {
	for _, id := range g.sorted() {
		if slices.Contains(g.topicsOf[id], tp.Topic) {
			g.reassignTo(tp, id)
			return
		}
	}
}

func (g *general) reassignTo(tp TopicPartition, to string) {
	from := g.owner[tp]
	// Moving one partition A->B after another went B->A would swap them
	// for nothing: move that earlier one back instead.
	tp = g.moves.actualPartitionToMove(tp, from, to)
	from = g.owner[tp]
	g.moves.move(tp, from, to)
	g.current[from] = slices.DeleteFunc(g.current[from], func(p TopicPartition) bool { return p == tp })
	g.current[to] = append(g.current[to], tp)
	g.owner[tp] = to
}
