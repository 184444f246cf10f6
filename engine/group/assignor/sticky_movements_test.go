package assignor

import "testing"

// PartitionMovements as AbstractStickyAssignor uses it: a partition moved
// A->B and then B->A is no move; a move A->B of a topic that already saw
// B->A moves that partition back instead (no swap), and a swap is what
// isSticky reports.
func TestPartitionMovements(t *testing.T) {
	m := newPartitionMovements()
	m.move(tp("t", 0), "a", "b")
	m.move(tp("t", 0), "b", "a")
	if len(m.byPartition) != 0 || len(m.byTopic) != 0 {
		t.Errorf("moved there and back: %v, want no movement", m.byPartition)
	}

	m.move(tp("t", 1), "b", "a")
	if got := m.actualPartitionToMove(tp("t", 2), "a", "b"); got != tp("t", 1) {
		t.Errorf("moving t-2 a->b after t-1 went b->a: move %v, want t-1 back", got)
	}
	if got := m.actualPartitionToMove(tp("u", 0), "a", "b"); got != tp("u", 0) {
		t.Errorf("another topic: move %v, want u-0 itself", got)
	}
	if !m.isSticky() {
		t.Errorf("one move is sticky")
	}
	m.move(tp("t", 2), "a", "b")
	if m.isSticky() {
		t.Errorf("t-1 b->a and t-2 a->b is a swap, not sticky")
	}
}
