package assignor

import "testing"

// The cases of Kafka's UniformHeterogeneousAssignmentBuilderTest, one per
// test method, with Kafka's expected assignments. Kafka's test walks the
// members in sorted order (its TestGroupSpecImpl), as loglab always does,
// and breaks topic ties by topic id; the test's ids sort as the topic
// names do (T1-..., T2-..., ...), so loglab's tie-break by name gives the
// same order. Like Kafka's test, every case runs the heterogeneous builder,
// even where all members subscribe to the same topics (where the
// assignor itself would pick the homogeneous one). The heterogeneous builder does not depend on the order a
// member's current assignment is listed in.
//
// Not ported: Kafka has no rack-aware heterogeneous uniform builder.
func TestUniformHeterogeneous(t *testing.T) {
	t1, t2, t3, t4 := "topic1", "topic2", "topic3", "topic4"
	sub := func(ts ...string) []string { return ts }
	runUniformCasesWith(t, []uniformCase{
		{
			name:    "testTwoMembersNoTopicSubscription",
			topics:  Topics{t1: 3},
			members: []Member{umember("A", nil), umember("B", sub())},
			want:    Assignment{},
		},
		{
			name:    "testTwoMembersSubscribedToNonexistentTopics",
			topics:  Topics{t1: 3},
			members: []Member{umember("A", sub(t3)), umember("B", sub(t2))},
			wantErr: true,
		},
		{
			name:    "testFirstAssignmentTwoMembersTwoTopics",
			topics:  Topics{t1: 3, t3: 6},
			members: []Member{umember("A", sub(t1, t3)), umember("B", sub(t3))},
			want: Assignment{
				"A": uowns(utps(t1, 0, 1, 2), utps(t3, 4)),
				"B": utps(t3, 0, 1, 2, 3, 5),
			},
		},
		{
			name:   "testFirstAssignmentNumMembersGreaterThanTotalNumPartitions",
			topics: Topics{t3: 1, t1: 2},
			members: []Member{
				umember("A", sub(t3)), umember("B", sub(t3)), umember("C", sub(t1)),
			},
			want: Assignment{
				"A": utps(t3, 0),
				"B": {},
				"C": utps(t1, 0, 1),
			},
		},
		{
			name:   "testReassignmentForTwoMembersThreeTopicsGivenUnbalancedPrevAssignment",
			topics: Topics{t1: 6, t2: 4, t3: 4},
			members: []Member{
				umember("A", sub(t1), utps(t1, 0, 1, 2)),
				umember("B", sub(t1, t2), utps(t1, 3), utps(t2, 0)),
				umember("C", sub(t1, t2, t3), utps(t1, 4, 5), utps(t2, 1, 2, 3), utps(t3, 0, 1, 2, 3)),
			},
			want: Assignment{
				"A": utps(t1, 0, 1, 2, 5),
				"B": uowns(utps(t1, 3), utps(t2, 0, 1, 2, 3)),
				"C": uowns(utps(t1, 4), utps(t3, 0, 1, 2, 3)),
			},
		},
		{
			// Partitions added: T1 4 -> 6, T2 3 -> 5, T3 2 -> 3.
			name:   "testReassignmentWhenPartitionsAreAddedForTwoMembers",
			topics: Topics{t1: 6, t2: 5, t3: 3, t4: 3},
			members: []Member{
				umember("A", sub(t1, t3), utps(t1, 0, 1, 2, 3), utps(t3, 0, 1)),
				umember("B", sub(t1, t2, t3, t4), utps(t2, 0, 1, 2), utps(t4, 0, 1, 2)),
			},
			want: Assignment{
				"A": uowns(utps(t1, 0, 1, 2, 3, 4, 5), utps(t3, 0, 1, 2)),
				"B": uowns(utps(t2, 0, 1, 2, 3, 4), utps(t4, 0, 1, 2)),
			},
		},
		{
			// Initially T1 and T2 had 3 partitions each.
			name:   "testReassignmentWhenOneMemberAddedAndPartitionsAddedTwoMembersTwoTopics",
			topics: Topics{t1: 6, t2: 7},
			members: []Member{
				umember("A", sub(t1), utps(t1, 0, 2), utps(t2, 0)),
				umember("B", sub(t1, t2), utps(t1, 1), utps(t2, 1, 2)),
				umember("C", sub(t1, t2)),
			},
			want: Assignment{
				"A": utps(t1, 0, 2, 3, 4, 5),
				"B": uowns(utps(t1, 1), utps(t2, 1, 2, 6)),
				"C": utps(t2, 0, 3, 4, 5),
			},
		},
		{
			name:   "testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersThreeTopics",
			topics: Topics{t1: 3, t2: 8, t3: 3},
			members: []Member{
				umember("A", sub(t1, t3), utps(t1, 0, 1, 2), utps(t3, 0, 1)),
				umember("B", sub(t2), utps(t2, 3, 4, 5, 6)),
			},
			want: Assignment{
				"A": uowns(utps(t1, 0, 1, 2), utps(t3, 0, 1, 2)),
				"B": utps(t2, 0, 1, 2, 3, 4, 5, 6, 7),
			},
		},
		{
			name:   "testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics",
			topics: Topics{t1: 3, t2: 5},
			members: []Member{
				umember("A", sub(t1), utps(t1, 0, 2), utps(t2, 1, 3)),
				umember("B", sub(t1, t2), utps(t1, 1), utps(t2, 0, 2, 4)),
			},
			want: Assignment{
				"A": utps(t1, 0, 1, 2),
				"B": utps(t2, 0, 1, 2, 3, 4),
			},
		},
		{
			// The topic's partitions run out before its subscribers are
			// balanced, and its least loaded subscriber owns none of it:
			// the per-topic loop must stop when nothing is left to move.
			name:   "testReassignmentWhenTopicPartitionsRunOutAndMembersHaveNoPartitions",
			topics: Topics{t1: 2, t2: 2, t3: 2},
			members: []Member{
				umember("A", sub(t1, t2, t3), utps(t1, 0, 1), utps(t2, 0, 1), utps(t3, 0, 1)),
				umember("B", sub(t1, t2, t3)),
			},
			want: Assignment{
				"A": uowns(utps(t2, 0), utps(t3, 0, 1)),
				"B": uowns(utps(t1, 0, 1), utps(t2, 1)),
			},
		},
		{
			name:    "testFirstAssignmentWithTwoMembersIncludingOneWithoutSubscriptions",
			topics:  Topics{t1: 3},
			members: []Member{umember("A", sub(t1)), umember("B", sub())},
			want: Assignment{
				"A": utps(t1, 0, 1, 2),
				"B": {},
			},
		},
	}, false, uniformForcedHeterogeneous)
}

// Kafka's CommonAssignorTests.testAssignmentReuse and
// testReassignmentStickiness with the HETEROGENEOUS subscription type: a
// balanced assignment is kept as it is, whichever members hold the
// extra partitions.
func TestUniformHeterogeneousStableAssignment(t *testing.T) {
	topics := Topics{"topic1": 2, "topic2": 5, "topic3": 7}
	all := []string{"topic1", "topic2", "topic3"}
	uniformCheckStable(t, topics, []Member{
		umember("A", all), umember("B", all), umember("C", all),
	}, uniformForcedHeterogeneous)
}

// Kafka's UniformAssignor picks the heterogeneous builder when the
// members' subscriptions differ: here the group of
// testFirstAssignmentTwoMembersTwoTopics, through Assign.
func TestUniformPicksHeterogeneousBuilder(t *testing.T) {
	got, err := Uniform{}.Assign(Topics{"topic1": 3, "topic3": 6}, []Member{
		umember("B", []string{"topic3"}),
		umember("A", []string{"topic3", "topic1"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	uniformAssertSame(t, Assignment{
		"A": uowns(utps("topic1", 0, 1, 2), utps("topic3", 4)),
		"B": utps("topic3", 0, 1, 2, 3, 5),
	}, got)
}
