package classic

import "testing"

// TestRestore mirrors GroupMetadataManager.replay (ClassicGroup.fromRecord)
// followed by onLoaded: a group written with members comes back Stable
// with their assignments and running session timers; one written without
// members comes back Empty.
func TestRestore(t *testing.T) {
	members := []Member{
		{ID: "c1-a", ClientID: "c1", Protocols: []Protocol{{Name: "range", Metadata: "s1"}}, SessionTimeoutMs: 45000, RebalanceTimeoutMs: 300000, Assignment: "a1"},
		{ID: "c2-b", ClientID: "c2", Protocols: []Protocol{{Name: "range", Metadata: "s2"}}, SessionTimeoutMs: 10000, RebalanceTimeoutMs: 300000, Assignment: "a2"},
	}
	cfg := testConfig()
	g := Restore("g", cfg, 1000, 3, "consumer", "range", "c2-b", 500, members)
	if g.State() != Stable || g.Generation() != 3 || g.Leader() != "c2-b" || g.ProtocolName() != "range" {
		t.Fatalf("restored %s gen %d leader %s protocol %s", g.State(), g.Generation(), g.Leader(), g.ProtocolName())
	}
	if got := g.Timers(); len(got) != 2 || got[0] != (Timer{"heartbeat/c2-b", 11000}) || got[1] != (Timer{"heartbeat/c1-a", 46000}) {
		t.Fatalf("timers %v", got)
	}
	// The members heartbeat the new coordinator at their generation: no
	// rebalance (onLoaded's rescheduleClassicGroupMemberHeartbeat).
	if err := g.Heartbeat(5000, HeartbeatRequest{MemberID: "c1-a", GenerationID: 3}); err != None {
		t.Fatalf("heartbeat: %s", err)
	}
	if err := g.Heartbeat(5000, HeartbeatRequest{MemberID: "c1-a", GenerationID: 2}); err != IllegalGeneration {
		t.Fatalf("old generation: %s", err)
	}
	// A late SyncGroup gets the stored assignment.
	rs := g.Sync(5000, SyncRequest{Ref: 1, MemberID: "c2-b", GenerationID: 3})
	if len(rs) != 1 || rs[0].Sync.Error != None || rs[0].Sync.Assignment != "a2" {
		t.Fatalf("sync %+v", rs)
	}
	// A member that never comes back is expired and the group rebalances.
	g.Tick(11000)
	if g.State() != PreparingRebalance || len(g.Members()) != 1 {
		t.Fatalf("after c2's session: %s with %d members", g.State(), len(g.Members()))
	}

	e := Restore("g", cfg, 1000, 4, "consumer", "", "", 700, nil)
	if e.State() != Empty || e.Generation() != 4 || e.StateSince() != 700 || len(e.Timers()) != 0 {
		t.Fatalf("empty restore: %s gen %d since %d timers %v", e.State(), e.Generation(), e.StateSince(), e.Timers())
	}
}

// TestValidateOffsetCommit mirrors ClassicGroup.validateOffsetCommit.
func TestValidateOffsetCommit(t *testing.T) {
	stable := func() *Group {
		return Restore("g", testConfig(), 0, 2, "consumer", "range", "m1", 0,
			[]Member{{ID: "m1", Protocols: []Protocol{{Name: "range"}}, SessionTimeoutMs: 10000}})
	}
	empty := func() *Group { return Restore("g", testConfig(), 0, 2, "consumer", "", "", 0, nil) }
	cases := []struct {
		name     string
		g        *Group
		member   string
		instance string
		gen      int32
		want     Error
	}{
		{"admin commit to an empty group", empty(), "", "", -1, None},
		{"admin commit to a group with members", stable(), "", "", -1, UnknownMemberID},
		{"member of the current generation", stable(), "m1", "", 2, None},
		{"unknown member", stable(), "m9", "", 2, UnknownMemberID},
		{"old generation", stable(), "m1", "", 1, IllegalGeneration},
		{"unknown static instance", stable(), "m1", "i1", 2, UnknownMemberID},
		{"member id with generation -1", stable(), "m1", "", -1, IllegalGeneration},
	}
	for _, c := range cases {
		if got := c.g.ValidateOffsetCommit(100, c.member, c.instance, c.gen); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
	// A valid commit restarts the member's session.
	g := stable()
	g.ValidateOffsetCommit(7000, "m1", "", 2)
	if tm := g.Timers(); len(tm) != 1 || tm[0].At != 17000 {
		t.Fatalf("commit did not restart the session: %v", tm)
	}
	g.prepareRebalance(8000)
	g.ValidateOffsetCommit(8000, "m1", "", 2)
	// CompletingRebalance: REBALANCE_IN_PROGRESS.
	g2 := stable()
	g2.prepareRebalance(0)
	g2.join(0, JoinRequest{Ref: 1, MemberID: "m1", ProtocolType: "consumer", Protocols: []Protocol{{Name: "range"}}, SessionTimeoutMs: 10000, RebalanceTimeoutMs: 10000})
	if g2.State() != CompletingRebalance {
		t.Fatalf("state %s", g2.State())
	}
	if got := g2.ValidateOffsetCommit(0, "m1", "", g2.Generation()); got != RebalanceInProgress {
		t.Fatalf("completing rebalance: %s", got)
	}
}
