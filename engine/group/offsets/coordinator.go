package offsets

import "unicode/utf16"

// DefaultNumPartitions is offsets.topic.num.partitions' default.
const DefaultNumPartitions = 50

// PartitionFor is the __consumer_offsets partition whose leader coordinates
// groupID: Kafka's GroupCoordinatorService.partitionFor,
// Utils.abs(groupId.hashCode()) % numPartitions. Clients and brokers must
// agree on it bit for bit, so the hash is Java's, not Go's.
func PartitionFor(groupID string, numPartitions int32) int32 {
	return javaAbs(javaStringHash(groupID)) % numPartitions
}

// javaStringHash is java.lang.String.hashCode: s[0]*31^(n-1) + ... + s[n-1]
// over UTF-16 code units with int32 wrap-around. A rune outside the BMP is
// two code units (a surrogate pair) in Java, so it is hashed as two. Group
// ids reach loglab as valid UTF-8; a byte that is not would count as one
// U+FFFD, roughly what Java's decoder makes of it.
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			h = 31*h + hi
			h = 31*h + lo
			continue
		}
		h = 31*h + r
	}
	return h
}

// javaAbs is Kafka's Utils.abs: Math.abs(Integer.MIN_VALUE) is still
// negative in Java, and a negative partition would be no partition at all,
// so Kafka maps it to 0.
func javaAbs(n int32) int32 {
	if n == -1<<31 {
		return 0
	}
	if n < 0 {
		return -n
	}
	return n
}
