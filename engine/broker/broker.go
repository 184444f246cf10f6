// Package broker is a Kafka broker on the simulated network: it hosts
// partition replicas (each an engine/log), serves Produce and Fetch as
// leader, fetches from leaders as follower, keeps the ISR and high
// watermark, heartbeats to the controller and learns leadership only by
// replaying committed metadata records. One file per concern, kfake style:
// produce.go, fetch.go, follower.go, out_of_range.go, isr.go, metadata.go,
// housekeeping.go. The decisions about replicas (lag, ISR, high watermark,
// truncation) are engine/replica's pure functions.
package broker

import (
	"fmt"
	"slices"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/storage"
)

// Config is the broker settings loglab models, Kafka's names and defaults.
type Config struct {
	ReplicaLagTimeMax      time.Duration // replica.lag.time.max.ms (30 s)
	ReplicaFetchWaitMax    time.Duration // replica.fetch.wait.max.ms (500 ms)
	ReplicaFetchBackoff    time.Duration // replica.fetch.backoff.ms (1 s)
	ReplicaFetchMaxBytes   int64         // replica.fetch.max.bytes (1 MiB)
	HeartbeatInterval      time.Duration // broker.heartbeat.interval.ms (2 s)
	RetentionCheckInterval time.Duration // log.retention.check.interval.ms (5 min)
	CleanerBackoff         time.Duration // log.cleaner.backoff.ms (15 s)
	// producer.id.expiration.ms (1 day): how long a partition leader
	// remembers an idle idempotent producer, checked every
	// producer.id.expiration.check.interval.ms (10 min).
	ProducerIDExpiration              time.Duration
	ProducerIDExpirationCheckInterval time.Duration
	Groups                            GroupConfig // the group coordinator's settings (groups_config.go)
	Txn                               TxnConfig   // the transaction coordinator's settings (txn_config.go)
}

// DefaultConfig is Kafka's broker defaults.
func DefaultConfig() Config {
	return Config{
		ReplicaLagTimeMax: 30 * time.Second, ReplicaFetchWaitMax: 500 * time.Millisecond,
		ReplicaFetchBackoff: time.Second, ReplicaFetchMaxBytes: 1 << 20, HeartbeatInterval: 2 * time.Second,
		RetentionCheckInterval: 5 * time.Minute, CleanerBackoff: 15 * time.Second, Groups: DefaultGroupConfig(),
		ProducerIDExpiration:              24 * time.Hour,
		ProducerIDExpirationCheckInterval: 10 * time.Minute,
		Txn:                               DefaultTxnConfig(),
	}
}

// Broker is one broker process. After Stop it is dead: a restart builds a
// new Broker over the same storage, as a real restart does.
type Broker struct {
	ID     int32
	Node   sim.NodeID
	cfg    Config
	net    *sim.Network
	sched  *sim.Scheduler
	fs     storage.FS
	events func(string)

	alive      bool
	registered bool
	refused    bool // a registration was refused (reported once)
	// registrations counts registration attempts: only the newest one's
	// timeout sends again.
	registrations int64
	// incarnation tells this run of the broker from earlier ones, whose
	// registration answers may still be on their way.
	incarnation int64
	// serving: the controller has unfenced this incarnation once. Until
	// then Kafka's BrokerServer has not enabled request processing (it
	// waits for the initial metadata catch-up and unfencing), so clients
	// and other brokers cannot connect.
	serving  bool
	epoch    int64 // broker epoch from registration: its RegisterBroker record's offset
	image    *kraft.Image
	replicas []*Replica // ordered by topic, partition
	// offline: hosted partitions whose log could not be opened; damaged:
	// those whose recovery cut data. Both are told in every heartbeat.
	offline     []protocol.TopicPartition
	damaged     []protocol.TopicPartition
	pendingMeta []protocol.MetadataRecord
	// observer fetches the metadata log (metadata_observer.go); nil when
	// the controllers push it (controllers in other processes).
	observer *raft.Node
	// published: this incarnation acts on metadata (metadata.go,
	// publishIfCaughtUp); before, it only replays it.
	published bool
	hb        heartbeatLoop // the heartbeats to the controller (heartbeat.go)

	produces []*delayedProduce
	fetches  []*delayedFetch
	markers  []*delayedMarkers // WriteTxnMarkers waiting for the HW (txn_markers.go)
	// lastProducerExpiration is when the producer-id expiration check last
	// ran (housekeeping.go).
	lastProducerExpiration time.Duration
	nextCorr               int64
	groups                 *groupCoordinator // the group coordinator's shards (groups.go)
	txn                    *txnCoordinator   // the transaction coordinator (txn_coordinator.go)
	pids                   producerIDManager // blocks of producer ids (producer_ids.go)
	meters                 Meters            // the metrics panel's meters (metrics.go)
}

