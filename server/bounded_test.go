package server

import (
	"context"
	"strings"
	"testing"

	"github.com/loglab/loglab/web"
)

// One `produce orders value=<3.9 KB> count=20000` once pushed a 28 MB
// update to every page and to every later page load. However long the
// logs and the outputs, an update stays within maxUpdateBytes: the view
// summarises the logs, the transcript entry keeps its output's head and
// tail.
func TestUpdatesStayBoundedWithALargeLog(t *testing.T) {
	s, _ := newTestServer(t)
	value := strings.Repeat("v", 3900)
	// About 6.8 MB in one log (rf=1: the engine bounds a produce to 1 MiB
	// and a cluster's logs to 8 MiB, replicas counted), in 68 segments
	// with an index entry per batch.
	lines := []string{"topic create big partitions=1 rf=1 segment.bytes=100000 index.interval.bytes=0"}
	for range 7 {
		lines = append(lines, "produce big key=k value="+value+" count=250")
	}
	for _, line := range lines {
		if e := s.live.run(line); !e.OK {
			t.Fatalf("%.60s: %s", line, e.Output)
		}
	}
	e := s.live.run("show log big/0")
	if !e.OK || len(e.Output) < 7*250*3900 {
		t.Fatalf("show log printed %d bytes", len(e.Output))
	}
	msg := wholeUpdate(t, s.live)
	t.Logf("update after a %d-byte output, with 1,750 records of 3.9 KB in one log: %d bytes", len(e.Output), len(msg))
	if len(msg) > maxUpdateBytes {
		t.Fatalf("update of %d bytes, over maxUpdateBytes (%d)", len(msg), maxUpdateBytes)
	}
	if !strings.Contains(s.live.history[len(s.live.history)-1].Output, "bytes cut") {
		t.Error("the transcript entry does not say its output was cut")
	}
}

// A page load replays the history: at most historyShown entries and
// maxHistoryBytes of them, however long each output was.
func TestPageLoadStaysBounded(t *testing.T) {
	s, ts := newTestServer(t)
	for range historyShown + 10 {
		s.live.run("help") // about 5 KB each
	}
	_, page := get(t, ts.URL+"/live")
	v, _ := s.live.snapshot()
	view, err := web.RenderString(context.Background(), web.ClusterView(v))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("page after %d help commands: %d bytes, %d of them the view", historyShown+10, len(page), len(view))
	if len(page) > maxPageBytes {
		t.Fatalf("page of %d bytes, over maxPageBytes (%d)", len(page), maxPageBytes)
	}
	if history := len(page) - len(view); history > maxPageHistoryBytes {
		t.Fatalf("the page's transcript takes %d bytes, over maxPageHistoryBytes (%d)", history, maxPageHistoryBytes)
	}
	if !strings.Contains(page, "help") {
		t.Fatal("the newest entries are missing")
	}
}
