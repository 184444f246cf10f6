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

// StickyPartitioner places records with a null key the way Kafka's
// BuiltInPartitioner does (KIP-794, Kafka 3.3+): it sticks to one partition
// until at least batch.size bytes have gone there and the partition's last
// batch is full (or twice batch.size whatever the batch), then switches to
// a partition picked at random among those with a leader, so that batches
// fill up instead of every record opening its own. The pick may be the same
// partition again, as in Kafka.
//
// Difference from Kafka: with partitioner.adaptive.partitioning.enable
// (the default) Kafka weights the pick by each partition's queue depth once
// the sender has reported queue sizes; loglab always picks uniformly, which
// is what Kafka does when all queues are equally deep.
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

// Partition is the sticky partition for a null-key record (Kafka's
// BuiltInPartitioner.peekCurrentPartitionInfo), picking one the first time.
// available lists the partitions with a leader.
func (p *StickyPartitioner) Partition(topic string, available []int, numPartitions int, rng *rand.Rand) int {
	s, ok := p.sticky[topic]
	if !ok || s.partition >= numPartitions {
		s = &stickyState{partition: nextPartition(available, numPartitions, rng)}
		p.sticky[topic] = s
	}
	return s.partition
}

// Appended counts the bytes a record added to its batch and switches
// partition once enough went there (Kafka's updatePartitionInfo).
// batchFull is the accumulator's allBatchesFull: the partition's last
// batch takes no more records, so switching now loses no batching.
func (p *StickyPartitioner) Appended(topic string, bytes int, batchFull bool, available []int, numPartitions int, rng *rand.Rand) {
	s, ok := p.sticky[topic]
	if !ok {
		return
	}
	s.bytes += bytes
	if s.bytes >= p.BatchSize && batchFull || s.bytes >= 2*p.BatchSize {
		p.sticky[topic] = &stickyState{partition: nextPartition(available, numPartitions, rng)}
	}
}

// nextPartition is BuiltInPartitioner.nextPartition without load stats: a
// uniform pick among partitions with a leader, or among all of them when
// none has one.
func nextPartition(available []int, numPartitions int, rng *rand.Rand) int {
	if len(available) > 0 {
		return available[rng.IntN(len(available))]
	}
	return rng.IntN(numPartitions)
}
