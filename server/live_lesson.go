package server

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/lessons"
	"github.com/loglab/loglab/web"
)

// Instructor mode: the live cluster plays a lesson and every page follows
// it. The lesson's decisions are lessons.Session's; the live session only
// serialises its actions with the room's commands (one mutex, as for
// commands) and pushes what changed to every page in the order it happened.

// lessonRequest is a lesson action from a page:
//
//	{"type":"lesson","action":"open","lesson":"ID","step":N}
//	{"type":"lesson","action":"answer","value":"V"}
//	{"type":"lesson","action":"next"|"back"|"reset"|"close"}
//	{"type":"lesson","action":"goto","step":N}
//
// Every action but open and close may say "at":N, the step the page
// showed when the button was pressed: two viewers clicking Next together
// then move the room one step, not two (lessons.Session.At).
//
// Step and value are decoded by hand (parseStep, parseValue) so that a
// wrongly typed field is refused to its sender like any other bad action,
// not answered by closing the page's connection.
type lessonRequest struct {
	Type   string          `json:"type"`
	Action string          `json:"action"`
	Lesson string          `json:"lesson"`
	Step   json.RawMessage `json:"step"`
	Value  json.RawMessage `json:"value"`
	At     json.RawMessage `json:"at"`
}

// lessonMessage is what pages receive after every lesson action (and a
// command typed while a lesson is open): the status the player draws,
// null once the lesson is closed. Error is only ever sent to the page whose
// action was refused, with the status unchanged.
type lessonMessage struct {
	Type   string          `json:"type"` // "lesson"
	Status *lessons.Status `json:"status"`
	// Round is the predictions' round the status belongs to (predict.go):
	// a participant's page shows its own pick only with the round it was
	// made in.
	Round int    `json:"round,omitempty"`
	Error string `json:"error,omitempty"`
}

// lessonAction applies one page's lesson action. A refused action changes
// nothing and is told to sub alone; any other is pushed to every page.
func (s *liveSession) lessonAction(sub *subscriber, req lessonRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closedLocked() {
		s.send(sub, s.lessonMessage(strings.TrimPrefix(errClusterClosed, "error: ")))
		return
	}
	if s.broken != "" {
		s.send(sub, s.lessonMessage(s.broken))
		return
	}
	ch, panicked, err := s.applyLesson(req)
	if panicked {
		s.afterLessonPanic()
	}
	if err != nil {
		s.send(sub, s.lessonMessage(err.Error()))
		return
	}
	s.logLessonChange(req.Action, ch)
	// Close, and a step that waits for its answer, run nothing: pages
	// get the status alone.
	if ch.Rebuilt || len(ch.Ran) > 0 {
		s.publishChange(ch)
	}
	s.publishLesson()
}

// applyLesson runs the action on the lesson session, with s.mu held. A
// panic in the engine is logged and answered to its sender as an error:
// the room's server carries on, as it does after a command that panicked
// (what the action changed before it panicked stays changed; reset
// replays the step afresh).
func (s *liveSession) applyLesson(req lessonRequest) (ch lessons.Change, panicked bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("a lesson action panicked", "action", req.Action, "lesson", req.Lesson, "panic", p, "stack", string(debug.Stack()))
			panicked = true
			err = fmt.Errorf("internal error: the lesson action panicked (%v); the server logged it and carries on", p)
		}
	}()
	ch, err = s.lessonStep(req)
	return ch, false, err
}

// afterLessonPanic leaves the room consistent after a lesson action
// panicked halfway, with s.mu held: the lesson may hold a lab the action
// already replaced, so its guidance goes and every page is sent the lab as
// it is, in free play, with the lesson closed.
func (s *liveSession) afterLessonPanic() {
	if s.lesson != nil && s.lesson.Lab() != s.lab {
		s.lesson.Close()
	}
	s.lesson = nil
	s.history = nil
	if err := s.publishView(nil, true); err != nil {
		s.logger.Error("rendering the view after a lesson panicked", "error", err)
	}
	s.publishLesson()
}

