package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loglab/loglab/lessons"
)

// Participants' tokens: any 32 hex digits is a participant's identity.
var (
	tokenA = strings.Repeat("a", 32)
	tokenB = strings.Repeat("b", 32)
	tokenC = strings.Repeat("c", 32)
)

// The question of testLesson's step 1 (the leader's high watermark):
// "1" is the engine's value, "2" the leader's log end offset.
const (
	predictStep = 1
	rightPick   = "1"
	wrongPick   = "2"
)

// dialAnonymous opens a page with no credential at all (the test
// server's handler makes every request the instructor's).
func dialAnonymous(t *testing.T, s *Server) *websocket.Conn {
	t.Helper()
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws?since=0", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	c.SetReadLimit(4 << 20)
	return c
}

// readUntil reads c's messages until one satisfies want, and returns it:
// the messages before it are the ones the step does not look at (the
// view's updates, statuses already checked).
func readUntil(t *testing.T, c *websocket.Conn, what string, want func(liveMsg) bool) liveMsg {
	t.Helper()
	for range 64 {
		m := readMsg(t, c)
		if want(m) {
			return m
		}
	}
	t.Fatalf("64 messages and none is %s", what)
	return liveMsg{}
}

func asPredict(t *testing.T, m liveMsg) predictMessage {
	t.Helper()
	var p predictMessage
	if m.Type != "predict" || json.Unmarshal(m.raw, &p) != nil {
		t.Fatalf("want a prediction's echo; got %s", m)
	}
	return p
}

func asTally(t *testing.T, m liveMsg) tally {
	t.Helper()
	var p tally
	if m.Type != "tally" || json.Unmarshal(m.raw, &p) != nil {
		t.Fatalf("want a tally; got %s", m)
	}
	return p
}

func isType(typ string) func(liveMsg) bool { return func(m liveMsg) bool { return m.Type == typ } }

func atStep(step int, phase lessons.Phase) func(liveMsg) bool {
	return func(m liveMsg) bool {
		return m.Type == "lesson" && m.Status != nil && m.Status.Step == step && m.Status.Phase == phase
	}
}

func lessonRound(t *testing.T, m liveMsg) int {
	t.Helper()
	var r struct {
		Round int `json:"round"`
	}
	json.Unmarshal(m.raw, &r)
	return r.Round
}

