package assignor

import (
	"fmt"
	"testing"
)

// The cases of Kafka's UniformHomogeneousAssignmentBuilderTest (4.1 and
// later; OptimizedUniformAssignmentBuilderTest before), one per test
// method, with Kafka's expected assignments. Members of Kafka's tests are
// in a TreeMap, so they are walked in id order as here.
//
// Three cases expect other assignments than Kafka 4.0's test did, because
// KAFKA-18688 gave the extra partitions to the last unfilled members
// instead of the first: testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks,
// testFirstAssignmentNumMembersGreaterThanTotalNumPartitions and
// testReassignmentWhenPartitionsAreAddedForTwoMembersTwoTopics.
//
// Not ported: the rack-aware variants (Kafka's rack-aware homogeneous
// builder, KAFKA-19909, is newer than 4.1), and testAssignmentReuse's
// assertSame (Java object identity; its equality half is below).
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
			members: []Member{umember("A", nil)},
			want:    Assignment{},
		},
		{
			name:    "testOneMemberSubscribedToNonexistentTopic",
			topics:  Topics{"topic1": 3},
			members: []Member{umember("A", []string{"topic2"})},
			wantErr: true,
		},
		{
			// topic3 comes before topic1 in Kafka's hash order; B, the last
			// unfilled member, takes the extra partition.
			name:   "testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks",
			topics: Topics{"topic1": 3, "topic3": 2},
			members: []Member{
				umember("A", []string{"topic1", "topic3"}),
				umember("B", []string{"topic1", "topic3"}),
			},
			want: Assignment{
				"A": utps("topic3", 0, 1),
				"B": utps("topic1", 0, 1, 2),
			},
		},
		{
			name:   "testFirstAssignmentNumMembersGreaterThanTotalNumPartitions",
			topics: Topics{"topic3": 2},
			members: []Member{
				umember("A", []string{"topic3"}),
				umember("B", []string{"topic3"}),
				umember("C", []string{"topic3"}),
			},
			want: Assignment{
				"A": {},
				"B": utps("topic3", 0),
				"C": utps("topic3", 1),
			},
		},
		{
			name:    "testValidityAndBalanceForLargeSampleSet",
			topics:  ulargeTopics(100, 3),
			members: ulargeMembers(49, utopicList("topic-", 100)),
		},
		{
			name:   "testReassignmentForTwoMembersTwoTopicsGivenUnbalancedPrevAssignment",
			topics: Topics{"topic1": 3, "topic2": 3},
			members: []Member{
				umember("A", t12, utps("topic1", 0, 1), utps("topic2", 0, 1)),
				umember("B", t12, utps("topic1", 2), utps("topic2", 2)),
			},
			want: Assignment{
				"A": uowns(utps("topic1", 0, 1), utps("topic2", 0)),
				"B": uowns(utps("topic1", 2), utps("topic2", 1, 2)),
			},
		},
		{
			name:   "testReassignmentWhenPartitionsAreAddedForTwoMembersTwoTopics",
			topics: Topics{"topic1": 6, "topic2": 5},
			members: []Member{
				umember("A", t12, utps("topic1", 0, 2), utps("topic2", 0)),
				umember("B", t12, utps("topic1", 1), utps("topic2", 1, 2)),
			},
			want: Assignment{
				"A": uowns(utps("topic1", 0, 2), utps("topic2", 0, 3, 4)),
				"B": uowns(utps("topic1", 1, 3, 4, 5), utps("topic2", 1, 2)),
			},
		},
		{
			name:   "testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics",
			topics: Topics{"topic1": 3, "topic2": 3},
			members: []Member{
				umember("A", t12, utps("topic1", 0, 2), utps("topic2", 0)),
				umember("B", t12, utps("topic1", 1), utps("topic2", 1, 2)),
				umember("C", t12),
			},
			want: Assignment{
				"A": utps("topic1", 0, 2),
				"B": uowns(utps("topic1", 1), utps("topic2", 1)),
				"C": utps("topic2", 0, 2),
			},
		},
		{
			// mkAssignment: Owned in hash order, topic2 first.
			name:   "testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersTwoTopics",
			topics: Topics{"topic1": 3, "topic2": 3},
			members: []Member{
				umember("A", t12, utps("topic2", 0), utps("topic1", 0)),
				umember("B", t12, utps("topic2", 1), utps("topic1", 1)),
			},
			want: Assignment{
				"A": uowns(utps("topic1", 0), utps("topic2", 0, 2)),
				"B": uowns(utps("topic1", 1, 2), utps("topic2", 1)),
			},
		},
		{
			name:   "testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics",
			topics: Topics{"topic1": 2, "topic2": 2},
			members: []Member{
				umember("A", []string{"topic2"}, utps("topic2", 0), utps("topic1", 0)),
				umember("B", []string{"topic2"}, utps("topic2", 1), utps("topic1", 1)),
			},
			want: Assignment{
				"A": utps("topic2", 0),
				"B": utps("topic2", 1),
			},
		},
	}, true)
}

func ulargeTopics(n int, partitions int32) Topics {
	ts := Topics{}
	for _, name := range utopicList("topic-", n) {
		ts[name] = partitions
	}
	return ts
}

func ulargeMembers(n int, topics []string) []Member {
	ms := make([]Member, n)
	for i := range ms {
		ms[i] = umember(fmt.Sprintf("member%d", i+1), topics)
	}
	return ms
}

// Kafka's CommonAssignorTests.testAssignmentReuse and
// testReassignmentStickiness (run by UniformHomogeneousAssignmentBuilderTest
// as testAssignmentReuse and testIterationOrderStickiness): a group that
// already has a balanced assignment keeps it exactly. Kafka permutes the
// order it walks the members in, which changes which members walk first;
// loglab always walks members in id order, so the same question is asked
// by permuting which member holds which of the first assignment's shares
// (and so which members hold the extra partitions). Kafka 4.0's builder
// moved a partition here (KAFKA-18688); 4.1's does not.
func TestUniformHomogeneousStableAssignment(t *testing.T) {
	topics := Topics{"topic1": 2, "topic2": 5, "topic3": 7}
	all := []string{"topic1", "topic2", "topic3"}
	uniformCheckStable(t, topics, []Member{
		umember("A", all), umember("B", all), umember("C", all),
	}, Uniform{}.Assign)
}

func uniformCheckStable(t *testing.T, topics Topics, members []Member, assign func(Topics, []Member) (Assignment, error)) {
	t.Helper()
	first, err := assign(topics, members)
	if err != nil {
		t.Fatal(err)
	}
	for _, perm := range [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		held := Assignment{}
		again := make([]Member, len(members))
		for i, m := range members {
			m.Owned = first[members[perm[i]].ID]
			held[m.ID] = m.Owned
			again[i] = m
		}
		second, err := assign(topics, again)
		if err != nil {
			t.Fatal(err)
		}
		uniformAssertSame(t, held, second)
	}
}
