// Package consumer is the group coordinator's side of KIP-848's consumer
// group protocol (group.protocol=consumer), as a pure state machine: the
// engine feeds it heartbeats and the virtual time, and it answers with
// the member epochs and assignments Kafka 4.x's GroupMetadataManager
// would answer. There is no group-wide barrier: each member moves to the
// target assignment on its own, revoking before it is given anything,
// and gets a partition only once its previous owner has released it.
package consumer

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/loglab/loglab/engine/group/assignor"
)

// Config holds the coordinator's consumer group settings, by Kafka's names.
type Config struct {
	SessionTimeoutMs    int32 // group.consumer.session.timeout.ms
	HeartbeatIntervalMs int32 // group.consumer.heartbeat.interval.ms
}

// DefaultConfig is Kafka 4.x's defaults.
func DefaultConfig() Config {
	return Config{SessionTimeoutMs: 45000, HeartbeatIntervalMs: 5000}
}

// owner is who holds a partition now and at which member epoch: Kafka's
// ConsumerGroup.currentPartitionEpoch map.
type owner struct {
	member string
	epoch  int32
}

// Group is one consumer group as its coordinator sees it.
type Group struct {
	id       string
	cfg      Config
	assignor assignor.Assignor
	topics   assignor.Topics

	// groupEpoch counts membership and subscription changes;
	// assignmentEpoch is the epoch the target was last computed at.
	// The gap between them is the Assigning state.
	groupEpoch      int32
	assignmentEpoch int32
	metadataChanged bool

	members map[string]*Member
	target  map[string]Partitions
	owners  map[assignor.TopicPartition]owner
}

// NewGroup makes an empty group that assigns with a (Kafka's default is
// the uniform assignor) over the given topic metadata. The assignor is
// the group's: Kafka lets each member name one (group.remote.assignor)
// and uses the one most members name.
func NewGroup(id string, a assignor.Assignor, topics assignor.Topics, cfg Config) *Group {
	return &Group{id: id, cfg: cfg, assignor: a, topics: maps.Clone(topics),
		members: map[string]*Member{}, target: map[string]Partitions{},
		owners: map[assignor.TopicPartition]owner{}}
}

func (g *Group) ID() string             { return g.id }
func (g *Group) GroupEpoch() int32      { return g.groupEpoch }
func (g *Group) AssignmentEpoch() int32 { return g.assignmentEpoch }

// State is Kafka's ConsumerGroup.maybeUpdateGroupState, computed on demand.
func (g *Group) State() GroupState {
	if len(g.members) == 0 {
		return GroupEmpty
	}
	if g.groupEpoch > g.assignmentEpoch {
		return GroupAssigning
	}
	for _, m := range g.members {
		if !m.isReconciledTo(g.assignmentEpoch) {
			return GroupReconciling
		}
	}
	return GroupStable
}

// Members lists copies of the members in member id order.
func (g *Group) Members() []Member {
	out := make([]Member, 0, len(g.members))
	for _, id := range slices.Sorted(maps.Keys(g.members)) {
		out = append(out, *g.members[id])
	}
	return out
}

// Target is the member's target assignment at AssignmentEpoch.
func (g *Group) Target(memberID string) Partitions { return g.target[memberID].normalized() }

// Owner is the member that holds the partition (assigned or still
// revoking it), "" if none.
func (g *Group) Owner(tp assignor.TopicPartition) string { return g.owners[tp].member }

// SetTopics replaces the topic metadata. A change in a subscribed topic
// bumps the group epoch at the next heartbeat, as Kafka does when it
// finds the subscription metadata changed.
func (g *Group) SetTopics(topics assignor.Topics) {
	for _, m := range g.members {
		for _, t := range m.SubscribedTopics {
			was, existed := g.topics[t]
			if n, ok := topics[t]; ok != existed || n != was {
				g.metadataChanged = true
			}
		}
	}
	g.topics = maps.Clone(topics)
}

func (g *Group) partitionEpoch(topic string, p int32) int32 {
	if o, ok := g.owners[assignor.TopicPartition{Topic: topic, Partition: p}]; ok {
		return o.epoch
	}
	return -1
}

// replaceOwnership is Kafka's removePartitionEpochs/addPartitionEpochs:
// drop what the member held before, record what it holds now. Finding
// a partition held by another member means reconciliation broke its one
// promise, so it is an error (Kafka's IllegalStateException) and nothing
// changes.
func (g *Group) replaceOwnership(old, updated *Member) error {
	if updated != nil {
		var err error
		for _, ps := range []Partitions{updated.Assigned, updated.PendingRevocation} {
			eachPartition(ps, func(tp assignor.TopicPartition) {
				if o, ok := g.owners[tp]; ok && o.member != updated.ID && err == nil {
					err = fmt.Errorf("partition %s is still owned by member %s", tp, o.member)
				}
			})
		}
		if err != nil {
			return err
		}
	}
	if old != nil {
		for _, ps := range []Partitions{old.Assigned, old.PendingRevocation} {
			eachPartition(ps, func(tp assignor.TopicPartition) {
				if g.owners[tp].member == old.ID {
					delete(g.owners, tp)
				}
			})
		}
	}
	if updated != nil {
		for _, ps := range []Partitions{updated.Assigned, updated.PendingRevocation} {
			eachPartition(ps, func(tp assignor.TopicPartition) { g.owners[tp] = owner{updated.ID, updated.MemberEpoch} })
		}
	}
	return nil
}

func eachPartition(ps Partitions, f func(assignor.TopicPartition)) {
	for _, t := range ps.Topics() {
		for _, p := range ps[t] {
			f(assignor.TopicPartition{Topic: t, Partition: p})
		}
	}
}

// fence is Kafka's consumerGroupFenceMember: the member is gone, its
// partitions are free, and the group epoch moves so the others get a
// new target without it at their next heartbeat.
func (g *Group) fence(id string) {
	m := g.members[id]
	_ = g.replaceOwnership(m, nil)
	delete(g.members, id)
	delete(g.target, id)
	g.groupEpoch++
}

// sortedMembers lists the members (with updated in place of its old
// self) in id order, for the assignor.
func (g *Group) sortedMembers(updated Member) []Member {
	out := []Member{updated}
	for id, m := range g.members {
		if id != updated.ID {
			out = append(out, *m)
		}
	}
	slices.SortFunc(out, func(a, b Member) int { return cmp.Compare(a.ID, b.ID) })
	return out
}
