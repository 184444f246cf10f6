package replica

import (
	"testing"
	"time"
)

const s = time.Second

// Replica.updateFetchStateOrThrow: how a fetch moves lastCaughtUpTimeMs.
func TestUpdateFetchState(t *testing.T) {
	for _, c := range []struct {
		name                  string
		before                Follower
		fetchOffset           int64
		now                   time.Duration
		leaderEnd             int64
		wantCaughtUp          time.Duration
		wantLastFetchLeaderLE int64
	}{
		{"reaches the leader's end: caught up now",
			Follower{LEO: 5, LastFetchLeaderLEO: 8, LastFetchTime: 3 * s, LastCaughtUp: 1 * s}, 10, 4 * s, 10, 4 * s, 10},
		{"reaches where the leader ended at the previous fetch: caught up as of that fetch",
			Follower{LEO: 5, LastFetchLeaderLEO: 8, LastFetchTime: 3 * s, LastCaughtUp: 1 * s}, 8, 4 * s, 12, 3 * s, 12},
		{"behind both: unchanged",
			Follower{LEO: 5, LastFetchLeaderLEO: 8, LastFetchTime: 3 * s, LastCaughtUp: 1 * s}, 6, 4 * s, 12, 1 * s, 12},
		{"never moves back",
			Follower{LEO: 5, LastFetchLeaderLEO: 8, LastFetchTime: 3 * s, LastCaughtUp: 5 * s}, 8, 4 * s, 12, 5 * s, 12},
		{"lastFetchLeaderLogEndOffset keeps the max (a leader end seen earlier stays)",
			Follower{LEO: 5, LastFetchLeaderLEO: 20, LastFetchTime: 3 * s}, 6, 4 * s, 12, 0, 20},
	} {
		f := c.before
		f.UpdateFetchState(c.fetchOffset, c.now, c.leaderEnd)
		if f.LastCaughtUp != c.wantCaughtUp || f.LEO != c.fetchOffset || f.LastFetchTime != c.now || f.LastFetchLeaderLEO != c.wantLastFetchLeaderLE {
			t.Errorf("%s: got %+v, want lastCaughtUp %v, LEO %d, lastFetchLeaderLEO %d", c.name, f, c.wantCaughtUp, c.fetchOffset, c.wantLastFetchLeaderLE)
		}
	}
}

// ReplicaState.isCaughtUp.
func TestIsCaughtUp(t *testing.T) {
	for _, c := range []struct {
		name      string
		f         Follower
		leaderEnd int64
		now       time.Duration
		want      bool
	}{
		{"same log end, silent for long (idle partition)", Follower{LEO: 7, LastCaughtUp: 0}, 7, 100 * s, true},
		{"behind, caught up within the lag", Follower{LEO: 5, LastCaughtUp: 71 * s}, 7, 100 * s, true},
		{"behind, caught up exactly maxLag ago", Follower{LEO: 5, LastCaughtUp: 70 * s}, 7, 100 * s, true},
		{"behind for longer than the lag", Follower{LEO: 5, LastCaughtUp: 69 * s}, 7, 100 * s, false},
		{"position unknown, ISR member reset now", NewFollower(2, 100*s, true), 7, 100 * s, true},
	} {
		if got := c.f.IsCaughtUp(c.leaderEnd, c.now, 30*s); got != c.want {
			t.Errorf("%s: IsCaughtUp = %v, want %v", c.name, got, c.want)
		}
	}
}

// Replica.resetReplicaState, as Partition.makeLeader calls it for each
// follower. A new leader (isNewLeader) forgets every position; a broker
// that stays leader in a new epoch keeps the follower's position, takes the
// epoch start offset as the leader's end at the last fetch, and sets the
// last fetch and caught-up times to now for ISR members, 0 for others.
func TestResetFollower(t *testing.T) {
	prev := Follower{ID: 2, LEO: 40, LastFetchLeaderLEO: 45, LastFetchTime: 3 * s, LastCaughtUp: 2 * s}
	for _, c := range []struct {
		name               string
		isNewLeader, inISR bool
		want               Follower
	}{
		{"new leader, ISR member", true, true, Follower{ID: 2, LEO: UnknownOffset, LastFetchLeaderLEO: UnknownOffset, LastCaughtUp: 9 * s}},
		{"new leader, outside the ISR", true, false, Follower{ID: 2, LEO: UnknownOffset, LastFetchLeaderLEO: UnknownOffset}},
		{"same leader, ISR member", false, true, Follower{ID: 2, LEO: 40, LastFetchLeaderLEO: 50, LastFetchTime: 9 * s, LastCaughtUp: 9 * s}},
		{"same leader, outside the ISR", false, false, Follower{ID: 2, LEO: 40, LastFetchLeaderLEO: 50}},
	} {
		if got := ResetFollower(prev, 9*s, 50, c.isNewLeader, c.inISR); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// Replica.resetReplicaState (isNewLeader): ISR members start caught up now,
// others at 0, and every position is unknown.
func TestNewFollower(t *testing.T) {
	in, out := NewFollower(2, 9*s, true), NewFollower(3, 9*s, false)
	if in.LEO != UnknownOffset || in.LastFetchLeaderLEO != UnknownOffset || in.LastCaughtUp != 9*s {
		t.Errorf("ISR member: %+v", in)
	}
	if out.LEO != UnknownOffset || out.LastCaughtUp != 0 {
		t.Errorf("non-member: %+v", out)
	}
}
