package classic

import "testing"

// ClassicGroupTest.testSelectProtocol: each member votes for its first
// choice among the protocols all members support.
func TestSelectProtocol(t *testing.T) {
	g := New("group-id", testConfig(), 0)
	add := func(id string, names ...string) {
		var ps []Protocol
		for _, n := range names {
			ps = append(ps, Protocol{Name: n})
		}
		g.add(&Member{ID: id, ProtocolType: "consumer", Protocols: ps})
	}
	add("member", "range", "roundrobin")
	if got := g.selectProtocol(); got != "range" {
		t.Fatalf("one member: %s, want range", got)
	}
	add("member2", "roundrobin", "range")
	add("member3", "roundrobin", "range")
	if got := g.selectProtocol(); got != "roundrobin" {
		t.Fatalf("three members: %s, want roundrobin (2 votes to 1)", got)
	}
	// ClassicGroupTest.testSelectProtocolRaisesIfNoMembers has no Go
	// counterpart: an empty group selects "" and goes Empty instead.
	add("member4", "sticky", "range")
	if got := g.selectProtocol(); got != "range" {
		t.Fatalf("only range is common: %s, want range", got)
	}
}
