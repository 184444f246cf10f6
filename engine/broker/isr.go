package broker

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
)

// shrinkISRs runs every replica.lag.time.max.ms / 2: a follower that has
// not caught up with the leader's log end for replica.lag.time.max.ms is
// asked out of the ISR.
func (b *Broker) shrinkISRs() {
	now := b.sched.Clock.Elapsed()
	for _, r := range b.replicas {
		if !r.leader || r.alterInFlight {
			continue
		}
		var lagging []int32
		for _, id := range r.ISR {
			if f := r.follower(id); f != nil && now-f.LastCaughtUp > b.cfg.ReplicaLagTimeMax {
				lagging = append(lagging, id)
			}
		}
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
// up to the high watermark and to the start of the current leader epoch.
func (b *Broker) maybeExpandISR(r *Replica, f *followerState) {
	if r.alterInFlight || r.inISR(f.ID) || f.LEO < r.HW || f.LEO < r.leaderEpochStart {
		return
	}
	// Only a broker the metadata shows as live may join (KIP-841).
	if bi := b.image.Broker(f.ID); bi == nil || bi.Fenced {
		return
	}
	isr := append(slices.Clone(r.ISR), f.ID)
	slices.Sort(isr)
	b.events(fmt.Sprintf("%s: %s/%d: replica %d caught up: expanding the ISR to %s", b.Node, r.TP.Topic, r.TP.Partition, f.ID, protocol.JoinIDs(isr)))
	b.alterPartition(r, isr)
}

// alterPartition sends the ISR change to the controller; until it commits,
// the leader's ISR stays the old one, and the high watermark waits for the
// members of both (maximalISR).
func (b *Broker) alterPartition(r *Replica, isr []int32) {
	r.alterInFlight, r.pendingISR = true, slices.Clone(isr)
	b.send(kraft.ControllerNode, protocol.AlterPartitionRequest{BrokerID: b.ID, BrokerEpoch: b.epoch, TP: r.TP,
		LeaderEpoch: r.LeaderEpoch, PartitionEpoch: r.PartitionEpoch, NewISR: isr})
	// If the answer is lost, allow another attempt later.
	gen := r.PartitionEpoch
	b.after(b.cfg.ReplicaLagTimeMax/2, "alter-partition-retry", func() {
		if r.alterInFlight && r.PartitionEpoch == gen {
			r.alterInFlight = false
		}
	})
}

func (b *Broker) handleAlterPartitionResponse(m protocol.AlterPartitionResponse) {
	r := b.Replica(m.TP)
	if r == nil {
		return
	}
	r.alterInFlight = false
	if m.Error != protocol.None || !r.leader || m.LeaderEpoch != r.LeaderEpoch || m.PartitionEpoch < r.PartitionEpoch {
		return
	}
	r.ISR, r.PartitionEpoch = slices.Clone(m.ISR), m.PartitionEpoch
	if r.maybeIncrementHW(b.ID) {
		b.onHWChange(r)
	}
	b.completeProduces(r)
}
