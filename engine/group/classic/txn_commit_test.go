package classic

import "testing"

// TestValidateTxnOffsetCommit mirrors ClassicGroup.validateOffsetCommit
// with isTransactional=true (KIP-447's fencing of a zombie consumer's
// transactional offsets), beside the OffsetCommit answer for the same
// request where the two differ.
func TestValidateTxnOffsetCommit(t *testing.T) {
	stable := func() *Group {
		return Restore("g", testConfig(), 0, 2, "consumer", "range", "m1", 0,
			[]Member{{ID: "m1", Protocols: []Protocol{{Name: "range"}}, SessionTimeoutMs: 10000},
				{ID: "s1", InstanceID: "i1", Protocols: []Protocol{{Name: "range"}}, SessionTimeoutMs: 10000}})
	}
	empty := func() *Group { return Restore("g", testConfig(), 0, 2, "consumer", "", "", 0, nil) }
	completing := func() *Group {
		g := Restore("g", testConfig(), 0, 2, "consumer", "range", "m1", 0,
			[]Member{{ID: "m1", Protocols: []Protocol{{Name: "range"}}, SessionTimeoutMs: 10000}})
		g.prepareRebalance(0)
		g.join(0, JoinRequest{Ref: 1, MemberID: "m1", ProtocolType: "consumer", Protocols: []Protocol{{Name: "range"}}, SessionTimeoutMs: 10000, RebalanceTimeoutMs: 10000})
		if g.State() != CompletingRebalance {
			t.Fatalf("state %s", g.State())
		}
		return g
	}
	cases := []struct {
		name       string
		g          *Group
		member     string
		instance   string
		gen        int32
		want       Error
		wantCommit Error // what an OffsetCommit gets
	}{
		{"no membership, empty group", empty(), "", "", -1, None, None},
		{"no membership, group with members: accepted (old producers send none)", stable(), "", "", -1, None, UnknownMemberID},
		{"member of the current generation", stable(), "m1", "", 2, None, None},
		{"zombie of an older generation", stable(), "m1", "", 1, IllegalGeneration, IllegalGeneration},
		{"member the group removed", stable(), "gone", "", 2, UnknownMemberID, UnknownMemberID},
		{"static member replaced by a new instance", stable(), "old-s1", "i1", 2, FencedInstanceID, FencedInstanceID},
		{"unknown static instance", stable(), "m1", "i9", 2, UnknownMemberID, UnknownMemberID},
		{"member id with generation -1", stable(), "m1", "", -1, IllegalGeneration, IllegalGeneration},
	}
	for _, c := range cases {
		if got := c.g.ValidateTxnOffsetCommit(c.member, c.instance, c.gen); got != c.want {
			t.Errorf("%s: txn commit got %s, want %s", c.name, got, c.want)
		}
		if got := c.g.ValidateOffsetCommit(0, c.member, c.instance, c.gen); got != c.wantCommit {
			t.Errorf("%s: offset commit got %s, want %s", c.name, got, c.wantCommit)
		}
	}
	// CompletingRebalance: the transactional commit is not refused.
	g := completing()
	if got := g.ValidateTxnOffsetCommit("m1", "", g.Generation()); got != None {
		t.Errorf("completing rebalance: txn commit got %s, want NONE", got)
	}
	if got := g.ValidateOffsetCommit(0, "m1", "", g.Generation()); got != RebalanceInProgress {
		t.Errorf("completing rebalance: offset commit got %s", got)
	}
	dead := empty()
	dead.state = Dead
	if got := dead.ValidateTxnOffsetCommit("", "", -1); got != CoordinatorNotAvailable {
		t.Errorf("dead group: got %s", got)
	}
}
