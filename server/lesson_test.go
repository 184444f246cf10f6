package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/lessons"
	"github.com/loglab/loglab/web"
)

// The lesson these tests play: acks=1 and a leader crash. Step 0 starts a
// cluster, step 1 asks for the leader's high watermark (the check gives
// 1), step 4 is a goal.
const testLesson = "acks1-leader-crash"

// liveMsg is any message a live page receives.
type liveMsg struct {
	raw     []byte
	Type    string          `json:"type"`
	Entry   string          `json:"entry"`
	View    string          `json:"view"`
	Frags   []fragmentHTML  `json:"fragments"`
	Clear   bool            `json:"clear"`
	Private bool            `json:"private"`
	Status  *lessons.Status `json:"status"`
	Error   string          `json:"error"`
}

func (m liveMsg) String() string { return fmt.Sprintf("%.400s", m.raw) }

// readMsg reads a page's next message: every one, views alone included,
// since nothing but a command or a lesson action moves the cluster.
func readMsg(t *testing.T, c *websocket.Conn) liveMsg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, data, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("reading the next message: %v", err)
	}
	m := liveMsg{raw: data}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return m
}

func sendJSON(t *testing.T, c *websocket.Conn, msg string) {
	t.Helper()
	if err := c.Write(context.Background(), websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

// followers read the same messages from every page and fail unless all
// got them byte for byte, in the same order.
func sameOnEvery(t *testing.T, n int, pages ...*websocket.Conn) []liveMsg {
	t.Helper()
	var first []liveMsg
	for i, c := range pages {
		var got []liveMsg
		for range n {
			got = append(got, readMsg(t, c))
		}
		if i == 0 {
			first = got
			continue
		}
		for j := range got {
			if string(got[j].raw) != string(first[j].raw) {
				t.Fatalf("page %d's message %d differs from page 0's:\n%s\nvs\n%s", i, j, got[j], first[j])
			}
		}
	}
	return first
}

func wantStatus(t *testing.T, m liveMsg, step int, phase lessons.Phase) {
	t.Helper()
	if m.Type != "lesson" || m.Error != "" || m.Status == nil || m.Status.Lesson != testLesson || m.Status.Step != step || m.Status.Phase != phase {
		t.Fatalf("want the lesson at step %d, phase %s; got %s", step, phase, m)
	}
}

func wantUpdate(t *testing.T, m liveMsg, clear bool, entries ...string) {
	t.Helper()
	// The view's changes (whole, fragments, or none for a command
	// that changed nothing drawn) are TestFragmentUpdatesRebuildTheWholeView's.
	if m.Type != "update" || m.Clear != clear || m.Private {
		t.Fatalf("want an update of the room's stream with clear=%v; got %s", clear, m)
	}
	for _, e := range entries {
		if !strings.Contains(m.Entry, e) {
			t.Fatalf("the update's entries lack %q:\n%s", e, m.Entry)
		}
	}
}

func wantRefusal(t *testing.T, m liveMsg, text string) {
	t.Helper()
	if m.Type != "lesson" || !strings.Contains(m.Error, text) {
		t.Fatalf("want a refusal saying %q; got %s", text, m)
	}
}

// An instructor opens a lesson on /live and walks it; a viewer's page
// receives exactly the same updates and statuses in the same order. What
// the session refuses reaches only the page that asked, and a page
// connecting mid-lesson catches up with the transcript and the status.
func TestLiveLessonEveryPageFollowsTheSteps(t *testing.T) {
	s, ts := newTestServer(t)
	// The instructor sends more actions than a burst, and the cluster
	// runs them in no time (its controllers too, in virtual time): every
	// message a second apart, as a person clicks. The rate limiter has
	// its own tests.
	var tick atomic.Int64
	s.now = func() time.Time { return time.Unix(tick.Add(1), 0) }
	instructor, viewer := dial(t, ts), dial(t, ts)
	waitForSubscribers(t, s, 2)

	sendJSON(t, instructor, `{"type":"lesson","action":"open","lesson":"`+testLesson+`","step":0}`)
	got := sameOnEvery(t, 2, instructor, viewer)
	wantUpdate(t, got[0], true, "cluster brokers=3 seed=7", "producer create fast acks=1", "show isr orders/0")
	if strings.Contains(got[0].Entry, "topic create orders partitions=3") {
		t.Fatal("the rebuilt transcript still holds the starter script")
	}
	wantStatus(t, got[1], 0, lessons.PhaseShown)

	// A prediction: nothing runs until it is answered.
	sendJSON(t, instructor, `{"type":"lesson","action":"next"}`)
	got = sameOnEvery(t, 1, instructor, viewer)
	wantStatus(t, got[0], 1, lessons.PhaseAsk)
	if got[0].Status.Right != "" || got[0].Status.Focus != "partition orders/0 replica 2 hw" {
		t.Fatalf("the status before the answer: %s", got[0])
	}

	// The viewer types a command before the answer: refused, to it alone.
	sendCommand(t, viewer, "show isr orders/0")
	if m := readMsg(t, viewer); m.Type != "update" || !strings.Contains(m.Entry, "answer the question first") || m.View != "" || len(m.Frags) != 0 || !m.Private {
		t.Fatalf("the viewer's refused command: %s", m)
	}
	// A refused lesson action, to its sender alone: the instructor's next
	// message is the answer's, not this.
	sendJSON(t, viewer, `{"type":"lesson","action":"open","lesson":"no-such-lesson"}`)
	wantRefusal(t, readMsg(t, viewer), `no lesson "no-such-lesson"`)

	sendJSON(t, instructor, `{"type":"lesson","action":"answer","value":"2"}`)
	got = sameOnEvery(t, 2, instructor, viewer)
	wantUpdate(t, got[0], false, "net drop from=2 type=FetchResponse", "value=second producer=fast")
	if strings.Contains(got[0].Entry, "cluster brokers=3") {
		t.Fatal("an answer's update repeats the transcript: only the step's commands belong in it")
	}
	wantStatus(t, got[1], 1, lessons.PhaseShown)
	if got[1].Status.Answer != "2" || got[1].Status.Right != "1" {
		t.Fatalf("after the answer: %s", got[1])
	}

	// Refusals that change nothing: a second answer, a step out of range.
	for msg, why := range map[string]string{
		`{"type":"lesson","action":"answer","value":"1"}`: "asks nothing now",
		`{"type":"lesson","action":"goto","step":99}`:     "steps, numbered 0 to",
		`{"type":"lesson","action":"goto","step":"x"}`:    "not a step number",
		`{"type":"lesson","action":"dance"}`:              "unknown lesson action",
		// A second viewer's Next, clicked on step 1 (0-based 0) after
		// the room moved on: refused, so the room moves one step only.
		`{"type":"lesson","action":"next","at":0}`:     "the lesson is on step 2 now, not 1",
		`{"type":"lesson","action":"open","lesson":5}`: "expected",
	} {
		sendJSON(t, instructor, msg)
		wantRefusal(t, readMsg(t, instructor), why)
	}

	// Back rebuilds the lab by replay: pages clear their transcript.
	sendJSON(t, instructor, `{"type":"lesson","action":"back"}`)
	got = sameOnEvery(t, 2, instructor, viewer)
	wantUpdate(t, got[0], true, "cluster brokers=3 seed=7", "show isr orders/0")
	if strings.Contains(got[0].Entry, "value=second producer=fast") {
		t.Fatal("back kept the later step's commands in the transcript")
	}
	wantStatus(t, got[1], 0, lessons.PhaseShown)
	sendJSON(t, instructor, `{"type":"lesson","action":"next"}`)
	wantStatus(t, sameOnEvery(t, 1, instructor, viewer)[0], 1, lessons.PhaseAsk)

	// A late page: the transcript and view as they are, then the status.
	late := dial(t, ts)
	m := readMsg(t, late)
	wantUpdate(t, m, true, "cluster brokers=3 seed=7", "show isr orders/0")
	wantStatus(t, readMsg(t, late), 1, lessons.PhaseAsk)

	// Close: every page is told, and free play goes on from the lesson's
	// cluster (orders has the lesson's one partition, not the starter's three).
	sendJSON(t, instructor, `{"type":"lesson","action":"close"}`)
	for _, m := range sameOnEvery(t, 1, instructor, viewer, late) {
		if m.Type != "lesson" || m.Status != nil || m.Error != "" || !strings.Contains(string(m.raw), `"status":null`) {
			t.Fatalf("after close: %s", m)
		}
	}
	sendCommand(t, viewer, "topic describe orders")
	got = sameOnEvery(t, 1, instructor, viewer, late)
	wantUpdate(t, got[0], false, "PartitionCount: 1")
	sendCommand(t, viewer, "tick 1ms")
	if m := readMsg(t, viewer); m.Type != "update" || !strings.Contains(m.Entry, "tick 1ms") {
		t.Fatalf("free play after close sent %s (want the command's update alone, no lesson status)", m)
	}
	// A new page after close does not get a lesson.
	s.live.mu.Lock()
	open := s.live.lesson != nil
	s.live.mu.Unlock()
	if open {
		t.Fatal("the lesson is still open after close")
	}
}

// A goal solved by the room's own commands: each command's update is
// followed by the status, which turns to reached when the predicate holds.
func TestLiveLessonGoalReachedByCommands(t *testing.T) {
	s, ts := newTestServer(t)
	instructor, viewer := dial(t, ts), dial(t, ts)
	waitForSubscribers(t, s, 2)
	l, err := lessons.Find(testLesson)
	if err != nil {
		t.Fatal(err)
	}
	goal := len(l.Steps) - 1
	if !l.Steps[goal].Goal {
		t.Fatalf("the lesson's last step is not a goal any more; pick another step for this test")
	}
	sendJSON(t, instructor, fmt.Sprintf(`{"type":"lesson","action":"open","lesson":"%s","step":%d}`, testLesson, goal))
	got := sameOnEvery(t, 2, instructor, viewer)
	wantUpdate(t, got[0], true, "cluster brokers=3 seed=7")
	wantStatus(t, got[1], goal, lessons.PhaseGoal)
	sol := l.Steps[goal].Solution
	for i, line := range sol {
		sendCommand(t, viewer, line) // anyone in the room may solve it
		got = sameOnEvery(t, 2, instructor, viewer)
		wantUpdate(t, got[0], false, line)
		phase := lessons.PhaseGoal
		if i == len(sol)-1 {
			phase = lessons.PhaseReached
		}
		wantStatus(t, got[1], goal, phase)
	}
}

// A lesson on a -data-dir server plays on the data directory: the lesson's
// cluster replaces the live cluster's files there, as the `cluster`
// command does, and a restarted server resumes the lesson's cluster.
func TestLiveLessonOnADataDirWritesItsClusterThere(t *testing.T) {
	dir := t.TempDir()
	opts := Options{StaticDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DataDir: dir}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(instructorHandler(s))
	t.Cleanup(func() { s.Close(); ts.Close() }) // if the test stops early
	starter := filepath.Join(dir, "broker-1", "orders-2")
	if _, err := os.Stat(starter); err != nil {
		t.Fatalf("the starter topic's orders/2 is not on the data directory, so the test proves nothing: %v", err)
	}
	c := dial(t, ts)
	waitForSubscribers(t, s, 1)
	sendJSON(t, c, `{"type":"lesson","action":"open","lesson":"`+testLesson+`","step":2}`)
	// Step 2 asks first: the replay stops before its commands.
	if m := readMsg(t, c); !strings.Contains(m.Entry, "value=second producer=fast") || strings.Contains(m.Entry, "broker crash 2") {
		t.Fatalf("opening at step 2: %s", m)
	}
	wantStatus(t, readMsg(t, c), 2, lessons.PhaseAsk)

	if cmd, err := os.ReadFile(filepath.Join(dir, clusterFile)); err != nil || strings.TrimSpace(string(cmd)) != "cluster brokers=3 seed=7" {
		t.Fatalf("%s holds %q (%v), want the lesson's cluster command", clusterFile, cmd, err)
	}
	if _, err := os.Stat(starter); err == nil {
		t.Fatal("the free-play cluster's orders/2 is still on the data directory: the lesson resumed it instead of replacing it")
	}
	// The lesson's second record, acknowledged by the leader, broker 2.
	if _, err := os.Stat(filepath.Join(dir, "broker-2", "orders-0", "00000000000000000000.log")); err != nil {
		t.Fatalf("the lesson's partition is not on the data directory: %v", err)
	}
	// Rebuilding again (reset) replaces the files once more and leaves
	// the server on the data directory.
	sendJSON(t, c, `{"type":"lesson","action":"reset"}`)
	wantUpdate(t, readMsg(t, c), true, "cluster brokers=3 seed=7")
	wantStatus(t, readMsg(t, c), 2, lessons.PhaseAsk)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ts.Close()
	s2, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	e := s2.live.run("topic describe orders")
	if !e.OK || !strings.Contains(e.Output, "PartitionCount: 1") {
		t.Fatalf("the restarted server did not resume the lesson's cluster:\n%s", e.Output)
	}
}

// Every rebuild replaces the lab: the old ones are closed and leave no
// goroutine behind.
func TestLiveLessonRebuildsLeakNoLabs(t *testing.T) {
	s, err := newLiveSession("", nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.lab.Close() })
	sub := s.subscribe(func() {})
	defer s.unsubscribe(sub)
	before := runtime.NumGoroutine()
	free := s.lab
	s.lessonAction(sub, lessonRequest{Action: "open", Lesson: testLesson, Step: json.RawMessage("3")})
	for range 5 {
		s.lessonAction(sub, lessonRequest{Action: "reset"})
	}
	if s.lab == free || s.lesson == nil || s.lab != s.lesson.Lab() {
		t.Fatal("the live session does not draw the lesson's lab")
	}
	// Closing a lab waits for what it started, but the runtime may
	// count a goroutine a moment longer: wait for the count, with a bound.
	deadline := time.Now().Add(time.Minute)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after six labs, %d with the free-play lab alone: labs leaked\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// A lesson action is one message for the rate limiter, like a command:
// over the burst it is refused to its sender and does not run.
func TestLessonActionsAreRateLimited(t *testing.T) {
	s, ts := newTestServer(t)
	clock := freezeClock(s)
	c := dial(t, ts)
	waitForSubscribers(t, s, 1)
	for range commandBurst {
		sendJSON(t, c, `{"type":"lesson","action":"next"}`) // refused: no lesson
		wantRefusal(t, readMsg(t, c), "no lesson is open")
	}
	sendJSON(t, c, `{"type":"lesson","action":"open","lesson":"`+testLesson+`"}`)
	wantRefusal(t, readMsg(t, c), "rate limit")
	s.live.mu.Lock()
	open := s.live.lesson != nil
	s.live.mu.Unlock()
	if open {
		t.Fatal("the lesson action over the limit ran")
	}
	clock.advance(time.Second)
	sendJSON(t, c, `{"type":"lesson","action":"open","lesson":"`+testLesson+`"}`)
	wantUpdate(t, readMsg(t, c), true, "cluster brokers=3 seed=7")
}

// GET /api/lessons/ID is the lesson's prose as the player shows it, and an
// unknown id is a 404 that says so.
func TestAPILessonServesTheRenderedLesson(t *testing.T) {
	_, ts := newTestServer(t)
	code, body := get(t, ts.URL+"/api/lessons/"+testLesson)
	var r lessons.Rendered
	if code != http.StatusOK || json.Unmarshal([]byte(body), &r) != nil || r.ID != testLesson || len(r.Steps) < 4 || r.Steps[1].Question == nil {
		t.Fatalf("GET /api/lessons/%s: %d %.300s", testLesson, code, body)
	}
	if strings.Contains(body, `"check"`) || strings.Contains(body, "hw orders/0") {
		t.Fatal("the rendered lesson gives the check away")
	}
	code, body = get(t, ts.URL+"/api/lessons/nope")
	if code != http.StatusNotFound || !strings.Contains(body, `no lesson \"nope\"`) {
		t.Fatalf("an unknown lesson: %d %s", code, body)
	}
	code, body = get(t, ts.URL+"/api/lessons")
	var cat []lessons.Entry
	if code != http.StatusOK || json.Unmarshal([]byte(body), &cat) != nil || len(cat) < 2 || cat[0].Title.Zh == "" || cat[0].Steps == 0 {
		t.Fatalf("GET /api/lessons: %d %.300s", code, body)
	}
}

// A rebuild starts the live history over with the replay, bounded as
// always: a page loaded mid-lesson shows the lesson's transcript, not the
// starter script's, and a replay longer than historyShown keeps its newest
// entries (the clearing update carries exactly those).
func TestLiveLessonHistoryIsTheBoundedReplay(t *testing.T) {
	s, ts := newTestServer(t)
	sub := s.live.subscribe(func() {})
	defer s.live.unsubscribe(sub)
	s.live.lessonAction(sub, lessonRequest{Action: "open", Lesson: testLesson})
	_, page := get(t, ts.URL+"/live")
	if !strings.Contains(page, "cluster brokers=3 seed=7") || strings.Contains(page, "topic create orders partitions=3") {
		t.Fatal("the page loaded mid-lesson does not show the lesson's replay alone")
	}
	nextMessage(t, sub)
	nextMessage(t, sub)

	var ch lessons.Change
	ch.Rebuilt = true
	for i := range historyShown + 50 {
		ch.Ran = append(ch.Ran, lessons.Ran{Command: fmt.Sprintf("tick %dms", i), Output: "time is …\n", OK: true})
	}
	s.live.mu.Lock()
	s.live.publishChange(ch)
	history := append([]web.Entry(nil), s.live.history...)
	s.live.mu.Unlock()
	if len(history) != historyShown || history[0].Command != "tick 50ms" || history[len(history)-1].Output != "time is …" {
		t.Fatalf("history after a replay of %d commands: %d entries from %q", len(ch.Ran), len(history), history[0].Command)
	}
	var u update
	if err := json.Unmarshal(nextMessage(t, sub), &u); err != nil {
		t.Fatal(err)
	}
	if !u.Clear || strings.Count(u.Entry, `class="entry"`) != historyShown || strings.Contains(u.Entry, ">tick 49ms<") {
		t.Fatalf("the clearing update holds %d entries (want the %d the history keeps)", strings.Count(u.Entry, `class="entry"`), historyShown)
	}

	// Long outputs: the history's byte bound holds, and a clearing update
	// (a page load's transcript and view) weighs no more than a page load.
	ch.Ran = ch.Ran[:0]
	for i := range historyShown {
		ch.Ran = append(ch.Ran, lessons.Ran{Command: fmt.Sprintf("show log orders/%d", i), Output: strings.Repeat("<&> record\n", 2000), OK: true})
	}
	s.live.mu.Lock()
	s.live.publishChange(ch)
	size := 0
	for _, e := range s.live.history {
		size += len(e.Command) + len(e.Output)
	}
	s.live.mu.Unlock()
	if size > maxHistoryBytes {
		t.Fatalf("the history holds %d bytes, over maxHistoryBytes (%d)", size, maxHistoryBytes)
	}
	raw := nextMessage(t, sub)
	t.Logf("a clearing update after %d long outputs: %d bytes (a page load may weigh %d)", len(ch.Ran), len(raw), maxPageBytes)
	if len(raw) > maxPageBytes {
		t.Fatalf("the clearing update weighs %d bytes, over maxPageBytes (%d)", len(raw), maxPageBytes)
	}
}

// Controllers in their own processes keep their metadata across clusters,
// so a lesson could not replay from an empty cluster there: refused, and
// the live cluster stays as it was.
func TestLiveLessonRefusedOnControllersInOtherProcesses(t *testing.T) {
	s, _ := newTestServer(t)
	sub := s.live.subscribe(func() {})
	defer s.live.unsubscribe(sub)
	s.live.mu.Lock()
	s.live.controllers = []string{"127.0.0.1:1"} // never dialled: the refusal comes first
	free := s.live.lab
	s.live.mu.Unlock()
	s.live.lessonAction(sub, lessonRequest{Action: "open", Lesson: testLesson})
	var m lessonMessage
	if err := json.Unmarshal(nextMessage(t, sub), &m); err != nil || !strings.Contains(m.Error, "-controllers") || m.Status != nil {
		t.Fatalf("open on a server with -controllers: %+v (%v)", m, err)
	}
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	if s.live.lab != free || s.live.lesson != nil {
		t.Fatal("the refused open replaced the live cluster")
	}
}

// A lesson action that panics halfway (here while making the lab its
// replay runs on, after the room's cluster was already destroyed) leaves
// every page on one consistent room: the lesson closed for all, the
// sender told why, and the room's next command runs.
func TestLiveLessonPanicClosesTheLessonForEveryPage(t *testing.T) {
	s, ts := newTestServer(t)
	instructor, viewer := dial(t, ts), dial(t, ts)
	waitForSubscribers(t, s, 2)
	sendJSON(t, instructor, `{"type":"lesson","action":"open","lesson":"`+testLesson+`","step":0}`)
	sameOnEvery(t, 2, instructor, viewer)

	s.live.mu.Lock()
	s.live.makeLessonLab = func(string, []string) *lab.Lab { panic("forced by the test") }
	s.live.mu.Unlock()
	sendJSON(t, instructor, `{"type":"lesson","action":"reset"}`)
	got := sameOnEvery(t, 2, instructor, viewer)
	if got[0].Type != "update" || !got[0].Clear || got[1].Type != "lesson" || got[1].Status != nil {
		t.Fatalf("after the panic every page should get a cleared view and the lesson closed: %s / %s", got[0], got[1])
	}
	wantRefusal(t, readMsg(t, instructor), "panicked")

	s.live.mu.Lock()
	s.live.makeLessonLab = nil
	s.live.mu.Unlock()
	sendCommand(t, viewer, "cluster brokers=1 seed=3")
	got = sameOnEvery(t, 1, instructor, viewer)
	if !strings.Contains(got[0].Entry, "cluster started: brokers=1") {
		t.Fatalf("the room's next command: %s", got[0])
	}
}

// Replays hold the cluster's mutex, and pages loop from many connections
// as easily as from one: a cluster gets lessonReplayBurst replays at once,
// then lessonReplaysPerSecond, whoever asks. Other lesson actions (a
// page's own bucket permitting) still run.
func TestLessonReplaysAreLimitedPerCluster(t *testing.T) {
	s, ts := newTestServer(t)
	clock := freezeClock(s)
	pages := []*websocket.Conn{dial(t, ts), dial(t, ts)}
	waitForSubscribers(t, s, 2)
	for i := range lessonReplayBurst {
		c := pages[i%2] // from two pages, each well within its own bucket
		sendJSON(t, c, `{"type":"lesson","action":"open","lesson":"`+testLesson+`"}`)
		sameOnEvery(t, 2, pages...)
	}
	sendJSON(t, pages[0], `{"type":"lesson","action":"reset"}`)
	wantRefusal(t, readMsg(t, pages[0]), "at most 1 replay per second for everyone watching it")
	sendJSON(t, pages[1], `{"type":"lesson","action":"next"}`)
	got := sameOnEvery(t, 1, pages...)
	wantStatus(t, got[0], 1, lessons.PhaseAsk)
	clock.advance(time.Second)
	sendJSON(t, pages[0], `{"type":"lesson","action":"back"}`)
	got = sameOnEvery(t, 2, pages...)
	wantStatus(t, got[1], 0, lessons.PhaseShown)
}
