package lessons

import (
	"fmt"
	"strings"

	"github.com/loglab/loglab/engine/lab"
)

// Phase is what the current step waits for.
type Phase string

const (
	// PhaseAsk: a predict step before its answer. Its commands have not
	// run, so nothing on screen gives the outcome away.
	PhaseAsk Phase = "ask"
	// PhaseShown: the step's commands ran and their outcome is on screen.
	PhaseShown Phase = "shown"
	// PhaseGoal: a goal step the learner has not solved yet.
	PhaseGoal Phase = "goal"
	// PhaseReached: the goal's predicate held after one of the learner's
	// commands; it stays reached (a later `show` must not take it back).
	PhaseReached Phase = "reached"
)

// Ran is one command the session ran and what it printed.
type Ran struct {
	Command string `json:"command"`
	Output  string `json:"output"`
	OK      bool   `json:"ok"`
}

// Change is what an action did to the lab: Rebuilt means the lab was
// replaced by a fresh replay (the transcript on screen starts over with
// Ran), otherwise Ran continues it.
type Change struct {
	Rebuilt bool  `json:"rebuilt"`
	Ran     []Ran `json:"ran"`
}

// Session is one way through a lesson: the learner's in the browser lab,
// or a whole room's when an instructor plays it on the live cluster. It
// decides what each button does, so the browser only draws its Status.
type Session struct {
	lesson *Lesson
	newLab func() *lab.Lab
	player *Player
	step   int
	phase  Phase
	answer string // the choice value the learner picked
	value  string // the predict check's value, once revealed
	// typed: the learner ran commands of their own on this step, so the
	// lab is no longer the one the lesson's next steps were written for.
	typed bool
	// native runs the workshop server's own commands (NewNativeSession);
	// nil in the browser lab, which cannot play a native lesson.
	native NativeRunner
}

// NativeRunner runs one of the server's native commands (`bench fetch`):
// handled is false when line is not one, and the lab runs it instead.
type NativeRunner func(line string) (out string, err error, handled bool)

// Status is what the player draws.
type Status struct {
	Lesson string `json:"lesson"`
	Step   int    `json:"step"`
	Steps  int    `json:"steps"`
	Name   string `json:"name"`
	Goal   bool   `json:"goal"`
	Phase  Phase  `json:"phase"`
	// Answer is the learner's choice; Right the value the engine gave,
	// which the player compares with the choices only after an answer.
	Answer string `json:"answer,omitempty"`
	Right  string `json:"right,omitempty"`
	Focus  string `json:"focus,omitempty"`
	Last   bool   `json:"last"`
}

// NewSession opens a lesson at a step: the lab is rebuilt by replaying the
// steps before it, which is what makes a link to step 5 show exactly what
// playing steps 1 to 4 would. newLab makes each fresh lab (the browser
// paces its simulation, the server may put it on disk); nil is lab.New.
func NewSession(l *Lesson, step int, newLab func() *lab.Lab) (*Session, Change, error) {
	return NewNativeSession(l, step, newLab, nil)
}

// NewNativeSession is NewSession on the workshop server: native runs a
// native lesson's `>~` commands and the server's commands a learner types.
// Without it (the browser lab) a native lesson is refused: its `>~`
// commands are the lesson's point and only the server has them.
func NewNativeSession(l *Lesson, step int, newLab func() *lab.Lab, native NativeRunner) (*Session, Change, error) {
	if l.Native && native == nil {
		return nil, Change{}, fmt.Errorf("lesson %s runs in native mode: it measures the machine with the workshop server's own commands; "+
			"run the server (`make run`) and open it from the live page's Lessons menu", l.ID)
	}
	if newLab == nil {
		newLab = lab.New
	}
	s := &Session{lesson: l, newLab: newLab, native: native}
	ch, err := s.goTo(step)
	return s, ch, err
}

// Lab is the lab the session drives, for drawing it.
func (s *Session) Lab() *lab.Lab { return s.player.Lab }

// Lesson is the lesson being played.
func (s *Session) Lesson() *Lesson { return s.lesson }

// Close releases the lab.
func (s *Session) Close() error { return s.player.Close() }

// Status is the current step as the player draws it.
func (s *Session) Status() Status {
	st := s.lesson.Steps[s.step]
	out := Status{
		Lesson: s.lesson.ID, Step: s.step, Steps: len(s.lesson.Steps), Name: st.Name,
		Goal: st.Goal, Phase: s.phase, Answer: s.answer, Focus: st.Focus,
		Last: s.step == len(s.lesson.Steps)-1,
	}
	if s.phase != PhaseAsk {
		out.Right = s.value
	}
	return out
}

// Answer takes the learner's prediction, then runs the step and reveals
// the check's value. Any choice is accepted: a wrong one is how the
// learner meets its explanation.
func (s *Session) Answer(value string) (Change, error) {
	if s.phase != PhaseAsk {
		return Change{}, fmt.Errorf("this step asks nothing now")
	}
	pr := s.lesson.Steps[s.step].Predict
	known := false
	for _, c := range pr.Choices {
		known = known || c.Value == value
	}
	if !known {
		return Change{}, fmt.Errorf("%q is not one of the choices", value)
	}
	s.answer = value
	ran := s.runStep()
	v, err := s.player.Evaluate(pr.Check, pr.Args)
	if err != nil {
		v = "error: " + err.Error()
	}
	s.value = v
	s.phase = PhaseShown
	return Change{Ran: ran}, nil
}

