package client

import (
	"slices"
	"testing"
	"time"
)

func assertAssigned(t *testing.T, c *Consumer, want ...int) {
	t.Helper()
	if got := c.Assignment(); !slices.Equal(got, tps(want...)) {
		t.Fatalf("%s assigned %s, want %s", c.ID, partitionNames(got), partitionNames(tps(want...)))
	}
}

// Two members of an eager (range) group split four partitions; a third
// joins and every member revokes everything before the new assignment
// (ConsumerCoordinator.onJoinPrepare under EAGER).
func TestEagerGroupSplitsThenEveryoneRevokesForANewMember(t *testing.T) {
	f := newGroupTest(t, 4)
	for p := range 4 {
		f.produce(p, 3)
	}
	c1 := f.newConsumer("c1", nil)
	c2 := f.newConsumer("c2", nil)
	got := f.run(10*time.Second, c1, c2)
	assertAssigned(t, c1, 0, 1)
	assertAssigned(t, c2, 2, 3)
	if c1.Phase() != "stable" || c2.Phase() != "stable" || c1.Generation() != c2.Generation() {
		t.Fatalf("phases %s/%s generations %d/%d", c1.Phase(), c2.Phase(), c1.Generation(), c2.Generation())
	}
	if len(got[c1]) != 6 || len(got[c2]) != 6 {
		t.Fatalf("c1 read %d records, c2 %d; want 6 each (from the earliest offset, nothing committed)", len(got[c1]), len(got[c2]))
	}
	gen := c1.Generation()

	c3 := f.newConsumer("c3", nil)
	f.run(10*time.Second, c1, c2, c3)
	assertAssigned(t, c1, 0, 1)
	assertAssigned(t, c2, 2)
	assertAssigned(t, c3, 3)
	if c1.Generation() != gen+1 || c3.Generation() != gen+1 {
		t.Fatalf("generations %d, %d after the join; want %d", c1.Generation(), c3.Generation(), gen+1)
	}
	for _, c := range []*Consumer{c1, c2} {
		log := c.RebalanceLog()
		last := log[len(log)-1]
		if len(last.Revoked) != 2 || last.StoppedFrom < 0 || last.StoppedTo < last.StoppedFrom || last.End < 0 {
			t.Fatalf("%s: last rebalance %+v: want everything revoked and a stop interval (eager)", c.ID, last)
		}
	}
	// c1 kept orders/0 and orders/1 but revoked them and read them again
	// from the offsets auto-committed before the rebalance: no duplicates.
	if off, ok := c1.Committed(tps(0)[0]); !ok || off != 3 {
		t.Fatalf("orders/0 committed %d (%v), want 3 from the auto-commit before rebalancing", off, ok)
	}
	if m := c1.Metrics(); m.RebalanceTotal != 2 || m.LastRebalanceSecondsAgo < 0 {
		t.Fatalf("metrics %+v", m)
	}
}
