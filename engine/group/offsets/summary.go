package offsets

import (
	"strconv"
)

// Summary is a record of __consumer_offsets in a few words, for the
// partition strip where a record is a small box: the key as the group and
// what the record is about, the value as its gist. Format is the
// dump-log text; this is not Kafka's output, only a label.
func Summary(key, value []byte) (keyText, valueText string) {
	rec, err := Decode(key, value)
	if err != nil {
		return "undecodable", ""
	}
	switch k := rec.Key.(type) {
	case *OffsetCommitKey:
		keyText = k.Group + " " + k.Topic + "/" + strconv.Itoa(int(k.Partition))
	case *GroupMetadataKey:
		keyText = k.Group + " group"
	case *ConsumerGroupMetadataKey:
		keyText = k.GroupID + " group epoch"
	case *TargetAssignmentMetadataKey:
		keyText = k.GroupID + " target epoch"
	case *MemberKey:
		keyText = k.GroupID + " " + k.MemberID
	default:
		keyText = "type " + strconv.Itoa(int(rec.KeyType))
	}
	switch v := rec.Value.(type) {
	case nil:
		valueText = "tombstone"
	case *OffsetCommitValue:
		valueText = "offset " + strconv.FormatInt(v.Offset, 10)
	case *GroupMetadataValue:
		valueText = "generation " + strconv.Itoa(int(v.Generation)) + ", " + strconv.Itoa(len(v.Members)) + " members"
	case *ConsumerGroupMetadataValue:
		valueText = "epoch " + strconv.Itoa(int(v.Epoch))
	case *ConsumerGroupTargetAssignmentMetadataValue:
		valueText = "epoch " + strconv.Itoa(int(v.AssignmentEpoch))
	case *ConsumerGroupCurrentMemberAssignmentValue:
		valueText = "member epoch " + strconv.Itoa(int(v.MemberEpoch))
	case *ConsumerGroupTargetAssignmentMemberValue:
		valueText = "target " + strconv.Itoa(countPartitions(v.TopicPartitions)) + " partitions"
	case *ConsumerGroupMemberMetadataValue:
		valueText = "member " + v.ClientID
	}
	return keyText, valueText
}

func countPartitions(tps []TopicPartitions) int {
	n := 0
	for _, tp := range tps {
		n += len(tp.Partitions)
	}
	return n
}
