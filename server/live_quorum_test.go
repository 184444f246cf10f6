package server

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The controller quorum runs in virtual time, as the rest of the cluster
// does: between two commands nothing moves it, however long the server
// waits. The live page drawn twice with no command in between is the
// same page byte for byte, the quorum panel (epochs, high watermarks, log
// end offsets, roles) included.
func TestLivePageStandsStillBetweenCommands(t *testing.T) {
	s, ts := newTestServer(t)
	code, first := get(t, ts.URL+"/live")
	if code != http.StatusOK {
		t.Fatalf("GET /live: %d", code)
	}
	for _, want := range []string{`id="quorum"`, `data-epoch="`, `data-high-watermark="`, `data-role="leader"`} {
		if !strings.Contains(first, want) {
			t.Fatalf("the live page lacks %s: the comparison would not cover the quorum", want)
		}
	}
	before := currentView(t, s.live)
	// Longer than the old real-time quorum's election timeout: a quorum
	// on the wall clock would have had time to move.
	time.Sleep(1500 * time.Millisecond)
	if code, second := get(t, ts.URL+"/live"); code != http.StatusOK || second != first {
		t.Fatalf("GET /live twice with no command between: %d, the pages differ:\n%s", code, firstDifference(second, first))
	}
	if after := currentView(t, s.live); after != before {
		t.Fatalf("the view moved with no command:\n%s", firstDifference(after, before))
	}
}

// A live session on the server's own controllers has no quorum of other
// processes to follow: following pushes nothing, and the pages hear of
// nothing until a command runs.
func TestLiveSessionWithItsOwnQuorumFollowsNothing(t *testing.T) {
	s, err := newLiveSession("", nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.lab.Close() })
	sub := s.subscribe(func() {})
	defer s.unsubscribe(sub)
	before := currentView(t, s)
	if s.followQuorum() {
		t.Fatal("pushed a view for a quorum that runs in virtual time")
	}
	if after := currentView(t, s); after != before {
		t.Fatalf("following the quorum moved the view:\n%s", firstDifference(after, before))
	}
	sub.mu.Lock()
	n := len(sub.queue)
	sub.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d messages pushed with no command", n)
	}
}
