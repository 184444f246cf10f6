package kraft

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// ControllerNode is the active controller's address on the network.
const ControllerNode sim.NodeID = "ctl"

// ControllerConfig holds the broker-liveness settings, Kafka's names.
type ControllerConfig struct {
	SessionTimeout time.Duration // broker.session.timeout.ms (9 s)
	// AutoLeaderRebalance is auto.leader.rebalance.enable (true): every
	// ImbalanceCheckInterval (leader.imbalance.check.interval.seconds, 300 s)
	// leadership goes back to each partition's preferred replica, the first
	// in its replica list, when that one is in sync and live.
	AutoLeaderRebalance    bool
	ImbalanceCheckInterval time.Duration
	// MaxReplicas caps the partition replicas the cluster holds, every
	// topic's, internal ones included (0: no cap). Not Kafka's: on files
	// each replica keeps descriptors open, and a cap refuses a topic
	// before the process runs out of them (cluster.MaxReplicasPerCluster).
	MaxReplicas int
}

// Controller is the active controller's logic: it tracks broker liveness
// from heartbeats, fences brokers whose session expired and moves their
// leaderships to other in-sync replicas, applies ISR changes leaders ask for
// (AlterPartition), and creates topics. It never changes state directly:
// every decision is a record appended to the metadata log and then replayed
// into its image, exactly as brokers replay it.
type Controller struct {
	cfg    ControllerConfig
	net    *sim.Network
	sched  *sim.Scheduler
	rng    *rand.Rand
	log    MetadataLog
	image  *Image
	events func(string)

	lastHeartbeat map[int32]time.Duration
	stopped       bool // a standby now, or crashed: it decides nothing more
	// deferred are answers waiting for their records to commit (Kafka's
	// controller completes a write's future at its offset's commit).
	deferred []deferredReply

	// From heartbeats (damage.go): replicas that could not be opened, log
	// end offsets of leaderless partitions, and partitions whose last
	// in-sync replica lost data in recovery (-> that replica).
	offline    map[protocol.TopicPartition][]int32
	logEnds    map[protocol.TopicPartition]map[int32]int64
	recovering map[protocol.TopicPartition]int32
}

// NewController makes this controller the active one: it starts the
// controller logic on the network from image, the metadata it has replayed
// (nil: replay the whole log). As Kafka's ClusterControlManager.activate
// does, every registered broker gets a fresh session: a newly active
// controller cannot know when a broker last heartbeated to its predecessor.
func NewController(cfg ControllerConfig, net *sim.Network, sched *sim.Scheduler, rng *rand.Rand, log MetadataLog, image *Image, events func(string)) *Controller {
	c := &Controller{cfg: cfg, net: net, sched: sched, rng: rng, log: log, image: image, events: events,
		lastHeartbeat: map[int32]time.Duration{}, offline: map[protocol.TopicPartition][]int32{},
		logEnds: map[protocol.TopicPartition]map[int32]int64{}, recovering: map[protocol.TopicPartition]int32{}}
	if image == nil {
		c.image = NewImage()
		for _, r := range log.Read(0) {
			c.image.Apply(r)
		}
	}
	for _, b := range c.image.Brokers {
		c.lastHeartbeat[b.ID] = sched.Clock.Elapsed()
	}
	net.Attach(ControllerNode, c.handle)
	c.scheduleSessionCheck()
	if cfg.AutoLeaderRebalance && cfg.ImbalanceCheckInterval > 0 {
		c.scheduleRebalance()
	}
	return c
}

