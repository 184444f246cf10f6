// Command wasm is the browser driver: built with GOOS=js GOARCH=wasm it runs
// the whole engine inside the page and renders web's components there.
//
// session.go holds the part that does not need JavaScript, so it is tested
// natively; main_js.go bridges it to the page.
package main

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/lessons"
	"github.com/loglab/loglab/web"
)

// update is what one command gives the page, the same shape the live server
// pushes: the transcript entry and the cluster view's changes as HTML: the
// whole view (View) or the fragments that changed (Fragments).
type update struct {
	Output string
	OK     bool
	Entry  string
	drawing
	// Status is the lesson player's status after the command, when a
	// lesson is open (a goal may just have been reached).
	Status *lessons.Status
	// Timeline is the sandbox's slider after the command.
	Timeline timelineState
}

// session is one learner's lab. Calls are serialised: the JS glue chains
// them, and the mutex makes that a guarantee rather than a convention.
type session struct {
	mu  sync.Mutex
	lab *lab.Lab // the learner's sandbox
	// lessonSession, while a lesson is open, owns the lab on screen and
	// takes the console's commands.
	lessonSession *lessons.Session
	// timeline is the sandbox's commands, for the slider (timeline.go).
	timeline timeline
	// pace makes a lab's pacing; a test counts the calls.
	pace func() func()
	// shown is the cluster view as the page draws it, the fragments last
	// sent (view.go); nil until the first drawing.
	shown []web.RenderedFragment
	// drawn keeps the last drawing's fragments with what each was drawn
	// from, so the next draws only those that changed.
	drawn web.RenderCache
	// queued reports whether the page has more commands waiting to run
	// (nil: never). A command with another behind it leaves the view
	// undrawn: the one behind draws both, as a busy page would show only
	// the last drawing anyway, and playing with the console busy then
	// draws once where it drew twice.
	queued func() bool
}

func newSession() *session {
	s := &session{pace: func() func() { return newPacer(10*time.Millisecond, time.Millisecond).pace }}
	s.lab = s.newLab()
	return s
}

// newLab is every lab this page makes, the sandbox and each one a lesson
// rebuilds by replay: all paced, since a lesson's replay is as long a
// simulation as any typed command.
func (s *session) newLab() *lab.Lab {
	l := lab.New()
	l.SetPace(s.pace())
	return l
}

// pacer yields the thread during long simulations. In WASM, goroutines
// run only when the running one blocks, and timers and the page's events
// run only when the module returns to the JavaScript event loop. So at
// most every budget of work the simulation sleeps briefly, which returns
// to the event loop: the tab keeps answering during a long command. (The
// simulation itself needs no turn: its quorum runs in virtual time.)
type pacer struct {
	budget, nap time.Duration
	since       time.Time
}

func newPacer(budget, nap time.Duration) *pacer {
	return &pacer{budget: budget, nap: nap, since: time.Now()}
}

func (p *pacer) pace() {
	if time.Since(p.since) < p.budget {
		return
	}
	time.Sleep(p.nap)
	p.since = time.Now()
}

func (s *session) run(line string) update {
	s.mu.Lock()
	defer s.mu.Unlock()
	var u update
	if ls := s.lessonSession; ls != nil {
		// The lesson decides: before a prediction is answered the step's
		// outcome must not show, so the command is refused.
		r, err := ls.Run(line)
		if err != nil {
			u = update{Output: "error: " + err.Error()}
		} else {
			e := ranEntry(r)
			u = update{Output: e.Output, OK: e.OK}
		}
		st := ls.Status()
		u.Status = &st
	} else {
		out, err := s.lab.Run(line)
		u = update{Output: out, OK: err == nil}
		if err != nil {
			u.Output = "error: " + err.Error()
		}
	}
	ctx := context.Background()
	var d drawing
	var viewErr error
	if s.queued == nil || !s.queued() {
		d, viewErr = s.drawChanges()
	}
	if viewErr != nil {
		// Rendering plain values cannot fail short of a bug; say so in the
		// transcript rather than leave a stale picture without a word.
		u.Output += "\nerror: rendering the cluster view: " + viewErr.Error()
		u.OK = false
	}
	u.drawing = d
	u.Entry, _ = web.RenderString(ctx, web.TranscriptEntry(web.Entry{Command: strings.TrimSpace(line), Output: u.Output, OK: u.OK}))
	if s.lessonSession == nil {
		s.timeline.recorded(s.lab.History(), u.Entry)
	}
	u.Timeline = s.timelineState()
	return u
}
