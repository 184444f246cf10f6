package raft

import (
	"time"

	"github.com/loglab/loglab/engine/sim"
)

// Config is one node's configuration; the durations carry Kafka's names
// (QuorumConfig) and defaults.
type Config struct {
	ClusterID string
	ID        int32
	Node      sim.NodeID // its address on the network
	Voters    []int32    // the voters' ids, ascending
	// VoterNode is a voter's address.
	VoterNode func(id int32) sim.NodeID

	ElectionTimeout    time.Duration // controller.quorum.election.timeout.ms (1000)
	FetchTimeout       time.Duration // controller.quorum.fetch.timeout.ms (2000)
	ElectionBackoffMax time.Duration // controller.quorum.election.backoff.max.ms (1000)
	RequestTimeout     time.Duration // controller.quorum.request.timeout.ms (2000)
	RetryBackoff       time.Duration // controller.quorum.retry.backoff.ms (20)
	// FetchMaxWait is how long the leader holds a Fetch that finds nothing
	// new (KafkaRaftClient's fetchMaxWaitMs, 500).
	FetchMaxWait time.Duration
	// MaxFetchEntries bounds the records one FetchResponse carries (Kafka
	// bounds bytes, MAX_FETCH_SIZE_BYTES).
	MaxFetchEntries int
	// SnapshotEvery is how many records a node commits between two
	// snapshots (0: never). Kafka counts bytes,
	// metadata.log.max.record.bytes.between.snapshots (20 MiB); loglab
	// counts records, few enough that a lesson sees a snapshot happen.
	SnapshotEvery int64
}

// DefaultConfig is Kafka's defaults for node id at addr.
func DefaultConfig(id int32, addr sim.NodeID, voters []int32, voterNode func(int32) sim.NodeID) Config {
	return Config{ClusterID: "loglab", ID: id, Node: addr, Voters: voters, VoterNode: voterNode,
		ElectionTimeout: time.Second, FetchTimeout: 2 * time.Second, ElectionBackoffMax: time.Second,
		RequestTimeout: 2 * time.Second, RetryBackoff: 20 * time.Millisecond, FetchMaxWait: 500 * time.Millisecond,
		MaxFetchEntries: 256, SnapshotEvery: 32}
}

// majority is how many voters make a quorum.
func (c Config) majority() int { return len(c.Voters)/2 + 1 }
