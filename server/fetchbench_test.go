package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/lessons"
)

// A `bench fetch` on a cluster: three paths, the endpoint's fetches all
// sent with sendfile, and refusals that say what is missing.
func TestBenchFetchCommand(t *testing.T) {
	s, _ := newDiskTestServer(t)
	// payments holds nothing yet: nothing worth measuring.
	if e := s.live.run("bench fetch 1"); e.OK || !strings.Contains(e.Output, "produce more records first") {
		t.Fatalf("bench fetch on an empty partition: %s", e.Output)
	}
	value := strings.Repeat("v", 1000)
	for _, line := range []string{"produce payments partition=0 count=300 value=" + value, "tick 1s"} {
		if e := s.live.run(line); !e.OK {
			t.Fatalf("%s: %s", line[:40], e.Output)
		}
	}
	e := s.live.run("bench fetch 2")
	if !e.OK {
		t.Fatalf("bench fetch 2: %s", e.Output)
	}
	t.Logf("%s", e.Output)
	for _, want := range []string{"payments/0 from offset 0", "endpoint (sendfile)", "bare sendfile", "user-space copy", "endpoint/bare throughput: "} {
		if !strings.Contains(e.Output, want) {
			t.Errorf("the output lacks %q:\n%s", want, e.Output)
		}
	}
	// Every fetch of the endpoint's path went through answerRaw's
	// ReadFrom (sendfile), none through a copy.
	if share := sendfileShare(e.Output); share != "all" {
		t.Errorf("endpoint fetches handed to sendfile: %s, want all of at least one:\n%s", share, e.Output)
	}
	// Not again at once on this cluster, and one at a time on the server.
	if e := s.live.run("bench fetch 2"); e.OK || !strings.Contains(e.Output, "at most once per 10s per cluster") {
		t.Errorf("a second bench fetch at once: %s", e.Output)
	}
	forgetBench(s.live)
	benchFetchRunning.Store(true)
	e = s.live.run("bench fetch 2")
	benchFetchRunning.Store(false)
	if e.OK || !strings.Contains(e.Output, "another bench fetch is running on this server") {
		t.Errorf("bench fetch while another runs: %s", e.Output)
	}
	for _, bad := range []string{"bench fetch 0", "bench fetch 2000", "bench fetch x", "bench", "bench sort"} {
		if e := s.live.run(bad); e.OK {
			t.Errorf("%s succeeded: %s", bad, e.Output)
		}
	}
	// In memory, there is no segment file to send.
	mem, _ := newTestServer(t)
	if e := mem.live.run("bench fetch"); e.OK || !strings.Contains(e.Output, "-data-dir") {
		t.Errorf("bench fetch in memory: %s", e.Output)
	}
}

// The native lesson played through the live session, as an instructor
// plays it: its `>` commands print exactly the lesson's transcript, as in
// `go test ./lessons`, its `>~ bench fetch` runs on the server when its
// step is entered (output not compared, but it must succeed with every
// endpoint fetch sent by sendfile), a replay to a later step does not
// measure again, and the learner may type the native command too.
func TestNativeLessonPlaysOnTheServer(t *testing.T) {
	s, _ := newDiskTestServer(t)
	l, err := lessons.Find("zero-copy-page-cache")
	if err != nil {
		t.Fatal(err)
	}
	if !l.Native {
		t.Fatal("the zero-copy lesson is not in native mode")
	}
	act := func(req lessonRequest) lessons.Change {
		t.Helper()
		s.live.mu.Lock()
		defer s.live.mu.Unlock()
		ch, panicked, err := s.live.applyLesson(req)
		if err != nil || panicked {
			t.Fatalf("%s: %v", req.Action, err)
		}
		return ch
	}
	var ran []lessons.Ran
	ran = append(ran, act(lessonRequest{Action: "open", Lesson: l.ID}).Ran...)
	for range len(l.Steps) - 1 {
		st := s.live.lesson.Status()
		if st.Phase == lessons.PhaseAsk {
			ran = append(ran, act(lessonRequest{Action: "answer", Value: json.RawMessage(`"0"`)}).Ran...)
		}
		ran = append(ran, act(lessonRequest{Action: "next"}).Ran...)
	}
	var live int
	k := 0
	for _, st := range l.Steps {
		for _, c := range st.Commands {
			if k >= len(ran) || ran[k].Command != c.Text {
				t.Fatalf("%s:%d: the server ran %d commands, not `%s` next", l.File, c.Line, k, c.Text)
			}
			r := ran[k]
			k++
			if !c.Live {
				if got := lessons.TrimLineEnds(r.Output); got != c.Want {
					t.Errorf("%s:%d: `%s` printed on the server\n%s--- want\n%s", l.File, c.Line, c.Text, got, c.Want)
				}
				continue
			}
			live++
			if !r.OK || !strings.Contains(r.Output, "metrics/0 from offset 0") || sendfileShare(r.Output) != "all" {
				t.Errorf("%s:%d: `%s` on the server: ok=%v\n%s", l.File, c.Line, c.Text, r.OK, r.Output)
			}
		}
	}
	if live == 0 || k != len(ran) {
		t.Fatalf("%d live commands, %d of %d commands matched", live, k, len(ran))
	}
	// A link to the last step replays the ones before without measuring.
	for _, r := range act(lessonRequest{Action: "goto", Step: json.RawMessage(fmt.Sprint(len(l.Steps) - 1))}).Ran {
		if strings.HasPrefix(r.Command, "bench") {
			t.Errorf("the replay measured again: %s", r.Command)
		}
	}
	// The learner types it (the lesson's own run was moments ago).
	forgetBench(s.live)
	if e := s.live.run("bench fetch 4"); !e.OK || sendfileShare(e.Output) != "all" {
		t.Errorf("bench fetch typed in the lesson: %s", e.Output)
	}
}

// sendfileShare reads bench fetch's last line: "all" when every endpoint
// fetch was handed to sendfile.
func sendfileShare(out string) string {
	var sent, of int
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "endpoint fetches handed to sendfile: "); ok {
			fmt.Sscanf(rest, "%d of %d", &sent, &of)
		}
	}
	if of > 0 && sent == of {
		return "all"
	}
	return fmt.Sprintf("%d of %d", sent, of)
}

// forgetBench lets a test measure again at once on the session's cluster.
func forgetBench(s *liveSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.benchDoneAt = time.Time{}
}
