package assignor

import "testing"

// The cases of Kafka's clients/src/test/java/org/apache/kafka/clients/
// consumer/RoundRobinAssignorTest.java, expected assignments copied from
// it. None is skipped.
var roundRobinCases = []portedCase{
	{
		name:   "testOneConsumerNoTopic",
		topics: Topics{},
		rounds: []portedRound{{
			members: []Member{subscribed("consumer", "")},
			want:    Assignment{"consumer": tpList("")},
		}},
	},
	{
		name:   "testOneConsumerNonexistentTopic",
		topics: Topics{},
		rounds: []portedRound{{
			members: []Member{subscribed("consumer", "", "topic")},
			want:    Assignment{"consumer": tpList("")},
		}},
	},
	{
		name:   "testOneConsumerOneTopic",
		topics: Topics{"topic": 3},
		rounds: []portedRound{{
			members: []Member{subscribed("consumer", "", "topic")},
			want:    Assignment{"consumer": tpList("topic-0, topic-1, topic-2")},
		}},
	},
	{
		name:   "testOnlyAssignsPartitionsFromSubscribedTopics",
		topics: Topics{"topic": 3, "other": 3},
		rounds: []portedRound{{
			members: []Member{subscribed("consumer", "", "topic")},
			want:    Assignment{"consumer": tpList("topic-0, topic-1, topic-2")},
		}},
	},
	{
		name:   "testOneConsumerMultipleTopics",
		topics: Topics{"topic1": 1, "topic2": 2},
		rounds: []portedRound{{
			members: []Member{subscribed("consumer", "", "topic1", "topic2")},
			want:    Assignment{"consumer": tpList("topic1-0, topic2-0, topic2-1")},
		}},
	},
	{
		name:   "testTwoConsumersOneTopicOnePartition",
		topics: Topics{"topic": 1},
		rounds: []portedRound{{
			members: []Member{subscribed("consumer1", "", "topic"), subscribed("consumer2", "", "topic")},
			want: Assignment{
				"consumer1": tpList("topic-0"),
				"consumer2": tpList(""),
			},
		}},
	},
	{
		name:   "testTwoConsumersOneTopicTwoPartitions",
		topics: Topics{"topic": 2},
		rounds: []portedRound{{
			members: []Member{subscribed("consumer1", "", "topic"), subscribed("consumer2", "", "topic")},
			want: Assignment{
				"consumer1": tpList("topic-0"),
				"consumer2": tpList("topic-1"),
			},
		}},
	},
	{
		// consumer1 and consumer3 are passed over for topic2's partitions,
		// which all go to consumer2: round robin does not balance
		// differing subscriptions.
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
		name:   "testTwoDynamicConsumersTwoTopicsSixPartitions",
		topics: Topics{"topic1": 3, "topic2": 3},
		rounds: []portedRound{{
			members: []Member{
				subscribed("consumer1", "", "topic1", "topic2"),
				subscribed("consumer2", "", "topic1", "topic2"),
			},
			want: Assignment{
				"consumer1": tpList("topic1-0, topic1-2, topic2-1"),
				"consumer2": tpList("topic1-1, topic2-0, topic2-2"),
			},
		}},
	},
	{
		// Static members are ordered by instance id, not member id.
		name:   "testTwoStaticConsumersTwoTopicsSixPartitions",
		topics: Topics{"topic1": 3, "topic2": 3},
		rounds: []portedRound{{
			members: []Member{
				subscribed("consumer-b", "instance1", "topic1", "topic2"),
				subscribed("consumer-a", "instance2", "topic1", "topic2"),
			},
			want: Assignment{
				"consumer-b": tpList("topic1-0, topic1-2, topic2-1"),
				"consumer-a": tpList("topic1-1, topic2-0, topic2-2"),
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
				"consumer-b": tpList("topic1-0, topic1-2, topic2-1"),
				"consumer-a": tpList("topic1-1, topic2-0, topic2-2"),
			},
		}},
	},
	{
		// Replacing the dynamic consumer4 by consumer5 moves nothing of
		// the static members.
		name:   "testStaticMemberRoundRobinAssignmentPersistent",
		topics: Topics{"topic1": 3, "topic2": 3},
		rounds: []portedRound{
			{
				members: []Member{
					subscribed("consumer1", "instance1", "topic1", "topic2"),
					subscribed("consumer2", "instance2", "topic1", "topic2"),
					subscribed("consumer3", "instance3", "topic1", "topic2"),
					subscribed("consumer4", "", "topic1", "topic2"),
				},
				want: Assignment{
					"consumer1": tpList("topic1-0, topic2-1"),
					"consumer2": tpList("topic1-1, topic2-2"),
					"consumer3": tpList("topic1-2"),
					"consumer4": tpList("topic2-0"),
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
					"consumer1": tpList("topic1-0, topic2-1"),
					"consumer2": tpList("topic1-1, topic2-2"),
					"consumer3": tpList("topic1-2"),
					"consumer5": tpList("topic2-0"),
				},
			},
		},
	},
	{
		// Kafka expects instance1: t1-0,3 t2-1,4; instance2: t1-1,4 t2-2;
		// instance3: t1-2 t2-0,3, before and after instance3 rejoins as
		// consumer4 and instance2 as consumer5.
		name:   "testStaticMemberRoundRobinAssignmentPersistentAfterMemberIdChanges",
		topics: Topics{"topic1": 5, "topic2": 5},
		rounds: []portedRound{
			{
				members: []Member{
					subscribed("consumer1", "instance1", "topic1", "topic2"),
					subscribed("consumer2", "instance2", "topic1", "topic2"),
					subscribed("consumer3", "instance3", "topic1", "topic2"),
				},
				want: Assignment{
					"consumer1": tpList("topic1-0, topic1-3, topic2-1, topic2-4"),
					"consumer2": tpList("topic1-1, topic1-4, topic2-2"),
					"consumer3": tpList("topic1-2, topic2-0, topic2-3"),
				},
			},
			{
				members: []Member{
					subscribed("consumer1", "instance1", "topic1", "topic2"),
					subscribed("consumer5", "instance2", "topic1", "topic2"),
					subscribed("consumer4", "instance3", "topic1", "topic2"),
				},
				want: Assignment{
					"consumer1": tpList("topic1-0, topic1-3, topic2-1, topic2-4"),
					"consumer5": tpList("topic1-1, topic1-4, topic2-2"),
					"consumer4": tpList("topic1-2, topic2-0, topic2-3"),
				},
			},
		},
	},
}

func TestRoundRobinAssignor(t *testing.T) { runPortedCases(t, RoundRobin{}, roundRobinCases) }

func TestRoundRobinAssignorName(t *testing.T) {
	if got := (RoundRobin{}).Name(); got != "roundrobin" {
		t.Errorf("Name() = %q, want Kafka's ROUNDROBIN_ASSIGNOR_NAME \"roundrobin\"", got)
	}
}
