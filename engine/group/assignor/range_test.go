package assignor

import "testing"

// The cases of Kafka's clients/src/test/java/org/apache/kafka/clients/
// consumer/RangeAssignorTest.java, expected assignments copied from it.
// Here without racks; TestRangeAssignorRackConfigs re-runs them under
// Kafka's RackConfigs and range_rack_cases_test.go has the rack-aware
// methods, so none is skipped.
var rangeCases = []portedCase{
	{
		name:   "testOneConsumerNoTopic",
		topics: Topics{},
		rounds: []portedRound{{
			members: []Member{subscribed("consumer1", "")},
			want:    Assignment{"consumer1": tpList("")},
		}},
	},
	{
		name:   "testOneConsumerNonexistentTopic",
		topics: Topics{},
		rounds: []portedRound{{
			members: []Member{subscribed("consumer1", "", "topic1")},
			want:    Assignment{"consumer1": tpList("")},
		}},
	},
	{
		name:   "testOneConsumerOneTopic",
		topics: Topics{"topic1": 3},
		rounds: []portedRound{{
			members: []Member{subscribed("consumer1", "", "topic1")},
			want:    Assignment{"consumer1": tpList("topic1-0, topic1-1, topic1-2")},
		}},
	},
	{
		name:   "testOnlyAssignsPartitionsFromSubscribedTopics",
		topics: Topics{"topic1": 3, "other": 3},
		rounds: []portedRound{{
			members: []Member{subscribed("consumer1", "", "topic1")},
			want:    Assignment{"consumer1": tpList("topic1-0, topic1-1, topic1-2")},
		}},
	},
	{
		name:   "testOneConsumerMultipleTopics",
		topics: Topics{"topic1": 1, "topic2": 2},
		rounds: []portedRound{{
			members: []Member{subscribed("consumer1", "", "topic1", "topic2")},
			want:    Assignment{"consumer1": tpList("topic1-0, topic2-0, topic2-1")},
		}},
	},
	{
		name:   "testTwoConsumersOneTopicOnePartition",
		topics: Topics{"topic1": 1},
		rounds: []portedRound{{
			members: []Member{subscribed("consumer1", "", "topic1"), subscribed("consumer2", "", "topic1")},
			want: Assignment{
				"consumer1": tpList("topic1-0"),
				"consumer2": tpList(""),
			},
		}},
	},
	{
		name:   "testTwoConsumersOneTopicTwoPartitions",
		topics: Topics{"topic1": 2},
		rounds: []portedRound{{
			members: []Member{subscribed("consumer1", "", "topic1"), subscribed("consumer2", "", "topic1")},
			want: Assignment{
				"consumer1": tpList("topic1-0"),
				"consumer2": tpList("topic1-1"),
			},
		}},
	},
	{
		name:   "testMultipleConsumersMixedTopics",
		topics: Topics{"topic1": 3, "topic2": 2},
		rounds: []portedRound{{
			members: []Member{
				subscribed("consumer1", "", "topic1"),
				subscribed("consumer2", "", "topic1", "topic2"),
				subscribed("consumer3", "", "topic1"),
			},
			want: Assignment{
				"consumer1": tpList("topic1-0"),
				"consumer2": tpList("topic1-1, topic2-0, topic2-1"),
				"consumer3": tpList("topic1-2"),
			},
		}},
	},
	{
		name:   "testTwoConsumersTwoTopicsSixPartitions",
		topics: Topics{"topic1": 3, "topic2": 3},
		rounds: []portedRound{{
			members: []Member{
				subscribed("consumer1", "", "topic1", "topic2"),
				subscribed("consumer2", "", "topic1", "topic2"),
			},
			want: Assignment{
				"consumer1": tpList("topic1-0, topic1-1, topic2-0, topic2-1"),
				"consumer2": tpList("topic1-2, topic2-2"),
			},
		}},
	},
	{
		// consumer-a sorts before consumer-b by member id, but static
		// members are ordered by instance id.
		name:   "testTwoStaticConsumersTwoTopicsSixPartitions",
		topics: Topics{"topic1": 3, "topic2": 3},
		rounds: []portedRound{{
			members: []Member{
				subscribed("consumer-b", "instance1", "topic1", "topic2"),
				subscribed("consumer-a", "instance2", "topic1", "topic2"),
			},
			want: Assignment{
				"consumer-b": tpList("topic1-0, topic1-1, topic2-0, topic2-1"),
				"consumer-a": tpList("topic1-2, topic2-2"),
			},
		}},
	},
	{
		// The static member comes first whatever its member id.
		name:   "testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions",
		topics: Topics{"topic1": 3, "topic2": 3},
		rounds: []portedRound{{
			members: []Member{
				subscribed("consumer-b", "instance1", "topic1", "topic2"),
				subscribed("consumer-a", "", "topic1", "topic2"),
			},
			want: Assignment{
				"consumer-b": tpList("topic1-0, topic1-1, topic2-0, topic2-1"),
				"consumer-a": tpList("topic1-2, topic2-2"),
			},
		}},
	},
	{
		// Replacing the dynamic consumer4 by consumer5 moves nothing of
		// the static members.
		name:   "testStaticMemberRangeAssignmentPersistent",
		topics: Topics{"topic1": 5, "topic2": 4},
		rounds: []portedRound{
			{
				members: []Member{
					subscribed("consumer1", "instance1", "topic1", "topic2"),
					subscribed("consumer2", "instance2", "topic1", "topic2"),
					subscribed("consumer3", "instance3", "topic1", "topic2"),
					subscribed("consumer4", "", "topic1", "topic2"),
				},
				want: Assignment{
					"consumer1": tpList("topic1-0, topic1-1, topic2-0"),
					"consumer2": tpList("topic1-2, topic2-1"),
					"consumer3": tpList("topic1-3, topic2-2"),
					"consumer4": tpList("topic1-4, topic2-3"),
				},
			},
			{
				members: []Member{
					subscribed("consumer1", "instance1", "topic1", "topic2"),
					subscribed("consumer2", "instance2", "topic1", "topic2"),
					subscribed("consumer3", "instance3", "topic1", "topic2"),
					subscribed("consumer5", "", "topic1", "topic2"),
				},
				want: Assignment{
					"consumer1": tpList("topic1-0, topic1-1, topic2-0"),
					"consumer2": tpList("topic1-2, topic2-1"),
					"consumer3": tpList("topic1-3, topic2-2"),
					"consumer5": tpList("topic1-4, topic2-3"),
				},
			},
		},
	},
	{
		// Kafka expects instance1: t1-0,1 t2-0,1; instance2: t1-2,3
		// t2-2,3; instance3: t1-4 t2-4, before and after instance3 rejoins
		// as consumer4 and instance2 as consumer5.
		name:   "testStaticMemberRangeAssignmentPersistentAfterMemberIdChanges",
		topics: Topics{"topic1": 5, "topic2": 5},
		rounds: []portedRound{
			{
				members: []Member{
					subscribed("consumer1", "instance1", "topic1", "topic2"),
					subscribed("consumer2", "instance2", "topic1", "topic2"),
					subscribed("consumer3", "instance3", "topic1", "topic2"),
				},
				want: Assignment{
					"consumer1": tpList("topic1-0, topic1-1, topic2-0, topic2-1"),
					"consumer2": tpList("topic1-2, topic1-3, topic2-2, topic2-3"),
					"consumer3": tpList("topic1-4, topic2-4"),
				},
			},
			{
				members: []Member{
					subscribed("consumer1", "instance1", "topic1", "topic2"),
					subscribed("consumer5", "instance2", "topic1", "topic2"),
					subscribed("consumer4", "instance3", "topic1", "topic2"),
				},
				want: Assignment{
					"consumer1": tpList("topic1-0, topic1-1, topic2-0, topic2-1"),
					"consumer5": tpList("topic1-2, topic1-3, topic2-2, topic2-3"),
					"consumer4": tpList("topic1-4, topic2-4"),
				},
			},
		},
	},
}

func TestRangeAssignor(t *testing.T) { runPortedCases(t, Range{}, rangeCases) }

func TestRangeAssignorName(t *testing.T) {
	if got := (Range{}).Name(); got != "range" {
		t.Errorf("Name() = %q, want Kafka's RANGE_ASSIGNOR_NAME \"range\"", got)
	}
}
