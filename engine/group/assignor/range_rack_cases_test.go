package assignor

import (
	"cmp"
	"slices"
	"testing"
)

// Kafka's rack-aware RangeAssignorTest methods; see range_rack_test.go.

func TestRangeAssignorRackAware(t *testing.T) {
	all3 := []string{"t1", "t2", "t3"}
	t.Run("testRackAwareAssignmentWithUniformSubscription", func(t *testing.T) {
		topics := []kafkaTopicSize{{"t1", 6}, {"t2", 7}, {"t3", 2}}
		ct := repeatTopics(3, all3...)
		verifyRangeNonRackAwareAssignment(t, topics, ct,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"})
		// Best effort for a lower replication factor, racks holding a
		// subset of the partitions.
		verifyRangeRackAssignment(t, rangeRackCall{topics, 1, kafkaRacks(3), kafkaRacks(3), ct,
			[]string{"t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0", "t1-2, t1-5, t2-2, t2-5, t3-1"}, 0, false})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 2, kafkaRacks(3), kafkaRacks(3), ct,
			[]string{"t1-0, t1-2, t2-0, t2-2, t2-3, t3-1", "t1-1, t1-3, t2-1, t2-4, t3-0", "t1-4, t1-5, t2-5, t2-6"}, 1, false})
		// One consumer on a rack with no partitions.
		verifyRangeRackAssignment(t, rangeRackCall{topics, 3, kafkaRacks(2), kafkaRacks(3), ct,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"}, 4, false})
	})
	t.Run("testRackAwareAssignmentWithNonEqualSubscription", func(t *testing.T) {
		topics := []kafkaTopicSize{{"t1", 6}, {"t2", 7}, {"t3", 2}}
		ct := [][]string{all3, all3, {"t1", "t3"}}
		verifyRangeNonRackAwareAssignment(t, topics, ct,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0", "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1", "t1-4, t1-5"})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 1, kafkaRacks(3), kafkaRacks(3), ct,
			[]string{"t1-0, t1-3, t2-0, t2-2, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t2-5, t3-0", "t1-2, t1-5, t3-1"}, 2, false})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 2, kafkaRacks(3), kafkaRacks(3), ct,
			[]string{"t1-0, t1-2, t2-0, t2-2, t2-3, t2-5, t3-1", "t1-1, t1-3, t2-1, t2-4, t2-6, t3-0", "t1-4, t1-5"}, 0, false})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 3, kafkaRacks(2), kafkaRacks(3), ct,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0", "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1", "t1-4, t1-5"}, 2, false})
	})
	t.Run("testRackAwareAssignmentWithUniformPartitions", func(t *testing.T) {
		topics := []kafkaTopicSize{{"t1", 5}, {"t2", 5}, {"t3", 5}}
		ct := repeatTopics(3, all3...)
		plain := []string{"t1-0, t1-1, t2-0, t2-1, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t2-4, t3-4"}
		verifyRangeNonRackAwareAssignment(t, topics, ct, plain)
		// Co-partitioning comes before rack alignment.
		verifyRangeRackAssignment(t, rangeRackCall{topics, 1, kafkaRacks(3), kafkaRacks(3), ct, plain, 10, false})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 2, kafkaRacks(3), kafkaRacks(3), ct, plain, 5, false})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 3, kafkaRacks(2), kafkaRacks(3), ct, plain, 3, false})
	})
	t.Run("testRackAwareAssignmentWithUniformPartitionsNonEqualSubscription", func(t *testing.T) {
		topics := []kafkaTopicSize{{"t1", 5}, {"t2", 5}, {"t3", 5}}
		ct := [][]string{all3, all3, {"t1", "t3"}}
		verifyRangeNonRackAwareAssignment(t, topics, ct,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1", "t1-2, t1-3, t2-3, t2-4, t3-2, t3-3", "t1-4, t3-4"})
		// Co-partitioning comes first for the topics with equal subscribers.
		verifyRangeRackAssignment(t, rangeRackCall{topics, 1, kafkaRacks(3), kafkaRacks(3), ct,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-4, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t3-4"}, 9, false})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 2, kafkaRacks(3), kafkaRacks(3), ct,
			[]string{"t1-2, t2-0, t2-1, t2-3, t3-2", "t1-0, t1-3, t2-2, t2-4, t3-0, t3-3", "t1-1, t1-4, t3-1, t3-4"}, 0, false})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 3, kafkaRacks(2), kafkaRacks(3), ct,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1", "t1-2, t1-3, t2-3, t2-4, t3-2, t3-3", "t1-4, t3-4"}, 2, false})
	})
	t.Run("testRackAwareAssignmentWithCoPartitioning", func(t *testing.T) {
		topics := []kafkaTopicSize{{"t1", 6}, {"t2", 6}, {"t3", 2}, {"t4", 2}}
		cr := []string{"a", "b", "b", "a"}
		ct := [][]string{{"t1", "t2"}, {"t1", "t2"}, {"t3", "t4"}, {"t3", "t4"}}
		plain := []string{"t1-0, t1-1, t1-2, t2-0, t2-1, t2-2", "t1-3, t1-4, t1-5, t2-3, t2-4, t2-5", "t3-0, t4-0", "t3-1, t4-1"}
		verifyRangeRackAssignment(t, rangeRackCall{topics, 3, kafkaRacks(2), cr, ct, plain, -1, false})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 2, kafkaRacks(2), cr, ct, plain, 0, false})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 1, kafkaRacks(2), cr, ct,
			[]string{"t1-0, t1-2, t1-4, t2-0, t2-2, t2-4", "t1-1, t1-3, t1-5, t2-1, t2-3, t2-5", "t3-1, t4-1", "t3-0, t4-0"}, 0, false})

		ct = repeatTopics(4, "t1", "t2", "t3", "t4")
		plain = []string{"t1-0, t1-1, t2-0, t2-1, t3-0, t4-0", "t1-2, t1-3, t2-2, t2-3, t3-1, t4-1", "t1-4, t2-4", "t1-5, t2-5"}
		verifyRangeRackAssignment(t, rangeRackCall{topics, 3, kafkaRacks(2), cr, ct, plain, -1, false})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 2, kafkaRacks(2), cr, ct, plain, 0, false})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 1, kafkaRacks(2), cr, ct,
			[]string{"t1-0, t1-2, t2-0, t2-2, t3-0, t4-0", "t1-1, t1-3, t2-1, t2-3, t3-1, t4-1", "t1-5, t2-5", "t1-4, t2-4"}, 0, false})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 1, kafkaRacks(3), cr, ct,
			[]string{"t1-0, t1-3, t2-0, t2-3, t3-0, t4-0", "t1-1, t1-4, t2-1, t2-4, t3-1, t4-1", "t1-2, t2-2", "t1-5, t2-5"}, 6, false})
	})
	t.Run("testCoPartitionedAssignmentWithSameSubscription", func(t *testing.T) {
		topics := []kafkaTopicSize{{"t1", 6}, {"t2", 6}, {"t3", 2}, {"t4", 2}, {"t5", 4}, {"t6", 4}}
		// t7, t8 and t9 do not exist.
		ct := repeatTopics(3, "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9")
		cr := kafkaRacks(3)
		plain := []string{
			"t1-0, t1-1, t2-0, t2-1, t3-0, t4-0, t5-0, t5-1, t6-0, t6-1",
			"t1-2, t1-3, t2-2, t2-3, t3-1, t4-1, t5-2, t6-2",
			"t1-4, t1-5, t2-4, t2-5, t5-3, t6-3",
		}
		verifyRangeRackAssignment(t, rangeRackCall{topics, 3, kafkaNullRacks(3), cr, ct, plain, -1, false})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 3, kafkaRacks(3), cr, ct, plain, 0, true})
		verifyRangeRackAssignment(t, rangeRackCall{topics, 2, kafkaRacks(3), cr, ct, []string{
			"t1-0, t1-2, t2-0, t2-2, t3-0, t4-0, t5-1, t6-1",
			"t1-1, t1-3, t2-1, t2-3, t3-1, t4-1, t5-2, t6-2",
			"t1-4, t1-5, t2-4, t2-5, t5-0, t5-3, t6-0, t6-3",
		}, 0, true})
	})
}

