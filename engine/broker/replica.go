package broker

import (
	"slices"
	"time"

	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
)

// Replica is this broker's copy of one partition.
type Replica struct {
	TP             protocol.TopicPartition
	Log            *log.Log
	Replicas       []int32
	ISR            []int32
	Leader         int32 // -1: none
	LeaderEpoch    int32
	PartitionEpoch int32
	// HW is the high watermark: the offset below which every ISR member
	// has the records. Consumers read only below it; acks=all waits for it.
	HW        int64
	MinISR    int
	leader    bool
	followers []*followerState // leader only, ordered by broker id

	// leaderEpochStart is where this broker's current leadership began.
	leaderEpochStart int64
	// alterInFlight: an ISR change is on its way to the controller;
	// pendingISR is the ISR it asks for. Until the controller answers, the
	// high watermark counts the replicas of both ISRs (Kafka's "maximal
	// ISR"): a follower being added must already have what the HW covers,
	// and one being removed is still waited for.
	alterInFlight bool
	pendingISR    []int32

	// follower side
	fetchInFlight bool
	fetchCorr     int64 // the correlation id of the fetch in flight
	fetchGen      int
}

// followerState is what the leader knows of a follower, from its fetches.
type followerState struct {
	ID                 int32
	LEO                int64 // -1 until its first fetch
	LastCaughtUp       time.Duration
	LastFetchTime      time.Duration
	LastFetchLeaderLEO int64
}

// IsLeader reports whether this broker leads the partition.
func (r *Replica) IsLeader() bool { return r.leader }

// FollowerLEO is the leader's idea of a follower's log end offset.
func (r *Replica) FollowerLEO(id int32) (int64, bool) {
	for _, f := range r.followers {
		if f.ID == id {
			return f.LEO, f.LEO >= 0
		}
	}
	return 0, false
}

func (r *Replica) follower(id int32) *followerState {
	for _, f := range r.followers {
		if f.ID == id {
			return f
		}
	}
	return nil
}

func (r *Replica) inISR(id int32) bool { return slices.Contains(r.ISR, id) }

// maybeIncrementHW moves the high watermark to the smallest log end offset
// in the ISR. It never moves backwards.
func (r *Replica) maybeIncrementHW(self int32) bool {
	hw := r.Log.EndOffset()
	for _, id := range r.maximalISR() {
		if id == self {
			continue
		}
		f := r.follower(id)
		if f == nil || f.LEO < 0 {
			return false
		}
		hw = min(hw, f.LEO)
	}
	// Kafka only advances the HW past offsets of the current epoch once the
	// ISR has caught up to the epoch's start; min over the ISR covers it.
	if hw > r.HW {
		r.HW = hw
		return true
	}
	return false
}

// maximalISR is the committed ISR plus the replicas a pending change adds.
func (r *Replica) maximalISR() []int32 {
	if !r.alterInFlight {
		return r.ISR
	}
	out := slices.Clone(r.ISR)
	for _, id := range r.pendingISR {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
