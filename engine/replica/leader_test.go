package replica

import (
	"slices"
	"testing"

	"github.com/loglab/loglab/engine/protocol"
)

// leader builds a leader (broker 1) of replicas 1,2,3 whose followers have
// the given log end offsets (UnknownOffset: not fetched yet).
func leader(isr []int32, pending []int32, minISR int, leos map[int32]int64) *Leader {
	l := &Leader{Self: 1, Replicas: []int32{1, 2, 3}, ISR: isr, Pending: pending, MinInsyncReplicas: minISR}
	for _, id := range []int32{2, 3} {
		f := NewFollower(id, 0, slices.Contains(isr, id))
		if leo, ok := leos[id]; ok {
			f.LEO = leo
		}
		l.Followers = append(l.Followers, f)
	}
	return l
}

// Partition.maybeIncrementLeaderHW.
func TestHighWatermark(t *testing.T) {
	const now, maxLag = 100 * s, 30 * s
	// joining: replica 3 outside the ISR, fetched up to the leader's end
	// (then 10) 5 seconds ago, and has 8 of the leader's 12 now.
	joining := func(eligible bool) (*Leader, func(int32) bool) {
		l := leader([]int32{1, 2}, nil, 1, map[int32]int64{2: 12})
		l.Follower(3).LEO, l.Follower(3).LastCaughtUp = 8, 95*s
		return l, func(id int32) bool { return id != 3 || eligible }
	}
	joiningEligible, eligibleYes := joining(true)
	joiningFenced, eligibleNo := joining(false)
	all := func(int32) bool { return true }
	for _, c := range []struct {
		name     string
		l        *Leader
		eligible func(int32) bool
		hw, end  int64
		want     int64
	}{
		{"smallest log end in the ISR", leader([]int32{1, 2, 3}, nil, 1, map[int32]int64{2: 7, 3: 5}), all, 0, 10, 5},
		{"a lagging replica outside the ISR does not hold it", leader([]int32{1, 2}, nil, 1, map[int32]int64{2: 7, 3: 1}), all, 0, 10, 7},
		{"never moves back", leader([]int32{1, 2}, nil, 1, map[int32]int64{2: 3}), all, 5, 10, 5},
		{"a member whose position is unknown holds it", leader([]int32{1, 2, 3}, nil, 1, map[int32]int64{2: 7}), all, 2, 10, 2},
		{"maximal ISR: a replica being added counts at once", leader([]int32{1, 2}, []int32{1, 2, 3}, 1, map[int32]int64{2: 9, 3: 6}), all, 0, 10, 6},
		{"maximal ISR: a replica being removed still counts", leader([]int32{1, 2, 3}, []int32{1, 2}, 1, map[int32]int64{2: 9, 3: 6}), all, 0, 10, 6},
		{"shouldWaitForReplicaToJoinIsr: a caught-up follower outside the ISR holds it", joiningEligible, eligibleYes, 0, 12, 8},
		{"shouldWaitForReplicaToJoinIsr: unless it is fenced", joiningFenced, eligibleNo, 0, 12, 12},
		{"a lone leader: its own log end", leader([]int32{1}, nil, 1, nil), all, 0, 10, 10},
		{"under min ISR (KAFKA-15583): stands still", leader([]int32{1}, nil, 2, nil), all, 4, 10, 4},
		{"under min ISR while an expansion is pending: stands still (committed ISR counts)", leader([]int32{1}, []int32{1, 2}, 2, map[int32]int64{2: 10}), all, 4, 10, 4},
		{"at min ISR: moves", leader([]int32{1, 2}, nil, 2, map[int32]int64{2: 8}), all, 4, 10, 8},
	} {
		if got := c.l.HighWatermark(c.hw, c.end, now, maxLag, c.eligible); got != c.want {
			t.Errorf("%s: HighWatermark = %d, want %d", c.name, got, c.want)
		}
	}
}

// Partition.effectiveMinIsr.
func TestEffectiveMinISR(t *testing.T) {
	for _, c := range []struct {
		replicas []int32
		min      int
		want     int
	}{{[]int32{1, 2, 3}, 2, 2}, {[]int32{1}, 2, 1}, {[]int32{1, 2}, 3, 2}, {[]int32{1, 2, 3}, 1, 1}} {
		l := &Leader{Replicas: c.replicas, MinInsyncReplicas: c.min}
		if got := l.EffectiveMinISR(); got != c.want {
			t.Errorf("rf=%d min.insync.replicas=%d: effective %d, want %d", len(c.replicas), c.min, got, c.want)
		}
	}
}

