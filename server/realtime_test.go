package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/web"
)

// fakeWallClock is the driver's clock in tests: the test says what time
// it is and sends the ticker's times itself, so nothing waits on real time.
type fakeWallClock struct {
	now     time.Time
	ticks   chan time.Time
	started int
	stopped chan struct{}
}

func newFakeWallClock() *fakeWallClock {
	return &fakeWallClock{now: t0, ticks: make(chan time.Time), stopped: make(chan struct{}, 8)}
}

func (f *fakeWallClock) clock() realtimeClock {
	return realtimeClock{
		now: func() time.Time { return f.now },
		ticker: func(period time.Duration) (<-chan time.Time, func()) {
			f.started++
			return f.ticks, func() { f.stopped <- struct{}{} }
		},
	}
}

// realtimeSession is an in-memory live session (the starter script ran)
// whose driver runs on a fake clock.
func realtimeSession(t *testing.T) (*liveSession, *fakeWallClock) {
	t.Helper()
	s, err := newLiveSession("", nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.closeAll()
		s.mu.Lock()
		defer s.mu.Unlock()
		s.lab.Close()
	})
	fc := newFakeWallClock()
	s.realtime = &realtimeDriver{clock: fc.clock()}
	return s, fc
}

// wake is one wake-up of the running driver at ms after t0, run by the
// test itself in place of the goroutine (which waits on the fake ticker
// and never gets a time).
func wake(s *liveSession, ms int) {
	s.mu.Lock()
	run := s.realtime.run
	s.mu.Unlock()
	s.realtimeTick(run, at(ms))
}

func mustRun(t *testing.T, s *liveSession, line string) web.Entry {
	t.Helper()
	e := s.run(line)
	if !e.OK {
		t.Fatalf("%s: %s", line, e.Output)
	}
	return e
}

// viewHTML is the cluster as its pages draw it: everything a viewer
// sees, the controller quorum's panel (epochs, offsets, roles) included,
// since the quorum runs in virtual time as the rest of the cluster does.
func viewHTML(t *testing.T, l *lab.Lab) string {
	t.Helper()
	html, err := web.RenderString(context.Background(), web.ClusterView(l.View()))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html, `id="quorum"`) {
		t.Fatal("no quorum panel in the view: the comparison would leave the controllers out")
	}
	return html
}

// replayMatches runs the session's command log on a fresh lab, as
// `loglab script commands.log` does, and fails unless the lab ends where
// the session's is: same virtual time, same view, same answers to shows.
func replayMatches(t *testing.T, s *liveSession, shows ...string) string {
	t.Helper()
	text, whole := s.commandLogText()
	if !whole {
		t.Fatalf("the command log is not whole:\n%s", text)
	}
	replay := lab.New()
	defer replay.Close()
	var transcript strings.Builder
	if _, err := replay.RunScript(strings.NewReader(text), &transcript); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if got, want := replay.Cluster().Elapsed(), s.lab.Cluster().Elapsed(); got != want {
		t.Errorf("the replay's clock is at %v, the session's at %v", got, want)
	}
	if got, want := viewHTML(t, replay), viewHTML(t, s.lab); got != want {
		t.Errorf("the replay's view differs from the session's:\n%s", firstDifference(got, want))
	}
	for _, show := range shows {
		got, gotErr := replay.Run(show)
		want, wantErr := s.lab.Run(show)
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%s: the replay prints\n%s%v\nthe session\n%s%v", show, got, gotErr, want, wantErr)
		}
	}
	return transcript.String()
}

func firstDifference(a, b string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			lo := max(0, i-200)
			return "replay:  ..." + a[lo:min(len(a), i+200)] + "\nsession: ..." + b[lo:min(len(b), i+200)]
		}
	}
	return "one is a prefix of the other"
}

