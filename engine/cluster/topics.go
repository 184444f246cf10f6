package cluster

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/storage"
)

// Kafka's error names for topic requests.
var (
	ErrTopicAlreadyExists       = kraft.ErrTopicExists
	ErrInvalidTopic             = errors.New("INVALID_TOPIC_EXCEPTION")
	ErrInvalidPartitions        = errors.New("INVALID_PARTITIONS")
	ErrInvalidReplicationFactor = kraft.ErrReplicationFactor
	ErrUnknownTopicOrPartition  = errors.New("UNKNOWN_TOPIC_OR_PARTITION")
	ErrInvalidConfig            = errors.New("INVALID_CONFIG")
	ErrLeaderNotAvailable       = errors.New("LEADER_NOT_AVAILABLE")
	ErrRequestTimedOut          = errors.New("REQUEST_TIMED_OUT")
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

// TopicConfigNames are the topic configs the cluster understands beyond
// the log's own: replication settings.
var TopicConfigNames = []string{"min.insync.replicas", "unclean.leader.election.enable"}

// validateConfigs checks topic configs by name and value.
func validateConfigs(configs [][2]string) error {
	cfg := log.DefaultConfig()
	for _, kv := range configs {
		switch kv[0] {
		case "min.insync.replicas":
			var n int
			if _, err := fmt.Sscan(kv[1], &n); err != nil || n < 1 {
				return fmt.Errorf("%w: min.insync.replicas=%s: must be a whole number of at least 1", ErrInvalidConfig, kv[1])
			}
		case "unclean.leader.election.enable":
			if kv[1] != "true" && kv[1] != "false" {
				return fmt.Errorf("%w: unclean.leader.election.enable=%s: must be true or false", ErrInvalidConfig, kv[1])
			}
		default:
			if !log.IsSetting(kv[0]) {
				return fmt.Errorf("%w: unknown topic config %s", ErrInvalidConfig, kv[0])
			}
			if err := cfg.Set(kv[0], kv[1]); err != nil {
				return fmt.Errorf("%w: %v", ErrInvalidConfig, err)
			}
		}
	}
	return nil
}

// CreateTopic asks the controller for a topic and runs the cluster until
// every partition's leader has taken up its leadership.
func (c *Cluster) CreateTopic(name string, partitions, rf int, configs [][2]string) error {
	if err := ValidateTopicName(name); err != nil {
		return err
	}
	if partitions < 1 || partitions > MaxPartitions {
		return fmt.Errorf("%w: partitions must be between 1 and %d, got %d", ErrInvalidPartitions, MaxPartitions, partitions)
	}
	if rf < 1 {
		return fmt.Errorf("%w: replication factor must be at least 1", ErrInvalidReplicationFactor)
	}
	if err := validateConfigs(configs); err != nil {
		return err
	}
	if c.activeID == 0 {
		return fmt.Errorf("%w: no active controller to create the topic (a majority of controllers must run and reach each other)", ErrNotController)
	}
	if err := c.controller.CreateTopic(name, partitions, rf, configs); err != nil {
		return err
	}
	ok, err := c.RunUntil(func() bool { return c.topicCommitted(name) && c.leadersReady(name) }, topicCreateWait)
	if err == nil && !ok && !c.topicCommitted(name) {
		// The controller wrote the records but no majority took them: an
		// isolated leader. Kafka's CreateTopics times out the same way;
		// the records stay in that controller's log only until a new
		// leader's log truncates them.
		return fmt.Errorf("%w: topic %q was not committed within %v: the controller that took it cannot reach a majority of the quorum", ErrRequestTimedOut, name, topicCreateWait)
	}
	return err
}

// topicCreateWait is how long topic create waits for the topic's records
// to commit and its leaders to take over.
const topicCreateWait = 10 * time.Second

// topicCommitted says whether the topic's records are committed: in the
// image of the active controller's voter, which holds only what the
// quorum committed (the controller's own image also holds what it wrote).
func (c *Cluster) topicCommitted(name string) bool {
	if c.remote != nil {
		return c.controller.Image().Topic(name) != nil // a quorum of processes commits before it returns
	}
	for _, v := range c.voters {
		if v.id == c.activeID {
			return v.image.Topic(name) != nil
		}
	}
	return false
}

// leadersReady reports whether each partition's leader knows it leads.
func (c *Cluster) leadersReady(topic string) bool {
	t := c.controller.Image().Topic(topic)
	if t == nil {
		return false
	}
	for i, p := range t.Partitions {
		if p == nil || p.Leader < 0 {
			continue
		}
		b := c.Broker(int(p.Leader))
		if !b.Alive() {
			continue
		}
		r := b.Replica(protocol.TopicPartition{Topic: topic, Partition: int32(i)})
		if r == nil || !r.IsLeader() || r.LeaderEpoch != p.LeaderEpoch {
			return false
		}
	}
	return true
}

// Topics lists topic names in creation order.
func (c *Cluster) Topics() []*kraft.TopicInfo { return c.controller.Image().Topics }

// PartitionInfo is the controller's view of a partition.
func (c *Cluster) PartitionInfo(topic string, partition int) (*kraft.PartitionInfo, error) {
	t := c.controller.Image().Topic(topic)
	if t == nil {
		return nil, fmt.Errorf("%w: no topic %q", ErrUnknownTopicOrPartition, topic)
	}
	if partition < 0 || partition >= len(t.Partitions) {
		return nil, fmt.Errorf("%w: topic %q has partitions 0-%d, not %d", ErrUnknownTopicOrPartition, topic, len(t.Partitions)-1, partition)
	}
	return t.Partitions[partition], nil
}

// Replica returns broker's replica of a partition; brokerID <= 0 means the
// current leader.
func (c *Cluster) Replica(topic string, partition, brokerID int) (*broker.Replica, int, error) {
	p, err := c.PartitionInfo(topic, partition)
	if err != nil {
		return nil, 0, err
	}
	leaderAsked := brokerID <= 0
	if brokerID <= 0 {
		if p.Leader < 0 {
			return nil, 0, fmt.Errorf("%w: %s/%d has no leader (replicas %s, ISR %s); name one with broker=N",
				ErrLeaderNotAvailable, topic, partition, protocol.JoinIDs(p.Replicas), protocol.JoinIDs(p.ISR))
		}
		brokerID = int(p.Leader)
	}
	if !slices.Contains(p.Replicas, int32(brokerID)) {
		return nil, 0, fmt.Errorf("%w: broker %d holds no replica of %s/%d (replicas %s)", ErrUnknownTopicOrPartition, brokerID, topic, partition, protocol.JoinIDs(p.Replicas))
	}
	named := ""
	if leaderAsked {
		named = ", the leader the metadata names,"
	}
	b := c.Broker(brokerID)
	if !b.Alive() {
		return nil, 0, fmt.Errorf("broker %d%s is down%s", brokerID, named, c.otherReplica(topic, partition, brokerID))
	}
	r := b.Replica(protocol.TopicPartition{Topic: topic, Partition: int32(partition)})
	if r == nil {
		// A restarted broker opens its logs only once it has registered
		// and replayed the metadata; until its previous run's session
		// expires the metadata still names it leader.
		return nil, 0, fmt.Errorf("%w: broker %d%s has not opened %s/%d yet (a restarted broker opens its logs once it has registered and replayed the metadata)%s",
			ErrUnknownTopicOrPartition, brokerID, named, topic, partition, c.otherReplica(topic, partition, brokerID))
	}
	return r, brokerID, nil
}

// otherReplica suggests a replica of topic/partition, other than broker
// not, that can be read: "; read broker 3's replica with broker=3".
func (c *Cluster) otherReplica(topic string, partition, not int) string {
	p, err := c.PartitionInfo(topic, partition)
	if err != nil {
		return ""
	}
	for _, id := range p.Replicas {
		b := c.Broker(int(id))
		if int(id) != not && b != nil && b.Alive() && b.Replica(protocol.TopicPartition{Topic: topic, Partition: int32(partition)}) != nil {
			return fmt.Sprintf("; read broker %d's replica with broker=%d", id, id)
		}
	}
	return ""
}

// Partition returns the leader's log of a partition.
func (c *Cluster) Partition(topic string, partition int) (*log.Log, error) {
	r, _, err := c.Replica(topic, partition, 0)
	if err != nil {
		return nil, err
	}
	return r.Log, nil
}

// Close shuts every live broker down cleanly, flushing its logs.
func (c *Cluster) Close() error {
	var errs []error
	for _, b := range c.brokers {
		if !b.Alive() {
			continue
		}
		for _, r := range b.Replicas() {
			errs = append(errs, r.Log.Flush())
		}
		b.Stop()
	}
	if c.controller != nil {
		c.controller.Stop()
	}
	errs = append(errs, c.closeVoters(), c.closeAckedFile())
	return errors.Join(errs...)
}

func (c *Cluster) closeAckedFile() error {
	if c.ackFile == nil {
		return nil
	}
	err := c.ackFile.Close()
	c.ackFile = nil
	return err
}

// Destroy removes every broker's data, so a new cluster on the same
// storage starts empty.
func (c *Cluster) Destroy() error {
	c.Close()
	if r, ok := c.remote.(interface{ Remove() error }); ok {
		if err := r.Remove(); err != nil {
			return err
		}
	}
	if c.fs != nil && c.config.MetadataDir != "" && c.remote == nil {
		for id := 1; id <= c.config.Controllers; id++ {
			if err := c.fs.RemoveAll(fmt.Sprintf("%s/controller-%d", c.config.MetadataDir, id)); err != nil {
				return err
			}
		}
	}
	if c.fs == nil {
		return nil
	}
	for _, b := range c.brokers {
		if err := c.fs.RemoveAll(fmt.Sprintf("broker-%d", b.ID)); err != nil {
			return err
		}
	}
	if err := c.fs.Remove(AckedFile); err != nil && !errors.Is(err, storage.ErrNotExist) {
		return err
	}
	return nil
}

// name is a partition as the transcript and the checker write it: "topic/p".
func name(tp protocol.TopicPartition) string { return tp.Topic + "/" + strconv.Itoa(int(tp.Partition)) }
