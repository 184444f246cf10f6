package assignor

import (
	"slices"
	"testing"
)

// The cases of Kafka's StickyAssignorTest (the eager sticky assignor).
//
// Not ported: testSchemaBackwardCompatibility,
// testMemberDataWithInconsistentData, testMemberDataWillHonorUserData
// (user-data serialisation; a Member carries Owned and Generation
// directly). The rack configurations of the cases below reduce to the
// rack-less one (Topics has no replica racks).
var stickyCases = []struct {
	name string
	run  func(t *testing.T)
}{
	{"testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithEqualPartitionsPerConsumer", func(t *testing.T) {
		h := newStickyHarness(t, Sticky{}, Topics{"topic": 3})
		h.put("consumer1", []string{"topic"}, tps("topic", 0, 1), generationID)
		h.put("consumer2", []string{"topic"}, tps("topic", 0, 2), generationID)
		h.put("consumer3", []string{"topic"}, nil, generationID)
		got := h.assign()
		h.wantMember(got, "consumer1", tp("topic", 1))
		h.wantMember(got, "consumer2", tp("topic", 2))
		h.wantMember(got, "consumer3", tp("topic", 0))
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithUnequalPartitionsPerConsumer", func(t *testing.T) {
		h := newStickyHarness(t, Sticky{}, Topics{"topic": 4})
		h.put("consumer1", []string{"topic"}, tps("topic", 0, 1), generationID)
		h.put("consumer2", []string{"topic"}, tps("topic", 0, 2), generationID)
		h.put("consumer3", []string{"topic"}, nil, generationID)
		got := h.assign()
		h.wantMember(got, "consumer1", tps("topic", 1, 3)...)
		h.wantMember(got, "consumer2", tp("topic", 2))
		h.wantMember(got, "consumer3", tp("topic", 0))
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testAssignmentWithMultipleGenerations1/allSubscriptionsEqual", func(t *testing.T) { multipleGenerations1(t, true) }},
	{"testAssignmentWithMultipleGenerations1/subscriptionsDiffer", func(t *testing.T) { multipleGenerations1(t, false) }},
	{"testAssignmentWithMultipleGenerations2/allSubscriptionsEqual", func(t *testing.T) { multipleGenerations2(t, true) }},
	{"testAssignmentWithMultipleGenerations2/subscriptionsDiffer", func(t *testing.T) { multipleGenerations2(t, false) }},
	{"testAssignmentWithConflictingPreviousGenerations/allSubscriptionsEqual", func(t *testing.T) { conflictingPreviousGenerations(t, true) }},
	{"testAssignmentWithConflictingPreviousGenerations/subscriptionsDiffer", func(t *testing.T) { conflictingPreviousGenerations(t, false) }},
	{"testAssignorWithOldVersionSubscriptions", func(t *testing.T) {
		// V0 and V1 subscriptions carry owned partitions and generation in
		// the sticky user data; a Member carries them directly.
		h := newStickyHarness(t, Sticky{}, Topics{"topic1": 3})
		h.put("consumer1", []string{"topic1"}, tps("topic1", 0), generationID)
		h.put("consumer2", []string{"topic1"}, tps("topic1", 1), generationID)
		h.put("consumer3", []string{"topic1"}, nil, generationID)
		got := h.assign()
		h.wantMember(got, "consumer1", tp("topic1", 0))
		h.wantMember(got, "consumer2", tp("topic1", 1))
		h.wantMember(got, "consumer3", tp("topic1", 2))
		h.wantFullyBalanced(h.verify(got))
	}},
}

func TestStickyAssignor(t *testing.T) {
	for _, c := range stickyCases {
		t.Run(c.name, c.run)
	}
}

func wantSizes(t *testing.T, a Assignment, want int, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if len(a[id]) != want {
			t.Errorf("%s has %d partitions (%v), want %d", id, len(a[id]), a[id], want)
		}
	}
}

func disjoint(a, b []TopicPartition) bool {
	return !slices.ContainsFunc(a, func(p TopicPartition) bool { return slices.Contains(b, p) })
}

// A member that missed a generation rejoins with its old partitions; the
// member in the newer generation keeps what both claim.
func multipleGenerations1(t *testing.T, allEqual bool) {
	h := newStickyHarness(t, Sticky{}, Topics{"topic": 6, "topic2": 6})
	all := []string{"topic", "topic2"}
	c2Topics := all
	if !allEqual {
		c2Topics = []string{"topic"}
	}
	h.sub("consumer1", all...)
	h.sub("consumer2", c2Topics...)
	h.sub("consumer3", all...)
	r1 := h.assign()
	wantSizes(t, r1, 4, "consumer1", "consumer2", "consumer3")
	h.wantFullyBalanced(h.verify(r1))

	h.put("consumer1", all, r1["consumer1"], generationID)
	h.put("consumer2", c2Topics, r1["consumer2"], generationID)
	delete(h.members, "consumer3")
	r2 := h.assign()
	wantSizes(t, r2, 6, "consumer1", "consumer2")
	if allEqual && !containsAll(r2["consumer1"], r1["consumer1"]) {
		t.Errorf("consumer1 lost some of %v: %v", r1["consumer1"], r2["consumer1"])
	}
	if !containsAll(r2["consumer2"], r1["consumer2"]) {
		t.Errorf("consumer2 lost some of %v: %v", r1["consumer2"], r2["consumer2"])
	}
	h.wantFullyBalanced(h.verify(r2))
	if disjoint(r2["consumer2"], r1["consumer3"]) {
		t.Errorf("consumer2 took none of consumer3's %v", r1["consumer3"])
	}

	delete(h.members, "consumer1")
	h.put("consumer2", c2Topics, r2["consumer2"], 2)
	h.put("consumer3", all, r1["consumer3"], 1)
	r3 := h.assign()
	wantSizes(t, r3, 6, "consumer2", "consumer3")
	if !disjoint(r3["consumer2"], r3["consumer3"]) {
		t.Errorf("consumer2 %v and consumer3 %v overlap", r3["consumer2"], r3["consumer3"])
	}
	h.wantFullyBalanced(h.verify(r3))
}

func multipleGenerations2(t *testing.T, allEqual bool) {
	h := newStickyHarness(t, Sticky{}, Topics{"topic": 4, "topic2": 4, "topic3": 4})
	all := []string{"topic", "topic2", "topic3"}
	c1Topics, c3Topics := all, all
	if !allEqual {
		c1Topics, c3Topics = []string{"topic"}, []string{"topic", "topic2"}
	}
	h.sub("consumer1", c1Topics...)
	h.sub("consumer2", all...)
	h.sub("consumer3", c3Topics...)
	r1 := h.assign()
	wantSizes(t, r1, 4, "consumer1", "consumer2", "consumer3")
	h.wantFullyBalanced(h.verify(r1))

	delete(h.members, "consumer1")
	delete(h.members, "consumer3")
	h.put("consumer2", all, r1["consumer2"], 1)
	r2 := h.assign()
	wantSizes(t, r2, 12, "consumer2")
	if !containsAll(r2["consumer2"], r1["consumer2"]) {
		t.Errorf("consumer2 lost some of %v: %v", r1["consumer2"], r2["consumer2"])
	}
	h.wantFullyBalanced(h.verify(r2))

	h.put("consumer1", c1Topics, r1["consumer1"], 1)
	h.put("consumer2", all, r2["consumer2"], 2)
	h.put("consumer3", c3Topics, r1["consumer3"], 1)
	r3 := h.assign()
	wantSizes(t, r3, 4, "consumer1", "consumer2", "consumer3")
	h.wantFullyBalanced(h.verify(r3))
}

func conflictingPreviousGenerations(t *testing.T, allEqual bool) {
	h := newStickyHarness(t, Sticky{}, Topics{"topic": 4, "topic2": 4, "topic3": 4})
	all := []string{"topic", "topic2", "topic3"}
	c1Topics, c2Topics := all, all
	c1Owned := []TopicPartition{tp("topic", 0), tp("topic", 1), tp("topic", 2), tp("topic2", 2), tp("topic2", 3), tp("topic3", 0)}
	if !allEqual {
		c1Topics, c2Topics = []string{"topic"}, []string{"topic", "topic2"}
		c1Owned = tps("topic", 0, 1, 2, 3)
	}
	c2Owned := append(tps("topic", 0, 1), tps("topic2", 0, 1, 2, 3)...)
	c3Owned := append(tps("topic", 2, 3), tps("topic3", 0, 1, 2, 3)...)
	h.put("consumer1", c1Topics, c1Owned, 1)
	h.put("consumer2", c2Topics, c2Owned, 2)
	h.put("consumer3", all, c3Owned, 2)
	got := h.assign()
	wantSizes(t, got, 4, "consumer1", "consumer2", "consumer3")
	if !containsAll(c2Owned, got["consumer2"]) {
		t.Errorf("consumer2 got %v, not within its own %v", got["consumer2"], c2Owned)
	}
	if !containsAll(c3Owned, got["consumer3"]) {
		t.Errorf("consumer3 got %v, not within its own %v", got["consumer3"], c3Owned)
	}
	h.wantFullyBalanced(h.verify(got))
}
