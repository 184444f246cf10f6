package cluster

import (
	"fmt"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// AdminNode is the network name of the lab's admin client, the
// kafka-consumer-groups.sh of `group reset-offsets`.
const AdminNode sim.NodeID = "admin"

// adminTimeout is default.api.timeout.ms: how long the admin client tries.
const adminTimeout = 60 * time.Second

// AlterGroupOffsets is Admin.alterConsumerGroupOffsets: it finds the
// group's coordinator and commits offsets as a client outside the group
// (generation -1, no member id), which the coordinator accepts only for a
// group without members. It returns each partition's error.
func (c *Cluster) AlterGroupOffsets(group string, commits []protocol.OffsetCommitPartition) ([]protocol.OffsetCommitPartitionResponse, error) {
	var (
		corr     int64
		find     *protocol.FindCoordinatorResponse
		response *protocol.OffsetCommitResponse
		lost     bool
	)
	c.net.Attach(AdminNode, func(env *sim.Envelope) {
		switch m := env.Msg.(type) {
		case protocol.FindCoordinatorResponse:
			if m.CorrelationID == corr {
				find = &m
			}
		case protocol.OffsetCommitResponse:
			if m.CorrelationID == corr {
				response = &m
			}
		case sim.Disconnected:
			// The request is lost with the connection: answer it as the
			// network client fails it, so the Admin client retries.
			lost = true
		}
	})
	deadline := c.clock.Elapsed() + adminTimeout
	for c.clock.Elapsed() < deadline {
		via := c.anyLiveBroker()
		if via == 0 {
			return nil, fmt.Errorf("%w: no broker is running", ErrLeaderNotAvailable)
		}
		corr++
		find, lost = nil, false
		c.net.Send(AdminNode, kraft.BrokerNode(int32(via)), protocol.FindCoordinatorRequest{CorrelationID: corr, KeyType: protocol.CoordinatorTypeGroup, Key: group})
		if _, err := c.RunUntil(func() bool { return find != nil || lost }, 5*time.Second); err != nil {
			return nil, err
		}
		if find == nil || find.Error != protocol.None {
			if err := c.Tick(100 * time.Millisecond); err != nil { // retry.backoff.ms
				return nil, err
			}
			continue
		}
		corr++
		response, lost = nil, false
		c.net.Send(AdminNode, kraft.BrokerNode(find.NodeID), protocol.OffsetCommitRequest{CorrelationID: corr, GroupID: group,
			GenerationIDOrMemberEpoch: -1, Offsets: commits})
		if _, err := c.RunUntil(func() bool { return response != nil || lost }, 30*time.Second); err != nil {
			return nil, err
		}
		if response == nil || retryAtCoordinator(response.Partitions) {
			if err := c.Tick(100 * time.Millisecond); err != nil {
				return nil, err
			}
			continue
		}
		return response.Partitions, nil
	}
	return nil, fmt.Errorf("TimeoutException: the coordinator of group %s did not answer within default.api.timeout.ms (60000)", group)
}

// retryAtCoordinator: errors that send the admin client back to
// FindCoordinator, as the Admin client retries them.
func retryAtCoordinator(ps []protocol.OffsetCommitPartitionResponse) bool {
	for _, p := range ps {
		switch p.Error {
		case protocol.NotCoordinator, protocol.CoordinatorNotAvailable, protocol.CoordinatorLoadInProgress:
			return true
		}
	}
	return false
}

func (c *Cluster) anyLiveBroker() int {
	for _, b := range c.brokers {
		if b.Alive() {
			return int(b.ID)
		}
	}
	return 0
}

// OffsetForTime is ListOffsets by timestamp at the partition's leader:
// the first offset at or after ts (milliseconds since the Unix epoch),
// at most the high watermark; false with no live leader.
func (c *Cluster) OffsetForTime(tp protocol.TopicPartition, ts int64) (int64, bool, error) {
	r := c.leaderReplica(tp)
	if r == nil {
		return 0, false, nil
	}
	off, err := r.Log.OffsetForTimestamp(ts)
	if err != nil {
		return 0, false, err
	}
	return min(off, r.HW), true, nil
}
