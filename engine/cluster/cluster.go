// Package cluster assembles the engine: a controller, brokers and clients
// on one simulated network, driven by one scheduler. Every change happens
// as an event popped from that scheduler, so the same seed and the same
// commands replay the same run, message for message.
package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/check"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/storage"
)

// Config is what the `cluster` command sets.
type Config struct {
	Brokers        int
	Controllers    int
	Seed           uint64
	Broker         broker.Config
	SessionTimeout time.Duration // broker.session.timeout.ms (9 s)
	// AutoLeaderRebalance and ImbalanceCheckInterval are
	// auto.leader.rebalance.enable (true) and
	// leader.imbalance.check.interval.seconds (300).
	AutoLeaderRebalance    bool
	ImbalanceCheckInterval time.Duration
	// Quorum holds the controller.quorum.* settings (Kafka's defaults:
	// election 1000 ms, fetch 2000 ms, election backoff max 1000 ms).
	Quorum QuorumTimeouts

	// MetadataDir, when set, keeps the controllers' quorum-state, metadata
	// log and snapshots in files under it on the cluster's storage
	// (controller-N/), so that a cluster opened again on it resumes its
	// metadata; empty keeps them in the simulation's memory.
	MetadataDir string
	// SnapshotThreshold is how many metadata records a controller commits
	// between two snapshots (32; Kafka counts bytes,
	// metadata.log.max.record.bytes.between.snapshots).
	SnapshotThreshold int
	// OpenQuorum, when set, supplies the quorum instead: controllers that
	// are separate processes (hashicorp/raft, in real time); nil simulates
	// the KRaft quorum with the rest of the cluster.
	OpenQuorum func(controllers int) (kraft.Quorum, error)
	// Pace, when set, is called every paceEvery simulation events, for a
	// driver with one thread and no preemption (WASM) that wants to yield
	// to its page during a long simulation.
	Pace func()
}

// paceEvery is how many events run between two calls of Config.Pace.
const paceEvery = 256

// QuorumTimeouts are KRaft's controller.quorum.* timeouts.
type QuorumTimeouts struct {
	ElectionTimeout    time.Duration // controller.quorum.election.timeout.ms
	FetchTimeout       time.Duration // controller.quorum.fetch.timeout.ms
	ElectionBackoffMax time.Duration // controller.quorum.election.backoff.max.ms
}

// DefaultConfig is a three-broker cluster with Kafka's defaults.
func DefaultConfig() Config {
	return Config{Brokers: 3, Controllers: 3, Seed: 1, Broker: broker.DefaultConfig(), SessionTimeout: 9 * time.Second,
		AutoLeaderRebalance: true, ImbalanceCheckInterval: 300 * time.Second,
		Quorum: QuorumTimeouts{ElectionTimeout: time.Second, FetchTimeout: 2 * time.Second, ElectionBackoffMax: time.Second}}
}

// Limits that keep a cluster drawable and a browser tab responsive.
const (
	MaxBrokers     = 9
	MaxControllers = 5
	MaxPartitions  = 64
	// MaxReplicasPerCluster caps the partition replicas a cluster holds,
	// counted over every topic and broker, __consumer_offsets and
	// __transaction_state included (50 partitions x rf 3 each by
	// default). Not Kafka's: on a server's data directory every replica
	// keeps its segment files open, 3 descriptors per segment (.log,
	// .index, .timeindex), so 1,000 replicas hold about 3,000 descriptors;
	// without a cap, 34 topics of 64 partitions x rf 3 ran a workshop
	// server out of its 20,000. Enforced by the controller as it creates
	// a topic (POLICY_VIOLATION), the same in the browser lab.
	MaxReplicasPerCluster = 1000
)

