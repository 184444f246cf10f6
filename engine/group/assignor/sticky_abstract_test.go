package assignor

import (
	"slices"
	"testing"
)

// The cases of Kafka's AbstractStickyAssignorTest, each run for both the
// sticky and the cooperative-sticky assignor as JUnit runs them for both
// subclasses. Kafka runs most of them under several RackConfigs; only the
// rack-less config applies here (Topics has no replica racks).
//
// Not ported:
//   - testMemberData: subscription serialisation (user data versions); a
//     Member carries Owned and Generation directly.
//   - testLargeAssignmentAndGroupWithUniformSubscription,
//     testLargeAssignmentAndGroupWithNonEqualSubscription,
//     testAssignmentAndGroupWithNonEqualSubscriptionNotTimeout,
//     testLargeAssignmentWithMultipleConsumersLeavingAndRandomSubscription:
//     performance tests (a million partitions, a timeout), not behaviour;
//     the labs run groups of a handful of members.
//   - testRackAwareAssignmentWithUniformSubscription,
//     testRackAwareAssignmentWithNonEqualSubscription: rack-aware
//     assignment needs replica racks, which Topics does not carry.
var abstractStickyCases = []struct {
	name string
	run  func(t *testing.T, a Assignor)
}{
	{"testOneConsumerNoTopic", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{})
		h.sub("consumer")
		got := h.assign()
		if len(got) != 1 || len(got["consumer"]) != 0 {
			t.Errorf("got %v, want consumer with nothing", got)
		}
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testOneConsumerNonexistentTopic", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 0})
		h.sub("consumer", "topic")
		got := h.assign()
		if len(got) != 1 || len(got["consumer"]) != 0 {
			t.Errorf("got %v, want consumer with nothing", got)
		}
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testOneConsumerOneTopic", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 3})
		h.sub("consumer", "topic")
		got := h.assign()
		h.wantMember(got, "consumer", tps("topic", 0, 1, 2)...)
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testOnlyAssignsPartitionsFromSubscribedTopics", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 2})
		h.put("consumer", []string{"topic"}, append(tps("topic", 0, 1), tps("other", 0, 1)...), generationID)
		got := h.assign()
		h.wantMember(got, "consumer", tps("topic", 0, 1)...)
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testOneConsumerMultipleTopics", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic1": 1, "topic2": 2})
		h.sub("consumer", "topic1", "topic2")
		got := h.assign()
		h.wantMember(got, "consumer", tp("topic1", 0), tp("topic2", 0), tp("topic2", 1))
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testTwoConsumersOneTopicOnePartition", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 1})
		h.sub("consumer1", "topic")
		h.sub("consumer2", "topic")
		got := h.assign()
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testTwoConsumersOneTopicTwoPartitions", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 2})
		h.sub("consumer1", "topic")
		h.sub("consumer2", "topic")
		got := h.assign()
		h.wantMember(got, "consumer1", tp("topic", 0))
		h.wantMember(got, "consumer2", tp("topic", 1))
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testMultipleConsumersMixedTopicSubscriptions", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic1": 3, "topic2": 2})
		h.sub("consumer1", "topic1")
		h.sub("consumer2", "topic1", "topic2")
		h.sub("consumer3", "topic1")
		got := h.assign()
		h.wantMember(got, "consumer1", tps("topic1", 0, 2)...)
		h.wantMember(got, "consumer2", tps("topic2", 0, 1)...)
		h.wantMember(got, "consumer3", tp("topic1", 1))
		h.wantGeneralPath()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testTwoConsumersTwoTopicsSixPartitions", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic1": 3, "topic2": 3})
		h.sub("consumer1", "topic1", "topic2")
		h.sub("consumer2", "topic1", "topic2")
		got := h.assign()
		h.wantMember(got, "consumer1", tp("topic1", 0), tp("topic1", 2), tp("topic2", 1))
		h.wantMember(got, "consumer2", tp("topic1", 1), tp("topic2", 0), tp("topic2", 2))
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testConsumerOwningMinQuotaExpectedMaxQuota", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic1": 2, "topic2": 3})
		both := []string{"topic1", "topic2"}
		h.put("consumer1", both, []TopicPartition{tp("topic1", 0), tp("topic2", 1)}, generationID)
		h.put("consumer2", both, []TopicPartition{tp("topic1", 1), tp("topic2", 2)}, generationID)
		got := h.assign()
		h.wantMember(got, "consumer1", tp("topic1", 0), tp("topic2", 1), tp("topic2", 0))
		h.wantMember(got, "consumer2", tp("topic1", 1), tp("topic2", 2))
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic1": 2, "topic2": 2})
		both := []string{"topic1", "topic2"}
		h.put("consumer1", both, []TopicPartition{tp("topic1", 0), tp("topic2", 0)}, generationID)
		h.put("consumer2", both, []TopicPartition{tp("topic1", 1), tp("topic2", 1)}, generationID)
		h.put("consumer3", both, nil, generationID)
		got := h.assign()
		h.wantTransferring(map[TopicPartition]string{tp("topic2", 0): "consumer3"})
		got = h.verify(got)
		h.wantMember(got, "consumer1", tp("topic1", 0))
		h.wantMember(got, "consumer2", tp("topic1", 1), tp("topic2", 1))
		h.wantMember(got, "consumer3", tp("topic2", 0))
		h.wantFullyBalanced(got)
	}},
	{"testAllConsumersAreUnderMinQuota", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic1": 2, "topic2": 3})
		both := []string{"topic1", "topic2"}
		h.put("consumer1", both, tps("topic1", 0), generationID)
		h.put("consumer2", both, tps("topic1", 1), generationID)
		h.put("consumer3", both, nil, generationID)
		got := h.assign()
		h.wantNoTransferring()
		got = h.verify(got)
		h.wantMember(got, "consumer1", tp("topic1", 0), tp("topic2", 1))
		h.wantMember(got, "consumer2", tp("topic1", 1), tp("topic2", 2))
		h.wantMember(got, "consumer3", tp("topic2", 0))
		h.wantFullyBalanced(got)
	}},
	{"testAddRemoveConsumerOneTopic", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 3})
		h.sub("consumer1", "topic")
		got := h.assign()
		h.wantMember(got, "consumer1", tps("topic", 0, 1, 2)...)
		got = h.verify(got)
		h.wantFullyBalanced(got)

		h.rejoin(got, "consumer1")
		h.put("consumer2", []string{"topic"}, nil, generationID)
		got = h.assign()
		h.wantTransferring(map[TopicPartition]string{tp("topic", 2): "consumer2"})
		got = h.verify(got)
		h.wantMember(got, "consumer1", tps("topic", 0, 1)...)
		h.wantMember(got, "consumer2", tp("topic", 2))
		h.wantFullyBalanced(got)

		delete(h.members, "consumer1")
		h.rejoin(got, "consumer2")
		got = h.assign()
		h.wantMember(got, "consumer2", tps("topic", 0, 1, 2)...)
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testTopicBalanceAfterReassignment", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic1": 12, "topic2": 12})
		all := []string{"topic1", "topic2"}
		perTopic := func(got Assignment, want int) {
			t.Helper()
			for _, id := range slices.Sorted(func(yield func(string) bool) {
				for id := range got {
					if !yield(id) {
						return
					}
				}
			}) {
				for _, topic := range all {
					n := 0
					for _, p := range got[id] {
						if p.Topic == topic {
							n++
						}
					}
					if n != want {
						t.Errorf("%s has %d partitions of %s, want %d", id, n, topic, want)
					}
				}
			}
		}
		h.sub("consumer1", all...)
		got := h.assign()
		perTopic(got, 12)
		h.wantNoTransferring()

		h.rejoin(got, "consumer1")
		h.put("consumer2", all, nil, generationID)
		got = h.verify(h.assign())
		perTopic(got, 6)

		h.rejoin(got, "consumer1", "consumer2")
		h.put("consumer3", all, nil, generationID)
		h.put("consumer4", all, nil, generationID)
		got = h.verify(h.assign())
		perTopic(got, 3)

		delete(h.members, "consumer1")
		delete(h.members, "consumer2")
		h.rejoin(got, "consumer3", "consumer4")
		got = h.assign()
		h.wantNoTransferring()
		perTopic(h.verify(got), 6)
	}},
	{"testAddRemoveTwoConsumersTwoTopics", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic1": 3, "topic2": 4})
		all := []string{"topic1", "topic2"}
		h.sub("consumer1", all...)
		h.sub("consumer2", all...)
		got := h.assign()
		h.wantMember(got, "consumer1", tp("topic1", 0), tp("topic1", 2), tp("topic2", 1), tp("topic2", 3))
		h.wantMember(got, "consumer2", tp("topic1", 1), tp("topic2", 0), tp("topic2", 2))
		h.wantNoTransferring()
		got = h.verify(got)
		h.wantFullyBalanced(got)

		h.rejoin(got, "consumer1", "consumer2")
		h.put("consumer3", all, nil, generationID)
		h.put("consumer4", all, nil, generationID)
		got = h.assign()
		h.wantTransferring(map[TopicPartition]string{
			tp("topic1", 2): "consumer3",
			tp("topic2", 3): "consumer3",
			tp("topic2", 2): "consumer4",
		})
		got = h.verify(got)
		h.wantMember(got, "consumer1", tp("topic1", 0), tp("topic2", 1))
		h.wantMember(got, "consumer2", tp("topic2", 0), tp("topic1", 1))
		h.wantMember(got, "consumer3", tp("topic1", 2), tp("topic2", 3))
		h.wantMember(got, "consumer4", tp("topic2", 2))
		h.wantFullyBalanced(got)

		delete(h.members, "consumer1")
		delete(h.members, "consumer2")
		h.rejoin(got, "consumer3", "consumer4")
		got = h.assign()
		h.wantMember(got, "consumer3", tp("topic1", 2), tp("topic2", 3), tp("topic1", 0), tp("topic2", 1))
		h.wantMember(got, "consumer4", tp("topic2", 2), tp("topic1", 1), tp("topic2", 0))
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
	{"testPoorRoundRobinAssignmentScenario", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic1": 2, "topic2": 1, "topic3": 2, "topic4": 1, "topic5": 2})
		h.sub("consumer1", "topic1", "topic2", "topic3", "topic4", "topic5")
		h.sub("consumer2", "topic1", "topic3", "topic5")
		h.sub("consumer3", "topic1", "topic3", "topic5")
		h.sub("consumer4", "topic1", "topic2", "topic3", "topic4", "topic5")
		h.verify(h.assign())
	}},
	{"testAddRemoveTopicTwoConsumers", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 3})
		h.sub("consumer1", "topic")
		h.sub("consumer2", "topic")
		got := h.assign()
		h.wantNoTransferring()
		h.wantFullyBalanced(got)
		got = h.verify(got)
		first := Assignment{"consumer1": got["consumer1"], "consumer2": got["consumer2"]}
		if n1, n2 := len(first["consumer1"]), len(first["consumer2"]); n1+n2 != 3 || n1 < 1 || n2 < 1 {
			t.Fatalf("first round: %v", first)
		}

		h.topics["topic2"] = 3
		for _, id := range []string{"consumer1", "consumer2"} {
			h.put(id, []string{"topic", "topic2"}, got[id], generationID)
		}
		got = h.assign()
		h.wantNoTransferring()
		got = h.verify(got)
		h.wantFullyBalanced(got)
		second := Assignment{"consumer1": got["consumer1"], "consumer2": got["consumer2"]}
		for _, id := range []string{"consumer1", "consumer2"} {
			if len(second[id]) != 3 || !containsAll(second[id], first[id]) {
				t.Errorf("%s: second round %v does not keep %v", id, second[id], first[id])
			}
		}

		delete(h.topics, "topic")
		for _, id := range []string{"consumer1", "consumer2"} {
			h.put(id, []string{"topic2"}, got[id], generationID)
		}
		got = h.assign()
		h.wantNoTransferring()
		got = h.verify(got)
		h.wantFullyBalanced(got)
		for _, id := range []string{"consumer1", "consumer2"} {
			if !containsAll(second[id], got[id]) {
				t.Errorf("%s: third round %v is not within %v", id, got[id], second[id])
			}
		}
	}},
	{"testReassignmentAfterOneConsumerLeaves", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{})
		for i := 1; i < 20; i++ {
			h.topics[topicName(i, 20)] = int32(i)
		}
		for i := 1; i < 20; i++ {
			var topics []string
			for j := 1; j <= i; j++ {
				topics = append(topics, topicName(j, 20))
			}
			h.sub(consumerName(i, 20), topics...)
		}
		got := h.verify(h.assign())
		for i := 1; i < 20; i++ {
			h.rejoin(got, consumerName(i, 20))
		}
		delete(h.members, "c10")
		h.verify(h.assign())
		h.wantSticky()
	}},
	{"testReassignmentAfterOneConsumerAdded", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 20})
		for i := 1; i < 10; i++ {
			h.sub(consumerName(i, 10), "topic")
		}
		got := h.assign()
		h.wantNoTransferring()
		h.verify(got)
		// Kafka's new member joins and the others rejoin with nothing
		// owned: a fresh assignment, nothing to transfer.
		h.sub(consumerName(10, 10), "topic")
		got = h.assign()
		h.wantNoTransferring()
		h.verify(got)
	}},
	{"testSameSubscriptions", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{})
		var all []string
		for i := 1; i < 15; i++ {
			h.topics[topicName(i, 15)] = int32(i)
			all = append(all, topicName(i, 15))
		}
		for i := 1; i < 9; i++ {
			h.sub(consumerName(i, 9), all...)
		}
		got := h.assign()
		h.wantNoTransferring()
		got = h.verify(got)
		for i := 1; i < 9; i++ {
			h.rejoin(got, consumerName(i, 9))
		}
		delete(h.members, consumerName(5, 9))
		got = h.assign()
		h.wantNoTransferring()
		h.verify(got)
	}},
	{"testNewSubscription", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{})
		for i := 1; i < 5; i++ {
			h.topics[topicName(i, 5)] = 1
		}
		for i := 0; i < 3; i++ {
			topics := []string{}
			for j := i; j <= 3*i-2; j++ {
				topics = append(topics, topicName(j, 5))
			}
			h.sub(consumerName(i, 3), topics...)
		}
		h.verify(h.assign())
		// Kafka adds the topic to consumer0's subscription list in place,
		// owned partitions left as verify left them.
		c0 := h.members[consumerName(0, 3)]
		c0.Topics = append(slices.Clone(c0.Topics), topicName(1, 5))
		h.members[c0.ID] = c0
		h.verify(h.assign())
		h.wantSticky()
	}},
	{"testMoveExistingAssignments", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic1": 1, "topic2": 1, "topic3": 1, "topic4": 1, "topic5": 1, "topic6": 1})
		h.put("consumer1", []string{"topic1", "topic2"}, tps("topic1", 0), generationID)
		h.put("consumer2", []string{"topic1", "topic2", "topic3", "topic4"},
			[]TopicPartition{tp("topic2", 0), tp("topic3", 0)}, generationID)
		h.put("consumer3", []string{"topic2", "topic3", "topic4", "topic5", "topic6"},
			[]TopicPartition{tp("topic4", 0), tp("topic5", 0), tp("topic6", 0)}, generationID)
		got := h.assign()
		h.wantGeneralPath()
		h.verify(got)
	}},
	{"testStickiness", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic1": 3})
		for _, id := range []string{"consumer1", "consumer2", "consumer3", "consumer4"} {
			h.sub(id, "topic1")
		}
		got := h.assign()
		h.wantNoTransferring()
		got = h.verify(got)
		had := map[string]TopicPartition{}
		for id, ps := range got {
			if len(ps) > 1 {
				t.Errorf("%s has %v, want at most one", id, ps)
			}
			if len(ps) == 1 {
				had[id] = ps[0]
			}
		}
		// removing the potential group leader
		delete(h.members, "consumer1")
		h.rejoin(got, "consumer2", "consumer3", "consumer4")
		got = h.assign()
		h.wantNoTransferring()
		got = h.verify(got)
		for id, ps := range got {
			if len(ps) != 1 {
				t.Errorf("%s has %v, want one", id, ps)
			}
			if p, ok := had[id]; ok && !slices.Contains(ps, p) {
				t.Errorf("stickiness was not honored for %s: had %v, got %v", id, p, ps)
			}
		}
	}},
	{"testAssignmentUpdatedForDeletedTopic", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic1": 1, "topic3": 100})
		h.sub("consumer", "topic1", "topic2", "topic3")
		got := h.assign()
		h.wantNoTransferring()
		if len(got) != 1 || len(got["consumer"]) != 101 {
			t.Errorf("consumer got %d partitions, want 101", len(got["consumer"]))
		}
		h.wantFullyBalanced(got)
	}},
	{"testNoExceptionThrownWhenOnlySubscribedTopicDeleted", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 3})
		h.sub("consumer", "topic")
		got := h.assign()
		h.wantNoTransferring()
		h.rejoin(got, "consumer")
		h.topics = Topics{}
		got = h.assign()
		h.wantNoTransferring()
		if len(got) != 1 || len(got["consumer"]) != 0 {
			t.Errorf("got %v, want consumer with nothing", got)
		}
	}},
	{"testAllConsumersReachExpectedQuotaAndAreConsideredFilled", func(t *testing.T, a Assignor) {
		h := newStickyHarness(t, a, Topics{"topic": 4})
		h.put("consumer1", []string{"topic"}, tps("topic", 0, 1), generationID)
		h.put("consumer2", []string{"topic"}, tps("topic", 2), generationID)
		h.put("consumer3", []string{"topic"}, nil, generationID)
		got := h.assign()
		h.wantMember(got, "consumer1", tps("topic", 0, 1)...)
		h.wantMember(got, "consumer2", tp("topic", 2))
		h.wantMember(got, "consumer3", tp("topic", 3))
		h.wantNoTransferring()
		h.wantFullyBalanced(h.verify(got))
	}},
}

func containsAll(s, sub []TopicPartition) bool {
	for _, p := range sub {
		if !slices.Contains(s, p) {
			return false
		}
	}
	return true
}

func TestAbstractStickyAssignor(t *testing.T) {
	for _, c := range abstractStickyCases {
		t.Run(c.name, func(t *testing.T) { bothStickyAssignors(t, c.run) })
	}
}