// lessonStep is applyLesson without the recover.
func (s *liveSession) lessonStep(req lessonRequest) (ch lessons.Change, err error) {
	if req.Action == "open" {
		return s.openLesson(req)
	}
	if s.lesson == nil {
		return ch, fmt.Errorf("no lesson is open: open one first")
	}
	if len(req.At) > 0 && req.Action != "close" {
		at, err := parseStep(req.At)
		if err != nil {
			return ch, err
		}
		if err := s.lesson.At(at); err != nil {
			return ch, err
		}
	}
	switch req.Action {
	case "answer":
		v, err := parseValue(req.Value)
		if err != nil {
			return ch, err
		}
		ch, err = s.lesson.Answer(v)
		return ch, err
	case "next":
		ch, err = s.lesson.Next()
	case "back":
		ch, err = s.lesson.Back()
	case "reset":
		ch, err = s.lesson.Reset()
	case "goto":
		step, err := parseStep(req.Step)
		if err != nil {
			return ch, err
		}
		ch, err = s.lesson.GoTo(step)
		return ch, err
	case "close":
		// Free play goes on from where the lesson left the cluster, as
		// in the browser lab: the lab stays, the lesson's guidance goes.
		s.lesson = nil
		return ch, nil
	default:
		return ch, fmt.Errorf("unknown lesson action %.40q: open, answer, next, back, reset, goto or close", req.Action)
	}
	return ch, err
}

// openLesson starts a lesson at a step on a fresh lab. The lesson and the
// step are checked before anything is touched: a refused open leaves the
// room's cluster (or the lesson it plays) as it was.
func (s *liveSession) openLesson(req lessonRequest) (lessons.Change, error) {
	if len(s.controllers) > 0 {
		// A lesson replays from an empty cluster, metadata included;
		// controllers in their own processes keep their metadata log
		// across clusters (the starter's topic would still be there), and
		// a lesson may crash a controller, which they cannot.
		return lessons.Change{}, fmt.Errorf("lessons need the server's own controllers: this server uses controllers in other processes (-controllers), whose metadata a lesson's replay cannot start afresh")
	}
	l, err := lessons.Find(req.Lesson)
	if err != nil {
		return lessons.Change{}, fmt.Errorf("no lesson %.80q", req.Lesson)
	}
	step := 0
	if len(req.Step) > 0 {
		if step, err = parseStep(req.Step); err != nil {
			return lessons.Change{}, err
		}
	}
	if step < 0 || step >= len(l.Steps) {
		return lessons.Change{}, fmt.Errorf("lesson %s has %d steps, numbered 0 to %d", l.ID, len(l.Steps), len(l.Steps)-1)
	}
	// The lesson playing now is not closed here: freshLab replaces its lab
	// the way it replaces the free-play lab.
	sess, ch, err := lessons.NewNativeSession(l, step, s.freshLab, s.nativeInLesson)
	if err != nil {
		return lessons.Change{}, err
	}
	s.lesson = sess
	s.pauseRealtimeForLesson()
	return ch, nil
}

// freshLab is the lessons.Session's newLab: a lab made as the server makes
// its live lab (in memory, or on the data directory with the same
// controllers), replacing the current one. The current lab is destroyed as
// the `cluster` command destroys a cluster: on a data directory its files
// go, so the lesson's `cluster` starts a new cluster there rather than
// resuming the old one. The session has usually closed it already; a
// second close does nothing. Called with s.mu held.
func (s *liveSession) freshLab() *lab.Lab {
	if c := s.lab.Cluster(); c != nil {
		if err := c.Destroy(); err != nil {
			s.logger.Error("removing the previous cluster's data for a lesson", "dataDir", s.dataDir, "error", err)
		}
	}
	mk := newLab
	if s.makeLessonLab != nil {
		mk = s.makeLessonLab
	}
	s.lab = mk(s.dataDir, s.controllers)
	return s.lab
}

// newLab is a lab as the live session runs it, with no cluster yet.
func newLab(dataDir string, controllers []string) *lab.Lab {
	l := lab.New()
	if dataDir != "" {
		l = labOnDisk(dataDir)
	}
	if len(controllers) > 0 {
		l.SetQuorum(remoteQuorum(controllers))
	}
	return l
}

