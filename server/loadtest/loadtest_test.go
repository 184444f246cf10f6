package loadtest

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestShortLoad runs the load check small, bounded by update counts
// rather than wall time: five pages, two participant clusters, until
// every page received three updates. The report must hold what a full run
// reports: every page got updates, latencies were measured, bytes went
// over the wire compressed, and the goroutines went away with the pages,
// with the participants' clusters (removed with DELETE) and with the
// server.
func TestShortLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server with three clusters")
	}
	r, err := Run(context.Background(), Config{
		Clients:          5,
		Participants:     2,
		MinUpdates:       3,
		Timeout:          time.Minute,
		ParticipantEvery: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r.Print(&out)
	t.Log("\n" + out.String())
	if f := r.Failures(); len(f) > 0 {
		t.Fatalf("the run failed: %s", strings.Join(f, "\n"))
	}
	if r.ParticipantClusters != 2 || r.Live.Count != 3 || r.Participant.Count != 2 {
		t.Errorf("%d participant clusters, %d pages on the instructor's and %d on participants': want 2, 3, 2",
			r.ParticipantClusters, r.Live.Count, r.Participant.Count)
	}
	for name, g := range map[string]Pages{"instructor's": r.Live, "participants'": r.Participant} {
		if g.Updates < 3*int64(g.Count) {
			t.Errorf("the %s pages received %d updates in the window, want at least 3 each", name, g.Updates)
		}
		if g.NoUpdate != 0 {
			t.Errorf("%d of the %s pages never received an update", g.NoUpdate, name)
		}
		// Compression as the browser negotiates it: an HTML view shrinks
		// several times on the wire.
		if g.Wire <= 0 || g.Wire >= g.Decoded {
			t.Errorf("the %s pages read %d bytes on the wire for %d decoded: want compressed bytes counted", name, g.Wire, g.Decoded)
		}
	}
	if r.Live.Samples == 0 || r.Live.P50 < 0 || r.Live.P99 < r.Live.P50 || r.Live.Max < r.Live.P99 {
		t.Errorf("latencies of the instructor's pages: %d samples, p50 %.1f, p99 %.1f, max %.1f ms", r.Live.Samples, r.Live.P50, r.Live.P99, r.Live.Max)
	}
	// Every update carries its id and publish time (issue 14, item 5):
	// without them latency falls back to a coarser measure and gaps go
	// unseen.
	if n := r.Live.NoAt + r.Participant.NoAt + r.Live.NoID + r.Participant.NoID; n != 0 || !r.LatencyFromAt {
		t.Errorf("updates without \"at\" or id: %d (latency from %s)", n, r.LatencyFrom)
	}
	if r.Server.Published == 0 || r.Server.Sent == 0 || r.Server.SentBytes == 0 {
		t.Errorf("the server counted %+v in the window: want updates published and sent", r.Server)
	}
	if r.Heap.PerCluster <= 0 {
		t.Errorf("heap per participant cluster %d: opening a cluster must cost something", r.Heap.PerCluster)
	}
	// An idle cluster runs no goroutine of its own (its controller
	// quorum runs in virtual time, with the commands): opening the
	// participants' clusters adds none beyond the slack.
	g := r.Goroutines
	if g.InstructorOnly <= g.Baseline || g.WithClusters > g.InstructorOnly+goroutineSlack || g.Peak <= g.WithClusters ||
		g.AfterClients > g.WithClusters+goroutineSlack || g.AfterRemoval > g.InstructorOnly+goroutineSlack || g.AfterServer > g.Baseline+goroutineSlack {
		t.Errorf("goroutines: baseline %d, instructor's cluster %d, all clusters %d, peak %d, pages closed %d, clusters removed %d, server closed %d",
			g.Baseline, g.InstructorOnly, g.WithClusters, g.Peak, g.AfterClients, g.AfterRemoval, g.AfterServer)
	}
	if r.Instructor.OK == 0 || r.ParticipantCommands.OK == 0 {
		t.Errorf("commands that ran: instructor %d, participants %d", r.Instructor.OK, r.ParticipantCommands.OK)
	}
}
