package web

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// coopJoin: a cooperative-sticky group of two, then a third member joins:
// one partition moves, in two rounds (revoked in the first, assigned in
// the second).
const coopJoin = "cluster brokers=1 seed=5 offsets.topic.num.partitions=1 offsets.topic.replication.factor=1\ntopic create events partitions=4 rf=1\n" +
	"produce events key=k{i} value=e{i} count=20\n" +
	"consumer create c1 group=g topics=events partition.assignment.strategy=cooperative-sticky auto.offset.reset=earliest\n" +
	"consumer create c2 group=g topics=events partition.assignment.strategy=cooperative-sticky auto.offset.reset=earliest\n" +
	"stabilize\n" +
	"consumer create c3 group=g topics=events partition.assignment.strategy=cooperative-sticky auto.offset.reset=earliest\n" +
	"stabilize"

// The engine's ownership history of a real cooperative join: the moved
// partition has one ownerless stretch, from its old owner's revocation to
// c3's assignment, both as the members' rebalance logs record them; the
// others never lose their owner; and the same commands give the same
// history.
func TestOwnershipOfACooperativeJoin(t *testing.T) {
	c := labView(t, coopJoin)
	g := c.Groups[0]
	if len(g.Ownership) != 4 {
		t.Fatalf("%d partition histories, want events' 4", len(g.Ownership))
	}
	moved := 0
	for _, o := range g.Ownership {
		if len(o.Spans) == 0 || o.Spans[0].Owner == "" {
			t.Errorf("%s: history %+v does not start with an owner", o.TP, o.Spans)
			continue
		}
		for i := 1; i < len(o.Spans); i++ {
			if o.Spans[i-1].To != o.Spans[i].From {
				t.Errorf("%s: spans %+v and %+v do not touch", o.TP, o.Spans[i-1], o.Spans[i])
			}
		}
		if last := o.Spans[len(o.Spans)-1]; last.To != -1 || last.Owner == "" {
			t.Errorf("%s: the last span %+v is not its owner now", o.TP, last)
		}
		if len(o.Spans) == 1 {
			continue
		}
		moved++
		if len(o.Spans) != 3 || o.Spans[1].Owner != "" || o.Spans[2].Owner != "c3" {
			t.Fatalf("%s moved as %+v, want owner, nobody, c3", o.TP, o.Spans)
		}
		gap := o.Spans[1]
		revokedAt, assignedAt := int64(-1), int64(-1)
		for _, r := range g.Rebalances {
			if r.Client == o.Spans[0].Owner && slices.Contains(r.Revoked, o.TP) {
				revokedAt = r.End
			}
			if r.Client == "c3" && slices.Contains(r.Assigned, o.TP) {
				assignedAt = r.End
			}
		}
		if gap.From != revokedAt || gap.To != assignedAt || gap.To <= gap.From {
			t.Errorf("%s: nobody owned it %d..%d, the logs say revoked at %d, assigned at %d", o.TP, gap.From, gap.To, revokedAt, assignedAt)
		}
		// Drawn: its row's state is the gap in whole seconds.
		html := render(t, c)
		row := element(t, html, `<g class="gow-row" data-tp="`+o.TP+`"[^>]*>`)
		if attrOf(row, "data-longest-gap-ms") != strconv.FormatInt(gap.To-gap.From, 10) {
			t.Errorf("%s's row: %s, want a %d ms gap", o.TP, row, gap.To-gap.From)
		}
		if strings.Contains(html, "no pause") {
			t.Error(`the view says "no pause" while a partition had no owner`)
		}
	}
	if moved != 1 {
		t.Errorf("%d partitions changed hands, want 1 (cooperative-sticky moves only what c3 gets)", moved)
	}
	if again := labView(t, coopJoin); !reflect.DeepEqual(again.Groups[0].Ownership, g.Ownership) {
		t.Errorf("the same commands gave another history:\n%+v\n%+v", g.Ownership, again.Groups[0].Ownership)
	}
}