// Partition.appendRecordsToLeader's min ISR check.
func TestAppendError(t *testing.T) {
	under := leader([]int32{1}, nil, 2, nil)
	rf1 := &Leader{Self: 1, Replicas: []int32{1}, ISR: []int32{1}, MinInsyncReplicas: 2}
	for _, c := range []struct {
		name string
		l    *Leader
		acks int16
		want protocol.ErrorCode
	}{
		{"acks=all under min ISR", under, -1, protocol.NotEnoughReplicas},
		{"acks=1 under min ISR is taken", under, 1, protocol.None},
		{"acks=0 under min ISR is taken", under, 0, protocol.None},
		{"acks=all at min ISR", leader([]int32{1, 2}, nil, 2, nil), -1, protocol.None},
		{"acks=all, rf=1, min.insync.replicas=2", rf1, -1, protocol.None},
	} {
		if got := c.l.AppendError(c.acks); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got.Name(), c.want.Name())
		}
	}
}

// Partition.checkEnoughReplicasReachOffset.
func TestCheckEnoughReplicasReachOffset(t *testing.T) {
	for _, c := range []struct {
		name    string
		l       *Leader
		hw, req int64
		done    bool
		want    protocol.ErrorCode
	}{
		{"below the high watermark: wait", leader([]int32{1, 2}, nil, 2, nil), 4, 5, false, protocol.None},
		{"covered, enough replicas", leader([]int32{1, 2}, nil, 2, nil), 5, 5, true, protocol.None},
		{"covered, but the maximal ISR shrank below the minimum", leader([]int32{1}, nil, 2, nil), 5, 5, true, protocol.NotEnoughReplicasAfterAppend},
		{"covered, a pending expansion counts", leader([]int32{1}, []int32{1, 2}, 2, nil), 5, 5, true, protocol.None},
	} {
		done, code := c.l.CheckEnoughReplicasReachOffset(c.hw, c.req)
		if done != c.done || code != c.want {
			t.Errorf("%s: (%v, %s), want (%v, %s)", c.name, done, code.Name(), c.done, c.want.Name())
		}
	}
}

// Partition.getOutOfSyncReplicas.
func TestOutOfSync(t *testing.T) {
	const maxLag = 30 * s
	mk := func(pending []int32, f2, f3 Follower) *Leader {
		l := leader([]int32{1, 2, 3}, pending, 1, nil)
		f2.ID, f3.ID = 2, 3
		l.Followers = []Follower{f2, f3}
		return l
	}
	for _, c := range []struct {
		name string
		l    *Leader
		want []int32
	}{
		{"idle partition: a silent follower with the whole log stays",
			mk(nil, Follower{LEO: 10, LastCaughtUp: 0}, Follower{LEO: 10, LastCaughtUp: 0}), nil},
		{"behind for longer than replica.lag.time.max.ms",
			mk(nil, Follower{LEO: 9, LastCaughtUp: 60 * s}, Follower{LEO: 10, LastCaughtUp: 0}), []int32{2}},
		{"behind, but caught up recently",
			mk(nil, Follower{LEO: 9, LastCaughtUp: 80 * s}, Follower{LEO: 3, LastCaughtUp: 75 * s}), nil},
		{"nothing while an ISR change is in flight",
			mk([]int32{1, 2}, Follower{LEO: 9, LastCaughtUp: 0}, Follower{LEO: 9, LastCaughtUp: 0}), nil},
	} {
		if got := c.l.OutOfSync(10, 100*s, maxLag); !slices.Equal(got, c.want) {
			t.Errorf("%s: OutOfSync = %v, want %v", c.name, got, c.want)
		}
	}
}

// Partition.canAddReplicaToIsr and isFollowerInSync.
func TestCanJoinISR(t *testing.T) {
	base := func(leo3 int64, pending []int32) *Leader {
		l := leader([]int32{1, 2}, pending, 1, map[int32]int64{2: 10, 3: leo3})
		l.EpochStart = 8
		return l
	}
	for _, c := range []struct {
		name     string
		l        *Leader
		id       int32
		hw       int64
		eligible bool
		want     bool
	}{
		{"reaches the high watermark and the epoch start", base(9, nil), 3, 9, true, true},
		{"below the high watermark", base(9, nil), 3, 10, true, false},
		{"below this leader's epoch start (could lose committed records if elected)", base(7, nil), 3, 6, true, false},
		{"fenced broker (KIP-841)", base(9, nil), 3, 9, false, false},
		{"already in the ISR", base(9, nil), 2, 9, true, false},
		{"a change is in flight", base(9, []int32{1, 2, 3}), 3, 9, true, false},
		{"position unknown", base(UnknownOffset, nil), 3, 0, true, false},
	} {
		if got := c.l.CanJoinISR(c.id, c.hw, c.eligible); got != c.want {
			t.Errorf("%s: CanJoinISR = %v, want %v", c.name, got, c.want)
		}
	}
}