// A session driven by typed commands interleaved with the driver's ticks
// (at two speeds, with a pause) logs both, and replaying the log on a
// fresh lab gives the session's cluster: the clock, the view and the
// group's and log's details. This is what keeps a workshop's cluster,
// driven by the wall clock, reproducible.
func TestCommandLogReplaysARealTimeSession(t *testing.T) {
	s, fc := realtimeSession(t)
	sub := s.subscribe(func() {})
	defer s.unsubscribe(sub)
	// The page keeps up: it takes its messages after every step, so none
	// is merged into another (see queuedBeforeCoalescing).
	quiet := 0
	wake := func(s *liveSession, ms int) { wake(s, ms); quiet += quietUpdates(t, sub) }
	mustRun := func(t *testing.T, s *liveSession, line string) { mustRun(t, s, line); quiet += quietUpdates(t, sub) }
	mustRun(t, s, "realtime on speed=2")
	wake(s, 200)
	mustRun(t, s, "produce orders key=a value=one count=3")
	wake(s, 400)
	mustRun(t, s, "consumer create c1 topics=orders group=billing")
	mustRun(t, s, "poll c1")
	wake(s, 600)
	fc.now = at(700)
	mustRun(t, s, "realtime speed=10")
	for ms := 800; ms <= 4000; ms += 200 {
		wake(s, ms)
	}
	mustRun(t, s, "broker crash 2")
	fc.now = at(4100)
	mustRun(t, s, "realtime pause")
	wake(s, 4200) // paused: nothing
	mustRun(t, s, "produce orders key=b value=two")
	fc.now = at(5000)
	mustRun(t, s, "realtime resume")
	for ms := 5200; ms <= 9000; ms += 200 {
		wake(s, ms)
	}
	replayMatches(t, s, "show group billing", "show log orders/0", "show brokers", "topic describe orders")

	// 3 periods ×2; 100ms ×2 + 100ms ×10 across the speed change; 16
	// periods ×10 up to the pause (which drops the 100ms after the last
	// wake-up), 20 periods ×10 after the resume.
	text, _ := s.commandLogText()
	var ticked time.Duration
	for _, line := range strings.Split(text, "\n") {
		if ms, ok := strings.CutPrefix(line, "tick "); ok {
			d, err := time.ParseDuration(ms)
			if err != nil {
				t.Fatal(err)
			}
			ticked += d
		}
	}
	if want := 3*400*time.Millisecond + 1200*time.Millisecond + 16*2*time.Second + 20*2*time.Second; ticked != want {
		t.Errorf("the driver ticked %v in all, want %v", ticked, want)
	}
	for _, line := range []string{"cluster brokers=3 controllers=3 seed=42", "# realtime on speed=2", "tick 400ms", "produce orders key=a value=one count=3", "tick 1200ms", "tick 2000ms", "# realtime pause", "# realtime resume"} {
		if !strings.Contains(text, "\n"+line+"\n") && !strings.HasPrefix(text, line+"\n") {
			t.Errorf("the log has no line %q:\n%s", line, text)
		}
	}
	// Quiet ticks are views, not transcript entries; the broker's fencing
	// (broker.session.timeout.ms=9000 after the crash) is an entry.
	var told int
	for _, e := range s.history {
		if strings.HasPrefix(e.Command, "tick ") {
			told++
			if !strings.Contains(e.Command, "real time ×10") || !strings.Contains(e.Output, "\n") {
				t.Errorf("a tick entry that says nothing beyond the time: %+v", e)
			}
		}
	}
	if told == 0 || told > 10 {
		t.Errorf("%d tick entries in the transcript; want the few whose events are news", told)
	}
	if quiet < 20 {
		t.Errorf("%d view-only updates for about 40 quiet ticks", quiet)
	}
}