// scheduleRebalance moves leadership back to preferred replicas.
//
// Difference from Kafka: Kafka rebalances a broker only when its share of
// non-preferred leaderships passes leader.imbalance.per.broker.percentage
// (10%); loglab restores every partition whose preferred replica is ready.
func (c *Controller) scheduleRebalance() {
	c.sched.After(c.cfg.ImbalanceCheckInterval, "controller leader-imbalance check", func() {
		if c.stopped {
			return
		}
		var changes []protocol.MetadataRecord
		for _, t := range c.image.Topics {
			for i, p := range t.Partitions {
				if p == nil || len(p.Replicas) == 0 {
					continue
				}
				preferred := p.Replicas[0]
				tp := protocol.TopicPartition{Topic: t.Name, Partition: int32(i)}
				if p.Leader != preferred && slices.Contains(p.ISR, preferred) && c.live(preferred) && !c.offlineAt(tp, preferred) {
					changes = append(changes, c.change(t.Name, int32(i), p, preferred, p.ISR, false))
				}
			}
		}
		if len(changes) > 0 {
			c.events(fmt.Sprintf("controller: moving %d leadership(s) back to their preferred replicas (auto.leader.rebalance.enable)", len(changes)))
			c.commit(changes...)
		}
		c.scheduleRebalance()
	})
}

// Stop ends this controller's term as the active controller (it crashed,
// or the quorum lost its majority): its timers and handler do nothing more.
// The next active controller is a new Controller.
func (c *Controller) Stop() { c.stopped = true }

// Stopped reports whether Stop was called.
func (c *Controller) Stopped() bool { return c.stopped }

// Image is the controller's metadata image (do not modify).
func (c *Controller) Image() *Image { return c.image }

// Log is the metadata log.
func (c *Controller) Log() MetadataLog { return c.log }

func (c *Controller) handle(env *sim.Envelope) {
	if c.stopped {
		return
	}
	switch m := env.Msg.(type) {
	case protocol.BrokerRegistrationRequest:
		c.register(env.From, m)
	case protocol.BrokerHeartbeatRequest:
		c.heartbeat(env.From, m)
	case protocol.AlterPartitionRequest:
		c.alterPartition(env.From, m)
	case protocol.CreateTopicsRequest:
		c.createTopics(env.From, m)
	case protocol.AllocateProducerIdsRequest:
		c.allocateProducerIDs(env.From, m)
	}
}

// deferredReply runs once every offset below end is committed.
type deferredReply struct {
	end  int64
	send func()
}

// committedLog is a MetadataLog whose appends commit later (the KRaft
// quorum's): Committed is its high watermark.
type committedLog interface {
	Committed() int64
}

// afterCommit runs send once the records are committed: at once on a log
// that commits as it appends, else when Committed passes the last one.
// A controller that stops first never runs it: the requester times out
// and asks the next controller, as Kafka's answer NOT_CONTROLLER makes it.
func (c *Controller) afterCommit(records []protocol.MetadataRecord, send func()) {
	cl, async := c.log.(committedLog)
	if !async || len(records) == 0 || cl.Committed() > records[len(records)-1].Offset {
		send()
		return
	}
	c.deferred = append(c.deferred, deferredReply{end: records[len(records)-1].Offset + 1, send: send})
}

// afterRead runs send, an answer read from the controller's image with
// no record of its own, once everything written so far is committed: the
// image holds records not committed yet, and an answer drawn from them
// must not go out if they never commit (QuorumController defers such a
// read-only write event to its last written offset too).
func (c *Controller) afterRead(send func()) {
	cl, async := c.log.(committedLog)
	if !async || cl.Committed() >= c.log.End() {
		send()
		return
	}
	c.deferred = append(c.deferred, deferredReply{end: c.log.End(), send: send})
}

// Committed tells the controller its log committed every offset below
// hw: the answers waiting for them go out.
func (c *Controller) Committed(hw int64) {
	for len(c.deferred) > 0 && !c.stopped && c.deferred[0].end <= hw {
		d := c.deferred[0]
		c.deferred = c.deferred[1:]
		d.send()
	}
}

// commit appends records, applies them and pushes them to the brokers.
func (c *Controller) commit(records ...protocol.MetadataRecord) []protocol.MetadataRecord {
	committed, err := c.tryCommit(records...)
	if err != nil {
		c.events("controller: metadata append failed: " + err.Error())
	}
	return committed
}