// The room: the instructor asks, two participants (one with two
// tabs) answer for themselves, the instructor's page counts them, the
// instructor's answer reveals, and each participant's pick is theirs:
// echoed to their own pages, kept for judging, never sent to anyone
// else, never run in the engine.
func TestEachParticipantPredictsForThemselves(t *testing.T) {
	s, ts := newTestServer(t)
	teacher := dial(t, ts)
	a, _, _ := dialFromAs(t, ts, "127.0.0.1", tokenA)
	a2, _, _ := dialFromAs(t, ts, "127.0.0.1", tokenA)
	b, _, _ := dialFromAs(t, ts, "127.0.0.1", tokenB)
	for _, c := range []*websocket.Conn{a, a2, b} {
		c.SetReadLimit(4 << 20)
	}
	waitForSubscribers(t, s, 4)

	// No lesson: nothing to predict, said to the sender.
	sendJSON(t, a, `{"type":"predict","value":"1"}`)
	if p := asPredict(t, readUntil(t, a, "a refusal", isType("predict"))); !strings.Contains(p.Error, "no lesson is open") || p.Pick != "" {
		t.Fatalf("a prediction with no lesson open: %+v", p)
	}

	sendJSON(t, teacher, `{"type":"lesson","action":"open","lesson":"`+testLesson+`","step":1}`)
	var round int
	for _, c := range []*websocket.Conn{teacher, a, a2, b} {
		m := readUntil(t, c, "the question's status", atStep(predictStep, lessons.PhaseAsk))
		if round == 0 {
			round = lessonRound(t, m)
		}
		if lessonRound(t, m) != round || round == 0 {
			t.Fatalf("the status carries round %d, want %d (not 0) on every page: %s", lessonRound(t, m), round, m)
		}
	}
	// The drivers' page is told who watches: two participants, three pages.
	if tl := asTally(t, readMsg(t, teacher)); tl.Watching != 2 || tl.Answered != 0 || tl.Round != round || !slices.Equal(tl.Choices, []string{rightPick, wrongPick}) {
		t.Fatalf("the instructor's first tally: %+v", tl)
	}

	sendJSON(t, a, `{"type":"predict","value":"1","at":1}`)
	for _, c := range []*websocket.Conn{a, a2} {
		if p := asPredict(t, readMsg(t, c)); p.Pick != rightPick || p.Error != "" || p.Round != round || p.Step != predictStep {
			t.Fatalf("A's pick echoed to A's page: %+v", p)
		}
	}
	sendJSON(t, b, `{"type":"predict","value":"2","at":1}`)
	// B's first message is B's own echo: A's pick reached no page of B.
	if p := asPredict(t, readMsg(t, b)); p.Pick != wrongPick {
		t.Fatalf("B's echo: %+v", p)
	}
	tl := asTally(t, readUntil(t, teacher, "a tally with both answers", func(m liveMsg) bool {
		return m.Type == "tally" && asTally(t, m).Answered == 2
	}))
	if !slices.Equal(tl.Counts, []int{1, 1}) || tl.Watching != 2 {
		t.Fatalf("the tally after A and B: %+v", tl)
	}

	// Hostile or late predictions are refused to their sender, with the
	// pick they hold.
	for _, bad := range []struct{ msg, says string }{
		{`{"type":"predict","value":"7"}`, "not one of the choices"},
		{`{"type":"predict","value":{"x":1}}`, "needs a \"value\""},
		{`{"type":"predict","value":"1","at":3}`, "on step 2 now"},
		{`{"type":"predict","value":"1","at":"x"}`, "not a step number"},
		{`{"type":"predict"}`, "needs a \"value\""},
	} {
		sendJSON(t, b, bad.msg)
		if p := asPredict(t, readMsg(t, b)); !strings.Contains(p.Error, bad.says) || p.Pick != wrongPick {
			t.Fatalf("%s: %+v, want a refusal saying %q with B's pick kept", bad.msg, p, bad.says)
		}
	}
	sendJSON(t, teacher, `{"type":"predict","value":"1"}`)
	if p := asPredict(t, readMsg(t, teacher)); !strings.Contains(p.Error, "you drive this lesson") {
		t.Fatalf("the instructor's prediction: %+v", p)
	}

	// The instructor's answer is the reveal: every page gets the same
	// status, with the engine's value; the instructor's own answer is
	// Status.Answer, the participants' picks are theirs.
	sendJSON(t, teacher, `{"type":"lesson","action":"answer","value":"2","at":1}`)
	var shown []string
	for _, c := range []*websocket.Conn{teacher, a, a2, b} {
		m := readUntil(t, c, "the reveal", atStep(predictStep, lessons.PhaseShown))
		if m.Status.Right != rightPick || m.Status.Answer != wrongPick || lessonRound(t, m) != round {
			t.Fatalf("the reveal: %s", m)
		}
		shown = append(shown, string(m.raw))
	}
	if shown[0] != shown[3] {
		t.Fatal("the reveal differs between the instructor's page and a participant's")
	}
	sendJSON(t, b, `{"type":"predict","value":"1"}`)
	if p := asPredict(t, readMsg(t, b)); !strings.Contains(p.Error, "revealed already") || p.Pick != wrongPick {
		t.Fatalf("a prediction after the reveal: %+v", p)
	}

	// A reconnects: their own pick comes back after the status.
	a.CloseNow()
	back, _, _ := dialFromAs(t, ts, "127.0.0.1", tokenA)
	back.SetReadLimit(4 << 20)
	readUntil(t, back, "the status", atStep(predictStep, lessons.PhaseShown))
	if p := asPredict(t, readMsg(t, back)); p.Pick != rightPick || p.Round != round {
		t.Fatalf("A's pick after reconnecting: %+v", p)
	}

	// Next: a new round, and nothing of the old picks is sent.
	sendJSON(t, teacher, `{"type":"lesson","action":"next","at":1}`)
	m := readUntil(t, back, "the next step", func(m liveMsg) bool { return m.Type == "lesson" && m.Status != nil && m.Status.Step == 2 })
	if lessonRound(t, m) <= round {
		t.Fatalf("the next step's round is %d, after %d", lessonRound(t, m), round)
	}
	s.live.mu.Lock()
	picks := len(s.live.preds().picks)
	s.live.mu.Unlock()
	if picks != 0 {
		t.Fatalf("%d picks kept after the step changed", picks)
	}
}

// A participant who connects after the question was asked, before the
// reveal, answers it; the instructor who connects then is told the tally.
func TestALateJoinerPredictsAndALateInstructorSeesTheTally(t *testing.T) {
	s, ts := newTestServer(t)
	teacher := dial(t, ts)
	waitForSubscribers(t, s, 1)
	sendJSON(t, teacher, `{"type":"lesson","action":"open","lesson":"`+testLesson+`","step":1}`)
	readUntil(t, teacher, "the question", atStep(predictStep, lessons.PhaseAsk))

	late, _, _ := dialFromAs(t, ts, "127.0.0.1", tokenC)
	late.SetReadLimit(4 << 20)
	readUntil(t, late, "the question", atStep(predictStep, lessons.PhaseAsk))
	if tl := asTally(t, readMsg(t, teacher)); tl.Watching != 1 || tl.Answered != 0 {
		t.Fatalf("the tally once the late participant came: %+v", tl)
	}
	sendJSON(t, late, `{"type":"predict","value":"2"}`)
	if p := asPredict(t, readMsg(t, late)); p.Pick != wrongPick || p.Error != "" {
		t.Fatalf("the late joiner's pick: %+v", p)
	}
	if tl := asTally(t, readMsg(t, teacher)); !slices.Equal(tl.Counts, []int{0, 1}) {
		t.Fatalf("the tally after the late joiner's pick: %+v", tl)
	}
	second := dial(t, ts)
	readUntil(t, second, "the question", atStep(predictStep, lessons.PhaseAsk))
	if tl := asTally(t, readMsg(t, second)); !slices.Equal(tl.Counts, []int{0, 1}) || tl.Watching != 1 {
		t.Fatalf("the tally a newly connected instructor's page is told: %+v", tl)
	}
	// The participant leaves: the drivers' count says so.
	late.CloseNow()
	if tl := asTally(t, readUntil(t, teacher, "a tally without the participant", isType("tally"))); tl.Watching != 0 || tl.Answered != 0 {
		t.Fatalf("the tally after the participant left: %+v", tl)
	}
}

