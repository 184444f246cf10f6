package protocol

import (
	"fmt"
	"strings"
)

// MetadataRecord is one record of the __cluster_metadata log. Offset is its
// position in that log. Only the fields of its Type are set. Types are
// Kafka's record names without "Record"; FenceBroker and UnfenceBroker are
// the records of metadata versions before 3.3-IV2: Kafka 4.x writes a
// BrokerRegistrationChangeRecord with its fenced field instead (when it
// fences, after the PartitionChangeRecords of the same decision).
type MetadataRecord struct {
	Offset int64
	Type   string // RegisterBroker, FenceBroker, UnfenceBroker, Topic, Config, Partition, PartitionChange, ProducerIds

	BrokerID    int32
	BrokerEpoch int64

	Topic      string
	Partitions int32 // Topic: the partition count

	Partition      int32
	Replicas       []int32
	ISR            []int32
	Leader         int32
	LeaderEpoch    int32
	PartitionEpoch int32
	// Unclean marks a PartitionChange that elected an out-of-sync replica.
	Unclean bool

	// Config: a topic config (Topic, Name, Value).
	Name, Value string

	// ProducerIds: the controller granted BrokerID (at BrokerEpoch) the
	// block of producer ids ending below NextProducerID (KIP-730).
	NextProducerID int64
}

// Describe prints a record as the lab's `show metadata` lists it.
func (r MetadataRecord) Describe() string {
	switch r.Type {
	case "RegisterBroker", "FenceBroker", "UnfenceBroker":
		return fmt.Sprintf("%d %s brokerId=%d brokerEpoch=%d", r.Offset, r.Type, r.BrokerID, r.BrokerEpoch)
	case "Topic":
		return fmt.Sprintf("%d Topic name=%s partitions=%d", r.Offset, r.Topic, r.Partitions)
	case "ProducerIds":
		return fmt.Sprintf("%d ProducerIds brokerId=%d brokerEpoch=%d nextProducerId=%d", r.Offset, r.BrokerID, r.BrokerEpoch, r.NextProducerID)
	case "Config":
		return fmt.Sprintf("%d Config topic=%s %s=%s", r.Offset, r.Topic, r.Name, r.Value)
	case "LeaderChange":
		// KRaft's control record at the start of every leader epoch
		// (LeaderChangeMessage): the leader and the voters.
		return fmt.Sprintf("%d LeaderChange leaderId=%d voters=%s", r.Offset, r.BrokerID, JoinIDs(r.Replicas))
	default:
		s := fmt.Sprintf("%d %s %s/%d leader=%d leaderEpoch=%d partitionEpoch=%d isr=%s", r.Offset, r.Type, r.Topic, r.Partition, r.Leader, r.LeaderEpoch, r.PartitionEpoch, JoinIDs(r.ISR))
		if r.Type == "Partition" {
			s += " replicas=" + JoinIDs(r.Replicas)
		}
		if r.Unclean {
			s += " (unclean)"
		}
		return s
	}
}

// JoinIDs prints broker ids as Kafka's tools do: 1,2,3.
func JoinIDs(ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return strings.Join(parts, ",")
}
