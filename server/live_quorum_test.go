package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// Raft elects another leader on its own while nobody types (a busy
// machine): the live session notices, hands the leadership back and
// pushes the view again, without a transcript entry; an idle cluster
// whose raft agrees pushes nothing.
func TestLiveSessionFollowsAnElectionRaftHeldOnItsOwn(t *testing.T) {
	s, err := newLiveSession("", nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.lab.Close() })
	sub := s.subscribe(func() {})
	defer s.unsubscribe(sub)
	if s.followQuorum() {
		t.Fatal("pushed a view while raft and the cluster agree")
	}
	c := s.lab.Cluster()
	active := c.ActiveController()
	if err := c.RaftHiccup(); err != nil {
		t.Fatal(err)
	}
	if !c.QuorumDrifted() {
		t.Fatal("the hiccup left raft's leader in place: the test proves nothing")
	}
	if !s.followQuorum() {
		t.Fatal("no view pushed after raft elected another leader")
	}
	if c.QuorumDrifted() || c.ActiveController() != active {
		t.Fatalf("after the push: drifted %v, active %d (was %d)", c.QuorumDrifted(), c.ActiveController(), active)
	}
	var u update
	if err := json.Unmarshal(nextMessage(t, sub), &u); err != nil {
		t.Fatal(err)
	}
	if v := changedHTML(u); u.Entry != "" || !strings.Contains(v, `id="quorum"`) || strings.Contains(v, `id="raft-drift"`) {
		t.Fatalf("pushed update: entry %q, view has the quorum %v, drift notice %v", u.Entry, strings.Contains(v, `id="quorum"`), strings.Contains(v, `id="raft-drift"`))
	}
}
