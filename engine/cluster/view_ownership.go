package cluster

import (
	"cmp"
	"slices"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/view"
)

// ownershipView rebuilds, for each of the group's partitions, who owned
// it over time from the members' rebalance logs: an assignment starts an
// owner's span, that owner's revocation (or loss) starts a span of
// nobody, which lasts until the next assignment. It reads the same log
// entries as the lessons' `pause` check (from a revocation to the next
// assignment of that partition), so the picture and the check agree.
//
// An assignment to another member while an owner holds the partition
// (its process crashed, so its log never recorded giving it up) hands it
// over with no gap: as far as the coordinator knew, it had an owner.
func (c *Cluster) ownershipView(partitions []view.GroupPartition, clients []*client.Consumer) []view.PartitionOwnership {
	type change struct {
		at      int64
		client  string
		colour  int
		revoked bool
		lost    bool
		order   int // the logs' order, for a stable sort
	}
	byTP := map[string][]change{}
	n := 0
	for _, co := range clients {
		colour := c.consumerIndex(co)
		for _, e := range co.RebalanceLog() {
			if e.RevokedAt >= 0 {
				for _, tp := range e.Revoked {
					byTP[tpName(tp)] = append(byTP[tpName(tp)], change{at: e.RevokedAt.Milliseconds(), client: string(co.ID), colour: colour, revoked: true, lost: e.Lost, order: n})
					n++
				}
			}
			if e.AssignedAt >= 0 {
				for _, tp := range e.Assigned {
					byTP[tpName(tp)] = append(byTP[tpName(tp)], change{at: e.AssignedAt.Milliseconds(), client: string(co.ID), colour: colour, order: n})
					n++
				}
			}
		}
	}
	out := make([]view.PartitionOwnership, 0, len(partitions))
	for _, p := range partitions {
		cs := byTP[p.TP]
		// At one instant a revocation comes before an assignment, so a
		// partition handed over within a millisecond has no gap drawn.
		slices.SortFunc(cs, func(a, b change) int {
			if a.at != b.at {
				return cmp.Compare(a.at, b.at)
			}
			if a.revoked != b.revoked {
				if a.revoked {
					return -1
				}
				return 1
			}
			return cmp.Compare(a.order, b.order)
		})
		o := view.PartitionOwnership{TP: p.TP}
		open := func(s view.OwnershipSpan) {
			if k := len(o.Spans) - 1; k >= 0 && o.Spans[k].From == s.From {
				o.Spans = o.Spans[:k] // a span of no time is replaced
			}
			if k := len(o.Spans) - 1; k >= 0 {
				if o.Spans[k].Owner == s.Owner {
					o.Spans[k].To = -1 // the same owner again: one span
					return
				}
				o.Spans[k].To = s.From
			}
			o.Spans = append(o.Spans, s)
		}
		owner := func() string {
			if k := len(o.Spans) - 1; k >= 0 {
				return o.Spans[k].Owner
			}
			return ""
		}
		for _, ch := range cs {
			switch {
			case !ch.revoked && ch.client != owner():
				open(view.OwnershipSpan{Owner: ch.client, Colour: ch.colour, From: ch.at, To: -1})
			case ch.revoked && len(o.Spans) == 0:
				// The logs no longer hold the assignment: the member owned
				// it from where the history starts.
				o.Spans = append(o.Spans, view.OwnershipSpan{Owner: ch.client, Colour: ch.colour, From: 0, To: -1})
				open(view.OwnershipSpan{Colour: -1, From: ch.at, To: -1, Lost: ch.lost})
			case ch.revoked && ch.client == owner():
				open(view.OwnershipSpan{Colour: -1, From: ch.at, To: -1, Lost: ch.lost})
			}
			// A revocation by a member that is no longer the owner (a
			// crashed member's stale entry) changes nothing.
		}
		out = append(out, o)
	}
	return out
}
