package lab

import (
	"fmt"
	"strings"

	"github.com/loglab/loglab/engine/client"
)

// classicOnly are the settings KafkaConsumer refuses with
// group.protocol=consumer (ConsumerConfig's
// CONSUMER_PROTOCOL_UNSUPPORTED_CONFIGS): the coordinator assigns and
// times sessions out under KIP-848. consumerOnly is the reverse.
var (
	classicOnly  = []string{"partition.assignment.strategy", "heartbeat.interval.ms", "session.timeout.ms"}
	consumerOnly = []string{"group.remote.assignor"}
)

// consumerGroupOptions reads the group settings of `consumer create` into cfg and
// reports whether the consumer is in a group (group= given).
func consumerGroupOptions(a *args, cfg *client.ConsumerConfig) (bool, error) {
	cfg.GroupID = a.str("group", "")
	cfg.GroupProtocol = a.enum("group.protocol", cfg.GroupProtocol, client.GroupProtocolClassic, client.GroupProtocolConsumer)
	if a.has("partition.assignment.strategy") {
		cfg.PartitionAssignmentStrategy = strings.Split(a.str("partition.assignment.strategy", ""), ",")
	}
	cfg.GroupRemoteAssignor = a.enum("group.remote.assignor", "", "uniform", "range")
	cfg.GroupInstanceID = a.str("group.instance.id", "")
	autoCommitSet := a.has("enable.auto.commit")
	cfg.EnableAutoCommit = a.boolean("enable.auto.commit", cfg.EnableAutoCommit)
	cfg.AutoCommitInterval = a.millisOrZero("auto.commit.interval.ms", cfg.AutoCommitInterval)
	cfg.SessionTimeout = a.millis("session.timeout.ms", cfg.SessionTimeout)
	cfg.HeartbeatInterval = a.millis("heartbeat.interval.ms", cfg.HeartbeatInterval)
	cfg.MaxPollInterval = a.millis("max.poll.interval.ms", cfg.MaxPollInterval)
	var set []string
	for _, names := range [][]string{classicOnly, consumerOnly, {"group.instance.id", "auto.commit.interval.ms", "max.poll.interval.ms", "group.protocol"}} {
		for _, n := range names {
			if a.has(n) {
				set = append(set, n)
			}
		}
	}
	if cfg.GroupID == "" {
		if autoCommitSet && cfg.EnableAutoCommit {
			// KafkaConsumer's constructor, for a consumer without group.id.
			return false, fmt.Errorf("InvalidConfigurationException: enable.auto.commit cannot be set to true when default group id (null) is used")
		}
		if len(set) > 0 {
			return false, fmt.Errorf("%s need group= (group.id): a consumer without a group has no group protocol", strings.Join(set, ", "))
		}
		cfg.EnableAutoCommit = false
		return false, nil
	}
	unsupported, protocol := consumerOnly, "CLASSIC"
	if cfg.GroupProtocol == client.GroupProtocolConsumer {
		unsupported, protocol = classicOnly, "CONSUMER"
	}
	var invalid []string
	for _, n := range unsupported {
		if a.has(n) {
			invalid = append(invalid, n)
		}
	}
	if len(invalid) > 0 {
		return false, fmt.Errorf("ConfigException: %s cannot be set when group.protocol=%s", strings.Join(invalid, ", "), protocol)
	}
	if err := cfg.Validate(); err != nil {
		return false, err
	}
	return true, nil
}

// createGroupConsumer subscribes a new group consumer to topics.
func createGroupConsumer(l *Lab, name string, cfg client.ConsumerConfig, topics, assign string) (string, error) {
	if assign != "" {
		return "", fmt.Errorf("assign= with group= (manual assignment committing to a group) is not modelled: use topics=")
	}
	if topics == "" {
		return "", fmt.Errorf("missing topics=: a group consumer subscribes to topics")
	}
	ts := strings.Split(topics, ",")
	if _, err := l.cluster.CreateGroupConsumer(name, cfg, ts); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "created consumer %s in group %s subscribed to %s (group.protocol=%s", name, cfg.GroupID, strings.Join(ts, ","), cfg.GroupProtocol)
	if cfg.GroupProtocol == client.GroupProtocolClassic {
		fmt.Fprintf(&b, " partition.assignment.strategy=%s session.timeout.ms=%d heartbeat.interval.ms=%d",
			strings.Join(cfg.PartitionAssignmentStrategy, ","), cfg.SessionTimeout.Milliseconds(), cfg.HeartbeatInterval.Milliseconds())
	} else if cfg.GroupRemoteAssignor != "" {
		fmt.Fprintf(&b, " group.remote.assignor=%s", cfg.GroupRemoteAssignor)
	}
	if cfg.GroupInstanceID != "" {
		fmt.Fprintf(&b, " group.instance.id=%s", cfg.GroupInstanceID)
	}
	fmt.Fprintf(&b, " enable.auto.commit=%t", cfg.EnableAutoCommit)
	if cfg.EnableAutoCommit {
		fmt.Fprintf(&b, " auto.commit.interval.ms=%d", cfg.AutoCommitInterval.Milliseconds())
	}
	fmt.Fprintf(&b, " max.poll.interval.ms=%d auto.offset.reset=%s)", cfg.MaxPollInterval.Milliseconds(), cfg.AutoOffsetReset)
	return b.String(), nil
}
