package lessons

import "testing"

// TestQuorumChecks: lesson 25's scenario, reduced. The first leader leads
// epoch 1 and writes LeaderChange at offset 0; a follower cut off keeps
// its epoch (pre-vote); a leader cut off with a registration of its own
// holds it uncommitted, resigns by check-quorum while the majority elects
// (a split vote, then epoch 3), and truncates it once healed, holding the
// new leader's LeaderChange at that offset; a broker cut off while the
// leader snapshots loads the snapshot (FetchSnapshot), while the leader's
// own log no longer holds what the snapshot replaced.
func TestQuorumChecks(t *testing.T) {
	p := NewPlayer()
	defer p.Close()
	runAll(p, "cluster brokers=3 seed=11", "topic create orders partitions=3 rf=3")
	expectChecks(t, p, "started", []checkCase{
		{"quorum-epoch", nil, "1"},
		{"controller-role", []string{"3"}, "Leader"},
		{"controller-role", []string{"1"}, "Follower"},
		{"controller-epoch", []string{"1"}, "1"},
		{"metadata-record", []string{"0"}, "LeaderChange"},
		{"metadata-record", []string{"7"}, "Topic"},
		{"metadata-record", []string{"11"}, "none"},
		{"controller-record", []string{"3", "0"}, "LeaderChange"},
		{"controller-record", []string{"1", "11"}, "none"},
		{"observers", nil, "1,2,3"},
		{"observer-snapshot", []string{"2"}, "none"},
	})
	runAll(p, "net partition (c1) (c2,c3)", "tick 10s")
	expectChecks(t, p, "controller 1 alone for 10 s", []checkCase{
		{"controller-epoch", []string{"1"}, "1"}, // pre-votes only: no candidacy, no new epoch
		{"quorum-epoch", nil, "1"},
	})
	runAll(p, "net heal", "tick 3s", "broker crash 2", "tick 10s", "net partition (c3) (c1,c2)", "broker restart 2", "tick 200ms")
	expectChecks(t, p, "the leader alone with a registration", []checkCase{
		{"controller-record", []string{"3", "15"}, "RegisterBroker"},
		{"controller-record", []string{"1", "15"}, "none"},
		{"metadata-record", []string{"15"}, "none"},
		{"metadata-offset", nil, "14"},
	})
	runAll(p, "tick 3s")
	expectChecks(t, p, "check-quorum", []checkCase{
		{"controller-role", []string{"3"}, "Resigned"},
		{"controller-epoch", []string{"3"}, "1"},
		{"quorum-epoch", nil, "3"},
		{"active-controller", nil, "2"},
		{"metadata-record", []string{"15"}, "LeaderChange"},
	})
	runAll(p, "net heal", "tick 3s")
	expectChecks(t, p, "healed", []checkCase{
		{"controller-record", []string{"3", "15"}, "LeaderChange"},
		{"controller-role", []string{"3"}, "Follower"},
		{"controller-epoch", []string{"3"}, "3"},
	})
	runAll(p, "net partition (2) (c1,c2,c3)",
		"topic create audit1 rf=3 min.insync.replicas=2 retention.ms=604800000 cleanup.policy=delete",
		"topic create audit2 rf=3 min.insync.replicas=2 retention.ms=604800000 cleanup.policy=delete",
		"topic create audit3 rf=3 min.insync.replicas=2 retention.ms=604800000 cleanup.policy=delete")
	expectChecks(t, p, "snapshotted while broker 2 is cut off", []checkCase{
		{"metadata-record", []string{"0"}, "LeaderChange"}, // show metadata still lists it
		{"controller-record", []string{"2", "20"}, "none"}, // the leader's own log starts at its snapshot
		{"observer-snapshot", []string{"2"}, "none"},
	})
	runAll(p, "net heal", "tick 5s")
	expectChecks(t, p, "broker 2 caught up", []checkCase{{"observer-snapshot", []string{"2"}, "36"}})
	runAll(p, "controller crash 2")
	expectChecks(t, p, "the leader crashed", []checkCase{
		{"controller-role", []string{"2"}, "down"},
		{"controller-epoch", []string{"2"}, "down"},
		{"quorum-epoch", nil, "none"},
		{"observers", nil, "none"},
	})
	for _, bad := range [][]string{{"quorum-epoch", "1"}, {"controller-role"}, {"controller-role", "9"}, {"controller-epoch", "x"},
		{"controller-record", "1"}, {"controller-record", "1", "-1"}, {"metadata-record", "x"}, {"observers", "1"},
		{"observer-snapshot", "7"}, {"observer-snapshot", "b1"}} {
		if _, err := p.Evaluate(bad[0], bad[1:]); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// Before a cluster exists the quorum checks say so instead of guessing.
func TestQuorumChecksWithoutACluster(t *testing.T) {
	p := NewPlayer()
	defer p.Close()
	for _, c := range [][]string{{"quorum-epoch"}, {"controller-role", "1"}, {"controller-epoch", "1"}, {"controller-record", "1", "0"},
		{"metadata-record", "0"}, {"observers"}, {"observer-snapshot", "1"}} {
		if _, err := p.Evaluate(c[0], c[1:]); err == nil {
			t.Errorf("%v without a cluster: no error", c)
		}
	}
}