// New starts incarnation of broker id: it opens nothing until metadata tells
// it which partitions it hosts, registers with the controller and begins
// heartbeating. Each start of the same id needs a new incarnation number.
func New(id int32, incarnation int64, cfg Config, net *sim.Network, sched *sim.Scheduler, fs storage.FS, events func(string)) *Broker {
	b := &Broker{ID: id, Node: kraft.BrokerNode(id), cfg: cfg, net: net, sched: sched, fs: fs, events: events,
		alive: true, incarnation: incarnation, image: kraft.NewImage(), pids: newProducerIDManager(), lastProducerExpiration: sched.Clock.Elapsed()}
	net.Attach(b.Node, b.handle)
	b.register()
	b.every(cfg.ReplicaLagTimeMax/2, "isr-expiration", b.shrinkISRs)
	b.every(cfg.RetentionCheckInterval, "log-retention", b.runRetention)
	b.every(cfg.CleanerBackoff, "log-cleaner", b.runCleaner)
	return b
}

// register asks the controller to register this incarnation. An answer
// that never comes (a partition, a lost message) is asked again after
// broker.heartbeat.interval.ms, as Kafka's BrokerLifecycleManager resends
// a registration that timed out; a later attempt supersedes this one's
// timer.
func (b *Broker) register() {
	b.registrations++
	attempt := b.registrations
	b.send(kraft.ControllerNode, protocol.BrokerRegistrationRequest{BrokerID: b.ID, Attempt: attempt, Incarnation: b.incarnation})
	b.after(b.cfg.HeartbeatInterval, "registration timeout", func() {
		if !b.registered && b.registrations == attempt {
			b.register()
		}
	})
}

// registerAfter registers again after d (an error answer, a refused
// connection); it supersedes the pending attempt's timeout.
func (b *Broker) registerAfter(d time.Duration) {
	b.registrations++
	attempt := b.registrations
	b.after(d, "register", func() {
		if !b.registered && b.registrations == attempt {
			b.register()
		}
	})
}

// every runs fn periodically while the broker lives.
func (b *Broker) every(d time.Duration, name string, fn func()) {
	b.sched.After(d, fmt.Sprintf("%s %s", name, b.Node), func() {
		if !b.alive {
			return
		}
		fn()
		b.every(d, name, fn)
	})
}

// after runs fn once, later, if the broker still lives.
func (b *Broker) after(d time.Duration, name string, fn func()) *sim.Event {
	// Concatenated, not formatted: a broker's timers are most of the
	// events a command runs.
	return b.sched.After(d, name+" "+string(b.Node), func() {
		if b.alive {
			fn()
		}
	})
}

// Stop kills the broker: it stops handling messages and timers at once.
// Its logs stay on its storage for a restart.
func (b *Broker) Stop() {
	b.alive = false
	b.net.SetDown(b.Node, true)
	if b.observer != nil {
		b.observer.Crash()
	}
	for _, r := range b.replicas {
		r.Log.Close()
	}
}

// Registered reports whether the controller took this incarnation's
// registration; Epoch is the broker epoch it got.
func (b *Broker) Registered() bool { return b.registered }
func (b *Broker) Epoch() int64     { return b.epoch }

// Alive reports whether the broker runs.
func (b *Broker) Alive() bool { return b.alive }

// Image is the broker's view of the metadata.
func (b *Broker) Image() *kraft.Image { return b.image }

// Replicas lists the hosted partitions in order.
func (b *Broker) Replicas() []*Replica { return b.replicas }

// Offline lists the hosted partitions whose log could not be opened.
func (b *Broker) Offline() []protocol.TopicPartition { return b.offline }

// Replica finds a hosted partition.
func (b *Broker) Replica(tp protocol.TopicPartition) *Replica {
	for _, r := range b.replicas {
		if r.TP == tp {
			return r
		}
	}
	return nil
}

func (b *Broker) send(to sim.NodeID, m sim.Message) { b.net.Send(b.Node, to, m) }

func (b *Broker) handle(env *sim.Envelope) {
	if !b.alive {
		return
	}
	if b.observer != nil && b.observer.Handle(env) {
		return
	}
	b.dispatch(env) // requests.go
}

// handleRegistrationResponse takes the controller's answer to this
// broker's registration.
func (b *Broker) handleRegistrationResponse(m protocol.BrokerRegistrationResponse) {
	if m.Incarnation != b.incarnation {
		return // an answer to an earlier run of this broker, which died waiting
	}
	if b.registered || m.Attempt != b.registrations {
		return // an answer to an attempt given up: a newer one is under way
	}
	if m.Error != protocol.None {
		// Our previous incarnation's session has not expired yet: try
		// again, as Kafka's broker lifecycle manager does.
		if !b.refused {
			b.events(fmt.Sprintf("%s: registration refused with %s: the old session has not expired; retrying", b.Node, m.Error.Name()))
		}
		b.refused = true
		b.registerAfter(b.cfg.HeartbeatInterval)
		return
	}
	b.epoch, b.registered = m.BrokerEpoch, true
	b.publishIfCaughtUp()
	b.sendHeartbeat()
}