// tryCommit is commit for a request that must fail when the quorum
// refuses the write (a raft quorum whose leader moved): nothing is
// applied, and the caller answers with the error.
func (c *Controller) tryCommit(records ...protocol.MetadataRecord) ([]protocol.MetadataRecord, error) {
	if len(records) == 0 {
		return nil, nil
	}
	appended, err := c.log.Append(records)
	if err != nil {
		return nil, err
	}
	// Applied at once, as Kafka's active controller replays what it
	// writes: its next decision must see this one, committed or not.
	for _, r := range appended {
		c.image.Apply(r)
	}
	if _, async := c.log.(committedLog); !async {
		// Controllers in other processes: the brokers are not observers of
		// their log, so the committed records are pushed to them.
		for _, b := range c.image.Brokers {
			c.net.Send(ControllerNode, BrokerNode(b.ID), protocol.MetadataUpdate{Records: appended})
		}
	}
	return appended, nil
}

// BrokerNode is a broker's address.
func BrokerNode(id int32) sim.NodeID { return sim.NodeID("b" + strconv.FormatInt(int64(id), 10)) }

func (c *Controller) register(from sim.NodeID, m protocol.BrokerRegistrationRequest) {
	// A broker id whose session is still alive cannot register again: the
	// old incarnation may still be serving (Kafka answers
	// DUPLICATE_BROKER_REGISTRATION until the session expires and the
	// broker is fenced).
	if b := c.image.Broker(m.BrokerID); b != nil && !b.Fenced && c.sched.Clock.Elapsed()-c.lastHeartbeat[m.BrokerID] <= c.cfg.SessionTimeout {
		reply := protocol.BrokerRegistrationResponse{Error: protocol.DuplicateBrokerRegistration, Attempt: m.Attempt, Incarnation: m.Incarnation}
		c.afterRead(func() { c.net.Send(ControllerNode, from, reply) })
		return
	}
	// The old incarnation's session expired but the session check has not
	// fenced it yet: fence it now, moving its leaderships away, before the
	// new incarnation registers (Kafka generates these records "to clean up
	// previous incarnations"). Otherwise the new process would inherit the
	// old one's leaderships in the same epoch, with whatever its disk kept.
	if b := c.image.Broker(m.BrokerID); b != nil && !b.Fenced {
		c.events(fmt.Sprintf("controller: broker %d registers again after its session expired: fencing the previous incarnation first", m.BrokerID))
		c.fence(m.BrokerID)
	}
	c.forgetIncarnation(m.BrokerID)
	// As in KRaft, the broker epoch is the offset of its registration record.
	epoch := c.log.End()
	c.lastHeartbeat[m.BrokerID] = c.sched.Clock.Elapsed()
	recs := c.commit(protocol.MetadataRecord{Type: "RegisterBroker", BrokerID: m.BrokerID, BrokerEpoch: epoch})
	if recs == nil {
		return
	}
	c.afterCommit(recs, func() {
		c.net.Send(ControllerNode, from, protocol.BrokerRegistrationResponse{BrokerEpoch: epoch, Attempt: m.Attempt, Incarnation: m.Incarnation})
	})
}

