package replica

// Kafka's answers for an epoch or offset it cannot name
// (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET).
const (
	UndefinedEpoch  int32 = -1
	UndefinedOffset int64 = -1
)

// EndOffsetFor answers "where did this epoch end?" on one replica's log:
// the largest epoch at or below requested and the offset where it ended,
// as LeaderEpochFileCache.endOffsetFor does over the epoch history (epoch
// start offsets, oldest first) of a log ending at leo.
type EndOffsetFor func(requested int32) (epoch int32, endOffset int64)

// Truncation is a follower's answer to a diverging epoch in a fetch
// response: the offset to truncate to, and whether that settles it
// (AbstractFetcherThread.getOffsetTruncationState). When the follower
// does not know the epoch the leader named, it cannot tell where the two
// histories agree up to; it cuts back to the end of its own largest epoch
// below the named one and asks again with that epoch, which the leader
// then answers for. Truncating to the leader's offset instead keeps
// records of an epoch the leader never had, and the same question comes
// back on every fetch.
func Truncation(leaderEpoch int32, leaderEnd int64, local EndOffsetFor, leo, fetchOffset int64) (to int64, final bool) {
	switch {
	case leaderEnd == UndefinedOffset:
		return fetchOffset, true
	case leaderEpoch == UndefinedEpoch:
		return min(leaderEnd, leo), true
	}
	epoch, end := local(leaderEpoch)
	switch {
	case end == UndefinedOffset:
		// Epochs older than anything this replica tracks: trust the leader's offset.
		return min(leaderEnd, leo), true
	case epoch != leaderEpoch:
		return min(end, leo), false
	default:
		return min(end, leaderEnd, leo), true
	}
}

// The follower's answer to OFFSET_OUT_OF_RANGE is
// AbstractFetcherThread.fetchOffsetAndTruncate, in two steps, each after a
// ListOffsets request to the leader.

// OutOfRangeLatest is its first step, given the leader's log end offset: a
// leader whose log ends below ours (after an unclean election) makes us
// truncate to its end, and that settles it; otherwise ask for the leader's
// log start (done is false).
func OutOfRangeLatest(leaderEnd, leo int64) (to int64, done bool) {
	if leaderEnd < leo {
		return leaderEnd, true
	}
	return leo, false
}

// OutOfRangeEarliest is its second step, given the leader's log start
// offset: when the leader's retention already deleted everything up to
// past our log end, nothing we hold is worth keeping: empty the log and
// start it at the leader's log start (truncateFullyAndStartAt, fully is
// true). Otherwise fetch from our own end again.
func OutOfRangeEarliest(leaderStart, leo int64) (to int64, fully bool) {
	if leaderStart > leo {
		return leaderStart, true
	}
	return leo, false
}