// TestRangeAssignorRackConfigs re-runs the plain cases of range_test.go
// the way Kafka's parameterized tests do: once per RackConfig, with the
// rack-aware pass forced (initializeRacks sets preferRackAwareLogic), and
// expects the same assignment. Replicas: replicationFactor = the test's
// maxConsumers (3, or 5), on maxConsumers racks unless NO_BROKER_RACK;
// consumer i is on rack ALL_RACKS[i % racks] unless NO_CONSUMER_RACK.
func TestRangeAssignorRackConfigs(t *testing.T) {
	maxConsumers := map[string]int{"testStaticMemberRangeAssignmentPersistent": 5}
	// Kafka's consumer index where it is not the member's place in the
	// round: consumer5 replaces consumer4 but takes the next index.
	consumerIndex := map[string]map[string]int{"testStaticMemberRangeAssignmentPersistent": {"consumer5": 4}}
	// These two run only with and without consumer racks in Kafka.
	onlyConsumerRack := map[string]bool{"testOneConsumerNoTopic": true, "testOneConsumerNonexistentTopic": true}
	for _, tc := range rangeCases {
		for _, config := range []string{"NO_BROKER_RACK", "NO_CONSUMER_RACK", "BROKER_AND_CONSUMER_RACK"} {
			if config == "NO_BROKER_RACK" && onlyConsumerRack[tc.name] {
				continue
			}
			replicationFactor := cmp.Or(maxConsumers[tc.name], 3)
			numBrokerRacks := replicationFactor
			if config == "NO_BROKER_RACK" {
				numBrokerRacks = 0
			}
			racks := map[TopicPartition][]string{}
			for topic, n := range tc.topics {
				kafkaTestReplicaRacks(racks, topic, int(n), replicationFactor, kafkaTestBrokerRacks(replicationFactor, numBrokerRacks), 0)
			}
			numConsumerRacks := cmp.Or(numBrokerRacks, len(kafkaAllRacks))
			racked := tc
			racked.rounds = nil
			for _, r := range tc.rounds {
				r.members = slices.Clone(r.members)
				for i := range r.members {
					idx, ok := consumerIndex[tc.name][r.members[i].ID]
					if !ok {
						idx = i
					}
					if config != "NO_CONSUMER_RACK" {
						r.members[i].Rack = kafkaAllRacks[idx%numConsumerRacks]
					}
				}
				racked.rounds = append(racked.rounds, r)
			}
			t.Run(config, func(t *testing.T) {
				runPortedCases(t, Range{ReplicaRacks: racks, preferRackAwareLogic: true}, []portedCase{racked})
			})
		}
	}
}

