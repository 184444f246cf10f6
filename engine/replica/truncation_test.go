package replica

import (
	"testing"

	"github.com/loglab/loglab/engine/protocol"
)

// epochs answers endOffsetFor like LeaderEpochFileCache over a history of
// (epoch, start offset) pairs, oldest first, of a log ending at leo.
func epochs(leo int64, history ...[2]int64) EndOffsetFor {
	return func(requested int32) (int32, int64) {
		n := len(history)
		switch {
		case requested == UndefinedEpoch || n == 0 || int64(requested) > history[n-1][0]:
			return UndefinedEpoch, UndefinedOffset
		case int64(requested) == history[n-1][0]:
			return requested, leo
		case int64(requested) < history[0][0]:
			return requested, history[0][1]
		}
		for i := n - 2; i >= 0; i-- {
			if history[i][0] <= int64(requested) {
				return int32(history[i][0]), history[i+1][1]
			}
		}
		return UndefinedEpoch, UndefinedOffset
	}
}

// AbstractFetcherThread.getOffsetTruncationState.
func TestTruncation(t *testing.T) {
	for _, c := range []struct {
		name        string
		leaderEpoch int32
		leaderEnd   int64
		local       EndOffsetFor
		leo         int64
		to          int64
		final       bool
	}{
		{"the follower knows the epoch: min of both ends",
			0, 3, epochs(5, [2]int64{0, 0}, [2]int64{1, 2}), 5, 2, true},
		{"the leader's epoch ended earlier than ours",
			1, 3, epochs(5, [2]int64{0, 0}, [2]int64{1, 2}), 5, 3, true},
		{"the follower lacks the leader's epoch: cut to the end of its largest epoch below it, ask again",
			3, 3, epochs(2, [2]int64{0, 0}, [2]int64{4, 1}), 2, 1, false},
		{"the leader's epoch is older than the follower's whole history: that history goes",
			0, 1, epochs(1, [2]int64{1, 0}), 1, 0, true},
		{"the follower tracks no epochs: the leader's offset",
			2, 4, epochs(6), 6, 4, true},
		{"undefined leader epoch: the leader's offset, never past our end",
			UndefinedEpoch, 9, epochs(6, [2]int64{0, 0}), 6, 6, true},
		{"undefined leader offset: stay at the fetch offset",
			0, UndefinedOffset, epochs(6, [2]int64{0, 0}), 6, 6, true},
	} {
		to, final := Truncation(c.leaderEpoch, c.leaderEnd, c.local, c.leo, c.leo)
		if to != c.to || final != c.final {
			t.Errorf("%s: Truncation = (%d, %v), want (%d, %v)", c.name, to, final, c.to, c.final)
		}
	}
}

// The livelock of issue 9 item 4, end to end on the two histories: the
// follower (epochs 0@0, 4@1, log end 2) fetches from a leader (epochs 0@0,
// 3@2, 6@3, log end 4). Each round is Partition.readRecords on the leader
// and getOffsetTruncationState on the follower; it must settle in two.
func TestDivergingEpochsSettle(t *testing.T) {
	leader := epochs(4, [2]int64{0, 0}, [2]int64{3, 2}, [2]int64{6, 3})
	history := [][2]int64{{0, 0}, {4, 1}}
	leo := int64(2)
	for round := 0; ; round++ {
		if round == 3 {
			t.Fatalf("still diverging after %d rounds: follower history %v, log end %d", round, history, leo)
		}
		last := int32(history[len(history)-1][0])
		div, code := ReadCheck(last, leo, 0, 4, leader)
		if code != protocol.None {
			t.Fatalf("round %d: %s", round, code.Name())
		}
		if div == nil {
			break
		}
		to, _ := Truncation(div.Epoch, div.EndOffset, epochs(leo, history...), leo, leo)
		leo = to
		for len(history) > 0 && history[len(history)-1][1] >= leo {
			history = history[:len(history)-1]
		}
	}
	if leo != 1 {
		t.Fatalf("follower fetches from %d, want 1 (the end of the epoch both have)", leo)
	}
}

// AbstractFetcherThread.fetchOffsetAndTruncate, its two steps.
func TestOutOfRange(t *testing.T) {
	for _, c := range []struct {
		name      string
		leaderEnd int64
		leo       int64
		to        int64
		done      bool
	}{
		{"the leader's log ends below ours (unclean election): truncate to it", 3, 5, 3, true},
		{"the leader's log reaches ours: ask for its log start", 11, 1, 1, false},
		{"equal ends: ask for its log start", 5, 5, 5, false},
	} {
		to, done := OutOfRangeLatest(c.leaderEnd, c.leo)
		if to != c.to || done != c.done {
			t.Errorf("%s: OutOfRangeLatest = (%d, %v), want (%d, %v)", c.name, to, done, c.to, c.done)
		}
	}
	for _, c := range []struct {
		name        string
		leaderStart int64
		leo         int64
		to          int64
		fully       bool
	}{
		{"retention moved the leader's start past our end: truncateFullyAndStartAt", 11, 1, 11, true},
		{"the leader's start is within our log: fetch from our end", 2, 5, 5, false},
		{"the leader's start is our end: fetch from it, nothing to empty", 5, 5, 5, false},
	} {
		to, fully := OutOfRangeEarliest(c.leaderStart, c.leo)
		if to != c.to || fully != c.fully {
			t.Errorf("%s: OutOfRangeEarliest = (%d, %v), want (%d, %v)", c.name, to, fully, c.to, c.fully)
		}
	}
}

// Partition.readRecords' checks before it reads for a follower.
func TestReadCheck(t *testing.T) {
	leader := epochs(10, [2]int64{2, 4}, [2]int64{5, 7})
	for _, c := range []struct {
		name      string
		lastEpoch int32
		fetch     int64
		logStart  int64
		div       *protocol.EpochEndOffset
		code      protocol.ErrorCode
	}{
		{"same history", 5, 9, 4, nil, protocol.None},
		{"our epoch ended earlier on the leader", 2, 8, 4, &protocol.EpochEndOffset{Epoch: 2, EndOffset: 7}, protocol.None},
		{"an epoch the leader never had", 4, 7, 4, &protocol.EpochEndOffset{Epoch: 2, EndOffset: 7}, protocol.None},
		{"an epoch older than the leader's history", 1, 6, 4, &protocol.EpochEndOffset{Epoch: 1, EndOffset: 4}, protocol.None},
		{"below the log start, whatever the epochs", 2, 3, 4, nil, protocol.OffsetOutOfRange},
		{"no epoch, below the log start", -1, 1, 4, nil, protocol.OffsetOutOfRange},
		{"no epoch, past the log end", -1, 11, 4, nil, protocol.OffsetOutOfRange},
		{"an epoch newer than the leader's", 6, 10, 4, nil, protocol.OffsetOutOfRange},
	} {
		div, code := ReadCheck(c.lastEpoch, c.fetch, c.logStart, 10, leader)
		if code != c.code || (div == nil) != (c.div == nil) || (div != nil && *div != *c.div) {
			t.Errorf("%s: ReadCheck = (%v, %s), want (%v, %s)", c.name, div, code.Name(), c.div, c.code.Name())
		}
	}
}
