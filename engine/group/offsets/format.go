package offsets

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
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
		o.str("group", k.Group)
		o.str("topic", k.Topic)
		o.num("partition", int64(k.Partition))
	case *GroupMetadataKey:
		o.str("group", k.Group)
	case *ConsumerGroupMetadataKey:
		o.str("groupId", k.GroupID)
	case *TargetAssignmentMetadataKey:
		o.str("groupId", k.GroupID)
	case *MemberKey:
		o.str("groupId", k.GroupID)
		o.str("memberId", k.MemberID)
	}
	return o.close()
}

// valueJSON prints the fields the version has, in schema order, like the
// generated JsonConverter.write(message, version).
func valueJSON(v Value, version int16) string {
	var o jsonObject
	switch v := v.(type) {
	case *OffsetCommitValue:
		o.num("offset", v.Offset)
		if version >= 3 {
			o.num("leaderEpoch", int64(v.LeaderEpoch))
		}
		o.str("metadata", v.Metadata)
		o.num("commitTimestamp", v.CommitTimestamp)
		if version == 1 {
			o.num("expireTimestamp", v.ExpireTimestamp)
		}
	case *GroupMetadataValue:
		o.str("protocolType", v.ProtocolType)
		o.num("generation", int64(v.Generation))
		o.nullableStr("protocol", v.Protocol)
		o.nullableStr("leader", v.Leader)
		if version >= 2 {
			o.num("currentStateTimestamp", v.CurrentStateTimestamp)
		}
		members := "["
		for i := range v.Members {
			if i > 0 {
				members += ","
			}
			members += memberJSON(&v.Members[i], version, v.ProtocolType == consumerProtocolType)
		}
		o.raw("members", members+"]")
	case *ConsumerGroupMetadataValue:
		o.num("epoch", int64(v.Epoch))
	default:
		return kip848ValueJSON(v)
	}
	return o.close()
}

func memberJSON(m *MemberMetadata, version int16, consumer bool) string {
	var o jsonObject
	o.str("memberId", m.MemberID)
	if version >= 3 {
		o.nullableStr("groupInstanceId", m.GroupInstanceID)
	}
	o.str("clientId", m.ClientID)
	o.str("clientHost", m.ClientHost)
	if version >= 1 {
		o.num("rebalanceTimeout", int64(m.RebalanceTimeout))
	}
	o.num("sessionTimeout", int64(m.SessionTimeout))
	if consumer {
		o.raw("subscription", subscriptionJSON(m.Subscription))
		o.raw("assignment", assignmentJSON(m.Assignment))
	} else {
		// Jackson writes a BinaryNode as standard, padded base64.
		o.raw("subscription", quotedBase64(m.Subscription))
		o.raw("assignment", quotedBase64(m.Assignment))
	}
	return o.close()
}

// jsonObject builds a JSON object the way Jackson's ObjectNode.toString
// prints it: no spaces, members in insertion order.
type jsonObject struct{ b []byte }

func (o *jsonObject) raw(name, value string) {
	if len(o.b) == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.b = appendJSONString(o.b, name)
	o.b = append(o.b, ':')
	o.b = append(o.b, value...)
}

func (o *jsonObject) str(name, s string) { o.raw(name, string(appendJSONString(nil, s))) }
func (o *jsonObject) num(name string, n int64) {
	o.raw(name, strconv.FormatInt(n, 10))
}

func (o *jsonObject) nullableStr(name string, s *string) {
	if s == nil {
		o.raw(name, "null")
		return
	}
	o.str(name, *s)
}

func (o *jsonObject) close() string {
	if len(o.b) == 0 {
		return "{}"
	}
	return string(append(o.b, '}'))
}

// appendJSONString quotes s as Jackson does: '"' and '\\' escaped, the
// control characters below 0x20 as \b \t \n \f \r or \u00XX (upper-case
// hex), everything else, non-ASCII included, as is. Bytes that are not UTF-8
// become U+FFFD, as Java's UTF-8 decoder made them when it read the string.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}
