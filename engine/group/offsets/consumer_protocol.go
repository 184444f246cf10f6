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
	r := &reader{buf: b}
	version := r.int16()
	topics := r.stringArray("topics")
	userData := r.nullableBytes("userData")
	var o jsonObject
	o.raw("topics", topics)
	o.raw("userData", userData)
	if version >= 1 {
		o.raw("ownedPartitions", r.topicPartitions("ownedPartitions"))
	}
	if version >= 2 {
		o.num("generationId", int64(r.int32()))
	}
	if version >= 3 {
		o.nullableStr("rackId", r.nullableString("rackId"))
	}
	if r.err != nil {
		return quotedBase64(b)
	}
	return o.close()
}

// assignmentJSON is subscriptionJSON for ConsumerProtocolAssignment (0-3).
func assignmentJSON(b []byte) string {
	r := &reader{buf: b}
	r.int16() // every version has the same two fields
	var o jsonObject
	o.raw("assignedPartitions", r.topicPartitions("assignedPartitions"))
	o.raw("userData", r.nullableBytes("userData"))
	if r.err != nil {
		return quotedBase64(b)
	}
	return o.close()
}

func quotedBase64(b []byte) string {
	return string(appendJSONString(nil, base64.StdEncoding.EncodeToString(b)))
}

// stringArray reads a non-flexible []string and returns it as JSON.
func (r *reader) stringArray(field string) string {
	n := r.arrayLen(field)
	out := []byte{'['}
	for i := 0; i < n && r.err == nil; i++ {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendJSONString(out, r.string(field))
	}
	return string(append(out, ']'))
}

// nullableBytes reads nullable bytes and returns them as JSON: null or base64.
func (r *reader) nullableBytes(field string) string {
	n := r.length(true)
	if r.err != nil || n < 0 {
		return "null"
	}
	return quotedBase64(r.array(n))
}

// topicPartitions reads [{Topic string, Partitions []int32}] as JSON.
func (r *reader) topicPartitions(field string) string {
	n := r.arrayLen(field)
	out := []byte{'['}
	for i := 0; i < n && r.err == nil; i++ {
		if i > 0 {
			out = append(out, ',')
		}
		var o jsonObject
		o.str("topic", r.string("topic"))
		m := r.arrayLen("partitions")
		parts := []byte{'['}
		for j := 0; j < m && r.err == nil; j++ {
			if j > 0 {
				parts = append(parts, ',')
			}
			parts = strconv.AppendInt(parts, int64(r.int32()), 10)
		}
		o.raw("partitions", string(append(parts, ']')))
		out = append(out, o.close()...)
	}
	return string(append(out, ']'))
}
