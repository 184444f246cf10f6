package offsets

import (
	"errors"
	"fmt"
	"strconv"
)

// Format is `kafka-dump-log.sh --offsets-decoder`'s
// DumpLogSegments.OffsetsMessageParser.parse for the record at offset: the
// key as {"type":"T","data":{...}} and the payload as
// {"version":"V","data":{...}}, each data object being the schema's
// generated JsonConverter output (camelCase field names, only the fields of
// that version, bytes in base64), printed compactly by Jackson. A tombstone's
// payload is <DELETE>. A record that does not decode gets a key text saying
// so and no payload (hasPayload false), as Kafka skips it. The caller prints
// "key: "+key and " payload: "+payload.
//
// A record without a key is an error: Kafka's parser throws it and the
// dump dies; the caller decides what to print instead.
func Format(offset int64, key, value []byte) (keyText, payload string, hasPayload bool, err error) {
	if key == nil {
		return "", "", false, fmt.Errorf("Failed to decode message at offset %d using offset topic decoder (message had a missing key)", offset)
	}
	rec, err := Decode(key, value)
	if err != nil {
		var unknown *UnknownTypeError
		if errors.As(err, &unknown) {
			return fmt.Sprintf("Unknown record type %d at offset %d, skipping.", unknown.Type, offset), "", false, nil
		}
		return fmt.Sprintf("Error at offset %d, skipping. %s", offset, err), "", false, nil
	}
	keyText = `{"type":"` + strconv.Itoa(int(rec.KeyType)) + `","data":` + keyJSON(rec.Key) + `}`
	if rec.Value == nil {
		return keyText, "<DELETE>", true, nil
	}
	payload = `{"version":"` + strconv.Itoa(int(rec.ValueVersion)) + `","data":` + valueJSON(rec.Value, rec.ValueVersion) + `}`
	return keyText, payload, true, nil
}

func keyJSON(k Key) string {
	var o jsonObject
	switch k := k.(type) {
	case *OffsetCommitKey:
		o.Str("group", k.Group)
		o.Str("topic", k.Topic)
		o.Num("partition", int64(k.Partition))
	case *GroupMetadataKey:
		o.Str("group", k.Group)
	case *ConsumerGroupMetadataKey:
		o.Str("groupId", k.GroupID)
	case *TargetAssignmentMetadataKey:
		o.Str("groupId", k.GroupID)
	case *MemberKey:
		o.Str("groupId", k.GroupID)
		o.Str("memberId", k.MemberID)
	}
	return o.Close()
}

// valueJSON prints the fields the version has, in schema order, like the
// generated JsonConverter.write(message, version).
func valueJSON(v Value, version int16) string {
	var o jsonObject
	switch v := v.(type) {
	case *OffsetCommitValue:
		o.Num("offset", v.Offset)
		if version >= 3 {
			o.Num("leaderEpoch", int64(v.LeaderEpoch))
		}
		o.Str("metadata", v.Metadata)
		o.Num("commitTimestamp", v.CommitTimestamp)
		if version == 1 {
			o.Num("expireTimestamp", v.ExpireTimestamp)
		}
	case *GroupMetadataValue:
		o.Str("protocolType", v.ProtocolType)
		o.Num("generation", int64(v.Generation))
		o.NullableStr("protocol", v.Protocol)
		o.NullableStr("leader", v.Leader)
		if version >= 2 {
			o.Num("currentStateTimestamp", v.CurrentStateTimestamp)
		}
		members := "["
		for i := range v.Members {
			if i > 0 {
				members += ","
			}
			members += memberJSON(&v.Members[i], version, v.ProtocolType == consumerProtocolType)
		}
		o.Raw("members", members+"]")
	case *ConsumerGroupMetadataValue:
		o.Num("epoch", int64(v.Epoch))
	default:
		return kip848ValueJSON(v)
	}
	return o.Close()
}

func memberJSON(m *MemberMetadata, version int16, consumer bool) string {
	var o jsonObject
	o.Str("memberId", m.MemberID)
	if version >= 3 {
		o.NullableStr("groupInstanceId", m.GroupInstanceID)
	}
	o.Str("clientId", m.ClientID)
	o.Str("clientHost", m.ClientHost)
	if version >= 1 {
		o.Num("rebalanceTimeout", int64(m.RebalanceTimeout))
	}
	o.Num("sessionTimeout", int64(m.SessionTimeout))
	if consumer {
		o.Raw("subscription", subscriptionJSON(m.Subscription))
		o.Raw("assignment", assignmentJSON(m.Assignment))
	} else {
		// Jackson writes a BinaryNode as standard, padded base64.
		o.Raw("subscription", quotedBase64(m.Subscription))
		o.Raw("assignment", quotedBase64(m.Assignment))
	}
	return o.Close()
}
