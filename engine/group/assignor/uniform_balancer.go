package assignor

import (
	"cmp"
	"slices"
)

// uniformLoadBalancer is Kafka's MemberAssignmentBalancer: over one topic's
// subscribers, sorted by partition count (ties by member number), it
// hands out the least loaded member to give a partition to and the most
// loaded one to take a partition from, walking each end as a range of
// members with the same count so that equal members take turns rather
// than one member taking everything.
//
// The least loaded range [0, leastEnd) grows rightwards, the most loaded
// range [mostStart, mostEnd) leftwards; the members are balanced once
// the two ranges' counts are within one.
type uniformLoadBalancer struct {
	sizes  []int // partition counts by member number, shared with the builder
	sorted []int // the subscribers, least loaded first

	leastEnd   int // exclusive
	leastCount int // the least loaded range's count before it was handed out to
	nextLeast  int

	mostStart int // inclusive
	mostEnd   int // exclusive; members with nothing to give are moved past it
	mostCount int // the most loaded range's count before it gave anything up
	nextMost  int
}

// reset starts over with a topic's subscribers (at least one) and returns
// the difference between the most and the least loaded one.
func (b *uniformLoadBalancer) reset(members []int) int {
	b.sorted = append(b.sorted[:0], members...)
	slices.SortFunc(b.sorted, func(x, y int) int {
		return cmp.Or(cmp.Compare(b.sizes[x], b.sizes[y]), cmp.Compare(x, y))
	})
	n := len(b.sorted)
	first, last := b.sizes[b.sorted[0]], b.sizes[b.sorted[n-1]]
	b.leastEnd, b.leastCount, b.nextLeast = 0, first-1, 0
	b.mostStart, b.mostEnd, b.mostCount, b.nextMost = n, n, last+1, n-1
	return last - first
}

// nextLeastLoaded returns the member to give the next partition to and
// counts it as given: each member of the least loaded range gets one in
// turn; when all have, the range's count goes up by one and it takes in
// the members that now have as many.
func (b *uniformLoadBalancer) nextLeastLoaded() int {
	if b.nextLeast >= b.leastEnd {
		b.leastCount++
		for b.leastEnd < len(b.sorted) && b.sizes[b.sorted[b.leastEnd]] == b.leastCount {
			b.leastEnd++
		}
		b.nextLeast = 0
	}
	m := b.sorted[b.nextLeast]
	b.nextLeast++
	return m
}

// nextMostLoaded returns the member to take the next partition from, or
// -1 when no member is left that could give one up.
func (b *uniformLoadBalancer) nextMostLoaded() int {
	if b.nextMost < b.mostStart {
		if b.mostEnd <= b.mostStart && b.mostStart > 0 {
			// Every member of the range was excluded: restart the count
			// from the next member down, or the range would not grow.
			b.mostCount = b.sizes[b.sorted[b.mostStart-1]]
		} else {
			b.mostCount--
		}
		for b.mostStart > 0 && b.sizes[b.sorted[b.mostStart-1]] == b.mostCount {
			b.mostStart--
		}
		b.nextMost = b.mostEnd - 1
	}
	if b.nextMost < 0 {
		return -1
	}
	m := b.sorted[b.nextMost]
	b.nextMost--
	return m
}

// excludeMostLoaded drops the member nextMostLoaded just returned from
// the most loaded range: it has nothing of this topic to give up.
func (b *uniformLoadBalancer) excludeMostLoaded() {
	i, j := b.nextMost+1, b.mostEnd-1
	b.sorted[i], b.sorted[j] = b.sorted[j], b.sorted[i]
	b.mostEnd--
}

// balanced reports whether the two ranges' counts are within one:
// moving a partition between them would not improve the balance.
func (b *uniformLoadBalancer) balanced() bool {
	return b.mostCount-b.leastCount <= 1
}