func (c *Controller) heartbeat(from sim.NodeID, m protocol.BrokerHeartbeatRequest) {
	b := c.image.Broker(m.BrokerID)
	if b == nil || b.Epoch != m.BrokerEpoch {
		c.net.Send(ControllerNode, from, protocol.BrokerHeartbeatResponse{Error: protocol.StaleBrokerEpoch, Fenced: true, Seq: m.Seq})
		return
	}
	c.lastHeartbeat[m.BrokerID] = c.sched.Clock.Elapsed()
	// Damaged storage first: a replica that lost data must be out of the
	// ISR before its broker is unfenced and leaderless partitions elected.
	c.storageReports(m)
	// A broker is unfenced once its metadata reached its own registration
	// record (BrokerHeartbeatManager: currentMetadataOffset >= the
	// registration's offset, which is its broker epoch): it knows the
	// leaders of that moment before it serves.
	if b.Fenced && m.MetadataOffset >= b.Epoch {
		recs := []protocol.MetadataRecord{{Type: "UnfenceBroker", BrokerID: b.ID, BrokerEpoch: b.Epoch}}
		c.commit(recs...)
		c.commit(c.electLeaderless()...)
	} else if len(m.LeaderlessLogEnds) > 0 {
		c.commit(c.electLeaderless()...)
	}
	if _, async := c.log.(committedLog); async {
		// The broker fetches the metadata log itself, as an observer.
		c.net.Send(ControllerNode, from, protocol.BrokerHeartbeatResponse{Fenced: b.Fenced, Seq: m.Seq})
		return
	}
	resp := c.catchUp(b, m.MetadataOffset)
	resp.Seq = m.Seq
	c.net.Send(ControllerNode, from, resp)
}

// catchUp answers a heartbeat with the records the broker has not applied.
// When some of them were folded into a snapshot, the broker gets the
// snapshot first (Kafka's brokers fetch a snapshot then, as followers of
// the metadata log do).
func (c *Controller) catchUp(b *BrokerInfo, applied int64) protocol.BrokerHeartbeatResponse {
	resp := protocol.BrokerHeartbeatResponse{Fenced: b.Fenced}
	compacting, ok := c.log.(interface {
		ReadLog(from int64) ([]protocol.MetadataRecord, int64, error)
	})
	if !ok {
		resp.Records = c.log.Read(applied + 1)
		return resp
	}
	recs, start, _ := compacting.ReadLog(applied + 1)
	if applied+1 < start {
		resp.Snapshot, resp.SnapshotOffset = c.image.Records(), c.image.Offset
		recs = nil
	}
	resp.Records = recs
	return resp
}

// scheduleSessionCheck fences brokers whose heartbeats stopped for
// broker.session.timeout.ms.
func (c *Controller) scheduleSessionCheck() {
	c.sched.After(time.Second, "controller session check", func() {
		if c.stopped {
			return
		}
		now := c.sched.Clock.Elapsed()
		for _, b := range c.image.Brokers {
			if !b.Fenced && now-c.lastHeartbeat[b.ID] > c.cfg.SessionTimeout {
				c.events(fmt.Sprintf("controller: broker %d missed heartbeats for %v: fencing it", b.ID, c.cfg.SessionTimeout))
				c.fence(b.ID)
			}
		}
		c.scheduleSessionCheck()
	})
}

// fence takes a broker out of service: it leaves every ISR (unless it is
// the last member) and loses its leaderships to the next in-sync replica.
func (c *Controller) fence(id int32) {
	b := c.image.Broker(id)
	c.commit(protocol.MetadataRecord{Type: "FenceBroker", BrokerID: id, BrokerEpoch: b.Epoch})
	var changes []protocol.MetadataRecord
	for _, t := range c.image.Topics {
		for i, p := range t.Partitions {
			if !slices.Contains(p.ISR, id) && p.Leader != id {
				continue
			}
			isr := p.ISR
			if len(isr) > 1 {
				isr = slices.DeleteFunc(slices.Clone(isr), func(x int32) bool { return x == id })
			}
			leader := p.Leader
			unclean := false
			if leader == id || leader == -1 {
				leader, isr, unclean = c.chooseLeader(t, p, isr, protocol.TopicPartition{Topic: t.Name, Partition: int32(i)})
			}
			changes = append(changes, c.change(t.Name, int32(i), p, leader, isr, unclean))
		}
	}
	c.commit(changes...)
}