// The goroutine: started by `realtime on`, it ticks at each of the ticker's
// times, and it ends (its ticker stopped) at `realtime off` and when the
// session closes: no goroutine outlives its cluster.
func TestRealtimeDriverGoroutineEnds(t *testing.T) {
	waitDone := func(t *testing.T, d *realtimeDriver, done chan struct{}, fc *fakeWallClock) {
		t.Helper()
		select {
		case <-done:
		case <-time.After(time.Minute): // a failsafe, not a timing
			t.Fatal("the driver's goroutine did not end")
		}
		select {
		case <-fc.stopped:
		default:
			t.Fatal("the goroutine ended without stopping its ticker")
		}
	}
	t.Run("off", func(t *testing.T) {
		s, fc := realtimeSession(t)
		mustRun(t, s, "realtime on")
		done := s.realtime.done
		fc.ticks <- at(200)
		fc.ticks <- at(400) // received only once the first tick ran
		mustRun(t, s, "realtime off")
		waitDone(t, s.realtime, done, fc)
		if s.realtime.run != nil {
			t.Error("off left the run channel")
		}
		mustRun(t, s, "realtime on")
		if fc.started != 2 || s.realtime.done == done {
			t.Errorf("on after off started %d tickers; want a new goroutine", fc.started)
		}
	})
	t.Run("session closed", func(t *testing.T) {
		s, fc := realtimeSession(t)
		before := s.lab.Cluster().Elapsed()
		mustRun(t, s, "realtime on speed=5")
		done := s.realtime.done
		fc.ticks <- at(200)
		fc.ticks <- at(400)
		s.closeAll()
		waitDone(t, s.realtime, done, fc)
		// The first wake-up ran (the goroutine took the second only after
		// it); the second ran unless the session closed first.
		if moved := s.lab.Cluster().Elapsed() - before; moved != time.Second && moved != 2*time.Second {
			t.Errorf("two wake-ups at ×5 moved %v, want 1s or 2s", moved)
		}
		closedAt := s.lab.Cluster().Elapsed()
		s.realtimeTick(s.realtime.run, at(600)) // a wake-up taken as it closed
		if s.lab.Cluster().Elapsed() != closedAt {
			t.Error("a wake-up after the session closed ticked")
		}
		if e := s.run("realtime on"); e.OK || !strings.Contains(e.Output, "this cluster is closed") {
			t.Errorf("realtime on after the session closed: %+v", e)
		}
	})
}

// While a lesson is open the clock does not run: opening one pauses the
// driver, and `realtime on` or `resume` is refused until it closes.
func TestRealtimeWaitsForALesson(t *testing.T) {
	s, fc := realtimeSession(t)
	mustRun(t, s, "realtime on")
	s.lessonAction(nil, lessonRequest{Type: "lesson", Action: "open", Lesson: testLesson})
	s.mu.Lock()
	if s.lesson == nil {
		s.mu.Unlock()
		t.Fatal("the lesson did not open")
	}
	st := s.realtimeStateNow()
	if st.State != "paused" || !strings.Contains(st.Reason, "lesson") {
		t.Errorf("after the lesson opened: %+v", st)
	}
	before := s.lab.Cluster().Elapsed()
	s.mu.Unlock()
	for _, line := range []string{"realtime on", "realtime resume"} {
		fc.now = at(1000)
		if e := s.run(line); e.OK || !strings.Contains(e.Output, "a lesson is open") {
			t.Errorf("%s during a lesson: %+v", line, e)
		}
	}
	if e := s.run("realtime"); !e.OK || !strings.Contains(e.Output, "real time is paused (speed ×1): a lesson is open") {
		t.Errorf("the status during a lesson: %+v", e)
	}
	wake(s, 1200)
	s.mu.Lock()
	if s.lab.Cluster().Elapsed() != before {
		t.Error("the driver ticked during the lesson")
	}
	s.mu.Unlock()
	s.lessonAction(nil, lessonRequest{Type: "lesson", Action: "close"})
	fc.now = at(2000)
	mustRun(t, s, "realtime resume")
	wake(s, 2200)
	if moved := s.lab.Cluster().Elapsed() - before; moved != 200*time.Millisecond {
		t.Errorf("after the lesson closed and the driver resumed, one wake-up moved %v", moved)
	}
}