// Validate reports the first setting outside what loglab supports.
func (c Config) Validate() error {
	switch {
	case c.Brokers < 1 || c.Brokers > MaxBrokers:
		return fmt.Errorf("brokers must be between 1 and %d, got %d", MaxBrokers, c.Brokers)
	case c.Controllers < 1 || c.Controllers > MaxControllers:
		return fmt.Errorf("controllers must be between 1 and %d, got %d", MaxControllers, c.Controllers)
	case c.Broker.RetentionCheckInterval < time.Millisecond || c.Broker.CleanerBackoff < time.Millisecond:
		return fmt.Errorf("log.retention.check.interval.ms and log.cleaner.backoff.ms must be at least 1")
	case c.Broker.ReplicaLagTimeMax < 2*time.Millisecond || c.Broker.HeartbeatInterval < time.Millisecond:
		return fmt.Errorf("replica.lag.time.max.ms must be at least 2 and broker.heartbeat.interval.ms at least 1")
	case c.Quorum.ElectionTimeout < time.Millisecond || c.Quorum.FetchTimeout < 2*time.Millisecond || c.Quorum.ElectionBackoffMax < time.Millisecond:
		return fmt.Errorf("controller.quorum.election.timeout.ms, controller.quorum.election.backoff.max.ms must be at least 1 and controller.quorum.fetch.timeout.ms at least 2")
	case c.SessionTimeout <= c.Broker.HeartbeatInterval:
		return fmt.Errorf("broker.session.timeout.ms (%v) must exceed broker.heartbeat.interval.ms (%v)", c.SessionTimeout, c.Broker.HeartbeatInterval)
	}
	return nil
}

// Cluster is one simulated Kafka cluster.
type Cluster struct {
	config     Config
	clock      *sim.Clock
	sched      *sim.Scheduler
	net        *sim.Network
	rng        *rand.Rand
	fs         storage.FS              // shared real storage, or nil: one crashable memory disk per broker
	disks      []*storage.CrashableMem // per broker, when fs is nil
	diskFaults []*storage.Faulty       // over each of disks: a disk the lab can fill (faults_disk.go)
	// controllerDisks: each controller's view of fs, when their stores are
	// files (quorum_sim.go), so that one controller's disk can be filled.
	controllerDisks []*storage.Faulty
	voters          []*voter     // the simulated KRaft quorum (quorum_sim.go), or nil
	remote          kraft.Quorum // controllers that are separate processes, or nil
	meta            *metadataLog
	controllerUp    []bool            // index = id - 1
	activeID        int               // the active controller, 0 for none
	partition       [][]sim.NodeID    // the groups of the last net partition, as named (nil: none)
	controller      *kraft.Controller // the active controller, or the last one (stopped) while there is none
	started         bool              // New has returned
	brokerStarts    int64             // broker incarnations started, numbering them
	stepped         uint64            // events run, for Config.Pace
	brokers         []*broker.Broker  // index = id - 1
	producers       []*client.Producer
	consumers       []*client.Consumer
	events          []string
	pending         []*client.Delivery // sent, not yet completed
	acked           []AckedRecord
	ackIndex        ackedIndex    // acked by partition and offset, for the view (acked_index.go)
	failed          []AckedRecord // produces that failed: perhaps written all the same (Offset -1)
	ackFile         storage.File  // AckedFile on real storage, appended to; nil in memory
	checker         *check.Checker
	budget          budget                  // the current command's events (budget.go)
	ledger          ledger                  // what each consumer's application processed (processing.go)
	specs           map[string]consumerSpec // how each consumer was created, for a restart
	sideEffects     sideEffects             // the eos loop's external side effects (eos.go)

	// pendingFrom are the producers of pending deliveries, and
	// pendingSeen the sum of their Completions when collectAcks last looked
	// (pendingSent: Send added deliveries since): collectAcks walks every
	// pending delivery, so it runs only when one may have completed, not
	// after every event (a produce of N records made that N x events).
	pendingFrom []*client.Producer
	pendingSeen int
	pendingSent bool

	ctlMeters controllerMeters // the controller's meters (metrics.go)
	charts    chartRecorder    // the charts' samples (charts.go)
}