// runInLesson is a command typed while a lesson is open: it goes through
// the session (refused before a prediction is answered, checked against a
// goal after), with s.mu held. It returns the entry and whether it ran.
func (s *liveSession) runInLesson(line string) (e web.Entry, ran bool) {
	if native, _ := nativeCommandFor(line); native != nil {
		// The server's own commands are no part of the lesson (its lab
		// does not know them): `realtime` answers, and refuses to start
		// the clock, during a lesson as after it.
		return s.execute(line), true
	}
	e.Command = strings.TrimSpace(line)
	defer func() {
		if s.commandPanicked(&e, recover()) {
			ran = true // what it changed before it panicked stays changed
		}
	}()
	r, err := s.lesson.Run(line)
	if err != nil {
		return web.Entry{Command: e.Command, Output: "error: " + err.Error()}, false
	}
	s.logCommand(r.Command, false, r.OK, false)
	return s.entryOf(r), true
}

// entryOf is a command the lesson session ran as the transcript shows it.
// A `cluster` command is remembered on the data directory, as one typed in
// free play is: a restarted server resumes the lesson's cluster.
func (s *liveSession) entryOf(r lessons.Ran) web.Entry {
	e := web.Entry{Command: strings.TrimSpace(r.Command), Output: strings.TrimSuffix(r.Output, "\n"), OK: r.OK}
	if e.OK {
		if err := rememberCluster(s.dataDir, r.Command); err != nil {
			e.Output += "\nwarning: the data directory will not remember this cluster: " + err.Error()
		}
	}
	logStorageAlarms(s.logger, s.dataDir, e.Output)
	return e
}

// publishChange pushes what a lesson action ran, with s.mu held. A rebuilt
// lab starts the history over with the replay (bounded as always) and
// tells pages to clear their transcript first.
func (s *liveSession) publishChange(ch lessons.Change) {
	entries := make([]web.Entry, 0, len(ch.Ran))
	for _, r := range ch.Ran {
		entries = append(entries, shownEntry(s.entryOf(r)))
	}
	if ch.Rebuilt {
		s.history = nil
	}
	s.history = trimHistory(append(s.history, entries...))
	// What the update appends is what a page loaded now would show of
	// these entries: after a rebuild, the whole (trimmed) history.
	if len(entries) > len(s.history) {
		entries = entries[len(entries)-len(s.history):]
	}
	if err := s.publishView(entries, ch.Rebuilt); err != nil {
		s.logger.Error("rendering a lesson update", "error", err)
	}
}

// lessonMessage is the current lesson status, with s.mu held.
func (s *liveSession) lessonMessage(refusal string) []byte {
	m := lessonMessage{Type: "lesson", Error: refusal}
	if s.lesson != nil {
		st := s.lesson.Status()
		m.Status = &st
		m.Round = s.preds().round
	}
	b, err := json.Marshal(m)
	if err != nil {
		// A Status is strings, ints and bools: it always marshals.
		panic(err)
	}
	return b
}

// catchUp is what a page that connects while a lesson is open receives
// first, with s.mu held: the transcript and the view as they are now (the
// page may have loaded before the lesson opened), returned as a draft
// to draw once s.mu is released and queue first (sendSnapshot), then the
// lesson status.
func (s *liveSession) catchUp(sub *subscriber) *snapshotDraft {
	s.tellRealtime(sub)
	if s.lesson == nil {
		return nil
	}
	draft, err := s.snapshotDraft()
	if err != nil {
		s.logger.Error("rendering the lesson's catch-up", "error", err)
		return nil
	}
	s.send(sub, s.lessonMessage(""))
	return draft
}

// parseStep reads a step index (0 is the first step) given as a JSON
// number or a string holding one.
func parseStep(raw json.RawMessage) (int, error) {
	text := strings.TrimSpace(string(raw))
	if unq, err := strconv.Unquote(text); err == nil {
		text = unq
	}
	n, err := strconv.Atoi(text)
	if err != nil {
		return 0, fmt.Errorf("step %.40q is not a step number (0 is the first step)", text)
	}
	return n, nil
}

// parseValue reads a prediction's choice: a JSON string, or a number for
// a choice such as 2.
func parseValue(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf(`an answer needs a "value": one of the choices`)
}