// A lesson's rebuild is logged as a comment naming it and its step, then
// the commands its replay ran: replaying the whole log, the free play
// before included, gives the lesson's cluster and what followed it.
func TestCommandLogReplaysALesson(t *testing.T) {
	s, _ := realtimeSession(t)
	sub := s.subscribe(func() {})
	defer s.unsubscribe(sub)
	act := func(req lessonRequest) {
		t.Helper()
		req.Type = "lesson"
		s.lessonAction(sub, req)
		for _, raw := range queuedMessages(t, sub) {
			var m lessonMessage
			if json.Unmarshal(raw, &m); m.Error != "" {
				t.Fatalf("lesson %s: %s", req.Action, m.Error)
			}
		}
	}
	mustRun(t, s, "produce orders value=before-the-lesson")
	act(lessonRequest{Action: "open", Lesson: testLesson, Step: json.RawMessage("1")})
	act(lessonRequest{Action: "answer", Value: json.RawMessage(`"1"`)})
	act(lessonRequest{Action: "next"})
	act(lessonRequest{Action: "answer", Value: json.RawMessage(`"0"`)})
	mustRun(t, s, "tick 3s") // typed during the lesson
	act(lessonRequest{Action: "close"})
	mustRun(t, s, "produce orders value=after-the-lesson")
	text, _ := s.commandLogText()
	for _, want := range []string{"# lesson " + testLesson + ", step 2 of ", "\ntick 3s\n", "# the lesson closed", "after-the-lesson"} {
		if !strings.Contains(text, want) {
			t.Errorf("the log has no %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "before-the-lesson") {
		t.Errorf("the memory log kept the commands before the lesson's rebuild, which a replay no longer needs:\n%s", text)
	}
	replayMatches(t, s, "show log orders/0", "topic describe")
}

// Server-only commands are comments in the log (the lab does not know
// them), and a command that cannot be one line of a script says so.
func TestCommandLogLines(t *testing.T) {
	cases := []struct {
		command string
		native  bool
		want    string
	}{
		{"  produce orders value=1  ", false, "produce orders value=1"},
		{"realtime on speed=2", true, "# realtime on speed=2"},
		{"# a note", false, "# a note"},
		{"", false, ""},
		{"produce orders value=\"a\nb\"", false, `# not replayable, a line break inside: "produce orders value=\"a\nb\""`},
	}
	for _, c := range cases {
		if got := commandLine(c.command, c.native); got != c.want {
			t.Errorf("%q: logged as %q, want %q", c.command, got, c.want)
		}
	}
}

// A panic in a tick (outside the command, which execute recovers) is
// logged, pauses the driver and leaves the goroutine running: it must not
// end the server, nor panic again five times a second.
func TestRealtimeTickRecoversFromAPanic(t *testing.T) {
	s, fc := realtimeSession(t)
	sub := s.subscribe(func() {})
	defer s.unsubscribe(sub)
	mustRun(t, s, "realtime on")
	s.mu.Lock()
	l := s.lab
	s.lab = nil // the command fails (execute recovers), rendering its entry panics
	s.mu.Unlock()
	wake(s, 200)
	s.mu.Lock()
	s.lab = l
	st := s.realtimeStateNow()
	s.mu.Unlock()
	if st.State != "paused" || !strings.Contains(st.Reason, "internal error") {
		t.Fatalf("after a panicking tick: %+v", st)
	}
	fc.now = at(300)
	mustRun(t, s, "realtime resume")
	before := l.Cluster().Elapsed()
	wake(s, 500)
	if l.Cluster().Elapsed()-before != 200*time.Millisecond {
		t.Error("the driver did not tick again after resuming")
	}
}

// A tick the lab refuses (here, made to: a real refusal needs a cluster
// busier than a test should run) pauses the driver, with a transcript
// entry saying why and without the tick's usage line; the refused tick is
// in the log, since the replay must refuse it too.
func TestRealtimePausesWhenTheLabRefusesATick(t *testing.T) {
	s, _ := realtimeSession(t)
	mustRun(t, s, "realtime on speed=100")
	s.mu.Lock()
	run := s.runLine
	s.runLine = func(line string) (string, error) {
		if strings.HasPrefix(line, "tick ") {
			return "", &lab.CommandError{Command: "tick", Usage: "tick DURATION",
				Err: errors.New("tick 20s would run about 3,000,000 simulation events (150,000 per virtual second lately); the limit is 2,000,000 events per command: tick at most 13s at a time")}
		}
		return run(line)
	}
	s.mu.Unlock()
	wake(s, 200)
	s.mu.Lock()
	st := s.realtimeStateNow()
	last := s.history[len(s.history)-1]
	s.mu.Unlock()
	if st.State != "paused" || !strings.Contains(st.Reason, "the lab refused the tick: tick: tick 20s would run about") || strings.Contains(st.Reason, "usage") {
		t.Fatalf("driver: %+v", st)
	}
	if last.Command != "tick 20000ms · real time ×100" || last.OK || !strings.Contains(last.Output, "real time paused") {
		t.Errorf("the transcript's last entry: %+v", last)
	}
	if text, _ := s.commandLogText(); !strings.HasSuffix(text, "\ntick 20000ms\n") {
		t.Errorf("the refused tick is not the log's last line:\n%s", text)
	}
	wake(s, 400)
	if n := len(s.history); s.history[n-1] != last {
		t.Error("a paused driver ticked again")
	}
}

func (s *liveSession) realtimeState() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.realtimeStateNow().State
}

// Pages hear the driver's state when it changes, and a page that connects
// after the driver ran hears it first; one that connects to a cluster
// whose driver never ran hears nothing (its bar draws "off").
func TestRealtimeStateReachesPages(t *testing.T) {
	s, _ := realtimeSession(t)
	s.mu.Lock()
	s.realtime = nil // as a session whose driver never ran
	s.mu.Unlock()
	early := s.subscribe(func() {})
	defer s.unsubscribe(early)
	if n := len(queuedMessages(t, early)); n != 0 {
		t.Fatalf("a page got %d messages on connecting to a cluster whose driver never ran", n)
	}
	s.mu.Lock()
	fc := newFakeWallClock()
	s.realtime = &realtimeDriver{clock: fc.clock()}
	s.mu.Unlock()
	mustRun(t, s, "realtime on speed=2")
	states := func(sub *subscriber) []web.RealtimeState {
		var got []web.RealtimeState
		for _, raw := range queuedMessages(t, sub) {
			var m realtimeMessage
			if json.Unmarshal(raw, &m); m.Type == "realtime" {
				got = append(got, m.State)
			}
		}
		return got
	}
	if got := states(early); len(got) != 1 || got[0] != (web.RealtimeState{State: "on", Speed: 2}) {
		t.Errorf("after realtime on, the page heard %+v", got)
	}
	mustRun(t, s, "realtime pause")
	late := s.subscribe(func() {})
	defer s.unsubscribe(late)
	if got := states(late); len(got) != 1 || got[0] != (web.RealtimeState{State: "paused", Speed: 2}) {
		t.Errorf("a page that connected while paused heard %+v", got)
	}
	mustRun(t, s, "realtime") // the status changes nothing: no message
	if got := states(early); len(got) != 1 || got[0].State != "paused" {
		t.Errorf("after pause and a status, the first page heard %+v", got)
	}
}

// BenchmarkRealtimeTick is one quiet wake-up of the starter cluster at ×1:
// the tick and its log line, and with a page watching the view pushed.
func BenchmarkRealtimeTick(b *testing.B) {
	for _, watched := range []bool{false, true} {
		name := "unwatched"
		if watched {
			name = "watched"
		}
		b.Run(name, func(b *testing.B) {
			s, err := newLiveSession("", nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				b.Fatal(err)
			}
			defer func() { s.closeAll(); s.lab.Close() }()
			fc := newFakeWallClock()
			s.realtime = &realtimeDriver{clock: fc.clock()}
			var sub *subscriber
			if watched {
				sub = s.subscribe(func() {})
				defer s.unsubscribe(sub)
			}
			if e := s.run("realtime on"); !e.OK {
				b.Fatal(e.Output)
			}
			b.ResetTimer()
			for i := range b.N {
				wake(s, 200*(i+1))
				if sub != nil {
					queuedMessages(b, sub)
				}
			}
		})
	}
}
