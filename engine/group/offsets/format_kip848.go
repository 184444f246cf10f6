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
		o.nullableStr("instanceId", v.InstanceID)
		o.nullableStr("rackId", v.RackID)
		o.str("clientId", v.ClientID)
		o.str("clientHost", v.ClientHost)
		names := []byte{'['}
		for i, t := range v.SubscribedTopicNames {
			if i > 0 {
				names = append(names, ',')
			}
			names = appendJSONString(names, t)
		}
		o.raw("subscribedTopicNames", string(append(names, ']')))
		o.nullableStr("subscribedTopicRegex", v.SubscribedTopicRegex)
		o.num("rebalanceTimeoutMs", int64(v.RebalanceTimeoutMs))
		o.nullableStr("serverAssignor", v.ServerAssignor)
		if c := v.ClassicMemberMetadata; c != nil {
			var co jsonObject
			co.num("sessionTimeoutMs", int64(c.SessionTimeoutMs))
			protos := "["
			for i, p := range c.SupportedProtocols {
				if i > 0 {
					protos += ","
				}
				var po jsonObject
				po.str("name", p.Name)
				po.raw("metadata", quotedBase64(p.Metadata))
				protos += po.close()
			}
			co.raw("supportedProtocols", protos+"]")
			o.raw("classicMemberMetadata", co.close())
		}
	case *ConsumerGroupTargetAssignmentMetadataValue:
		o.num("assignmentEpoch", int64(v.AssignmentEpoch))
	case *ConsumerGroupTargetAssignmentMemberValue:
		o.raw("topicPartitions", topicPartitionsJSON(v.TopicPartitions))
	case *ConsumerGroupCurrentMemberAssignmentValue:
		o.num("memberEpoch", int64(v.MemberEpoch))
		o.num("previousMemberEpoch", int64(v.PreviousMemberEpoch))
		o.num("state", int64(v.State))
		o.raw("assignedPartitions", topicPartitionsJSON(v.AssignedPartitions))
		o.raw("partitionsPendingRevocation", topicPartitionsJSON(v.PartitionsPendingRevocation))
	}
	return o.close()
}

func topicPartitionsJSON(tps []TopicPartitions) string {
	out := []byte{'['}
	for i, tp := range tps {
		if i > 0 {
			out = append(out, ',')
		}
		var o jsonObject
		o.str("topicId", UuidString(tp.TopicID))
		parts := []byte{'['}
		for j, p := range tp.Partitions {
			if j > 0 {
				parts = append(parts, ',')
			}
			parts = strconv.AppendInt(parts, int64(p), 10)
		}
		o.raw("partitions", string(append(parts, ']')))
		out = append(out, o.close()...)
	}
	return string(append(out, ']'))
}

// UuidString is Kafka's Uuid.toString: URL-safe base64 of the 16 bytes,
// unpadded (22 characters), the form kafka-topics.sh prints topic ids in.
func UuidString(u [16]byte) string {
	return base64.RawURLEncoding.EncodeToString(u[:])
}
