package cluster

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/group/coordinator"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/protocol"
)

// GroupCoordinator is where a group lives: the partition of
// __consumer_offsets its id hashes to, and the broker leading it (0: none,
// or the topic does not exist yet: Partition is then -1).
type GroupCoordinator struct {
	Partition int32
	Broker    int
}

// Coordinator finds a group's coordinator from the controller's metadata,
// as FindCoordinator answers it.
func (c *Cluster) Coordinator(groupID string) GroupCoordinator {
	t := c.controller.Image().Topic(broker.OffsetsTopic)
	if t == nil {
		return GroupCoordinator{Partition: -1}
	}
	gc := GroupCoordinator{Partition: offsets.PartitionFor(groupID, int32(len(t.Partitions)))}
	if pi := c.controller.Image().Partition(broker.OffsetsTopic, gc.Partition); pi != nil && pi.Leader > 0 {
		gc.Broker = int(pi.Leader)
	}
	return gc
}

// DescribeGroup asks the group's coordinator for it, as
// kafka-consumer-groups.sh --describe does; false when no live
// coordinator has it loaded (unknown group, or the coordinator is
// loading or down: DescribeGroupErr tells which).
func (c *Cluster) DescribeGroup(groupID string) (coordinator.GroupDescription, GroupCoordinator, bool) {
	d, gc, err := c.DescribeGroupErr(groupID)
	return d, gc, err == nil
}

// ErrGroupIDNotFound is the answer for a group its loaded coordinator
// does not hold.
var ErrGroupIDNotFound = errors.New("GROUP_ID_NOT_FOUND")

// DescribeGroupErr is DescribeGroup with Kafka's reason when it fails:
// GROUP_ID_NOT_FOUND only from a live coordinator that has the partition
// loaded and no such group; COORDINATOR_NOT_AVAILABLE while the partition
// has no live leader (the Admin client keeps retrying meanwhile);
// COORDINATOR_LOAD_IN_PROGRESS while the new leader replays it.
func (c *Cluster) DescribeGroupErr(groupID string) (coordinator.GroupDescription, GroupCoordinator, error) {
	gc := c.Coordinator(groupID)
	switch {
	case gc.Partition < 0:
		return coordinator.GroupDescription{}, gc, fmt.Errorf("%w: group %q does not exist (no group has used __consumer_offsets yet)", ErrGroupIDNotFound, groupID)
	case gc.Broker == 0:
		return coordinator.GroupDescription{}, gc, fmt.Errorf("COORDINATOR_NOT_AVAILABLE: __consumer_offsets/%d, the coordinator partition of group %q, has no leader", gc.Partition, groupID)
	}
	b := c.Broker(gc.Broker)
	switch {
	case b == nil || !b.Alive():
		return coordinator.GroupDescription{}, gc, fmt.Errorf("COORDINATOR_NOT_AVAILABLE: b%d, the coordinator of group %q, is down (until the controller fences it and elects a new leader of __consumer_offsets/%d)", gc.Broker, groupID, gc.Partition)
	case b.GroupLoading(gc.Partition):
		return coordinator.GroupDescription{}, gc, fmt.Errorf("COORDINATOR_LOAD_IN_PROGRESS: b%d is loading __consumer_offsets/%d, the coordinator partition of group %q", gc.Broker, gc.Partition, groupID)
	case b.GroupShard(gc.Partition) == nil:
		return coordinator.GroupDescription{}, gc, fmt.Errorf("NOT_COORDINATOR: b%d does not lead __consumer_offsets/%d yet", gc.Broker, gc.Partition)
	}
	d, ok := b.DescribeGroup(groupID)
	if !ok {
		return d, gc, fmt.Errorf("%w: Group %s not found.", ErrGroupIDNotFound, groupID)
	}
	return d, gc, nil
}

// ListGroups lists every group the live coordinators hold, by id, as
// kafka-consumer-groups.sh --list asks every broker.
func (c *Cluster) ListGroups() []coordinator.GroupDescription {
	var out []coordinator.GroupDescription
	for _, b := range c.brokers {
		if b.Alive() {
			out = append(out, b.ListGroups()...)
		}
	}
	slices.SortFunc(out, func(x, y coordinator.GroupDescription) int { return strings.Compare(x.GroupID, y.GroupID) })
	// A partition can be loaded on two brokers for a moment (the old
	// leader has not yet heard of the new one): keep one.
	return slices.CompactFunc(out, func(x, y coordinator.GroupDescription) bool { return x.GroupID == y.GroupID })
}

// LatestOffset is what ListOffsets "latest" answers a client for a
// partition: its leader's high watermark; false with no live leader.
func (c *Cluster) LatestOffset(tp protocol.TopicPartition) (int64, bool) {
	r := c.leaderReplica(tp)
	if r == nil {
		return 0, false
	}
	return r.HW, true
}

// EarliestOffset is ListOffsets "earliest": the leader's log start offset.
func (c *Cluster) EarliestOffset(tp protocol.TopicPartition) (int64, bool) {
	r := c.leaderReplica(tp)
	if r == nil {
		return 0, false
	}
	return r.Log.StartOffset(), true
}

func (c *Cluster) leaderReplica(tp protocol.TopicPartition) *broker.Replica {
	pi := c.controller.Image().Partition(tp.Topic, tp.Partition)
	if pi == nil || pi.Leader <= 0 {
		return nil
	}
	b := c.Broker(int(pi.Leader))
	if b == nil || !b.Alive() {
		return nil
	}
	r := b.Replica(tp)
	if r == nil || !r.IsLeader() {
		return nil
	}
	return r
}

// HasGroups reports whether a running consumer is in a group.
func (c *Cluster) HasGroups() bool {
	return slices.ContainsFunc(c.consumers, func(co *client.Consumer) bool { return co.GroupID() != "" && !co.Closed() })
}
