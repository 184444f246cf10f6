// Package cluster assembles the engine: topics, partitions and their logs,
// the virtual clock and the seeded RNG. Every change to cluster state goes
// through a method here, and every method either changes state completely or
// returns an error having changed nothing.
package cluster

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/storage"
)

// Config is what the `cluster` command sets.
type Config struct {
	Brokers     int
	Controllers int
	Seed        uint64
	// RetentionCheckInterval is log.retention.check.interval.ms (5 minutes).
	RetentionCheckInterval time.Duration
	// CleanerBackoff is log.cleaner.backoff.ms (15 s): how often the cleaner
	// looks for a partition dirty enough to compact.
	CleanerBackoff time.Duration
}

// DefaultConfig is a three-broker cluster with Kafka's broker defaults.
func DefaultConfig() Config {
	return Config{Brokers: 3, Controllers: 3, Seed: 1, RetentionCheckInterval: 5 * time.Minute, CleanerBackoff: 15 * time.Second}
}

// Validate reports the first setting outside what loglab supports.
func (c Config) Validate() error {
	if c.Brokers < 1 || c.Brokers > MaxBrokers {
		return fmt.Errorf("brokers must be between 1 and %d, got %d", MaxBrokers, c.Brokers)
	}
	if c.Controllers < 1 || c.Controllers > MaxControllers {
		return fmt.Errorf("controllers must be between 1 and %d, got %d", MaxControllers, c.Controllers)
	}
	if c.RetentionCheckInterval < time.Millisecond || c.CleanerBackoff < time.Millisecond {
		return fmt.Errorf("log.retention.check.interval.ms and log.cleaner.backoff.ms must be at least 1")
	}
	return nil
}

// Limits that keep a cluster drawable and a browser tab responsive.
const (
	MaxBrokers     = 9
	MaxControllers = 5
	MaxPartitions  = 64
)

// Cluster is one simulated Kafka cluster.
type Cluster struct {
	config      Config
	fs          storage.FS // where partition directories live
	clock       sim.Clock
	rng         *rand.Rand
	topics      []*Topic // creation order; output follows it, never map order
	topicByName map[string]*Topic
	sticky      *client.StickyPartitioner
}

// Topic is a named set of partitions.
type Topic struct {
	Name              string
	ReplicationFactor int
	Config            log.Config
	Partitions        []*log.Log
	// housekeeping holds, per partition, the last few things retention
	// and the cleaner did there, for the UI.
	housekeeping [][]string
}

// maxHousekeepingNotes is how many recent notes a partition keeps.
const maxHousekeepingNotes = 3

func (t *Topic) note(partition int, text string) {
	notes := append(t.housekeeping[partition], text)
	if len(notes) > maxHousekeepingNotes {
		notes = notes[len(notes)-maxHousekeepingNotes:]
	}
	t.housekeeping[partition] = notes
}

// New starts a cluster at virtual time zero, keeping partition logs in fs:
// memory in the browser and tests, real files natively.
func New(cfg Config, fs storage.FS) (*Cluster, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Cluster{
		config:      cfg,
		fs:          fs,
		rng:         sim.NewRand(cfg.Seed),
		topicByName: map[string]*Topic{},
		sticky:      client.NewStickyPartitioner(),
	}, nil
}

// Config is the configuration the cluster was created with.
func (c *Cluster) Config() Config { return c.config }

// Elapsed is the virtual time since the cluster started.
func (c *Cluster) Elapsed() time.Duration { return c.clock.Elapsed() }

// NowMs is the current virtual time as Kafka timestamps it.
func (c *Cluster) NowMs() int64 { return c.clock.NowMs() }

// Topics lists topics in creation order.
func (c *Cluster) Topics() []*Topic { return c.topics }

// Topic finds a topic by name.
func (c *Cluster) Topic(name string) (*Topic, bool) {
	t, ok := c.topicByName[name]
	return t, ok
}
