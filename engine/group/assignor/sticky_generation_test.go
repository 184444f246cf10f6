package assignor

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// AbstractStickyAssignorTest's cases about owned partitions from several
// generations and random subscription changes, run for both assignors.
var abstractStickyGenerationCases = []struct {
	name string
	run  func(t *testing.T, a Assignor)
}{
	{"testSubscriptionNotEqualAndAssignSamePartitionWith3Generation", func(t *testing.T, a Assignor) {
		for _, gens := range [][3]int32{{1, 2, 3}, {1, 3, 2}, {2, 1, 3}, {2, 3, 1}, {3, 1, 2}, {3, 2, 1}} {
			h := newStickyHarness(t, a, Topics{"topic": 6, "topic1": 1})
			h.put("consumer1", []string{"topic"}, tps("topic", 0, 2), gens[0])
			h.put("consumer2", []string{"topic"}, tps("topic", 1, 2, 3), gens[1])
			h.put("consumer3", []string{"topic"}, tps("topic", 2, 4, 5), gens[2])
			h.put("consumer4", []string{"topic1"}, tps("topic1", 0), 2)
			got := h.assign()
			seen := map[TopicPartition]bool{}
			for id, ps := range got {
				if len(ps) < 1 || len(ps) > 2 {
					t.Errorf("generations %v: %s has %v, want 1 or 2 partitions", gens, id, ps)
				}
				for _, p := range ps {
					if seen[p] {
						t.Errorf("generations %v: %v assigned twice", gens, p)
					}
					seen[p] = true
				}
			}
		}
	}},
	{"testReassignmentWithRandomSubscriptionsAndChanges", func(t *testing.T, a Assignor) {
		// Kafka runs 100 unseeded rounds; we run 20 seeded ones, so a
		// failure can be replayed.
		rng := rand.New(rand.NewPCG(1, 2))
		randomSublist := func(list []string) []string {
			s := slices.Clone(list)
			for range rng.IntN(len(list)) {
				i := rng.IntN(len(s))
				s = slices.Delete(s, i, i+1)
			}
			return s
		}
		for round := 0; round < 20; round++ {
			h := newStickyHarness(t, a, Topics{})
			var topics []string
			for i := range 10 + rng.IntN(10) {
				topics = append(topics, topicName(i, 20))
				h.topics[topicName(i, 20)] = int32(i + 1)
			}
			n := 20 + rng.IntN(20)
			for i := range n {
				h.sub(consumerName(i, 40), randomSublist(topics)...)
			}
			got := h.verify(h.assign())
			for i := range n {
				id := consumerName(i, 40)
				h.put(id, randomSublist(topics), got[id], generationID)
			}
			h.verify(h.assign())
			h.wantSticky()
		}
	}},
	{"testOwnedPartitionsAreInvalidatedForConsumerWithStaleGeneration", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 3, "topic2": 3})
		both := []string{"topic", "topic2"}
		owned := []TopicPartition{tp("topic", 0), tp("topic", 2), tp("topic2", 1)}
		h.put("consumer1", both, owned, 10)
		h.put("consumer2", both, owned, 9)
		got := h.assign()
		h.wantMember(got, "consumer1", owned...)
		h.wantMember(got, "consumer2", tp("topic", 1), tp("topic2", 0), tp("topic2", 2))
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testOwnedPartitionsAreInvalidatedForConsumerWithNoGeneration", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 3, "topic2": 3})
		both := []string{"topic", "topic2"}
		owned := []TopicPartition{tp("topic", 0), tp("topic", 2), tp("topic2", 1)}
		h.put("consumer1", both, owned, 10)
		h.put("consumer2", both, owned, noGeneration)
		got := h.assign()
		h.wantMember(got, "consumer1", owned...)
		h.wantMember(got, "consumer2", tp("topic", 1), tp("topic2", 0), tp("topic2", 2))
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 3})
		h.put("consumer1", []string{"topic"}, tps("topic", 0, 1), generationID)
		h.put("consumer2", []string{"topic"}, tps("topic", 0, 2), generationID)
		h.put("consumer3", []string{"topic"}, nil, generationID)
		got := h.assign()
		h.wantTransferring(map[TopicPartition]string{tp("topic", 0): "consumer3"})
		got = h.verify(got)
		h.wantMember(got, "consumer1", tp("topic", 1))
		h.wantMember(got, "consumer2", tp("topic", 2))
		h.wantMember(got, "consumer3", tp("topic", 0))
		h.wantFullyBalanced(got)
	}},
	{"testEnsurePartitionsAssignedToHighestGeneration", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 3, "topic2": 3, "topic3": 3})
		all := []string{"topic", "topic2", "topic3"}
		h.put("consumer1", all, []TopicPartition{tp("topic", 0), tp("topic2", 0), tp("topic3", 0)}, 10)
		h.put("consumer2", all, []TopicPartition{tp("topic", 1), tp("topic2", 1), tp("topic3", 1)}, 9)
		h.put("consumer3", all, []TopicPartition{tp("topic2", 1), tp("topic3", 0), tp("topic3", 2)}, 8)
		got := h.assign()
		h.wantMember(got, "consumer1", tp("topic", 0), tp("topic2", 0), tp("topic3", 0))
		h.wantMember(got, "consumer2", tp("topic", 1), tp("topic2", 1), tp("topic3", 1))
		h.wantMember(got, "consumer3", tp("topic", 2), tp("topic2", 2), tp("topic3", 2))
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testNoReassignmentOnCurrentMembers", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 3, "topic1": 3, "topic2": 3, "topic3": 3})
		all := []string{"topic", "topic2", "topic3", "topic1"}
		h.put("consumer1", all, nil, noGeneration)
		h.put("consumer2", all, []TopicPartition{tp("topic", 0), tp("topic2", 0), tp("topic1", 0)}, 9)
		h.put("consumer3", all, []TopicPartition{tp("topic3", 2), tp("topic2", 2), tp("topic1", 1)}, 8)
		h.put("consumer4", all, []TopicPartition{tp("topic3", 1), tp("topic", 1), tp("topic", 2)}, 7)
		got := h.assign()
		// ensure assigned partitions don't get reassigned
		h.wantMember(got, "consumer1", tp("topic1", 2), tp("topic2", 1), tp("topic3", 0))
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testOwnedPartitionsAreInvalidatedForConsumerWithMultipleGeneration", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 3, "topic2": 3})
		both := []string{"topic", "topic2"}
		h.put("consumer1", both, []TopicPartition{tp("topic", 0), tp("topic2", 1), tp("topic", 1)}, 10)
		h.put("consumer2", both, []TopicPartition{tp("topic", 0), tp("topic2", 1), tp("topic2", 2)}, 8)
		got := h.assign()
		h.wantMember(got, "consumer1", tp("topic", 0), tp("topic2", 1), tp("topic", 1))
		h.wantMember(got, "consumer2", tp("topic", 2), tp("topic2", 2), tp("topic2", 0))
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
}

func TestAbstractStickyAssignorGenerations(t *testing.T) {
	for _, c := range abstractStickyGenerationCases {
		t.Run(c.name, func(t *testing.T) { bothStickyAssignors(t, c.run) })
	}
}
