package offsets

import (
	"encoding/base64"
	"strconv"
)

// kip848ValueJSON prints the per-member KIP-848 values like their generated
// JsonConverters: camelCase names in schema order, a tagged field only when
// set, topic ids as Uuid.toString prints them.
func kip848ValueJSON(v Value) string {
	var o jsonObject
	switch v := v.(type) {
	case *ConsumerGroupMemberMetadataValue:
		o.NullableStr("instanceId", v.InstanceID)
		o.NullableStr("rackId", v.RackID)
		o.Str("clientId", v.ClientID)
		o.Str("clientHost", v.ClientHost)
		names := []byte{'['}
		for i, t := range v.SubscribedTopicNames {
			if i > 0 {
				names = append(names, ',')
			}
			names = appendJSONString(names, t)
		}
		o.Raw("subscribedTopicNames", string(append(names, ']')))
		o.NullableStr("subscribedTopicRegex", v.SubscribedTopicRegex)
		o.Num("rebalanceTimeoutMs", int64(v.RebalanceTimeoutMs))
		o.NullableStr("serverAssignor", v.ServerAssignor)
		if c := v.ClassicMemberMetadata; c != nil {
			var co jsonObject
			co.Num("sessionTimeoutMs", int64(c.SessionTimeoutMs))
			protos := "["
			for i, p := range c.SupportedProtocols {
				if i > 0 {
					protos += ","
				}
				var po jsonObject
				po.Str("name", p.Name)
				po.Raw("metadata", quotedBase64(p.Metadata))
				protos += po.Close()
			}
			co.Raw("supportedProtocols", protos+"]")
			o.Raw("classicMemberMetadata", co.Close())
		}
	case *ConsumerGroupTargetAssignmentMetadataValue:
		o.Num("assignmentEpoch", int64(v.AssignmentEpoch))
	case *ConsumerGroupTargetAssignmentMemberValue:
		o.Raw("topicPartitions", topicPartitionsJSON(v.TopicPartitions))
	case *ConsumerGroupCurrentMemberAssignmentValue:
		o.Num("memberEpoch", int64(v.MemberEpoch))
		o.Num("previousMemberEpoch", int64(v.PreviousMemberEpoch))
		o.Num("state", int64(v.State))
		o.Raw("assignedPartitions", topicPartitionsJSON(v.AssignedPartitions))
		o.Raw("partitionsPendingRevocation", topicPartitionsJSON(v.PartitionsPendingRevocation))
	}
	return o.Close()
}

func topicPartitionsJSON(tps []TopicPartitions) string {
	out := []byte{'['}
	for i, tp := range tps {
		if i > 0 {
			out = append(out, ',')
		}
		var o jsonObject
		o.Str("topicId", UuidString(tp.TopicID))
		parts := []byte{'['}
		for j, p := range tp.Partitions {
			if j > 0 {
				parts = append(parts, ',')
			}
			parts = strconv.AppendInt(parts, int64(p), 10)
		}
		o.Raw("partitions", string(append(parts, ']')))
		out = append(out, o.Close()...)
	}
	return string(append(out, ']'))
}

// UuidString is Kafka's Uuid.toString: URL-safe base64 of the 16 bytes,
// unpadded (22 characters), the form kafka-topics.sh prints topic ids in.
func UuidString(u [16]byte) string {
	return base64.RawURLEncoding.EncodeToString(u[:])
}