// A page flooding predictions is refused past its budget, as for
// commands, and only it hears of it; a page without a participant's
// identity cannot predict.
func TestPredictionsAreRateLimitedAndNeedAnIdentity(t *testing.T) {
	s, ts := newTestServer(t)
	clock := freezeClock(s)
	teacher := dial(t, ts)
	waitForSubscribers(t, s, 1)
	sendJSON(t, teacher, `{"type":"lesson","action":"open","lesson":"`+testLesson+`","step":1}`)
	readUntil(t, teacher, "the question", atStep(predictStep, lessons.PhaseAsk))
	a, _, _ := dialFromAs(t, ts, "127.0.0.1", tokenA)
	a.SetReadLimit(4 << 20)
	readUntil(t, a, "the question", atStep(predictStep, lessons.PhaseAsk))
	for i := range commandBurst {
		sendJSON(t, a, `{"type":"predict","value":"`+[]string{rightPick, wrongPick}[i%2]+`"}`)
		if p := asPredict(t, readMsg(t, a)); p.Error != "" {
			t.Fatalf("prediction %d: %+v", i, p)
		}
	}
	sendJSON(t, a, `{"type":"predict","value":"1"}`)
	if p := asPredict(t, readMsg(t, a)); !strings.Contains(p.Error, "rate limit") || p.Pick != wrongPick {
		t.Fatalf("the prediction over the budget: %+v", p)
	}
	clock.advance(time.Second)

	// A page with no identity (an API client without a token) watches
	// but cannot predict. Its websocket goes around instructorHandler.
	anon := dialAnonymous(t, s)
	readUntil(t, anon, "the question", atStep(predictStep, lessons.PhaseAsk))
	sendJSON(t, anon, `{"type":"predict","value":"1"}`)
	if p := asPredict(t, readMsg(t, anon)); !strings.Contains(p.Error, "participant's identity") {
		t.Fatalf("a prediction without an identity: %+v", p)
	}
}

// A room of 300 participants predicts at once: each prediction reaches its
// participant's page and the driver's, no other participant's, and the
// driver's page, reading nothing meanwhile, is sent a merged queue ending
// with the whole count rather than 300 tallies. Nothing of it touches the
// transcript: the room's stream has no update from the predictions.
func TestARoomsPredictionsReachTheirParticipantAndTheDriversOnly(t *testing.T) {
	s := quietSession(t)
	driver := s.subscribeAs(func() {}, viewer{driver: true})
	const room = 300
	subs := make([]*subscriber, room)
	for i := range subs {
		subs[i] = s.subscribeAs(func() {}, viewer{who: fmt.Sprintf("participant-%03d", i)})
	}
	s.lessonAction(driver, lessonRequest{Action: "open", Lesson: testLesson, Step: json.RawMessage("1")})
	for _, sub := range append(subs, driver) {
		sub.take()
	}
	updatesBefore := s.updateStats.published.Load()
	for i, sub := range subs {
		s.predict(sub, predictRequest{Value: json.RawMessage(`"` + []string{rightPick, wrongPick}[i%2] + `"`), At: json.RawMessage("1")})
	}
	for i, sub := range subs {
		q := sub.take()
		if len(q) != 1 || q[0].kind != "predict" {
			t.Fatalf("participant %d was sent %d messages, want their own pick alone", i, len(q))
		}
		var p predictMessage
		if err := json.Unmarshal(q[0].msg, &p); err != nil || p.Pick != []string{rightPick, wrongPick}[i%2] || p.Error != "" {
			t.Fatalf("participant %d's echo: %s (%v)", i, q[0].msg, err)
		}
	}
	q := driver.take()
	if len(q) > queuedBeforeCoalescing {
		t.Fatalf("the driver's page holds %d messages: its queue was not merged", len(q))
	}
	last := q[len(q)-1]
	var tl tally
	if err := json.Unmarshal(last.msg, &tl); err != nil || tl.Type != "tally" || tl.Answered != room || tl.Watching != room || !slices.Equal(tl.Counts, []int{room / 2, room / 2}) {
		t.Fatalf("the driver's last message: %s (%v)", last.msg, err)
	}
	if n := s.updateStats.published.Load(); n != updatesBefore {
		t.Fatalf("the predictions published %d updates to the room's stream", n-updatesBefore)
	}
}
