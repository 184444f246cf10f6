package replica

import (
	"slices"
	"time"

	"github.com/loglab/loglab/engine/protocol"
)

// Leader is the leader's view of its partition's replicas (the ISR and
// high-watermark half of Kafka's Partition).
type Leader struct {
	Self     int32
	Replicas []int32 // the assignment
	ISR      []int32 // as the controller last committed it
	// Pending is the ISR an AlterPartition in flight asks for, nil when
	// none is. Until the controller answers, no other change is proposed.
	Pending []int32
	// MinInsyncReplicas is the topic's min.insync.replicas.
	MinInsyncReplicas int
	// EpochStart is this leader's log end offset when its epoch began: a
	// follower must reach it before it may join the ISR.
	EpochStart int64
	Followers  []Follower // in assignment order
}

// Follower finds a follower's state, or nil.
func (l *Leader) Follower(id int32) *Follower {
	for i := range l.Followers {
		if l.Followers[i].ID == id {
			return &l.Followers[i]
		}
	}
	return nil
}

// InFlight reports whether an ISR change awaits the controller.
func (l *Leader) InFlight() bool { return l.Pending != nil }

// MaximalISR is the committed ISR plus any replica a pending change adds
// (PartitionState.maximalIsr, KIP-497). A replica being added is counted
// at once, which only makes the high watermark stricter; one being removed
// is still counted until the controller commits its removal.
func (l *Leader) MaximalISR() []int32 {
	out := slices.Clone(l.ISR)
	for _, id := range l.Pending {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// EffectiveMinISR is Partition.effectiveMinIsr: min.insync.replicas, but
// never more than the replication factor, so an rf=1 topic with
// min.insync.replicas=2 still takes acks=all writes.
func (l *Leader) EffectiveMinISR() int {
	return min(l.MinInsyncReplicas, len(l.Replicas))
}

// UnderMinISR is Partition.isUnderMinIsr, on the committed ISR.
func (l *Leader) UnderMinISR() bool { return len(l.ISR) < l.EffectiveMinISR() }

// AppendError is the check Partition.appendRecordsToLeader makes before
// writing: an acks=all write to an ISR smaller than the effective minimum
// is refused with NOT_ENOUGH_REPLICAS. acks=0 and acks=1 writes go ahead.
func (l *Leader) AppendError(acks int16) protocol.ErrorCode {
	if acks == -1 && l.UnderMinISR() {
		return protocol.NotEnoughReplicas
	}
	return protocol.None
}

// HighWatermark is Partition.maybeIncrementLeaderHW: the smallest log end
// offset among the leader and the followers it waits for, or hw unchanged.
// It waits for the maximal ISR, and for a follower outside it that is
// caught up and eligible (not fenced) and so about to join: otherwise a
// follower chasing a busy leader would find the high watermark always a
// little ahead of it and never qualify (shouldWaitForReplicaToJoinIsr).
// Since KAFKA-15583 (Kafka 3.7) it does not move at all while the ISR is
// below the effective min ISR: a record written with acks=1 then stays
// invisible to consumers, because fewer replicas than the topic demands
// have it. A member whose position is still unknown holds it where it is.
func (l *Leader) HighWatermark(hw, leaderEnd int64, now, maxLag time.Duration, eligible func(id int32) bool) int64 {
	if l.UnderMinISR() {
		return hw
	}
	maximal := l.MaximalISR()
	next := leaderEnd
	for _, f := range l.Followers {
		wait := slices.Contains(maximal, f.ID) || (f.IsCaughtUp(leaderEnd, now, maxLag) && eligible(f.ID))
		if wait && f.LEO < next {
			next = f.LEO
		}
	}
	return max(hw, next)
}

// CheckEnoughReplicasReachOffset is Partition.checkEnoughReplicasReachOffset
// for an acks=all write ending at required (its last offset + 1): done
// once the high watermark covers it, with NOT_ENOUGH_REPLICAS_AFTER_APPEND
// if the maximal ISR is below the effective minimum by then. Because the
// high watermark itself stands still under min ISR (HighWatermark), a
// write still waiting when the ISR shrinks is never completed here: it
// ends in REQUEST_TIMED_OUT. Kafka before 3.7 answered it with
// NOT_ENOUGH_REPLICAS_AFTER_APPEND.
func (l *Leader) CheckEnoughReplicasReachOffset(hw, required int64) (done bool, code protocol.ErrorCode) {
	if hw < required {
		return false, protocol.None
	}
	if l.EffectiveMinISR() <= len(l.MaximalISR()) {
		return true, protocol.None
	}
	return true, protocol.NotEnoughReplicasAfterAppend
}

// OutOfSync is Partition.getOutOfSyncReplicas: the ISR followers that are
// not caught up (Follower.IsCaughtUp), none while a change is in flight.
// Lag, not silence, is what counts: a follower that has the leader's whole
// log stays in sync however long it has not fetched.
func (l *Leader) OutOfSync(leaderEnd int64, now, maxLag time.Duration) []int32 {
	if l.InFlight() {
		return nil
	}
	var out []int32
	for _, id := range l.ISR {
		if id == l.Self {
			continue
		}
		if f := l.Follower(id); f == nil || !f.IsCaughtUp(leaderEnd, now, maxLag) {
			out = append(out, id)
		}
	}
	return out
}

// CanJoinISR is Partition.canAddReplicaToIsr and isFollowerInSync: a
// follower outside the ISR, with no change in flight, whose log reaches
// the high watermark and the start of this leader's epoch. The second
// condition keeps a replica that lacks committed records of the current
// epoch out of the ISR, from where it could be elected and lose them.
// Whether its broker is fenced (isReplicaIsrEligible) is the caller's
// knowledge, passed as eligible.
func (l *Leader) CanJoinISR(id int32, hw int64, eligible bool) bool {
	f := l.Follower(id)
	if f == nil || l.InFlight() || slices.Contains(l.ISR, id) || !eligible {
		return false
	}
	return f.LEO != UnknownOffset && f.LEO >= hw && f.LEO >= l.EpochStart
}
