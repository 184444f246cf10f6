package consumer

import (
	"maps"
	"slices"
)

// Partitions is a set of partitions by topic name, each list sorted and
// without repeats. Kafka keys these maps by topic id; loglab has no
// topic ids, so topic names stand in for them.
type Partitions map[string][]int32

// normalized sorts and dedups every list and drops empty topics, so two
// sets compare equal with Equal however they were built.
func (p Partitions) normalized() Partitions {
	out := Partitions{}
	for t, ps := range p {
		if len(ps) == 0 {
			continue
		}
		c := slices.Clone(ps)
		slices.Sort(c)
		out[t] = slices.Compact(c)
	}
	return out
}

func (p Partitions) has(topic string, partition int32) bool {
	_, ok := slices.BinarySearch(p[topic], partition)
	return ok
}

// Equal reports whether both hold the same partitions.
func (p Partitions) Equal(q Partitions) bool {
	return maps.EqualFunc(p.normalized(), q.normalized(), slices.Equal[[]int32])
}

// Empty reports whether the set holds no partition.
func (p Partitions) Empty() bool {
	for _, ps := range p {
		if len(ps) > 0 {
			return false
		}
	}
	return true
}

// Topics lists the topics in name order: never range over the map for
// output.
func (p Partitions) Topics() []string {
	ts := slices.Sorted(maps.Keys(p))
	return slices.DeleteFunc(ts, func(t string) bool { return len(p[t]) == 0 })
}

// subsetOf is Kafka's isSubset: every partition of p is in q.
func (p Partitions) subsetOf(q Partitions) bool {
	for t, ps := range p {
		for _, n := range ps {
			if !q.has(t, n) {
				return false
			}
		}
	}
	return true
}

// intersects reports whether p and q share a partition.
func (p Partitions) intersects(q Partitions) bool {
	for t, ps := range p {
		for _, n := range ps {
			if q.has(t, n) {
				return true
			}
		}
	}
	return false
}
