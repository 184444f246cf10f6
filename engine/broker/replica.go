package broker

import (
	"time"

	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/replica"
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
	HW     int64
	MinISR int // min.insync.replicas as configured
	leader bool
	// offline: a write to its log failed for the disk (logdir_failure.go);
	// it serves nothing more and is no longer among the broker's replicas,
	// but timers and waits scheduled before may still hold it.
	offline bool
	// failing: a write failed for the disk and the replica is about to be
	// taken offline (the log refuses appends already).
	failing bool

	// Leader only: what it knows of each follower (in assignment order),
	// where its leadership began, and the ISR an AlterPartition in flight
	// asks for (nil when none is; see replica.Leader).
	followers        []replica.Follower
	leaderEpochStart int64
	pendingISR       []int32
	// proposals numbers the AlterPartitions this replica sent; pendingISR
	// is the newest one's. awaitingMetadata: the controller refused it in
	// a way that says nothing of whether an earlier send was applied, so
	// the proposal stays pending, unsent, until metadata settles it.
	proposals        int64
	awaitingMetadata bool

	// follower side
	fetchInFlight bool
	fetchCorr     int64 // the correlation id of the fetch in flight
	fetchGen      int
	askingOffset  int64 // the ListOffsets timestamp in flight (-1 latest, -2 earliest) while resetting an out-of-range position
}

// LastStableOffset is the partition's LSO: the first offset of the oldest
// transaction not yet decided (or whose marker the high watermark has not
// passed), else the high watermark (UnifiedLog.lastStableOffset). A
// read_committed consumer reads only below it.
func (r *Replica) LastStableOffset() int64 { return r.Log.LastStableOffset(r.HW) }

// IsLeader reports whether this broker leads the partition.
func (r *Replica) IsLeader() bool { return r.leader }

// FollowerLEO is the leader's idea of a follower's log end offset.
func (r *Replica) FollowerLEO(id int32) (int64, bool) {
	for _, f := range r.followers {
		if f.ID == id {
			return f.LEO, f.LEO != replica.UnknownOffset
		}
	}
	return 0, false
}

// state is the leader's bookkeeping as the pure replica.Leader the
// decisions are made on; its Followers share r.followers, so updates to a
// follower through it stick.
func (r *Replica) state(self int32) *replica.Leader {
	return &replica.Leader{Self: self, Replicas: r.Replicas, ISR: r.ISR, Pending: r.pendingISR,
		MinInsyncReplicas: r.MinISR, EpochStart: r.leaderEpochStart, Followers: r.followers}
}

// maybeIncrementHW moves the high watermark as replica.Leader.HighWatermark
// decides, and reports whether it moved.
func (b *Broker) maybeIncrementHW(r *Replica) bool {
	hw := r.state(b.ID).HighWatermark(r.HW, r.Log.EndOffset(), b.now(), b.cfg.ReplicaLagTimeMax, b.isrEligible)
	if hw > r.HW {
		r.HW = hw
		return true
	}
	return false
}

// isrEligible is Partition.isReplicaIsrEligible: only a broker the metadata
// shows as registered and unfenced may join an ISR (KIP-841).
func (b *Broker) isrEligible(id int32) bool {
	bi := b.image.Broker(id)
	return bi != nil && !bi.Fenced
}

// now is the time the replica bookkeeping uses: since the Unix epoch, as
// Kafka's milliseconds are, so that a follower never caught up (time 0)
// is long out of date at any virtual time.
func (b *Broker) now() time.Duration { return b.sched.Clock.Now().Sub(time.Unix(0, 0)) }

// endOffsetFor is the log's OffsetForLeaderEpoch, for replica's decisions.
func (r *Replica) endOffsetFor(epoch int32) (int32, int64) {
	return r.Log.Epochs().EndOffsetFor(epoch, r.Log.EndOffset())
}
