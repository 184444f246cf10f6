package assignor

import (
	"fmt"
	"slices"
)

// constrained is Kafka's ConstrainedAssignmentBuilder, the fast path taken
// when every member subscribes to the same topics. With one shared pool of
// partitions, a balanced assignment gives every member minQuota or maxQuota
// partitions, and exactly total%members of them get maxQuota; so each
// member first keeps up to its quota of what it owned, and the rest is
// dealt round-robin to the members still short.
//
// Rack-aware assignment is not ported: Topics carries no replica racks, and
// without partition racks Kafka does not use it either (RackInfo).
type constrained struct {
	in              *stickyInput
	minQuota        int
	maxQuota        int
	expectedOverMin int // members that must end with maxQuota
	currentOverMin  int
	assignment      map[string][]TopicPartition
	assigned        map[TopicPartition]bool
	maybeRevoked    map[TopicPartition]string // owned beyond quota, by whom
	underMin        []string                  // unfilled, below minQuota
	exactlyMin      []string                  // at minQuota, may still get one more
	transferring    map[TopicPartition]string
}

func (in *stickyInput) constrainedAssign() (Assignment, map[TopicPartition]string, error) {
	total, n := in.totalPartitions(), len(in.ids)
	c := &constrained{
		in:              in,
		minQuota:        total / n,
		maxQuota:        (total + n - 1) / n,
		expectedOverMin: total % n,
		assignment:      map[string][]TopicPartition{},
		assigned:        map[TopicPartition]bool{},
		maybeRevoked:    map[TopicPartition]string{},
		transferring:    map[TopicPartition]string{},
	}
	for _, id := range in.ids {
		c.assignment[id] = []TopicPartition{}
	}
	c.assignOwned()
	var unassigned []TopicPartition
	for _, tp := range in.allPartitions(in.sortedTopics) {
		if !c.assigned[tp] {
			unassigned = append(unassigned, tp)
		}
	}
	slices.Sort(c.underMin)
	slices.Sort(c.exactlyMin)
	if err := c.assignRoundRobin(unassigned); err != nil {
		return nil, nil, err
	}
	if err := c.verifyUnfilledMembers(); err != nil {
		return nil, nil, err
	}
	return Assignment(c.assignment), c.transferring, nil
}

// assignOwned is assignOwnedPartitions: keep what each member owned, up to
// the quota it can still have.
//
// Which members keep maxQuota depends on the order they are visited in:
// Kafka visits them in HashMap order, and so do we (javaHashMapOrder).
func (c *constrained) assignOwned() {
	for _, id := range javaHashMapOrder(c.in.ids) {
		owned := slices.Clone(c.in.owned[id])
		// Kafka keeps the lowest partition numbers first, across topics.
		slices.SortFunc(owned, func(a, b TopicPartition) int {
			if a.Partition != b.Partition {
				return int(a.Partition - b.Partition)
			}
			return Compare(a, b)
		})
		owned = slices.DeleteFunc(owned, func(tp TopicPartition) bool { return c.in.multiOwned[tp] })
		keep := len(owned)
		switch {
		case len(owned) < c.minQuota:
			c.underMin = append(c.underMin, id)
		case len(owned) >= c.maxQuota && c.currentOverMin < c.expectedOverMin:
			keep = c.maxQuota
			c.currentOverMin++
			if c.currentOverMin == c.expectedOverMin {
				// every maxQuota slot is taken: members at minQuota are full
				c.exactlyMin = nil
			}
		default:
			keep = c.minQuota
			if c.currentOverMin < c.expectedOverMin {
				c.exactlyMin = append(c.exactlyMin, id)
			}
		}
		for _, tp := range owned[:keep] {
			c.assignment[id] = append(c.assignment[id], tp)
			c.assigned[tp] = true
		}
		for _, tp := range owned[keep:] {
			c.maybeRevoked[tp] = id
		}
	}
}

// assignRoundRobin deals the rest to members below minQuota in turn, then
// tops up members at minQuota to maxQuota until expectedOverMin have it.
func (c *constrained) assignRoundRobin(unassigned []TopicPartition) error {
	pos := 0 // Kafka's iterator over underMin
	for i, tp := range unassigned {
		var id string
		switch {
		case pos < len(c.underMin):
			id = c.underMin[pos]
			pos++
		case len(c.underMin) == 0 && len(c.exactlyMin) == 0:
			return fmt.Errorf("sticky: no more unfilled consumers to be assigned, %d partitions left", len(unassigned)-i)
		case len(c.underMin) == 0:
			id = c.exactlyMin[0]
			c.exactlyMin = c.exactlyMin[1:]
		default:
			pos = 0
			id = c.underMin[pos]
			pos++
		}
		count := c.assignNew(tp, id)
		if count == c.minQuota && pos > 0 && pos <= len(c.underMin) && c.underMin[pos-1] == id {
			pos--
			c.underMin = slices.Delete(c.underMin, pos, pos+1)
			c.exactlyMin = append(c.exactlyMin, id)
		} else if count == c.maxQuota {
			c.currentOverMin++
		}
	}
	return nil
}

// assignNew gives tp to id; it is a transfer (the cooperative assignor must
// revoke it first) if another member still owned it or its owner is in
// doubt.
func (c *constrained) assignNew(tp TopicPartition, id string) int {
	c.assignment[id] = append(c.assignment[id], tp)
	if prev, ok := c.maybeRevoked[tp]; (ok && prev != id) || c.in.multiOwned[tp] {
		c.transferring[tp] = id
	}
	return len(c.assignment[id])
}

// verifyUnfilledMembers is Kafka's consistency check: a member may be left
// unfilled only at minQuota, once every maxQuota slot is taken.
func (c *constrained) verifyUnfilledMembers() error {
	if len(c.underMin) == 0 {
		return nil
	}
	if c.currentOverMin != c.expectedOverMin {
		return fmt.Errorf("sticky: %d members reached maxQuota, expected %d, and no partitions are left", c.currentOverMin, c.expectedOverMin)
	}
	for _, id := range c.underMin {
		if len(c.assignment[id]) != c.minQuota {
			return fmt.Errorf("sticky: consumer %s doesn't reach minQuota partitions, and no more partitions to be assigned", id)
		}
	}
	return nil
}
