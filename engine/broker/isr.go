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
	b.isrProposed(r.TP, len(isr) < len(r.ISR))
	b.send(kraft.ControllerNode, protocol.AlterPartitionRequest{BrokerID: b.ID, BrokerEpoch: b.epoch, TP: r.TP,
		LeaderEpoch: r.LeaderEpoch, PartitionEpoch: r.PartitionEpoch, NewISR: isr})
	// If the answer is lost, allow another attempt later.
	gen := r.PartitionEpoch
	b.after(b.cfg.ReplicaLagTimeMax/2, "alter-partition-retry", func() {
		if r.pendingISR != nil && r.PartitionEpoch == gen {
			r.pendingISR = nil
		}
	})
}

func (b *Broker) handleAlterPartitionResponse(m protocol.AlterPartitionResponse) {
	r := b.Replica(m.TP)
	if r == nil {
		return
	}
	r.pendingISR = nil
	if m.Error != protocol.None || !r.leader || m.LeaderEpoch != r.LeaderEpoch || m.PartitionEpoch < r.PartitionEpoch {
		return
	}
	b.isrProposalCommitted(r.TP)
	r.ISR, r.PartitionEpoch = slices.Clone(m.ISR), m.PartitionEpoch
	if b.maybeIncrementHW(r) {
		b.onHWChange(r)
	}
	b.completeProduces(r)
}
