package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/lessons"
	"github.com/loglab/loglab/web"
)

// lessonUpdate is what a lesson action gives the page: the player's status
// (nil once the lesson is closed), the transcript entries to append (after
// emptying the transcript when clear), the cluster view, and why an action
// was refused.
type lessonUpdate struct {
	Status *lessons.Status `json:"status"`
	Clear  bool            `json:"clear"`
	Entry  string          `json:"entry"`
	View   string          `json:"view"`
	Error  string          `json:"error,omitempty"`
}

// rendered is every embedded lesson rendered once: the lessons are built
// into the module, so they cannot change while the page lives.
var rendered = sync.OnceValues(func() ([]lessons.Rendered, error) {
	all, err := lessons.All()
	if err != nil {
		return nil, err
	}
	out := make([]lessons.Rendered, len(all))
	for i, l := range all {
		out[i] = lessons.Render(l)
	}
	return out, nil
})

// catalogueJSON is loglab.lessons(): the list the lab offers.
func catalogueJSON() string {
	all, err := rendered()
	if err != nil {
		return jsonString(map[string]string{"error": err.Error()})
	}
	cat := make([]lessons.Entry, len(all))
	for i, r := range all {
		cat[i] = lessons.EntryOf(r)
	}
	return jsonString(cat)
}

// lessonDataJSON is loglab.lessonData(id): one lesson's prose.
func lessonDataJSON(id string) string {
	all, err := rendered()
	if err != nil {
		return jsonString(map[string]string{"error": err.Error()})
	}
	for _, r := range all {
		if r.ID == id {
			return jsonString(r)
		}
	}
	return jsonString(map[string]string{"error": fmt.Sprintf("no lesson %q", id)})
}

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// Plain structs and strings always marshal.
		return `{"error":` + fmt.Sprintf("%q", err.Error()) + `}`
	}
	return string(b)
}

// lessonArg is an action's argument as the page passes it: {lesson, step}
// for open, a choice's value for answer, a step for goto (all 0-based).
type lessonArg struct {
	Lesson string `json:"lesson"`
	Step   int    `json:"step"`
	Value  string `json:"value"`
	// At is the step the page showed when the button was pressed, nil
	// when the page did not say (see lessons.Session.At).
	At *int `json:"at,omitempty"`
}

// lesson performs one player action. A refused action (answering twice,
// next before answering, an unknown lesson) changes nothing and says why;
// the page still gets the status and view to draw.
func (s *session) lesson(action string, arg lessonArg) lessonUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	if action == "open" {
		return s.openLesson(arg)
	}
	if s.lessonSession == nil {
		if action == "close" {
			return s.lessonDrawn(lessons.Change{}, nil)
		}
		return s.lessonDrawn(lessons.Change{}, fmt.Errorf("no lesson is open"))
	}
	ls := s.lessonSession
	var ch lessons.Change
	var err error
	if arg.At != nil && action != "close" {
		if err := ls.At(*arg.At); err != nil {
			return s.lessonDrawn(lessons.Change{}, err)
		}
	}
	switch action {
	case "answer":
		ch, err = ls.Answer(arg.Value)
	case "next":
		ch, err = ls.Next()
	case "back":
		ch, err = ls.Back()
	case "reset":
		ch, err = ls.Reset()
	case "goto":
		ch, err = ls.GoTo(arg.Step)
	case "close":
		ls.Close()
		s.lessonSession = nil
		// Back to the sandbox, which the lesson left untouched.
		return s.lessonDrawn(lessons.Change{Rebuilt: true}, nil)
	default:
		err = fmt.Errorf("unknown lesson action %q", action)
	}
	return s.lessonDrawn(ch, err)
}

func (s *session) openLesson(arg lessonArg) lessonUpdate {
	l, err := lessons.Find(arg.Lesson)
	if err != nil {
		return s.lessonDrawn(lessons.Change{}, err)
	}
	ls, ch, err := lessons.NewSession(l, arg.Step, s.newLab)
	if err != nil {
		return s.lessonDrawn(lessons.Change{}, err)
	}
	if s.lessonSession != nil {
		s.lessonSession.Close()
	}
	s.lessonSession = ls
	return s.lessonDrawn(ch, nil)
}

// lessonDrawn renders what an action changed: the entries it ran, the view
// of the lab now shown, and the status.
func (s *session) lessonDrawn(ch lessons.Change, err error) lessonUpdate {
	u := lessonUpdate{Clear: ch.Rebuilt}
	if err != nil {
		u.Error = err.Error()
	}
	if s.lessonSession != nil {
		st := s.lessonSession.Status()
		u.Status = &st
	}
	ctx := context.Background()
	var entries strings.Builder
	for _, r := range ch.Ran {
		html, _ := web.RenderString(ctx, web.TranscriptEntry(ranEntry(r)))
		entries.WriteString(html)
	}
	u.Entry = entries.String()
	u.View = s.renderView()
	return u
}

// ranEntry is a command a lesson ran as the transcript shows it: like a
// typed command's entry (the lessons' player ends outputs with a newline
// for its transcripts; the console does not).
func ranEntry(r lessons.Ran) web.Entry {
	return web.Entry{Command: r.Command, Output: strings.TrimRight(r.Output, "\n"), OK: r.OK}
}

// current is the lab on screen: the lesson's while one is open, else the
// learner's sandbox.
func (s *session) current() *lab.Lab {
	if s.lessonSession != nil {
		return s.lessonSession.Lab()
	}
	return s.lab
}