// New starts a cluster at virtual time zero and runs it until every broker
// has registered and been unfenced. fs == nil keeps each broker's logs on
// its own in-memory disk, whose page cache is written back on the virtual
// clock as Linux's is, and which loses what was not in a power cut.
func New(cfg Config, fs storage.FS) (*Cluster, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	clock := &sim.Clock{}
	sched := sim.NewScheduler(clock)
	c := &Cluster{config: cfg, clock: clock, sched: sched, net: sim.NewNetwork(sched), rng: sim.NewRand(cfg.Seed), fs: fs, specs: map[string]consumerSpec{}}
	c.checker = check.New(checkedCluster{c})
	if fs != nil {
		if err := c.openAckedFile(); err != nil {
			return nil, err
		}
	}
	for range cfg.Controllers {
		c.controllerUp = append(c.controllerUp, true)
	}
	if cfg.OpenQuorum != nil {
		q, err := cfg.OpenQuorum(cfg.Controllers)
		if err != nil {
			c.closeAckedFile()
			return nil, err
		}
		c.remote, c.meta = q, newMetadataLog(q)
		c.activateRemote()
		if c.activeID == 0 {
			q.Close()
			c.closeAckedFile()
			return nil, fmt.Errorf("%w: no controller was elected", ErrNotController)
		}
	} else {
		c.meta = newMetadataLog(nil)
		c.controller = kraft.StandbyController(kraft.NewImage())
		if err := c.startVoters(); err != nil {
			c.closeVoters()
			c.closeAckedFile()
			return nil, err
		}
	}
	c.meta.onCommit = c.watchMetadata()
	for i := range cfg.Brokers {
		if fs == nil {
			c.disks = append(c.disks, storage.NewCrashableMemWithWriteback(clock.Elapsed))
			c.diskFaults = append(c.diskFaults, storage.NewFaulty(c.disks[i]))
		} else {
			// Each broker writes its own broker-N folder of the data
			// directory through a disk of its own that the lab can fill,
			// as the controllers' metadata folders do.
			c.diskFaults = append(c.diskFaults, storage.NewFaulty(fs))
		}
		b, err := c.newBroker(i + 1)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.brokers = append(c.brokers, b)
	}
	ok, err := c.RunUntil(func() bool { return c.allUnfenced() }, time.Minute)
	if err == nil && !ok {
		err = fmt.Errorf("the brokers did not register with the controller")
		if c.activeID == 0 {
			err = fmt.Errorf("%w: no controller was elected", ErrNotController)
		}
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	// The start-up's chatter (registrations, elections) is not news, but
	// damage found opening the logs is: with it, the whole start-up is
	// told, so that a restart on a damaged data directory is never silent.
	if !slices.ContainsFunc(c.events, broker.IsStorageEvent) {
		c.events = nil
	}
	c.started = true
	return c, nil
}

// newBroker starts broker id; with the simulated quorum it observes the
// metadata log as Kafka 4.x brokers do.
func (c *Cluster) newBroker(id int) (*broker.Broker, error) {
	c.brokerStarts++
	b := broker.New(int32(id), c.brokerStarts, c.config.Broker, c.net, c.sched, c.diskOf(int32(id)), c.event)
	if c.remote == nil {
		if err := b.ObserveMetadata(c.quorumConfig(int32(id), b.Node), c.quorumRand(b.Node)); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (c *Cluster) diskOf(id int32) storage.FS {
	return c.diskFaults[id-1]
}

func (c *Cluster) allUnfenced() bool {
	if c.activeID == 0 || c.meta.End() < c.activeLogEnd() {
		return false // not until what the controller wrote is committed
	}
	for _, b := range c.brokers {
		if !b.Alive() {
			continue
		}
		bi := c.controller.Image().Broker(b.ID)
		if bi == nil || bi.Fenced || !b.Registered() || bi.Epoch != b.Epoch() {
			return false
		}
	}
	return true
}

// event records something a learner should hear about, stamped with the
// virtual time.
func (c *Cluster) event(text string) {
	c.events = append(c.events, fmt.Sprintf("[%v] %s", c.clock.Elapsed(), text))
}

// DrainEvents returns and forgets the events since the last call.
func (c *Cluster) DrainEvents() []string {
	out := c.events
	c.events = nil
	return out
}

// Config is the configuration the cluster was created with.
func (c *Cluster) Config() Config { return c.config }

// Elapsed is the virtual time since the cluster started.
func (c *Cluster) Elapsed() time.Duration { return c.clock.Elapsed() }

// CheckAdvance reports why virtual time cannot move forward by d (it is
// negative, or would pass sim.MaxElapsed), or nil if it can.
func (c *Cluster) CheckAdvance(d time.Duration) error { return c.clock.CheckAdvance(d) }

// Room is how much further virtual time can move before sim.MaxElapsed.
func (c *Cluster) Room() time.Duration { return c.clock.Room() }

// NowMs is the current virtual time as Kafka timestamps it.
func (c *Cluster) NowMs() int64 { return c.clock.NowMs() }

// Network is the simulated network, for faults and the UI.
func (c *Cluster) Network() *sim.Network { return c.net }

// Controller is the active controller, or the last one while none is
// active (its image is then the last committed metadata).
func (c *Cluster) Controller() *kraft.Controller { return c.controller }

// Brokers lists the brokers by id.
func (c *Cluster) Brokers() []*broker.Broker { return c.brokers }

// Broker returns broker id, or nil.
func (c *Cluster) Broker(id int) *broker.Broker {
	if id < 1 || id > len(c.brokers) {
		return nil
	}
	return c.brokers[id-1]
}