// electLeaderless elects leaders for partitions that have none, now that
// another broker is back.
func (c *Controller) electLeaderless() []protocol.MetadataRecord {
	var changes []protocol.MetadataRecord
	for _, t := range c.image.Topics {
		for i, p := range t.Partitions {
			if p.Leader != -1 {
				continue
			}
			tp := protocol.TopicPartition{Topic: t.Name, Partition: int32(i)}
			if leader := c.electRecovered(tp, p); leader != -1 {
				why := "no replica is in sync"
				if damaged, ok := c.recovering[tp]; ok {
					why = fmt.Sprintf("broker %d, the last in sync, lost data in recovery", damaged)
				}
				c.events(fmt.Sprintf("controller: every replica of %s/%d is back (%s): electing %d, the one with the most data (log end %d)",
					t.Name, i, why, leader, c.logEnds[tp][leader]))
				delete(c.recovering, tp)
				changes = append(changes, c.change(t.Name, int32(i), p, leader, []int32{leader}, false))
				continue
			}
			if leader, isr, unclean := c.chooseLeader(t, p, p.ISR, tp); leader != -1 {
				changes = append(changes, c.change(t.Name, int32(i), p, leader, isr, unclean))
			}
		}
	}
	return changes
}

// chooseLeader is Kafka's election: the first replica, in replica order,
// that is in the ISR and not fenced. With unclean.leader.election.enable,
// and no such replica, any live replica will do, and it becomes the whole
// ISR: whatever it lacks is lost.
func (c *Controller) chooseLeader(t *TopicInfo, p *PartitionInfo, isr []int32, tp protocol.TopicPartition) (int32, []int32, bool) {
	for _, r := range p.Replicas {
		if slices.Contains(isr, r) && c.live(r) && !c.offlineAt(tp, r) {
			return r, isr, false
		}
	}
	if t.Config("unclean.leader.election.enable", "false") == "true" {
		for _, r := range p.Replicas {
			if c.live(r) && !c.offlineAt(tp, r) {
				return r, []int32{r}, true
			}
		}
	}
	return -1, isr, false
}

func (c *Controller) live(id int32) bool {
	b := c.image.Broker(id)
	return b != nil && !b.Fenced
}

// change builds a PartitionChange: a new leader bumps the leader epoch,
// every change bumps the partition epoch.
func (c *Controller) change(topic string, partition int32, p *PartitionInfo, leader int32, isr []int32, unclean bool) protocol.MetadataRecord {
	epoch := p.LeaderEpoch
	if leader != p.Leader {
		epoch++
	}
	return protocol.MetadataRecord{Type: "PartitionChange", Topic: topic, Partition: partition,
		Leader: leader, ISR: slices.Clone(isr), LeaderEpoch: epoch, PartitionEpoch: p.PartitionEpoch + 1, Unclean: unclean}
}

// alterPartition applies an ISR change a leader asks for, if the leader
// is still the leader at that epoch (else INVALID_UPDATE_VERSION or
// FENCED_LEADER_EPOCH, as in Kafka).
func (c *Controller) alterPartition(from sim.NodeID, m protocol.AlterPartitionRequest) {
	reply := protocol.AlterPartitionResponse{TP: m.TP, Proposal: m.Proposal}
	p := c.image.Partition(m.TP.Topic, m.TP.Partition)
	b := c.image.Broker(m.BrokerID)
	switch {
	case p == nil:
		reply.Error = protocol.UnknownTopicOrPartition
	case b == nil || b.Epoch != m.BrokerEpoch:
		reply.Error = protocol.StaleBrokerEpoch
	case p.Leader != m.BrokerID || p.LeaderEpoch != m.LeaderEpoch:
		reply.Error = protocol.FencedLeaderEpoch
	case p.PartitionEpoch != m.PartitionEpoch:
		reply.Error = protocol.InvalidUpdateVersion
	default:
		// A replica joining the ISR must be live (KIP-841): INELIGIBLE_REPLICA
		// tells the leader its proposal was not applied.
		for _, r := range m.NewISR {
			if !slices.Contains(p.ISR, r) && !c.live(r) {
				reply.Error = protocol.IneligibleReplica
			}
		}
		if reply.Error == protocol.None {
			rec := c.change(m.TP.Topic, m.TP.Partition, p, p.Leader, m.NewISR, false)
			recs := c.commit(rec)
			if recs == nil {
				return // not the active controller any more: the leader asks again
			}
			reply.LeaderEpoch, reply.PartitionEpoch, reply.ISR = p.LeaderEpoch, p.PartitionEpoch, slices.Clone(p.ISR)
			c.afterCommit(recs, func() { c.net.Send(ControllerNode, from, reply) })
			return
		}
	}
	if p != nil {
		reply.LeaderEpoch, reply.PartitionEpoch, reply.ISR = p.LeaderEpoch, p.PartitionEpoch, slices.Clone(p.ISR)
	}
	c.afterRead(func() { c.net.Send(ControllerNode, from, reply) })
}

