package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/web"
)

// The sandbox's timeline: the commands that changed its cluster (the
// lab's history), kept past a rewind so the slider can go forward again,
// as a browser keeps the pages after the one gone back to until a new one
// is opened. A command that changes the cluster after a rewind drops the
// commands that were ahead of it.
type timeline struct {
	// tape holds the commands; the lab is at tape[:at].
	tape []string
	at   int
	// entries[i] is tape[i]'s transcript entry (HTML), so that going
	// forward redraws the whole transcript of tape[:n] without a replay.
	entries []string
}

// timelineState is what the page's slider shows.
type timelineState struct {
	At       int      `json:"at"`
	Length   int      `json:"length"`
	Commands []string `json:"commands"`
	// Why is why the sandbox cannot go back in time, "" when it can.
	Why string `json:"why"`
	// Lesson is set while a lesson owns the lab: its own Back and Reset
	// move in time then.
	Lesson bool `json:"lesson"`
}

// timeUpdate is what a move in time gives the page: the whole transcript
// (clear first) and view of the lab at its new point, or why it did not
// move (the lab then stays as it was).
type timeUpdate struct {
	Clear    bool          `json:"clear"`
	Entry    string        `json:"entry"`
	View     string        `json:"view"`
	Error    string        `json:"error,omitempty"`
	Timeline timelineState `json:"timeline"`
}

var errLessonOpen = errors.New("a lesson is open: its Back and Reset buttons move in its time; close it to use the sandbox's timeline")

// ranTranscriptEntry renders a replayed command as the console renders a
// typed one (session.run), so a replay's transcript is the session's.
func ranTranscriptEntry(r lab.Replayed) string {
	e := web.Entry{Command: r.Line, Output: r.Output, OK: r.Err == nil}
	if r.Err != nil {
		e.Output = "error: " + r.Err.Error()
	}
	html, _ := web.RenderString(context.Background(), web.TranscriptEntry(e))
	return html
}

// recorded follows a command the sandbox ran: if it changed the lab's
// history (a command that ran, not one refused), the tape becomes the
// history, dropping what was ahead, and entry is its transcript entry.
func (t *timeline) recorded(history []string, entry string) {
	if len(history) == t.at && equalLines(history, t.tape[:t.at]) {
		return // refused: nothing changed
	}
	if len(history) == t.at+1 && equalLines(history[:t.at], t.tape[:t.at]) {
		t.tape = append(t.tape[:t.at], history[t.at])
		t.entries = append(t.entries[:t.at], entry)
		t.at++
		return
	}
	// A new `cluster` started the history again, or the session grew too
	// long to replay and dropped it: the tape starts over with it.
	t.tape = history
	t.at = len(history)
	t.entries = make([]string, len(history))
	if len(history) > 0 {
		t.entries[len(history)-1] = entry
	}
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// state is the slider's state.
func (s *session) timelineState() timelineState {
	t := &s.timeline
	st := timelineState{At: t.at, Length: len(t.tape), Commands: append([]string(nil), t.tape...), Lesson: s.lessonSession != nil}
	if err := s.lab.CanReplay(); err != nil {
		st.Why = err.Error()
	}
	return st
}

// history is loglab.history(): the slider's state, the commands included.
func (s *session) history() timelineState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.timelineState()
}

// seek moves the sandbox to the point after the tape's first n commands:
// back by replaying them on a fresh lab (lab.Rewind), forward by running
// the next ones on this lab, as they ran the first time.
func (s *session) seek(n int) timeUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lessonSession != nil {
		return s.timeDrawn(errLessonOpen)
	}
	t := &s.timeline
	if n < 0 || n > len(t.tape) {
		return s.timeDrawn(fmt.Errorf("no point %d on the timeline (0 to %d)", n, len(t.tape)))
	}
	if n <= t.at {
		ran, err := s.lab.Rewind(n)
		if err != nil {
			return s.timeDrawn(err)
		}
		s.rewound(ran)
		return s.timeDrawn(nil)
	}
	if err := s.lab.CanReplay(); err != nil {
		return s.timeDrawn(err)
	}
	for t.at < n {
		line := t.tape[t.at]
		out, err := s.lab.Run(line)
		r := lab.Replayed{Line: line, Output: out, Err: err}
		var ce *lab.CommandError
		if err != nil && (!errors.As(err, &ce) || !ce.Outcome) {
			// Cannot happen short of a bug: the same commands ran on the
			// same seed before. Stop where it failed, and say so.
			return s.timeDrawn(fmt.Errorf("going forward, command %d (%s) failed: %v", t.at+1, line, err))
		}
		t.entries[t.at] = ranTranscriptEntry(r)
		t.at++
	}
	return s.timeDrawn(nil)
}

// undo takes back the sandbox's last command (lab.Undo); the tape keeps it,
// ahead, so the slider can redo it.
func (s *session) undo() timeUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lessonSession != nil {
		return s.timeDrawn(errLessonOpen)
	}
	ran, err := s.lab.Undo()
	if err != nil {
		return s.timeDrawn(err)
	}
	s.rewound(ran)
	return s.timeDrawn(nil)
}

// replay opens a saved or shared session: the script replaces the
// sandbox, or, when a line fails, the sandbox stays as it was and the
// error names the line.
func (s *session) replay(script string) timeUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lessonSession != nil {
		return s.timeDrawn(errLessonOpen)
	}
	ran, err := s.lab.ReplayScript(script)
	if err != nil {
		// The page says what was not opened (a shared link, a file):
		// the error is only the line that failed.
		return s.timeDrawn(err)
	}
	s.timeline = timeline{}
	s.rewound(ran)
	// A script's commands that the lab did not keep (those before a later
	// `cluster`) are not on its timeline.
	h := s.lab.History()
	if skip := len(ran) - len(h); skip > 0 {
		s.timeline.tape, s.timeline.entries, s.timeline.at = h, s.timeline.entries[skip:], len(h)
	}
	return s.timeDrawn(nil)
}

// rewound records a replay of the tape's first len(ran) commands: the
// lab is there now, and their entries are the replay's.
func (s *session) rewound(ran []lab.Replayed) {
	t := &s.timeline
	for i, r := range ran {
		entry := ranTranscriptEntry(r)
		if i < len(t.tape) && t.tape[i] == r.Line {
			t.entries[i] = entry
			continue
		}
		t.tape, t.entries = append(t.tape[:i], r.Line), append(t.entries[:i], entry)
	}
	t.at = len(ran)
}

// timeDrawn is the page's update after a move in time: on success the
// whole transcript of the lab's commands, redrawn from empty; on failure
// only the error, the view of the lab (unchanged) and the slider.
func (s *session) timeDrawn(err error) timeUpdate {
	u := timeUpdate{View: s.renderView(), Timeline: s.timelineState()}
	if err != nil {
		u.Error = err.Error()
		return u
	}
	u.Clear = true
	u.Entry = strings.Join(s.timeline.entries[:s.timeline.at], "")
	return u
}
