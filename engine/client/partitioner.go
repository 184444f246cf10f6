// Package client holds what Kafka's clients decide on their own side of the
// wire. This file is the producer's partitioner, bit-for-bit Kafka's Java
// client so that a key lands on the same partition here as in Kafka.
package client

import "math/rand/v2"

// Murmur2 is Kafka's murmur2 hash (org.apache.kafka.common.utils.Utils.murmur2),
// computed on 32-bit ints exactly as Java does, including its overflow.
func Murmur2(data []byte) int32 {
	const (
		seed uint32 = 0x9747b28c
		m    uint32 = 0x5bd1e995
		r           = 24
	)
	length := len(data)
	h := seed ^ uint32(length)
	for i := 0; i+4 <= length; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	tail := data[length&^3:]
	switch len(tail) { // deliberate fallthrough, as in Java's switch
	case 3:
		h ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(tail[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// toPositive is Kafka's Utils.toPositive: it clears the sign bit rather than
// taking an absolute value, because -Integer.MIN_VALUE is still negative.
func toPositive(n int32) int32 { return n & 0x7fffffff }

// KeyPartition is where Kafka's default partitioner puts a keyed record.
// Because it depends on numPartitions, adding partitions moves keys: the
// ordering guarantee for a key only holds while the partition count is fixed.
func KeyPartition(key []byte, numPartitions int) int {
	return int(toPositive(Murmur2(key)) % int32(numPartitions))
}

// StickyPartitioner places records with a null key the way Kafka's built-in
// partitioner does since KIP-480/KIP-794: it sticks to one partition until
// about batch.size bytes have gone there, then switches to another chosen at
// random, so that batches fill up instead of every record opening its own.
//
// Difference from Kafka: Kafka weights the next choice by each partition's
// queue depth (KIP-794's adaptive partitioning); loglab picks uniformly.
type StickyPartitioner struct {
	BatchSize int // batch.size, 16384 by default
	sticky    map[string]*stickyState
}

type stickyState struct {
	partition int
	bytes     int
}

// NewStickyPartitioner returns a partitioner with Kafka's default batch.size.
func NewStickyPartitioner() *StickyPartitioner {
	return &StickyPartitioner{BatchSize: 16384, sticky: map[string]*stickyState{}}
}

// Partition picks the partition for a null-key record of the given size.
func (p *StickyPartitioner) Partition(topic string, numPartitions, recordBytes int, rng *rand.Rand) int {
	s, ok := p.sticky[topic]
	if !ok || s.partition >= numPartitions || s.bytes >= p.BatchSize {
		s = &stickyState{partition: nextPartition(s, numPartitions, rng)}
		p.sticky[topic] = s
	}
	s.bytes += recordBytes
	return s.partition
}

// nextPartition picks a partition other than the previous one when there is
// a choice, as Kafka's sticky partitioner does.
func nextPartition(prev *stickyState, numPartitions int, rng *rand.Rand) int {
	if prev == nil || numPartitions == 1 || prev.partition >= numPartitions {
		return rng.IntN(numPartitions)
	}
	next := rng.IntN(numPartitions - 1)
	if next >= prev.partition {
		next++
	}
	return next
}
