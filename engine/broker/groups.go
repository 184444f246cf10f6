package broker

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/loglab/loglab/engine/group/assignor"
	"github.com/loglab/loglab/engine/group/coordinator"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// groupCoordinator is this broker's group coordinator: one shard per
// __consumer_offsets partition it leads (Kafka's CoordinatorRuntime).
type groupCoordinator struct {
	shards   map[int32]*coordShard
	creating bool   // a CreateTopics for __consumer_offsets is in flight
	lastErr  string // the last creation refusal traced, to trace each once
	nextRef  uint64
	rng      *rand.Rand
}

func (b *Broker) groupState() *groupCoordinator {
	if b.groups == nil {
		b.groups = &groupCoordinator{shards: map[int32]*coordShard{}}
	}
	return b.groups
}

// handleFindCoordinator is KafkaApis.handleFindCoordinatorRequest (for a
// transactional id: findTxnCoordinator). For a group the coordinator is the leader of the group's __consumer_offsets
// partition. Without the topic, the broker asks the controller to create
// it (AutoTopicCreationManager) and answers COORDINATOR_NOT_AVAILABLE:
// the client retries.
func (b *Broker) handleFindCoordinator(from sim.NodeID, m protocol.FindCoordinatorRequest) {
	resp := protocol.FindCoordinatorResponse{CorrelationID: m.CorrelationID, Key: m.Key, NodeID: -1}
	t := b.image.Topic(OffsetsTopic)
	switch {
	case m.KeyType == protocol.CoordinatorTypeTransaction:
		b.findTxnCoordinator(&resp, m.Key)
	case m.KeyType != protocol.CoordinatorTypeGroup:
		resp.Error = protocol.InvalidRequest
	case t == nil:
		b.createOffsetsTopic()
		resp.Error = protocol.CoordinatorNotAvailable
	default:
		p := offsets.PartitionFor(m.Key, int32(len(t.Partitions)))
		if leader := b.aliveLeader(OffsetsTopic, p); leader >= 0 {
			resp.NodeID = leader
		} else {
			resp.Error = protocol.CoordinatorNotAvailable
		}
	}
	b.send(from, resp)
}

// aliveLeader is the leader of topic's partition p that a FindCoordinator
// may name, or -1: KafkaApis.getCoordinator names it only through
// metadataCache.getAliveBrokerNode, which knows no fenced broker (nor one
// not registered). By this broker's metadata, which may be behind the
// quorum's: a broker the controller has not fenced yet, or that this
// broker has not heard was fenced, is named even if its process is dead.
func (b *Broker) aliveLeader(topic string, p int32) int32 {
	pi := b.image.Partition(topic, p)
	if pi == nil || pi.Leader < 0 {
		return -1
	}
	if bi := b.image.Broker(pi.Leader); bi == nil || bi.Fenced {
		return -1
	}
	return pi.Leader
}

// createOffsetsTopic asks the controller for __consumer_offsets, with
// GroupCoordinator.groupMetadataTopicConfigs, once at a time.
func (b *Broker) createOffsetsTopic() {
	g := b.groupState()
	if g.creating {
		return
	}
	g.creating = true
	cfg := b.cfg.Groups
	b.events(fmt.Sprintf("%s: %s does not exist: asking the controller to create it (%d partitions, replication factor %d)",
		b.Node, OffsetsTopic, cfg.OffsetsTopicNumPartitions, cfg.OffsetsTopicReplicationFactor))
	b.nextCorr++
	b.send(kraft.ControllerNode, protocol.CreateTopicsRequest{CorrelationID: b.nextCorr, Name: OffsetsTopic,
		NumPartitions: cfg.OffsetsTopicNumPartitions, ReplicationFactor: cfg.OffsetsTopicReplicationFactor,
		Configs: [][2]string{{"cleanup.policy", "compact"}, {"segment.bytes", fmt.Sprint(cfg.OffsetsTopicSegmentBytes)}}})
	// No answer (no active controller): ask again on a later FindCoordinator.
	b.after(b.cfg.HeartbeatInterval, "create-topics-timeout", func() { g.creating = false })
}

func (b *Broker) handleCreateTopicsResponse(m protocol.CreateTopicsResponse) {
	g := b.groupState()
	g.creating = false
	if m.Error == protocol.None || m.Error == protocol.TopicAlreadyExists {
		g.lastErr = ""
		return
	}
	if msg := m.Error.Name() + ": " + m.ErrorMessage; msg != g.lastErr {
		g.lastErr = msg
		b.events(fmt.Sprintf("%s: the controller refused to create %s: %s", b.Node, m.Name, msg))
	}
}

// handleGroupRequest routes a group request to the shard of its
// partition: NOT_COORDINATOR if this broker does not lead it,
// COORDINATOR_LOAD_IN_PROGRESS while the partition is being loaded.
func (b *Broker) handleGroupRequest(from sim.NodeID, m sim.Message) {
	id, _ := coordinator.GroupID(m)
	g := b.groupState()
	var cs *coordShard
	p := int32(-1)
	if t := b.image.Topic(OffsetsTopic); t != nil {
		p = offsets.PartitionFor(id, int32(len(t.Partitions)))
		cs = g.shards[p]
	}
	switch {
	case cs == nil:
		b.events(fmt.Sprintf("%s: %s for group %s: NOT_COORDINATOR (%s)", b.Node, m.Kind(), id, b.coordinatorHint(p)))
		b.send(from, coordinator.ErrorResponse(m, protocol.NotCoordinator))
		return
	case cs.shard == nil:
		b.events(fmt.Sprintf("%s: %s for group %s: COORDINATOR_LOAD_IN_PROGRESS (%s/%d is loading)", b.Node, m.Kind(), id, OffsetsTopic, p))
		b.send(from, coordinator.ErrorResponse(m, protocol.CoordinatorLoadInProgress))
		return
	}
	if tc, ok := m.(protocol.TxnOffsetCommitRequest); ok {
		b.verifyTxnOffsetCommit(from, tc, cs)
		return
	}
	b.runGroupRequest(cs, from, m)
}

