package kraft

import (
	"errors"
	"fmt"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// createTopics is the controller's CreateTopics for a broker's
// auto-creation of an internal topic (__consumer_offsets). Like Kafka's
// ReplicationControlManager it refuses a replication factor larger than
// the number of unfenced brokers (INVALID_REPLICATION_FACTOR), so with
// offsets.topic.replication.factor=3 the topic appears only once three
// brokers run; an existing topic is TOPIC_ALREADY_EXISTS.
func (c *Controller) createTopics(from sim.NodeID, m protocol.CreateTopicsRequest) {
	resp := protocol.CreateTopicsResponse{CorrelationID: m.CorrelationID, Name: m.Name}
	usable := 0
	for _, b := range c.image.Brokers {
		if !b.Fenced {
			usable++
		}
	}
	switch {
	case c.image.Topic(m.Name) != nil:
		resp.Error, resp.ErrorMessage = protocol.TopicAlreadyExists, fmt.Sprintf("Topic '%s' already exists.", m.Name)
	case int(m.ReplicationFactor) > usable:
		resp.Error = protocol.InvalidReplicationFactor
		resp.ErrorMessage = fmt.Sprintf("Unable to replicate the partition %d time(s): The target replication factor of %d cannot be reached because only %d broker(s) are registered.",
			m.ReplicationFactor, m.ReplicationFactor, usable)
	default:
		if err := c.CreateTopic(m.Name, int(m.NumPartitions), int(m.ReplicationFactor), m.Configs); err != nil {
			resp.Error, resp.ErrorMessage = protocol.InvalidReplicationFactor, err.Error()
			if errors.Is(err, ErrPolicyViolation) {
				resp.Error = protocol.PolicyViolation
			}
			break
		}
		// Answered once the topic is committed.
		last := c.image.Offset
		c.afterCommit([]protocol.MetadataRecord{{Offset: last}}, func() { c.net.Send(ControllerNode, from, resp) })
		return
	}
	c.net.Send(ControllerNode, from, resp)
}