// Next goes to the following step. It continues on the same lab only when
// the lab is exactly what the lesson made it; after a goal or the
// learner's own commands it replays the lesson to the next step, so the
// narration always describes the cluster on screen.
func (s *Session) Next() (Change, error) {
	if s.step+1 >= len(s.lesson.Steps) {
		return Change{}, fmt.Errorf("this is the last step")
	}
	if s.phase == PhaseAsk {
		return Change{}, fmt.Errorf("answer the question first")
	}
	if s.typed || s.lesson.Steps[s.step].Goal {
		return s.goTo(s.step + 1)
	}
	s.step++
	return Change{Ran: s.enter()}, nil
}

// Back replays the lesson to the previous step.
func (s *Session) Back() (Change, error) {
	if s.step == 0 {
		return Change{}, fmt.Errorf("this is the first step")
	}
	return s.goTo(s.step - 1)
}

// Reset replays the current step from scratch.
func (s *Session) Reset() (Change, error) { return s.goTo(s.step) }

// GoTo opens another step of the same lesson.
func (s *Session) GoTo(step int) (Change, error) { return s.goTo(step) }

// At refuses an action meant for another step than the current one: two
// viewers of a room clicking Next together, or a Next queued behind a
// slow command, would otherwise skip a step. step is the 0-based step the
// page showed when the button was pressed.
func (s *Session) At(step int) error {
	if step != s.step {
		return fmt.Errorf("the lesson is on step %d now, not %d: nothing done", s.step+1, step+1)
	}
	return nil
}

// Run is the learner's own command, typed or clicked. Before a prediction
// is answered it is refused: the step's outcome must not show early. On a
// goal step every command is followed by the goal's check.
func (s *Session) Run(cmd string) (Ran, error) {
	if s.phase == PhaseAsk {
		return Ran{}, fmt.Errorf("answer the question first: the step's commands have not run yet")
	}
	r := s.runTyped(cmd)
	s.typed = true
	if s.phase == PhaseGoal && s.goalHolds() {
		s.phase = PhaseReached
	}
	return r, nil
}

func (s *Session) goTo(step int) (Change, error) {
	if step < 0 || step >= len(s.lesson.Steps) {
		return Change{}, fmt.Errorf("lesson %s has %d steps, numbered 0 to %d", s.lesson.ID, len(s.lesson.Steps), len(s.lesson.Steps)-1)
	}
	if s.player != nil {
		s.player.Close()
	}
	s.player = &Player{Lab: s.newLab()}
	var ran []Ran
	for _, st := range s.lesson.Steps[:step] {
		for _, c := range st.Commands {
			if c.Live {
				continue // a measurement: it changed nothing to replay
			}
			ran = append(ran, s.run(c.Text))
		}
		for _, c := range st.Solution {
			ran = append(ran, s.run(c))
		}
	}
	s.step = step
	ran = append(ran, s.enter()...)
	return Change{Rebuilt: true, Ran: ran}, nil
}

// enter begins the current step: a predict step waits for its answer, any
// other runs its commands, and a goal step then waits for the learner.
func (s *Session) enter() []Ran {
	st := s.lesson.Steps[s.step]
	s.answer, s.value, s.typed = "", "", false
	if st.Predict != nil {
		s.phase = PhaseAsk
		return nil
	}
	ran := s.runStep()
	s.phase = PhaseShown
	if st.Goal {
		s.phase = PhaseGoal
		if s.goalHolds() {
			s.phase = PhaseReached
		}
	}
	return ran
}

func (s *Session) runStep() []Ran {
	var ran []Ran
	for _, c := range s.lesson.Steps[s.step].Commands {
		if c.Live {
			ran = append(ran, s.runLive(c.Text))
			continue
		}
		ran = append(ran, s.run(c.Text))
	}
	return ran
}

// run runs a lab command: a lesson's `>` lines are the lab's alone, so a
// replay is the same everywhere.
func (s *Session) run(cmd string) Ran {
	out := s.player.Run(cmd)
	return Ran{Command: cmd, Output: out, OK: s.player.lastErr == nil}
}

// runTyped is the learner's command: the server's own first, as in free
// play, then the lab's.
func (s *Session) runTyped(cmd string) Ran {
	if s.native != nil {
		if out, err, handled := s.native(cmd); handled {
			return s.nativeRan(cmd, out, err)
		}
	}
	return s.run(cmd)
}

// runLive is a `>~` line: a native command, never the lab's.
func (s *Session) runLive(cmd string) Ran {
	if s.native != nil {
		if out, err, handled := s.native(cmd); handled {
			return s.nativeRan(cmd, out, err)
		}
	}
	return s.nativeRan(cmd, "", fmt.Errorf("`%s` is not a command of this server", cmd))
}

// nativeRan is a native command's Ran; its error is the last error, as a
// lab command's is, for the last-error check.
func (s *Session) nativeRan(cmd, out string, err error) Ran {
	s.player.lastErr = err
	if err != nil {
		out = "error: " + err.Error()
	}
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return Ran{Command: cmd, Output: out, OK: err == nil}
}

func (s *Session) goalHolds() bool {
	g := s.lesson.Steps[s.step].Check
	if g == nil {
		return false
	}
	v, err := s.player.Evaluate(g.Check, g.Args)
	return err == nil && v == g.Want
}

// Find returns the embedded lesson with that id.
func Find(id string) (*Lesson, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	for _, l := range all {
		if l.ID == id {
			return l, nil
		}
	}
	return nil, fmt.Errorf("no lesson %q", id)
}
