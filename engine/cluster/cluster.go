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
)

// Config is what the `cluster` command sets.
type Config struct {
	Brokers     int
	Controllers int
	Seed        uint64
}

// Validate reports the first setting outside what loglab supports.
func (c Config) Validate() error {
	if c.Brokers < 1 || c.Brokers > MaxBrokers {
		return fmt.Errorf("brokers must be between 1 and %d, got %d", MaxBrokers, c.Brokers)
	}
	if c.Controllers < 1 || c.Controllers > MaxControllers {
		return fmt.Errorf("controllers must be between 1 and %d, got %d", MaxControllers, c.Controllers)
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
	Partitions        []*log.Log
}

// New starts a cluster at virtual time zero.
func New(cfg Config) (*Cluster, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Cluster{
		config:      cfg,
		rng:         sim.NewRand(cfg.Seed),
		topicByName: map[string]*Topic{},
		sticky:      client.NewStickyPartitioner(),
	}, nil
}

// Config is the configuration the cluster was created with.
func (c *Cluster) Config() Config { return c.config }

// Elapsed is the virtual time since the cluster started.
func (c *Cluster) Elapsed() time.Duration { return c.clock.Elapsed() }

// Tick advances virtual time.
func (c *Cluster) Tick(d time.Duration) error { return c.clock.Advance(d) }

// Topics lists topics in creation order.
func (c *Cluster) Topics() []*Topic { return c.topics }

// Topic finds a topic by name.
func (c *Cluster) Topic(name string) (*Topic, bool) {
	t, ok := c.topicByName[name]
	return t, ok
}
