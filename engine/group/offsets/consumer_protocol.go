package offsets

import (
	"encoding/base64"
	"strconv"
)

// consumerProtocolType is ConsumerProtocol.PROTOCOL_TYPE: a classic group
// of consumers (not Connect workers or streams) embeds the consumer
// protocol in its members' subscription and assignment bytes.
const consumerProtocolType = "consumer"

// subscriptionJSON prints a member's subscription bytes as Kafka's
// OffsetsMessageParser does for a consumer group: it reads the int16
// version and then ConsumerProtocolSubscription (0-3, never flexible) at
// that version, fields gated as in the schema, so a version above 3 reads
// as 3 (the schema promises later versions only append). Any failure keeps
// the raw bytes, printed as base64, as Kafka swallows the exception.
func subscriptionJSON(b []byte) string {
	r := &reader{Buf: b}
	version := r.Int16()
	topics := stringArray(r, "topics")
	userData := nullableBytes(r, "userData")
	var o jsonObject
	o.Raw("topics", topics)
	o.Raw("userData", userData)
	if version >= 1 {
		o.Raw("ownedPartitions", topicPartitions(r, "ownedPartitions"))
	}
	if version >= 2 {
		o.Num("generationId", int64(r.Int32()))
	}
	if version >= 3 {
		o.NullableStr("rackId", r.NullableStr("rackId"))
	}
	if r.Err != nil {
		return quotedBase64(b)
	}
	return o.Close()
}

// assignmentJSON is subscriptionJSON for ConsumerProtocolAssignment (0-3).
func assignmentJSON(b []byte) string {
	r := &reader{Buf: b}
	r.Int16() // every version has the same two fields
	var o jsonObject
	o.Raw("assignedPartitions", topicPartitions(r, "assignedPartitions"))
	o.Raw("userData", nullableBytes(r, "userData"))
	if r.Err != nil {
		return quotedBase64(b)
	}
	return o.Close()
}

func quotedBase64(b []byte) string {
	return string(appendJSONString(nil, base64.StdEncoding.EncodeToString(b)))
}

// stringArray reads a non-flexible []string and returns it as JSON.
func stringArray(r *reader, field string) string {
	n := r.ArrayLen(field)
	out := []byte{'['}
	for i := 0; i < n && r.Err == nil; i++ {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendJSONString(out, r.Str(field))
	}
	return string(append(out, ']'))
}

// nullableBytes reads nullable bytes and returns them as JSON: null or base64.
func nullableBytes(r *reader, field string) string {
	n := r.Length(true)
	if r.Err != nil || n < 0 {
		return "null"
	}
	return quotedBase64(r.Array(n))
}

// topicPartitions reads [{Topic string, Partitions []int32}] as JSON.
func topicPartitions(r *reader, field string) string {
	n := r.ArrayLen(field)
	out := []byte{'['}
	for i := 0; i < n && r.Err == nil; i++ {
		if i > 0 {
			out = append(out, ',')
		}
		var o jsonObject
		o.Str("topic", r.Str("topic"))
		m := r.ArrayLen("partitions")
		parts := []byte{'['}
		for j := 0; j < m && r.Err == nil; j++ {
			if j > 0 {
				parts = append(parts, ',')
			}
			parts = strconv.AppendInt(parts, int64(r.Int32()), 10)
		}
		o.Raw("partitions", string(append(parts, ']')))
		out = append(out, o.Close()...)
	}
	return string(append(out, ']'))
}
