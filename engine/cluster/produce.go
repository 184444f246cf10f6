package cluster

import (
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/record"
)

// Message is one record a producer sends. A nil Key is a null key; a nil
// Value is a tombstone.
type Message struct {
	Key   []byte
	Value []byte
	// Partition is an explicit partition, or -1 to let the partitioner choose;
	// as in Kafka, an explicit partition wins over the key.
	Partition int
}

// ProduceOptions are the producer settings a produce command may carry.
type ProduceOptions struct {
	Compression record.Compression // compression.type
	BatchSize   int                // batch.size: bytes of records per batch
}

// DefaultProduceOptions are the Java producer's defaults.
func DefaultProduceOptions() ProduceOptions {
	return ProduceOptions{Compression: record.None, BatchSize: 16384}
}

// Produced says where a record landed.
type Produced struct {
	Partition int
	Offset    int64
}

// pendingBatch is a batch on its way to a partition, with the messages in it.
type pendingBatch struct {
	partition int
	batch     *record.Batch
	msgs      []int // indexes into the produce call's messages
}

// Produce appends messages to a topic, each to the partition Kafka's default
// partitioner would choose. Records for one partition are grouped into
// batches of up to batch.size bytes, as the producer's accumulator does when
// they are sent together. Every batch is checked before any is written, so
// a bad one leaves every log untouched.
func (c *Cluster) Produce(topic string, msgs []Message, opts ProduceOptions) ([]Produced, error) {
	for _, m := range msgs {
		if _, err := c.Partition(topic, max(m.Partition, 0)); err != nil {
			return nil, err
		}
	}
	t := c.topicByName[topic]
	batches := c.accumulate(t, msgs, opts)
	encoded := make([][]byte, len(batches))
	for i, pb := range batches {
		var err error
		if encoded[i], err = pb.batch.AppendEncoded(nil); err != nil {
			return nil, err
		}
		if err := t.Partitions[pb.partition].Validate(pb.batch, len(encoded[i])); err != nil {
			return nil, err
		}
	}
	out := make([]Produced, len(msgs))
	for i, pb := range batches {
		info, err := t.Partitions[pb.partition].AppendEncodedAsLeader(encoded[i], 0)
		if err != nil {
			return nil, err // an I/O failure: nothing a command could have avoided
		}
		for j, i := range pb.msgs {
			out[i] = Produced{Partition: pb.partition, Offset: info.FirstOffset + int64(j)}
		}
	}
	return out, nil
}

// accumulate partitions the messages and groups them into batches, in
// partition order and, within a partition, in send order.
func (c *Cluster) accumulate(t *Topic, msgs []Message, opts ProduceOptions) []pendingBatch {
	targets := make([]int, len(msgs))
	for i, m := range msgs {
		switch {
		case m.Partition >= 0:
			targets[i] = m.Partition
		case m.Key != nil:
			targets[i] = client.KeyPartition(m.Key, len(t.Partitions))
		default:
			targets[i] = c.sticky.Partition(t.Name, len(t.Partitions), len(m.Value), c.rng)
		}
	}
	now := c.clock.NowMs()
	var out []pendingBatch
	for p := range t.Partitions {
		var chosen []int
		bytes := 0
		for i, m := range msgs {
			if targets[i] != p {
				continue
			}
			size := len(m.Key) + len(m.Value) + recordOverhead
			if len(chosen) > 0 && bytes+size > opts.BatchSize {
				out = append(out, pendingBatch{p, newBatch(msgs, chosen, now, opts.Compression), chosen})
				chosen, bytes = nil, 0
			}
			chosen = append(chosen, i)
			bytes += size
		}
		if len(chosen) > 0 {
			out = append(out, pendingBatch{p, newBatch(msgs, chosen, now, opts.Compression), chosen})
		}
	}
	return out
}

// recordOverhead approximates a record's bytes beyond key and value
// (length, attributes, deltas, header count) for filling batches.
const recordOverhead = 8

// newBatch builds a RecordBatch of the chosen messages, stamped now.
// Producers without idempotence send producer id -1, epoch -1, sequence -1.
func newBatch(msgs []Message, chosen []int, now int64, codec record.Compression) *record.Batch {
	b := &record.Batch{
		Attributes:      record.ComputeAttributes(codec, record.CreateTime, false, false),
		LastOffsetDelta: int32(len(chosen) - 1),
		BaseTimestamp:   now,
		MaxTimestamp:    now,
		ProducerID:      -1,
		ProducerEpoch:   -1,
		BaseSequence:    -1,
	}
	for j, i := range chosen {
		b.Records = append(b.Records, record.Record{OffsetDelta: int32(j), Key: msgs[i].Key, Value: msgs[i].Value})
	}
	return b
}
