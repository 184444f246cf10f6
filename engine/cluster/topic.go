package cluster

import (
	"errors"
	"fmt"

	"github.com/loglab/loglab/engine/log"
)

// Kafka's error names for topic requests.
var (
	ErrTopicAlreadyExists       = errors.New("TOPIC_ALREADY_EXISTS")
	ErrInvalidTopic             = errors.New("INVALID_TOPIC_EXCEPTION")
	ErrInvalidPartitions        = errors.New("INVALID_PARTITIONS")
	ErrInvalidReplicationFactor = errors.New("INVALID_REPLICATION_FACTOR")
	ErrUnknownTopicOrPartition  = errors.New("UNKNOWN_TOPIC_OR_PARTITION")
	maxTopicNameLength          = 249
)

// ValidateTopicName applies Kafka's rule (Topic.validate): 1-249 characters
// from [a-zA-Z0-9._-], and not "." or "..". The rule also keeps a topic name
// safe to use as a directory name on the server.
func ValidateTopicName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: topic name is empty", ErrInvalidTopic)
	case name == "." || name == "..":
		return fmt.Errorf("%w: topic name cannot be %q", ErrInvalidTopic, name)
	case len(name) > maxTopicNameLength:
		return fmt.Errorf("%w: topic name is %d characters, the limit is %d", ErrInvalidTopic, len(name), maxTopicNameLength)
	}
	for _, r := range name {
		legal := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !legal {
			return fmt.Errorf("%w: topic name %q contains %q; legal characters are ASCII letters, digits, '.', '_' and '-'", ErrInvalidTopic, name, r)
		}
	}
	return nil
}

// CreateTopic adds a topic with empty partitions, each a log directory
// named "<topic>-<partition>" as in Kafka.
func (c *Cluster) CreateTopic(name string, partitions, replicationFactor int, cfg log.Config) (*Topic, error) {
	if err := ValidateTopicName(name); err != nil {
		return nil, err
	}
	if _, exists := c.topicByName[name]; exists {
		return nil, fmt.Errorf("%w: topic %q already exists", ErrTopicAlreadyExists, name)
	}
	if partitions < 1 || partitions > MaxPartitions {
		return nil, fmt.Errorf("%w: partitions must be between 1 and %d, got %d", ErrInvalidPartitions, MaxPartitions, partitions)
	}
	if replicationFactor < 1 || replicationFactor > c.config.Brokers {
		return nil, fmt.Errorf("%w: replication factor %d needs that many brokers, the cluster has %d", ErrInvalidReplicationFactor, replicationFactor, c.config.Brokers)
	}
	t := &Topic{Name: name, ReplicationFactor: replicationFactor, Config: cfg, housekeeping: make([][]string, partitions)}
	for i := range partitions {
		l, _, err := log.Open(c.fs, log.PartitionDir(name, i), cfg, 0)
		if err != nil {
			for _, opened := range t.Partitions {
				opened.Delete()
			}
			return nil, err
		}
		t.Partitions = append(t.Partitions, l)
	}
	c.topics = append(c.topics, t)
	c.topicByName[name] = t
	return t, nil
}

// Partition finds one partition's log.
func (c *Cluster) Partition(topic string, partition int) (*log.Log, error) {
	t, ok := c.topicByName[topic]
	if !ok {
		return nil, fmt.Errorf("%w: no topic %q", ErrUnknownTopicOrPartition, topic)
	}
	if partition < 0 || partition >= len(t.Partitions) {
		return nil, fmt.Errorf("%w: topic %q has partitions 0-%d, not %d", ErrUnknownTopicOrPartition, topic, len(t.Partitions)-1, partition)
	}
	return t.Partitions[partition], nil
}

// Destroy removes every partition directory of the cluster, so a new
// cluster on the same storage starts empty.
func (c *Cluster) Destroy() error {
	for _, t := range c.topics {
		for _, l := range t.Partitions {
			if err := l.Delete(); err != nil {
				return err
			}
		}
	}
	c.topics, c.topicByName = nil, map[string]*Topic{}
	return nil
}

// Close flushes and closes every partition log: what a broker does on a
// clean shutdown, so that reopening needs no recovery.
func (c *Cluster) Close() error {
	var errs []error
	for _, t := range c.topics {
		for _, l := range t.Partitions {
			errs = append(errs, l.Flush(), l.Close())
		}
	}
	return errors.Join(errs...)
}
