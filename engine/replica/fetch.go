package replica

import "github.com/loglab/loglab/engine/protocol"

// ReadCheck is the leader's validation of a follower's fetch before it
// reads (Partition.readRecords): the follower names the epoch of its last
// record (lastFetchedEpoch, negative for none) and its log end
// (fetchOffset). If the leader's copy of that epoch ended earlier, or the
// leader never had the epoch, the follower's log has a suffix the leader's
// lacks: the answer is a diverging epoch, the leader's largest epoch at or
// below the follower's and where it ended (KIP-595's truncation on fetch).
// A fetch below the log start, past the log end, or naming an epoch the
// leader cannot place is OFFSET_OUT_OF_RANGE.
func ReadCheck(lastFetchedEpoch int32, fetchOffset, logStart, leo int64, leader EndOffsetFor) (div *protocol.EpochEndOffset, code protocol.ErrorCode) {
	if lastFetchedEpoch >= 0 {
		epoch, end := leader(lastFetchedEpoch)
		switch {
		case epoch == UndefinedEpoch || end == UndefinedOffset:
			return nil, protocol.OffsetOutOfRange
		case fetchOffset < logStart:
			// Below the log start, whatever the epochs say.
			return nil, protocol.OffsetOutOfRange
		case epoch < lastFetchedEpoch || end < fetchOffset:
			return &protocol.EpochEndOffset{Epoch: epoch, EndOffset: end}, protocol.None
		}
	}
	if fetchOffset < logStart || fetchOffset > leo {
		return nil, protocol.OffsetOutOfRange
	}
	return nil, protocol.None
}
