package assignor

import (
	"fmt"
	"testing"
)

// The cases of Kafka's OptimizedUniformAssignmentBuilderTest (the test
// class of UniformHomogeneousAssignmentBuilder in 4.x), one per test
// method, with Kafka's expected assignments. Members of Kafka's tests are
// in a TreeMap, so they are walked in id order as here.
//
// Kafka's tests that build a current assignment with mkAssignment (a
// HashMap) walk its topics in Uuid hash order, topic2 before topic1; those
// cases list Owned in that order. Cases that use mkOrderedAssignment list
// Owned as Kafka's test does.
func TestUniformHomogeneous(t *testing.T) {
	t12 := []string{"topic1", "topic2"}
	runUniformCases(t, []uniformCase{
		{
			name:    "testOneMemberNoTopicSubscription",
			topics:  Topics{"topic1": 3},
			members: []Member{member("A", nil)},
			want:    Assignment{},
		},
		{
			name:    "testOneMemberSubscribedToNonexistentTopic",
			topics:  Topics{"topic1": 3},
			members: []Member{member("A", []string{"topic2"})},
			wantErr: true,
		},
		{
			// topic3 comes before topic1 in Kafka's hash order, so A (the
			// member with the extra partition) starts with topic3.
			name:   "testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks",
			topics: Topics{"topic1": 3, "topic3": 2},
			members: []Member{
				member("A", []string{"topic1", "topic3"}),
				member("B", []string{"topic1", "topic3"}),
			},
			want: Assignment{
				"A": owns(tps("topic1", 0), tps("topic3", 0, 1)),
				"B": tps("topic1", 1, 2),
			},
		},
		{
			name:   "testFirstAssignmentNumMembersGreaterThanTotalNumPartitions",
			topics: Topics{"topic3": 2},
			members: []Member{
				member("A", []string{"topic3"}),
				member("B", []string{"topic3"}),
				member("C", []string{"topic3"}),
			},
			want: Assignment{
				"A": tps("topic3", 0),
				"B": tps("topic3", 1),
				"C": {},
			},
		},
		{
			name:    "testValidityAndBalanceForLargeSampleSet",
			topics:  largeTopics(99, 3),
			members: largeMembers(49, topicList("topic-", 99)),
		},
		{
			name:   "testReassignmentForTwoMembersTwoTopicsGivenUnbalancedPrevAssignment",
			topics: Topics{"topic1": 3, "topic2": 3},
			members: []Member{
				member("A", t12, tps("topic1", 0, 1), tps("topic2", 0, 1)),
				member("B", t12, tps("topic1", 2), tps("topic2", 2)),
			},
			want: Assignment{
				"A": owns(tps("topic1", 0, 1), tps("topic2", 0)),
				"B": owns(tps("topic1", 2), tps("topic2", 1, 2)),
			},
		},
		{
			name:   "testReassignmentWhenPartitionsAreAddedForTwoMembersTwoTopics",
			topics: Topics{"topic1": 6, "topic2": 5},
			members: []Member{
				member("A", t12, tps("topic1", 0, 2), tps("topic2", 0)),
				member("B", t12, tps("topic1", 1), tps("topic2", 1, 2)),
			},
			want: Assignment{
				"A": owns(tps("topic1", 0, 2, 3), tps("topic2", 0, 3, 4)),
				"B": owns(tps("topic1", 1, 4, 5), tps("topic2", 1, 2)),
			},
		},
		{
			name:   "testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics",
			topics: Topics{"topic1": 3, "topic2": 3},
			members: []Member{
				member("A", t12, tps("topic1", 0, 2), tps("topic2", 0)),
				member("B", t12, tps("topic1", 1), tps("topic2", 1, 2)),
				member("C", t12),
			},
			want: Assignment{
				"A": tps("topic1", 0, 2),
				"B": owns(tps("topic1", 1), tps("topic2", 1)),
				"C": tps("topic2", 0, 2),
			},
		},
		{
			// mkAssignment: Owned in hash order, topic2 first.
			name:   "testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersTwoTopics",
			topics: Topics{"topic1": 3, "topic2": 3},
			members: []Member{
				member("A", t12, tps("topic2", 0), tps("topic1", 0)),
				member("B", t12, tps("topic2", 1), tps("topic1", 1)),
			},
			want: Assignment{
				"A": owns(tps("topic1", 0), tps("topic2", 0, 2)),
				"B": owns(tps("topic1", 1, 2), tps("topic2", 1)),
			},
		},
		{
			name:   "testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics",
			topics: Topics{"topic1": 2, "topic2": 2},
			members: []Member{
				member("A", []string{"topic2"}, tps("topic2", 0), tps("topic1", 0)),
				member("B", []string{"topic2"}, tps("topic2", 1), tps("topic1", 1)),
			},
			want: Assignment{
				"A": tps("topic2", 0),
				"B": tps("topic2", 1),
			},
		},
	})
}

func largeTopics(n int, partitions int32) Topics {
	ts := Topics{}
	for _, name := range topicList("topic-", n) {
		ts[name] = partitions
	}
	return ts
}

func largeMembers(n int, topics []string) []Member {
	ms := make([]Member, n)
	for i := range ms {
		ms[i] = member(fmt.Sprintf("member%d", i+1), topics)
	}
	return ms
}