// handleHeartbeatResponse takes the controller's answer to a heartbeat:
// the metadata since the last one, and whether the broker is fenced.
func (b *Broker) handleHeartbeatResponse(m protocol.BrokerHeartbeatResponse) {
	if !b.heartbeatAnswered(m.Seq) {
		return // an answer to a heartbeat given up on
	}
	if m.Error == protocol.StaleBrokerEpoch {
		b.scheduleHeartbeat(b.cfg.HeartbeatInterval)
		return
	}
	if m.Snapshot != nil && m.SnapshotOffset > b.image.Offset {
		b.applySnapshot(m.Snapshot, m.SnapshotOffset)
	}
	b.applyMetadata(m.Records)
	switch {
	case !m.Fenced:
		b.serving = true
		b.scheduleHeartbeat(b.cfg.HeartbeatInterval)
	case !b.serving:
		// STARTING: not caught up to its registration yet. Ask again
		// 10 ms later, as Kafka's BrokerLifecycleManager does, for as
		// long as it takes.
		b.scheduleHeartbeat(StartingHeartbeatInterval)
	default:
		b.scheduleHeartbeat(b.cfg.HeartbeatInterval)
	}
}

// handleDisconnected is the network's word that a peer's connection
// closed.
func (b *Broker) handleDisconnected(m sim.Disconnected) {
	// No active controller took our registration (the quorum has no
	// majority): ask again, as Kafka's BrokerLifecycleManager does.
	if m.Peer == kraft.ControllerNode && !b.registered {
		b.registerAfter(b.cfg.HeartbeatInterval)
	}
	b.onTxnPeerDisconnected(m.Peer)
	// A leader we fetch from died: stop waiting for its answer.
	for _, r := range b.replicas {
		if !r.leader && r.fetchInFlight && kraft.BrokerNode(r.Leader) == m.Peer {
			r.fetchInFlight = false
			r.fetchGen++
			b.after(b.cfg.ReplicaFetchBackoff, "fetch-backoff", func() { b.fetchFromLeader(r) })
		}
	}
}

// handleMetadata answers a client with this broker's (possibly stale) view.
func (b *Broker) handleMetadata(from sim.NodeID, m protocol.MetadataRequest) {
	resp := protocol.MetadataResponse{CorrelationID: m.CorrelationID}
	for _, bi := range b.image.Brokers {
		if !bi.Fenced {
			resp.Brokers = append(resp.Brokers, bi.ID)
		}
	}
	for _, t := range b.image.Topics {
		for i, p := range t.Partitions {
			if p == nil {
				continue
			}
			resp.Partitions = append(resp.Partitions, protocol.PartitionMetadata{
				TP: protocol.TopicPartition{Topic: t.Name, Partition: int32(i)}, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch,
				Replicas: slices.Clone(p.Replicas), ISR: slices.Clone(p.ISR)})
		}
	}
	b.send(from, resp)
}

// handleListOffsets answers earliest (-2) and latest (-1) offset queries;
// latest is the high watermark, the last offset a consumer may read (the
// last stable offset for a read_committed one), or, for a follower
// (ReplicaID set), the log end offset.
func (b *Broker) handleListOffsets(from sim.NodeID, m protocol.ListOffsetsRequest) {
	resp := protocol.ListOffsetsResponse{CorrelationID: m.CorrelationID, TP: m.TP}
	r := b.Replica(m.TP)
	switch {
	case r == nil || !r.IsLeader():
		resp.Error = protocol.NotLeaderOrFollower
	case m.Timestamp == -2:
		resp.Offset = r.Log.StartOffset()
	case m.Timestamp == -1 && m.ReplicaID > 0:
		resp.Offset = r.Log.EndOffset()
	case m.Timestamp == -1:
		resp.Offset = lastFetchableOffset(r, m.IsolationLevel)
	default:
		off, err := r.Log.OffsetForTimestamp(m.Timestamp)
		if err != nil {
			resp.Error = protocol.CorruptMessage
		}
		resp.Offset = min(off, lastFetchableOffset(r, m.IsolationLevel))
	}
	b.send(from, resp)
}

// PartitionDir is where a broker keeps a partition: broker-<id>/<topic>-<p>.
func PartitionDir(broker int32, tp protocol.TopicPartition) string {
	return fmt.Sprintf("broker-%d/%s", broker, log.PartitionDir(tp.Topic, int(tp.Partition)))
}

// lastFetchableOffset is Partition.fetchOffsetForTimestamp's bound: the
// LSO for read_committed, the high watermark otherwise.
func lastFetchableOffset(r *Replica, isolation int8) int64 {
	if isolation == protocol.ReadCommitted {
		return r.LastStableOffset()
	}
	return r.HW
}
