package cluster

import "github.com/loglab/loglab/engine/client"

// Message is one record a producer sends. A nil Key is a null key.
type Message struct {
	Key   []byte
	Value []byte
	// Partition is an explicit partition, or -1 to let the partitioner choose;
	// as in Kafka, an explicit partition wins over the key.
	Partition int
}

// Produced says where a record landed.
type Produced struct {
	Partition int
	Offset    int64
}

// Produce appends messages to a topic, each to the partition Kafka's default
// partitioner would choose. All messages are checked before any is written,
// so a bad one leaves the log untouched.
func (c *Cluster) Produce(topic string, msgs []Message) ([]Produced, error) {
	for _, m := range msgs {
		if m.Partition >= 0 {
			if _, err := c.Partition(topic, m.Partition); err != nil {
				return nil, err
			}
		} else if _, err := c.Partition(topic, 0); err != nil {
			return nil, err
		}
	}
	t := c.topicByName[topic]
	out := make([]Produced, 0, len(msgs))
	for _, m := range msgs {
		p := m.Partition
		switch {
		case p >= 0:
		case m.Key != nil:
			p = client.KeyPartition(m.Key, len(t.Partitions))
		default:
			p = c.sticky.Partition(topic, len(t.Partitions), len(m.Value), c.rng)
		}
		offset := t.Partitions[p].Append(c.clock.NowMs(), m.Key, m.Value)
		out = append(out, Produced{Partition: p, Offset: offset})
	}
	return out, nil
}
