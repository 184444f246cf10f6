package assignor

import (
	"fmt"
	"slices"
	"testing"
)

// The rack-aware half of Kafka's RangeAssignorTest (KIP-881): the replica
// layout of Kafka's AbstractPartitionAssignorTest, then its
// verifyRackAssignment calls with their expected assignments copied.

var kafkaAllRacks = []string{"a", "b", "c", "d", "e", "f"} // Kafka's ALL_RACKS

// kafkaTestReplicaRacks lays out replicas as Kafka's
// AbstractPartitionAssignorTest.partitionInfos does: broker i has rack
// brokerRacks[i] ("" for none), and partition p of a topic has its
// replicationFactor replicas on brokers p+nextNode, p+nextNode+1, ...
// modulo the broker count.
func kafkaTestReplicaRacks(racks map[TopicPartition][]string, topic string, partitions, replicationFactor int, brokerRacks []string, nextNode int) {
	for p := range partitions {
		tp := TopicPartition{topic, int32(p)}
		racks[tp] = []string{}
		for j := range replicationFactor {
			if rack := brokerRacks[(p+j+nextNode)%len(brokerRacks)]; rack != "" {
				racks[tp] = append(racks[tp], rack)
			}
		}
	}
}

// kafkaTestBrokerRacks is partitionInfos' broker list for numBrokerRacks
// racks: replicationFactor brokers per rack, or replicationFactor brokers
// without a rack.
func kafkaTestBrokerRacks(replicationFactor, numBrokerRacks int) []string {
	if numBrokerRacks <= 0 {
		return make([]string, replicationFactor)
	}
	brokers := make([]string, numBrokerRacks*replicationFactor)
	for i := range brokers {
		brokers[i] = kafkaAllRacks[i%numBrokerRacks]
	}
	return brokers
}

type kafkaTopicSize struct {
	name       string
	partitions int
}

// rangeRackCall is one verifyRackAssignment call.
type rangeRackCall struct {
	topics            []kafkaTopicSize // in Kafka's mkMap order, which places replicas
	replicationFactor int
	brokerRacks       []string
	consumerRacks     []string
	consumerTopics    [][]string
	want              []string // consumer i's partitions, as Kafka prints them
	rackMismatches    int      // -1: not checked
	preferRackAware   bool
}

// verifyRangeRackAssignment mirrors Kafka's verifyRackAssignment: consumers are consumer0..n-1.
func verifyRangeRackAssignment(t *testing.T, v rangeRackCall) {
	t.Helper()
	racks := map[TopicPartition][]string{}
	topics := Topics{}
	next := 0
	for _, tp := range v.topics {
		kafkaTestReplicaRacks(racks, tp.name, tp.partitions, v.replicationFactor, v.brokerRacks, next)
		topics[tp.name] = int32(tp.partitions)
		next += tp.partitions
	}
	var members []Member
	want := Assignment{}
	for i, rack := range v.consumerRacks {
		id := fmt.Sprintf("consumer%d", i)
		m := subscribed(id, "", v.consumerTopics[i]...)
		m.Rack = rack
		members = append(members, m)
		want[id] = tpList(v.want[i])
	}
	got, err := Range{ReplicaRacks: racks, preferRackAwareLogic: v.preferRackAware}.Assign(topics, members)
	if err != nil {
		t.Fatal(err)
	}
	if diff := assignmentDiff(got, want); diff != "" {
		t.Errorf("replicas %d on racks %q, consumer racks %q:\n%s", v.replicationFactor, v.brokerRacks, v.consumerRacks, diff)
	}
	if v.rackMismatches < 0 {
		return
	}
	var mismatched []TopicPartition
	for _, m := range members {
		for _, tp := range got[m.ID] {
			if m.Rack != "" && !slices.Contains(racks[tp], m.Rack) {
				mismatched = append(mismatched, tp)
			}
		}
	}
	if len(mismatched) != v.rackMismatches {
		t.Errorf("replicas %d on racks %q, consumer racks %q: partitions with rack mismatch %v, want %d of them",
			v.replicationFactor, v.brokerRacks, v.consumerRacks, mismatched, v.rackMismatches)
	}
}

func kafkaRacks(n int) []string     { return slices.Clone(kafkaAllRacks[:n]) } // Kafka's racks(n)
func kafkaNullRacks(n int) []string { return make([]string, n) }

func repeatTopics(n int, topics ...string) [][]string {
	out := make([][]string, n)
	for i := range out {
		out[i] = topics
	}
	return out
}

// verifyNonRackAwareAssignment is Kafka's: layouts where rack matching
// is off or cannot change anything must give the plain range assignment.
func verifyRangeNonRackAwareAssignment(t *testing.T, topics []kafkaTopicSize, consumerTopics [][]string, want []string) {
	t.Helper()
	v := func(rf int, brokers, consumers []string, mismatches int, prefer bool) rangeRackCall {
		return rangeRackCall{topics, rf, brokers, consumers, consumerTopics, want, mismatches, prefer}
	}
	verifyRangeRackAssignment(t, v(3, kafkaNullRacks(3), kafkaRacks(3), -1, false))
	verifyRangeRackAssignment(t, v(3, kafkaRacks(3), kafkaNullRacks(3), -1, false))
	verifyRangeRackAssignment(t, v(3, kafkaRacks(3), kafkaRacks(3), 0, false))
	verifyRangeRackAssignment(t, v(4, kafkaRacks(4), kafkaRacks(3), 0, false))
	verifyRangeRackAssignment(t, v(3, kafkaRacks(3), []string{"d", "e", "f"}, -1, false))
	verifyRangeRackAssignment(t, v(3, kafkaRacks(3), []string{"", "e", "f"}, -1, false))
	verifyRangeRackAssignment(t, v(3, kafkaRacks(3), kafkaRacks(3), 0, true))
}
