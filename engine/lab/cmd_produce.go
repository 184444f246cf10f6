package lab

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/record"
)

// maxProduceCount bounds one command so a typo cannot freeze a browser tab.
const maxProduceCount = 100_000

var produceCommand = &command{
	name:    "produce",
	usage:   "produce TOPIC value=V|tombstone=true [key=K] [partition=N] [count=N] [compression.type=none] [batch.size=16384]",
	summary: "send records: keyed ones go to murmur2(key) % partitions, unkeyed ones to a sticky partition; {i} in key or value counts 0,1,2...; a tombstone has a null value",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		topic, err := onePositional(a, "topic name")
		if err != nil {
			return "", err
		}
		hasKey := a.has("key")
		key := a.str("key", "")
		hasValue := a.has("value")
		value := a.str("value", "")
		isTombstone := a.boolean("tombstone", false)
		partition := a.integer("partition", -1, 0, cluster.MaxPartitions-1)
		count := a.integer("count", 1, 1, maxProduceCount)
		opts := cluster.DefaultProduceOptions()
		opts.BatchSize = a.integer("batch.size", opts.BatchSize, 0, 1<<24)
		codec := a.str("compression.type", "none")
		if err := a.finish(); err != nil {
			return "", err
		}
		if opts.Compression, err = record.ParseCompression(codec); err != nil {
			return "", err
		}
		switch {
		case hasValue && isTombstone:
			return "", fmt.Errorf("a tombstone has no value: give value= or tombstone=true, not both")
		case !hasValue && !isTombstone:
			return "", fmt.Errorf("missing value= (or tombstone=true for a null value)")
		}
		msgs := make([]cluster.Message, count)
		for i := range msgs {
			msgs[i] = cluster.Message{Partition: partition}
			if hasValue {
				msgs[i].Value = []byte(expandIndex(value, i))
			}
			if hasKey {
				msgs[i].Key = []byte(expandIndex(key, i))
			}
		}
		produced, err := l.cluster.Produce(topic, msgs, opts)
		if err != nil {
			return "", err
		}
		return describeProduced(topic, produced), nil
	},
}

// expandIndex replaces {i} with the record's index within the command.
func expandIndex(s string, i int) string {
	return strings.ReplaceAll(s, "{i}", strconv.Itoa(i))
}

// describeProduced says where records landed: one line per partition, in
// partition order, with the offset range each received.
func describeProduced(topic string, produced []cluster.Produced) string {
	if len(produced) == 1 {
		p := produced[0]
		return fmt.Sprintf("produced to %s/%d at offset %d", topic, p.Partition, p.Offset)
	}
	type span struct {
		first, last int64
		n           int
	}
	maxPartition := 0
	for _, p := range produced {
		maxPartition = max(maxPartition, p.Partition)
	}
	spans := make([]span, maxPartition+1)
	for _, p := range produced {
		s := &spans[p.Partition]
		if s.n == 0 {
			s.first = p.Offset
		}
		s.last = p.Offset
		s.n++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "produced %d records to %s", len(produced), topic)
	for i, s := range spans {
		if s.n > 0 {
			fmt.Fprintf(&b, "\n  %s/%d: %d records, offsets %d-%d", topic, i, s.n, s.first, s.last)
		}
	}
	return b.String()
}
