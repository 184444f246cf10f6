package broker

import (
	"time"

	"github.com/loglab/loglab/engine/group/classic"
	"github.com/loglab/loglab/engine/group/consumer"
	"github.com/loglab/loglab/engine/group/coordinator"
)

// OffsetsTopic is the internal topic the group coordinator keeps its
// state in.
const OffsetsTopic = "__consumer_offsets"

// GroupConfig is the group coordinator's broker configuration, Kafka's
// keys and defaults.
type GroupConfig struct {
	OffsetsTopicNumPartitions     int32         // offsets.topic.num.partitions (50)
	OffsetsTopicReplicationFactor int16         // offsets.topic.replication.factor (3)
	OffsetsTopicSegmentBytes      int64         // offsets.topic.segment.bytes (100 MiB)
	InitialRebalanceDelay         time.Duration // group.initial.rebalance.delay.ms (3 s)
	MinSessionTimeout             time.Duration // group.min.session.timeout.ms (6 s)
	MaxSessionTimeout             time.Duration // group.max.session.timeout.ms (30 min)
	ConsumerHeartbeatInterval     time.Duration // group.consumer.heartbeat.interval.ms (5 s)
	ConsumerSessionTimeout        time.Duration // group.consumer.session.timeout.ms (45 s)
	OffsetsRetention              time.Duration // offsets.retention.minutes (7 days)
	OffsetsRetentionCheckInterval time.Duration // offsets.retention.check.interval.ms (10 min)
	// LoadBase and LoadPerRecord are what loading a __consumer_offsets
	// partition costs in virtual time (no Kafka config: Kafka's load takes
	// as long as reading the log does). While it runs, the new
	// coordinator answers COORDINATOR_LOAD_IN_PROGRESS.
	LoadBase, LoadPerRecord time.Duration
}

// DefaultGroupConfig is Kafka 4.x's defaults, and loglab's load cost: 50
// ms plus 0.1 ms per record replayed.
func DefaultGroupConfig() GroupConfig {
	return GroupConfig{
		OffsetsTopicNumPartitions: 50, OffsetsTopicReplicationFactor: 3, OffsetsTopicSegmentBytes: 100 << 20,
		InitialRebalanceDelay: 3 * time.Second, MinSessionTimeout: 6 * time.Second, MaxSessionTimeout: 30 * time.Minute,
		ConsumerHeartbeatInterval: 5 * time.Second, ConsumerSessionTimeout: 45 * time.Second,
		OffsetsRetention: 7 * 24 * time.Hour, OffsetsRetentionCheckInterval: 10 * time.Minute,
		LoadBase: 50 * time.Millisecond, LoadPerRecord: 100 * time.Microsecond,
	}
}

// coordinatorConfig is the shard's view of it.
func (g GroupConfig) coordinatorConfig() coordinator.Config {
	cfg := coordinator.DefaultConfig()
	cfg.Classic = classic.DefaultConfig()
	cfg.Classic.InitialRebalanceDelayMs = g.InitialRebalanceDelay.Milliseconds()
	cfg.Classic.MinSessionTimeoutMs = g.MinSessionTimeout.Milliseconds()
	cfg.Classic.MaxSessionTimeoutMs = g.MaxSessionTimeout.Milliseconds()
	cfg.Consumer = consumer.Config{SessionTimeoutMs: int32(g.ConsumerSessionTimeout.Milliseconds()),
		HeartbeatIntervalMs: int32(g.ConsumerHeartbeatInterval.Milliseconds())}
	cfg.OffsetsRetentionMs = g.OffsetsRetention.Milliseconds()
	return cfg
}