// TestRangeAssignorRackAwareStatic is
// testRackAwareStaticMemberRangeAssignmentPersistentAfterMemberIdChanges:
// replication factor 2 over racks a, b, c, consumers on racks a, b, c.
func TestRangeAssignorRackAwareStatic(t *testing.T) {
	racks := map[TopicPartition][]string{}
	for _, topic := range []string{"topic1", "topic2"} {
		kafkaTestReplicaRacks(racks, topic, 5, 2, kafkaTestBrokerRacks(2, 3), 0)
	}
	onRack := func(m Member, rack string) Member { m.Rack = rack; return m }
	// Kafka expects instance1: t1-0,2 t2-0,2; instance2: t1-1,3 t2-1,3;
	// instance3: t1-4 t2-4, before and after instance3 rejoins as
	// consumer4 and instance2 as consumer5.
	tc := portedCase{
		name:   "testRackAwareStaticMemberRangeAssignmentPersistentAfterMemberIdChanges",
		topics: Topics{"topic1": 5, "topic2": 5},
		rounds: []portedRound{
			{
				members: []Member{
					onRack(subscribed("consumer1", "instance1", "topic1", "topic2"), "a"),
					onRack(subscribed("consumer2", "instance2", "topic1", "topic2"), "b"),
					onRack(subscribed("consumer3", "instance3", "topic1", "topic2"), "c"),
				},
				want: Assignment{
					"consumer1": tpList("topic1-0, topic1-2, topic2-0, topic2-2"),
					"consumer2": tpList("topic1-1, topic1-3, topic2-1, topic2-3"),
					"consumer3": tpList("topic1-4, topic2-4"),
				},
			},
			{
				members: []Member{
					onRack(subscribed("consumer1", "instance1", "topic1", "topic2"), "a"),
					onRack(subscribed("consumer5", "instance2", "topic1", "topic2"), "b"),
					onRack(subscribed("consumer4", "instance3", "topic1", "topic2"), "c"),
				},
				sameAsFirstRound: map[string]string{"consumer1": "consumer1", "consumer5": "consumer2", "consumer4": "consumer3"},
			},
		},
	}
	runPortedCases(t, Range{ReplicaRacks: racks, preferRackAwareLogic: true}, []portedCase{tc})
}