// Errors creating topics, Kafka's names.
var (
	ErrTopicExists       = errors.New("TOPIC_ALREADY_EXISTS")
	ErrReplicationFactor = errors.New("INVALID_REPLICATION_FACTOR")
	// ErrPolicyViolation is Kafka's PolicyViolationException, a topic a
	// create-topic policy refuses; loglab's policy is the replica cap.
	ErrPolicyViolation = errors.New("POLICY_VIOLATION")
)

// CreateTopic places replicas and commits the topic (CreateTopics). Placement
// is Kafka's rack-unaware assignment: partition i's first replica is broker
// (i + start) mod n, the others follow at a shift that grows every n
// partitions, with start and shift drawn from the seeded RNG.
func (c *Controller) CreateTopic(name string, partitions, rf int, configs [][2]string) error {
	if c.image.Topic(name) != nil {
		return fmt.Errorf("%w: topic %q already exists", ErrTopicExists, name)
	}
	// Replicas go to usable brokers only, the unfenced ones, as Kafka's
	// ReplicaPlacer draws from ClusterControlManager.usableBrokers: a
	// fenced broker (down, or cut off from the controller) gets none.
	var brokers []*BrokerInfo
	for _, b := range c.image.Brokers {
		if !b.Fenced {
			brokers = append(brokers, b)
		}
	}
	if rf > len(brokers) {
		return fmt.Errorf("%w: Unable to replicate the partition %d time(s): The target replication factor of %d cannot be reached because only %d broker(s) are registered.",
			ErrReplicationFactor, rf, rf, len(brokers))
	}
	if err := c.replicaCapAllows(name, partitions, rf); err != nil {
		return err
	}
	recs := []protocol.MetadataRecord{{Type: "Topic", Topic: name, Partitions: int32(partitions)}}
	for _, kv := range configs {
		recs = append(recs, protocol.MetadataRecord{Type: "Config", Topic: name, Name: kv[0], Value: kv[1]})
	}
	n := len(brokers)
	start, shift := c.rng.IntN(n), c.rng.IntN(n)
	for i := range partitions {
		if i > 0 && i%n == 0 {
			shift++
		}
		first := (i + start) % n
		replicas := []int32{brokers[first].ID}
		for j := 0; j < rf-1; j++ {
			idx := (first + 1 + (shift+j)%(n-1)) % n
			replicas = append(replicas, brokers[idx].ID)
		}
		recs = append(recs, protocol.MetadataRecord{Type: "Partition", Topic: name, Partition: int32(i),
			Replicas: replicas, ISR: slices.Clone(replicas), Leader: replicas[0], LeaderEpoch: 0, PartitionEpoch: 0})
	}
	// The request succeeds only once the topic is committed: the lab
	// waits for its leaders next, and would wait on a topic no image holds.
	if _, err := c.tryCommit(recs...); err != nil {
		return fmt.Errorf("the metadata log did not take topic %q: %w", name, err)
	}
	return nil
}

// StandbyController holds image while no controller is active (a cluster
// whose quorum has not elected yet): it decides nothing and is not on the
// network; Image reads the metadata it was given.
func StandbyController(image *Image) *Controller {
	return &Controller{image: image, stopped: true}
}
