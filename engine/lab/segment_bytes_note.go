package lab

import "strconv"

// kafkaMinSegmentBytes is the smallest segment.bytes Kafka 4.x accepts:
// LogConfig defines it with atLeast(1024 * 1024) since KIP-1030 (the
// broker's log.segment.bytes has the same bound). loglab's log accepts
// far smaller segments (engine/log's minSegmentBytes) so that a lesson
// rolls segments with a handful of records; the command that sets one
// says so once, so no learner takes a 600-byte segment for Kafka's.
const kafkaMinSegmentBytes = 1024 * 1024

// segmentBytesNote is the note a command prints when it gives a topic
// segments Kafka 4.x would refuse: what is the value's owner (a topic's
// segment.bytes, or the broker setting it becomes one of), "" when value
// is not below Kafka's minimum or not a number.
func segmentBytesNote(what, value string) string {
	v, err := strconv.ParseInt(value, 10, 64)
	if err != nil || v >= kafkaMinSegmentBytes {
		return ""
	}
	return "note: Kafka 4.x refuses " + what + " below " + strconv.Itoa(kafkaMinSegmentBytes) +
		" (1 MiB, KIP-1030); the lab allows smaller segments so that a few records show rolls"
}
