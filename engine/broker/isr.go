package broker

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
)

// shrinkISRs runs every replica.lag.time.max.ms / 2 (Kafka's
// isr-expiration task): followers that lag behind the leader's log end
// for longer than replica.lag.time.max.ms are asked out of the ISR
// (replica.Leader.OutOfSync). A follower that has everything stays, even
// if it has not fetched for a while.
func (b *Broker) shrinkISRs() {
	now := b.now()
	for _, r := range b.replicas {
		if !r.leader {
			continue
		}
		lagging := r.state(b.ID).OutOfSync(r.Log.EndOffset(), now, b.cfg.ReplicaLagTimeMax)
		if len(lagging) == 0 {
			continue
		}
		isr := slices.DeleteFunc(slices.Clone(r.ISR), func(id int32) bool { return slices.Contains(lagging, id) })
		b.events(fmt.Sprintf("%s: %s/%d: replica(s) %s have not caught up for %v: shrinking the ISR to %s",
			b.Node, r.TP.Topic, r.TP.Partition, protocol.JoinIDs(lagging), b.cfg.ReplicaLagTimeMax, protocol.JoinIDs(isr)))
		b.alterPartition(r, isr)
	}
}

// maybeExpandISR asks for a follower to rejoin the ISR once it has caught
// up to the high watermark and to the start of the current leader epoch
// (replica.Leader.CanJoinISR).
func (b *Broker) maybeExpandISR(r *Replica, id int32) {
	if !r.state(b.ID).CanJoinISR(id, r.HW, b.isrEligible(id)) {
		return
	}
	isr := append(slices.Clone(r.ISR), id)
	slices.Sort(isr)
	b.events(fmt.Sprintf("%s: %s/%d: replica %d caught up: expanding the ISR to %s", b.Node, r.TP.Topic, r.TP.Partition, id, protocol.JoinIDs(isr)))
	b.alterPartition(r, isr)
}

// alterPartition sends the ISR change to the controller; until it commits,
// the leader's ISR stays the old one, and the high watermark waits for the
// members of both (the maximal ISR).
func (b *Broker) alterPartition(r *Replica, isr []int32) {
	r.pendingISR = slices.Clone(isr)
	r.proposals++
	r.awaitingMetadata = false
	b.isrProposed(r.TP, len(isr) < len(r.ISR))
	b.sendAlterPartition(r, r.proposals)
}

// sendAlterPartition sends proposal and, while it stays unanswered, sends
// it again every replica.lag.time.max.ms/2: Kafka's AlterPartitionManager
// keeps an ISR change in flight until the controller answers it. The
// proposal stays pending all along, so the high watermark keeps waiting
// for the maximal ISR: the controller may have applied an earlier send
// whose answer was lost.
func (b *Broker) sendAlterPartition(r *Replica, proposal int64) {
	b.send(kraft.ControllerNode, protocol.AlterPartitionRequest{BrokerID: b.ID, BrokerEpoch: b.epoch, TP: r.TP,
		LeaderEpoch: r.LeaderEpoch, PartitionEpoch: r.PartitionEpoch, NewISR: slices.Clone(r.pendingISR), Proposal: proposal})
	b.after(b.cfg.ReplicaLagTimeMax/2, "alter-partition-retry", func() {
		if r.leader && r.pendingISR != nil && r.proposals == proposal && !r.awaitingMetadata {
			b.sendAlterPartition(r, proposal)
		}
	})
}

// handleAlterPartitionResponse settles the pending proposal the answer is
// for, as Kafka's Partition.submitAlterPartition's callback does: the
// committed ISR on success; on INELIGIBLE_REPLICA (the controller says it
// did not apply it, at the current partition epoch) the last committed
// state; on FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, INVALID_REQUEST or
// UNKNOWN_TOPIC_OR_PARTITION nothing: the proposal stays pending, its high
// watermark rule too, until metadata replaces it (an earlier send may
// have been applied); other errors are sent again.
func (b *Broker) handleAlterPartitionResponse(m protocol.AlterPartitionResponse) {
	r := b.Replica(m.TP)
	if r == nil || !r.leader || r.pendingISR == nil || m.Proposal != r.proposals {
		return // the state it answers was replaced (an election, metadata, a newer proposal)
	}
	switch m.Error {
	case protocol.None:
	case protocol.IneligibleReplica:
		r.pendingISR = nil
		return
	case protocol.FencedLeaderEpoch, protocol.InvalidUpdateVersion, protocol.InvalidRequest, protocol.UnknownTopicOrPartition:
		r.awaitingMetadata = true
		return
	default:
		return // the retry timer sends it again
	}
	if m.LeaderEpoch != r.LeaderEpoch || m.PartitionEpoch < r.PartitionEpoch {
		return // Kafka ignores it and stays pending until metadata comes
	}
	r.pendingISR = nil
	b.isrProposalCommitted(r.TP)
	r.ISR, r.PartitionEpoch = slices.Clone(m.ISR), m.PartitionEpoch
	if b.maybeIncrementHW(r) {
		b.onHWChange(r)
	}
	b.completeProduces(r)
}
