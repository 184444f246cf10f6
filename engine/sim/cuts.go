package sim

import (
	"slices"
	"strings"
)

// linkCuts is the set of single links cut by `net cut A B`: a symmetric
// cut, as a firewall rule dropping both directions between two hosts (or
// a pulled cable between them) would make it. Unlike a partition, which
// splits the whole network into sides, a cut separates exactly one pair
// and leaves each end reaching every other node, the fault Kafka's own
// system tests inject with iptables between two brokers.
type linkCuts map[[2]NodeID]bool

// pair is the unordered key of a link: its two ends in sorted order.
func pair(a, b NodeID) [2]NodeID {
	if b < a {
		a, b = b, a
	}
	return [2]NodeID{a, b}
}

// cut separates a and b; it reports false when they already were.
func (c linkCuts) cut(a, b NodeID) bool {
	k := pair(a, b)
	if c[k] {
		return false
	}
	c[k] = true
	return true
}

// heal reconnects a and b; it reports false when the link was not cut.
func (c linkCuts) heal(a, b NodeID) bool {
	k := pair(a, b)
	if !c[k] {
		return false
	}
	delete(c, k)
	return true
}

// separates reports whether a message from one end to the other is cut,
// in either direction.
func (c linkCuts) separates(from, to NodeID) bool { return c[pair(from, to)] }

// list is the cut links, sorted, each with its ends in sorted order:
// never a map's order, so `show network` prints the same on every run.
func (c linkCuts) list() [][2]NodeID {
	out := make([][2]NodeID, 0, len(c))
	for k := range c {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b [2]NodeID) int {
		if d := strings.Compare(string(a[0]), string(b[0])); d != 0 {
			return d
		}
		return strings.Compare(string(a[1]), string(b[1]))
	})
	return out
}
