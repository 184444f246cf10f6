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
	q := newQuorum(t, Config{})
	want := appendAll(t, q, records(0, 3), 3)
	if q.Leader() != 1 {
		t.Fatalf("leader %d before the partition, want 1", q.Leader())
	}
	if err := q.Partition(groups([]int{1}, []int{2, 3})); err != nil {
		t.Fatal(err)
	}
	if l := q.Leader(); l != 2 {
		t.Fatalf("leader %d after isolating controller 1, want 2 (the lowest-numbered of the majority)", l)
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
	if err := q.Partition(nil); err != nil {
		t.Fatal(err)
	}
	if l := q.Leader(); l != 2 {
		t.Errorf("leader %d after the heal, want 2 (the old leader rejoins as a follower)", l)
	}
	if end := q.nodes[0].p.fsm.end(); end != 5 {
		t.Errorf("controller 1 applied up to offset %d after the heal, want 5", end)
	}
	checkLog(t, q, want)
	checkImages(t, q, want)
}

// With five controllers, cutting (1,2) from (3,4,5): the minority holds
// the old leader and cannot elect; the majority elects controller 3.
func TestPartitionWithFiveControllers(t *testing.T) {
	q := newQuorum(t, Config{Controllers: 5})
	appendAll(t, q, records(0, 2), 2)
	if err := q.Partition(groups([]int{1, 2}, []int{3, 4, 5})); err != nil {
		t.Fatal(err)
	}
	if l := q.Leader(); l != 3 {
		t.Fatalf("leader %d, want 3", l)
	}
	appendAll(t, q, records(2, 2), 2)
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
