package quorum

import (
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// groups makes a connected function from groups of controller ids; a
// controller in no group reaches everyone.
func groups(gs ...[]int) func(a, b int) bool {
	side := map[int]int{}
	for i, g := range gs {
		for _, id := range g {
			side[id] = i + 1
		}
	}
	return func(a, b int) bool {
		sa, oka := side[a]
		sb, okb := side[b]
		return !oka || !okb || sa == sb
	}
}

// A partition isolating the active controller: it steps down and cannot
// commit, the majority elects its lowest-numbered controller, which
// commits; after the heal the old leader follows it and catches up.
func TestPartitionIsolatesTheActiveController(t *testing.T) {
	undisturbed(t, func(t *testing.T, w *watch) string {
		q := openQuorum(t, w, Config{})
		defer q.Close()
		want := appendAll(t, q, records(0, 3), 3)
		leadBy(t, q, 1)
		mark := w.mark(q)
		if err := q.Partition(groups([]int{1}, []int{2, 3})); err != nil {
			t.Fatal(err)
		}
		// Controller 1 led a moment ago; it may just have lost its lease.
		if why, ok := tookOverFrom(t, q, w, mark, 1, []int{1, 0}, 2, "partition isolating controller 1 (the lowest-numbered of the majority)"); !ok {
			return why
		}
		old := q.nodes[0].p
		if s := old.raft.State(); s == raft.Leader {
			t.Fatalf("the isolated controller 1 is still %s", s)
		}
		// Controller 1 cannot commit anything: raft refuses the proposal.
		if err := old.wait(old.raft.Apply([]byte("{}"), time.Second), "an append on the isolated controller"); !errors.Is(err, raft.ErrNotLeader) {
			t.Fatalf("an append on the isolated controller 1: %v, want %v", err, raft.ErrNotLeader)
		}
		want = append(want, appendAll(t, q, records(3, 2), 2)...)
		if end := old.fsm.end(); end != 3 {
			t.Fatalf("isolated controller 1 applied up to offset %d, want 3 (what it had before the cut)", end)
		}
		leadBy(t, q, 2)
		mark = w.mark(q)
		if err := q.Partition(nil); err != nil {
			t.Fatal(err)
		}
		if why, ok := keptLeader(t, q, w, mark, 2, 1, "heal (the old leader rejoins as a follower)"); !ok {
			return why
		}
		if end := q.nodes[0].p.fsm.end(); end != 5 {
			t.Errorf("controller 1 applied up to offset %d after the heal, want 5", end)
		}
		checkLog(t, q, want)
		checkImages(t, q, want)
		return ""
	})
}

// With five controllers, cutting (1,2) from (3,4,5): the minority holds
// the old leader and cannot elect; the majority elects controller 3.
func TestPartitionWithFiveControllers(t *testing.T) {
	undisturbed(t, func(t *testing.T, w *watch) string {
		q := openQuorum(t, w, Config{Controllers: 5})
		defer q.Close()
		appendAll(t, q, records(0, 2), 2)
		leadBy(t, q, 1)
		mark := w.mark(q)
		if err := q.Partition(groups([]int{1, 2}, []int{3, 4, 5})); err != nil {
			t.Fatal(err)
		}
		if why, ok := tookOverFrom(t, q, w, mark, 1, []int{1, 0}, 3, "partition of (1,2) from (3,4,5)"); !ok {
			return why
		}
		appendAll(t, q, records(2, 2), 2)
		return ""
	})
}

// No side holds a majority: no leader, and an append fails with
// NOT_CONTROLLER once LeaderWait is over.
func TestPartitionWithoutAMajorityAnywhere(t *testing.T) {
	q := newQuorum(t, Config{LeaderWait: 300 * time.Millisecond})
	appendAll(t, q, records(0, 1), 1)
	if err := q.Partition(groups([]int{1}, []int{2}, []int{3})); err != nil {
		t.Fatal(err)
	}
	if l := q.Leader(); l != 0 {
		t.Fatalf("leader %d with every controller alone, want none", l)
	}
	if _, err := q.Append(records(1, 1)); !errors.Is(err, ErrNotController) {
		t.Fatalf("Append: %v, want NOT_CONTROLLER", err)
	}
	if err := q.Partition(nil); err != nil {
		t.Fatal(err)
	}
	if q.Leader() == 0 {
		t.Fatal("no leader after the heal")
	}
}
