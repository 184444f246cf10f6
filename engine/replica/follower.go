package replica

import "time"

// UnknownOffset is a position the leader has not learnt yet (Kafka's
// UnifiedLog.UnknownOffset): a follower that has not fetched since this
// broker became leader.
const UnknownOffset int64 = -1

// Follower is what the leader knows of one follower, learnt from its
// fetches (Kafka's ReplicaState).
type Follower struct {
	ID  int32
	LEO int64 // the offset it last fetched from; UnknownOffset before its first fetch
	// LastFetchLeaderLEO is the leader's log end offset when the previous
	// fetch arrived, LastFetchTime when it arrived.
	LastFetchLeaderLEO int64
	LastFetchTime      time.Duration
	// LastCaughtUp is the last time the follower had everything the leader
	// had: the largest t such that a fetch of it reached the leader's log
	// end offset as of t.
	LastCaughtUp time.Duration
}

// NewFollower is a follower's state when this broker takes the lead
// (Replica.resetReplicaState with isNewLeader): position unknown, and
// caught up "now" if the controller lists it in the ISR, so a member gets a
// full replica.lag.time.max.ms to show up before it is shrunk away.
func NewFollower(id int32, now time.Duration, inISR bool) Follower {
	return ResetFollower(Follower{ID: id}, now, UnknownOffset, true, inISR)
}

// ResetFollower is Replica.resetReplicaState, which Partition.makeLeader
// calls for every follower at each new leader epoch. A new leader knows
// nothing of the followers: position unknown. A broker that stays leader
// in a new epoch keeps each follower's position (it is still right: the
// leader's log did not change hands) and treats the epoch's start offset
// as the leader's log end at the last fetch. Either way an ISR member is
// caught up, and for a staying leader has fetched, "now", so it gets a
// full replica.lag.time.max.ms before it can be shrunk away; a replica
// outside the ISR gets 0, so it neither holds back the high watermark nor
// rejoins the ISR before it fetches again.
func ResetFollower(prev Follower, now time.Duration, epochStart int64, isNewLeader, inISR bool) Follower {
	var lastCaughtUp time.Duration
	if inISR {
		lastCaughtUp = now
	}
	if isNewLeader {
		return Follower{ID: prev.ID, LEO: UnknownOffset, LastFetchLeaderLEO: UnknownOffset, LastCaughtUp: lastCaughtUp}
	}
	return Follower{ID: prev.ID, LEO: prev.LEO, LastFetchLeaderLEO: epochStart, LastFetchTime: lastCaughtUp, LastCaughtUp: lastCaughtUp}
}

// UpdateFetchState records a fetch from fetchOffset that arrived at now,
// when the leader's log ended at leaderEnd (Replica.updateFetchStateOrThrow).
// A fetch that reaches the leader's end makes it caught up now; one that
// reaches where the leader's log ended at the previous fetch makes it caught
// up as of that fetch. The second rule is why a follower of a partition
// with a steady trickle of writes, always one fetch behind, stays in sync.
func (f *Follower) UpdateFetchState(fetchOffset int64, now time.Duration, leaderEnd int64) {
	switch {
	case fetchOffset >= leaderEnd:
		f.LastCaughtUp = max(f.LastCaughtUp, now)
	case fetchOffset >= f.LastFetchLeaderLEO:
		f.LastCaughtUp = max(f.LastCaughtUp, f.LastFetchTime)
	}
	f.LEO = fetchOffset
	f.LastFetchLeaderLEO = max(leaderEnd, f.LastFetchLeaderLEO)
	f.LastFetchTime = now
}

// IsCaughtUp is ReplicaState.isCaughtUp: the follower has the leader's
// whole log, or had it within maxLag. The first half is what keeps an idle
// partition's followers in the ISR even when they cannot fetch: there is
// nothing for them to lag behind.
func (f Follower) IsCaughtUp(leaderEnd int64, now, maxLag time.Duration) bool {
	return leaderEnd == f.LEO || now-f.LastCaughtUp <= maxLag
}
