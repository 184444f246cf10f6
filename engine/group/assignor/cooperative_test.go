package assignor

import "testing"

// The cases of Kafka's CooperativeStickyAssignorTest. The harness's verify
// is that test's verifyValidityAndBalance override: follow-up rebalances
// until nothing is revoked, and never a partition assigned in the round
// its owner revokes it.
//
// Not ported: testEncodeAndDecodeGeneration, testDecodeGeneration,
// testMemberDataWithInconsistentData,
// testMemberDataWithEmptyPartitionsAndEqualGeneration,
// testMemberDataWithEmptyPartitionsAndHigherGeneration (user-data
// serialisation; a Member carries Owned and Generation directly), and
// testUniformSubscriptionTransferOwnershipListIsRight (rack-aware: it
// needs replica racks, which Topics does not carry).
var cooperativeCases = []struct {
	name string
	run  func(t *testing.T)
}{
	{"testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithEqualPartitionsPerConsumer", func(t *testing.T) {
		h := newStickyHarness(t, CooperativeSticky{}, Topics{"topic": 3})
		h.put("consumer1", []string{"topic"}, tps("topic", 0, 1), generationID)
		h.put("consumer2", []string{"topic"}, tps("topic", 0, 2), generationID)
		h.put("consumer3", []string{"topic"}, nil, generationID)
		got := h.assign()
		h.wantMember(got, "consumer1", tp("topic", 1))
		h.wantMember(got, "consumer2", tp("topic", 2))
		// topic-0 counts as owned: it cannot be assigned until both
		// claimants have revoked it
		h.wantMember(got, "consumer3")
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithUnequalPartitionsPerConsumer", func(t *testing.T) {
		h := newStickyHarness(t, CooperativeSticky{}, Topics{"topic": 4})
		h.put("consumer1", []string{"topic"}, tps("topic", 0, 1), generationID)
		h.put("consumer2", []string{"topic"}, tps("topic", 0, 2), generationID)
		h.put("consumer3", []string{"topic"}, nil, generationID)
		got := h.assign()
		h.wantMember(got, "consumer1", tps("topic", 1, 3)...)
		h.wantMember(got, "consumer2", tp("topic", 2))
		h.wantMember(got, "consumer3")
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testAssignorWithOldVersionSubscriptions", func(t *testing.T) {
		// V1 subscriptions carry the generation in the cooperative user
		// data; a Member carries it directly.
		h := newStickyHarness(t, CooperativeSticky{}, Topics{"topic1": 3})
		h.put("consumer1", []string{"topic1"}, tps("topic1", 0), generationID)
		h.put("consumer2", []string{"topic1"}, tps("topic1", 1), generationID)
		h.put("consumer3", []string{"topic1"}, nil, generationID)
		got := h.assign()
		h.wantMember(got, "consumer1", tp("topic1", 0))
		h.wantMember(got, "consumer2", tp("topic1", 1))
		h.wantMember(got, "consumer3", tp("topic1", 2))
		h.wantFullyBalanced(h.verify(got))
	}},
	// Not a Kafka test method: the general path's transfers are computed
	// from scratch (computePartitionsTransferringOwnership); this pins
	// that a moved partition waits a round there too.
	{"generalPathTransferWaitsForRevocation", func(t *testing.T) {
		h := newStickyHarness(t, CooperativeSticky{}, Topics{"topic1": 4, "topic2": 1})
		h.put("consumer1", []string{"topic1", "topic2"}, append(tps("topic1", 0, 1, 2, 3), tp("topic2", 0)), generationID)
		h.put("consumer2", []string{"topic1"}, nil, generationID)
		got := h.assign()
		if r, _ := stickyAssign(h.topics, h.memberList()); len(r.assignment["consumer2"]) == 0 {
			t.Fatalf("the sticky assignment moves nothing to consumer2: %v", r.assignment)
		}
		h.wantMember(got, "consumer2")
		got = h.verify(got)
		if len(got["consumer2"]) == 0 {
			t.Errorf("after the follow-up rebalance consumer2 still has nothing: %v", got)
		}
	}},
}

func TestCooperativeStickyAssignor(t *testing.T) {
	for _, c := range cooperativeCases {
		t.Run(c.name, c.run)
	}
}

func TestStickyAssignorNames(t *testing.T) {
	if (Sticky{}).Name() != "sticky" || (CooperativeSticky{}).Name() != "cooperative-sticky" {
		t.Errorf("names %q %q", (Sticky{}).Name(), (CooperativeSticky{}).Name())
	}
}