// runGroupRequest hands a request to its loaded shard.
func (b *Broker) runGroupRequest(cs *coordShard, from sim.NodeID, m sim.Message) {
	g := b.groupState()
	g.nextRef++
	ref := g.nextRef
	cs.pending[ref] = pendingGroupRequest{from: from, req: m}
	req := coordinator.Request{Ref: ref, Client: string(from), Msg: m}
	switch m.(type) {
	case protocol.JoinGroupRequest:
		req.UUID = b.randomUUID()
	case protocol.ConsumerGroupHeartbeatRequest:
		cs.shard.SetTopics(b.subscribableTopics())
	}
	// The records of this request go at the log end: the shard notes
	// where its offsets are written.
	cs.shard.SetLogEndOffset(cs.r.Log.EndOffset())
	b.applyGroupResult(cs, cs.shard.Handle(b.sched.Clock.NowMs(), req))
}

// coordinatorHint says why this broker is not the group's coordinator.
func (b *Broker) coordinatorHint(p int32) string {
	if p < 0 {
		return OffsetsTopic + " does not exist"
	}
	if pi := b.image.Partition(OffsetsTopic, p); pi != nil && pi.Leader >= 0 {
		return fmt.Sprintf("%s/%d is led by b%d", OffsetsTopic, p, pi.Leader)
	}
	return fmt.Sprintf("%s/%d has no leader", OffsetsTopic, p)
}

// subscribableTopics is the metadata KIP-848 groups assign from: every
// topic but the coordinators' internal ones (creating __transaction_state
// must not look like a metadata change to every group).
func (b *Broker) subscribableTopics() assignor.Topics {
	out := assignor.Topics{}
	for _, t := range b.image.Topics {
		if t.Name != OffsetsTopic && t.Name != TransactionStateTopic {
			out[t.Name] = int32(len(t.Partitions))
		}
	}
	return out
}

// randomUUID is java.util.UUID.randomUUID().toString(), from a generator
// seeded by this broker incarnation (broker id, epoch, start time), so
// runs replay exactly and a restarted broker hands out new ids.
func (b *Broker) randomUUID() string {
	g := b.groupState()
	if g.rng == nil {
		seed := uint64(b.ID)<<48 ^ uint64(b.epoch)<<24 ^ uint64(b.sched.Clock.NowMs())
		g.rng = sim.NewRand(seed)
	}
	var u [16]byte
	for i := range u {
		u[i] = byte(g.rng.Uint32())
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // IETF variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// GroupLoading reports whether this broker leads the __consumer_offsets
// partition and is still replaying it (COORDINATOR_LOAD_IN_PROGRESS).
func (b *Broker) GroupLoading(partition int32) bool {
	return b.groups != nil && b.groups.shards[partition] != nil && b.groups.shards[partition].shard == nil
}

// GroupShard is the coordinator state this broker holds for a
// __consumer_offsets partition it leads; nil when it leads none or is
// still loading it.
func (b *Broker) GroupShard(partition int32) *coordinator.Shard {
	if b.groups == nil || b.groups.shards[partition] == nil {
		return nil
	}
	return b.groups.shards[partition].shard
}

// GroupShards lists the loaded shards in partition order.
func (b *Broker) GroupShards() []*coordinator.Shard {
	if b.groups == nil {
		return nil
	}
	var ps []int32
	for p, cs := range b.groups.shards {
		if cs.shard != nil {
			ps = append(ps, p)
		}
	}
	slices.Sort(ps)
	out := make([]*coordinator.Shard, len(ps))
	for i, p := range ps {
		out[i] = b.groups.shards[p].shard
	}
	return out
}

// GroupCoordinatorPartition is the __consumer_offsets partition of a
// group in this broker's metadata, -1 while the topic does not exist.
func (b *Broker) GroupCoordinatorPartition(groupID string) int32 {
	t := b.image.Topic(OffsetsTopic)
	if t == nil {
		return -1
	}
	return offsets.PartitionFor(groupID, int32(len(t.Partitions)))
}

// DescribeGroup describes a group this broker coordinates (its partition
// is loaded here); false otherwise.
func (b *Broker) DescribeGroup(groupID string) (coordinator.GroupDescription, bool) {
	p := b.GroupCoordinatorPartition(groupID)
	if s := b.GroupShard(p); s != nil {
		return s.Describe(groupID)
	}
	return coordinator.GroupDescription{}, false
}

// ListGroups lists the groups of every partition this broker has loaded,
// by group id.
func (b *Broker) ListGroups() []coordinator.GroupDescription {
	var out []coordinator.GroupDescription
	for _, s := range b.GroupShards() {
		out = append(out, s.Groups()...)
	}
	slices.SortFunc(out, func(x, y coordinator.GroupDescription) int { return strings.Compare(x.GroupID, y.GroupID) })
	return out
}
