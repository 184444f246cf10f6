package assignor

import "testing"

// The cases of Kafka's group-coordinator/src/test/java/org/apache/kafka/
// coordinator/group/assignor/RangeAssignorTest.java (Kafka 4.x, after
// KAFKA-16944), expected assignments copied from it. None is skipped.
// Members carry the current assignment Kafka's test gives them, though
// this assignor ignores it: the testReassignment* cases are the ones that
// show partitions moving away from their owners.

// withOwned gives a member its current assignment (KIP-848's
// MemberSubscriptionAndAssignment).
func withOwned(m Member, owned string) Member {
	m.Owned = tpList(owned)
	return m
}

var serverRangeCases = []portedCase{
	{
		name:   "testOneMemberNoTopic",
		topics: Topics{"topic1": 3},
		rounds: []portedRound{{
			members: []Member{subscribed("A", "")},
			want:    Assignment{"A": tpList("")},
		}},
	},
	{
		// The coordinator refuses, where the classic range assignor
		// would skip the topic.
		name:   "testOneMemberSubscribedToNonExistentTopic",
		topics: Topics{"topic1": 3},
		rounds: []portedRound{{
			members: []Member{subscribed("A", "", "topic2")},
			wantErr: true,
		}},
	},
	{
		name:   "testFirstAssignmentTwoMembersTwoTopicsSameSubscriptions",
		topics: Topics{"topic1": 3, "topic3": 2},
		rounds: []portedRound{{
			members: []Member{
				subscribed("A", "", "topic1", "topic3"),
				subscribed("B", "", "topic1", "topic3"),
			},
			want: Assignment{
				"A": tpList("topic1-0, topic1-1, topic3-0"),
				"B": tpList("topic1-2, topic3-1"),
			},
		}},
	},
	{
		name:   "testFirstAssignmentThreeMembersThreeTopicsDifferentSubscriptions",
		topics: Topics{"topic1": 3, "topic2": 3, "topic3": 2},
		rounds: []portedRound{{
			members: []Member{
				subscribed("A", "", "topic1", "topic2"),
				subscribed("B", "", "topic3"),
				subscribed("C", "", "topic2", "topic3"),
			},
			want: Assignment{
				"A": tpList("topic1-0, topic1-1, topic1-2, topic2-0, topic2-1"),
				"B": tpList("topic3-0"),
				"C": tpList("topic2-2, topic3-1"),
			},
		}},
	},
	{
		// topic3 has 2 partitions for 3 subscribers: C gets none of it.
		name:   "testFirstAssignmentNumMembersGreaterThanNumPartitions",
		topics: Topics{"topic1": 3, "topic3": 2},
		rounds: []portedRound{{
			members: []Member{
				subscribed("A", "", "topic1", "topic3"),
				subscribed("B", "", "topic1", "topic3"),
				subscribed("C", "", "topic1", "topic3"),
			},
			want: Assignment{
				"A": tpList("topic1-0, topic3-0"),
				"B": tpList("topic1-1, topic3-1"),
				"C": tpList("topic1-2"),
			},
		}},
	},
	{
		// Static member A rejoins as memberA1 with the same instance id:
		// Kafka asserts both keep their assignment, not what it is.
		name:   "testStaticMembership",
		topics: Topics{"topic1": 3},
		rounds: []portedRound{
			{members: []Member{
				subscribed("A", "instanceA", "topic1"),
				subscribed("B", "instanceB", "topic1"),
			}},
			{
				members: []Member{
					subscribed("B", "instanceB", "topic1"),
					subscribed("memberA1", "instanceA", "topic1"),
				},
				sameAsFirstRound: map[string]string{"memberA1": "A", "B": "B"},
			},
		},
	},
	{
		name:   "testMixedStaticMembership",
		topics: Topics{"topic1": 5},
		rounds: []portedRound{
			{members: []Member{
				subscribed("A", "instanceA", "topic1"),
				subscribed("C", "instanceC", "topic1"),
				subscribed("B", "", "topic1"),
			}},
			{
				members: []Member{
					subscribed("C", "instanceC", "topic1"),
					subscribed("B", "", "topic1"),
					subscribed("memberA1", "instanceA", "topic1"),
				},
				sameAsFirstRound: map[string]string{"memberA1": "A", "B": "B", "C": "C"},
			},
		},
	},
	{
		name:   "testReassignmentNumMembersGreaterThanNumPartitionsWhenOneMemberAdded",
		topics: Topics{"topic1": 2, "topic2": 2},
		rounds: []portedRound{{
			members: []Member{
				withOwned(subscribed("A", "", "topic1", "topic2"), "topic1-0, topic2-0"),
				withOwned(subscribed("B", "", "topic1", "topic2"), "topic1-1, topic2-1"),
				subscribed("C", "", "topic1", "topic2"),
			},
			want: Assignment{
				"A": tpList("topic1-0, topic2-0"),
				"B": tpList("topic1-1, topic2-1"),
				"C": tpList(""),
			},
		}},
	},
	{
		name:   "testReassignmentWhenOnePartitionAddedForTwoMembersTwoTopics",
		topics: Topics{"topic1": 4, "topic2": 4},
		rounds: []portedRound{{
			members: []Member{
				withOwned(subscribed("A", "", "topic1", "topic2"), "topic1-0, topic1-1, topic2-0, topic2-1"),
				withOwned(subscribed("B", "", "topic1", "topic2"), "topic1-2, topic2-2"),
			},
			want: Assignment{
				"A": tpList("topic1-0, topic1-1, topic2-0, topic2-1"),
				"B": tpList("topic1-2, topic1-3, topic2-2, topic2-3"),
			},
		}},
	},
	{
		// Not sticky: A's topic1-1 and topic2-1 move to B, B's
		// topic1-2 and topic2-2 to the new member C.
		name:   "testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics",
		topics: Topics{"topic1": 3, "topic2": 3},
		rounds: []portedRound{{
			members: []Member{
				withOwned(subscribed("A", "", "topic1", "topic2"), "topic1-0, topic1-1, topic2-0, topic2-1"),
				withOwned(subscribed("B", "", "topic1", "topic2"), "topic1-2, topic2-2"),
				subscribed("C", "", "topic1", "topic2"),
			},
			want: Assignment{
				"A": tpList("topic1-0, topic2-0"),
				"B": tpList("topic1-1, topic2-1"),
				"C": tpList("topic1-2, topic2-2"),
			},
		}},
	},
	{
		name:   "testReassignmentWhenOneMemberAddedAndOnePartitionAfterInitialAssignmentWithTwoMembersTwoTopics",
		topics: Topics{"topic1": 4, "topic2": 3},
		rounds: []portedRound{{
			members: []Member{
				withOwned(subscribed("A", "", "topic1", "topic2"), "topic1-0, topic1-1, topic2-0, topic2-1"),
				withOwned(subscribed("B", "", "topic1", "topic2"), "topic1-2, topic2-2"),
				subscribed("C", "", "topic1"),
			},
			want: Assignment{
				"A": tpList("topic1-0, topic1-1, topic2-0, topic2-1"),
				"B": tpList("topic1-2, topic2-2"),
				"C": tpList("topic1-3"),
			},
		}},
	},
	{
		name:   "testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithTwoMembersTwoTopics",
		topics: Topics{"topic1": 3, "topic2": 3},
		rounds: []portedRound{{
			members: []Member{
				withOwned(subscribed("B", "", "topic1", "topic2"), "topic1-2, topic2-2"),
			},
			want: Assignment{
				"B": tpList("topic1-0, topic1-1, topic1-2, topic2-0, topic2-1, topic2-2"),
			},
		}},
	},
	{
		// Subscriptions were A: topic1,topic2; B: topic2; C: topic2,topic3
		// and became A: topic1; B: topic1,topic2,topic3; C: topic2.
		name:   "testReassignmentWhenMultipleSubscriptionsRemovedAfterInitialAssignmentWithThreeMembersTwoTopics",
		topics: Topics{"topic1": 3, "topic2": 3, "topic3": 2},
		rounds: []portedRound{{
			members: []Member{
				withOwned(subscribed("A", "", "topic1"), "topic1-0, topic1-1, topic1-2, topic2-0"),
				withOwned(subscribed("B", "", "topic1", "topic2", "topic3"), "topic2-1"),
				withOwned(subscribed("C", "", "topic2"), "topic2-2, topic3-0, topic3-1"),
			},
			want: Assignment{
				"A": tpList("topic1-0, topic1-1"),
				"B": tpList("topic1-2, topic2-0, topic2-1, topic3-0, topic3-1"),
				"C": tpList("topic2-2"),
			},
		}},
	},
}

func TestServerRangeAssignor(t *testing.T) { runPortedCases(t, ServerRange{}, serverRangeCases) }

func TestServerRangeAssignorName(t *testing.T) {
	if got := (ServerRange{}).Name(); got != "range" {
		t.Errorf("Name() = %q, want Kafka's RANGE_ASSIGNOR_NAME \"range\"", got)
	}
}
