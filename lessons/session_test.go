package lessons

import (
	"encoding/json"
	"strings"
	"testing"
)

// sessionLesson is small and cheap: a cluster, a predict step, a goal the
// learner solves by crashing a broker, and a plain last step.
const sessionLesson = front + `== step: start
say.en: S
say.zh: S 中文
> cluster brokers=3 seed=7
> topic create t rf=3

== step: ask
say.en: S
say.zh: S 中文
predict: leader t/0
question.en: Q
question.zh: Q 中文
choice: 1 | en: one | zh: 一 | why.en: a | why.zh: 甲
choice: 2 | en: two | zh: 二 | why.en: b | why.zh: 乙
choice: 3 | en: three | zh: 三 | why.en: c | why.zh: 丙
> tick 1s

== goal: fail-over
say.en: S
say.zh: S 中文
goal-check: leader t/0 = none
solution: > broker crash 1
solution: > broker crash 2
solution: > broker crash 3
solution: > tick 10s

== step: after
say.en: S
say.zh: S 中文
> topic describe t
`

func newTestSession(t *testing.T, step int) (*Session, Change) {
	t.Helper()
	l, err := Parse("session.lesson", sessionLesson)
	if err != nil {
		t.Fatal(err)
	}
	s, ch, err := NewSession(l, step, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, ch
}

func commands(ch Change) string {
	var cmds []string
	for _, r := range ch.Ran {
		cmds = append(cmds, r.Command)
	}
	return strings.Join(cmds, "; ")
}

// TestSessionActions walks the player's buttons through a lesson, each
// case one action and the status it must leave.
func TestSessionActions(t *testing.T) {
	type action func(s *Session) (Change, error)
	answer := func(v string) action { return func(s *Session) (Change, error) { return s.Answer(v) } }
	next := func(s *Session) (Change, error) { return s.Next() }
	back := func(s *Session) (Change, error) { return s.Back() }
	reset := func(s *Session) (Change, error) { return s.Reset() }
	run := func(cmd string) action {
		return func(s *Session) (Change, error) {
			r, err := s.Run(cmd)
			return Change{Ran: []Ran{r}}, err
		}
	}
	cases := []struct {
		name     string
		open     int
		actions  []action
		step     int
		phase    Phase
		answer   string
		right    string
		rebuilt  bool
		ran      string // the last action's commands
		errorHas string // the last action's error
	}{
		{name: "open runs the first step", open: 0, step: 0, phase: PhaseShown, rebuilt: true, ran: "cluster brokers=3 seed=7; topic create t rf=3"},
		{name: "a predict step waits for its answer before running", open: 0, actions: []action{next}, step: 1, phase: PhaseAsk},
		{name: "the console waits for the answer too", open: 1, actions: []action{run("tick 1s")}, step: 1, phase: PhaseAsk, errorHas: "answer the question first"},
		{name: "next waits for the answer", open: 1, actions: []action{next}, step: 1, phase: PhaseAsk, errorHas: "answer the question first"},
		{name: "an unknown answer is refused", open: 1, actions: []action{answer("7")}, step: 1, phase: PhaseAsk, errorHas: `"7" is not one of the choices`},
		{name: "a wrong answer still reveals the engine's value", open: 1, actions: []action{answer("3")}, step: 1, phase: PhaseShown, answer: "3", right: "2", ran: "tick 1s"},
		{name: "the right answer", open: 1, actions: []action{answer("2")}, step: 1, phase: PhaseShown, answer: "2", right: "2", ran: "tick 1s"},
		{name: "next continues on the same lab", open: 1, actions: []action{answer("2"), next}, step: 2, phase: PhaseGoal},
		{name: "the learner's commands reach a goal", open: 2, actions: []action{run("broker crash 1"), run("broker crash 2"), run("broker crash 3"), run("tick 10s")}, step: 2, phase: PhaseReached, ran: "tick 10s"},
		{name: "half a solution is not the goal", open: 2, actions: []action{run("broker crash 1"), run("tick 10s")}, step: 2, phase: PhaseGoal},
		{name: "after a goal, next replays the lesson's own solution", open: 2, actions: []action{run("broker crash 2"), next}, step: 3, phase: PhaseShown, rebuilt: true,
			ran: "cluster brokers=3 seed=7; topic create t rf=3; tick 1s; broker crash 1; broker crash 2; broker crash 3; tick 10s; topic describe t"},
		{name: "a goal may be skipped", open: 2, actions: []action{next}, step: 3, phase: PhaseShown, rebuilt: true},
		{name: "own commands make next replay", open: 0, actions: []action{run("broker crash 2"), next}, step: 1, phase: PhaseAsk, rebuilt: true, ran: "cluster brokers=3 seed=7; topic create t rf=3"},
		{name: "back replays to the previous step", open: 3, actions: []action{back}, step: 2, phase: PhaseGoal, rebuilt: true},
		{name: "back to a predict step asks again", open: 2, actions: []action{back}, step: 1, phase: PhaseAsk, rebuilt: true},
		{name: "no step before the first", open: 0, actions: []action{back}, step: 0, phase: PhaseShown, errorHas: "first step"},
		{name: "no step after the last", open: 3, actions: []action{next}, step: 3, phase: PhaseShown, errorHas: "last step"},
		{name: "reset forgets the answer", open: 1, actions: []action{answer("1"), reset}, step: 1, phase: PhaseAsk, rebuilt: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, ch := newTestSession(t, c.open)
			var err error
			for _, a := range c.actions {
				ch, err = a(s)
			}
			st := s.Status()
			if st.Step != c.step || st.Phase != c.phase || st.Answer != c.answer || st.Right != c.right {
				t.Errorf("status %+v, want step %d phase %s answer %q right %q", st, c.step, c.phase, c.answer, c.right)
			}
			if c.errorHas == "" && err != nil {
				t.Fatalf("error %v", err)
			}
			if c.errorHas != "" && (err == nil || !strings.Contains(err.Error(), c.errorHas)) {
				t.Fatalf("error %v, want one saying %q", err, c.errorHas)
			}
			if err == nil && ch.Rebuilt != c.rebuilt {
				t.Errorf("rebuilt %v, want %v", ch.Rebuilt, c.rebuilt)
			}
			if c.ran != "" && commands(ch) != c.ran {
				t.Errorf("ran %q, want %q", commands(ch), c.ran)
			}
		})
	}
}

// TestSessionStepLinkEqualsPlaying: opening a lesson at a step shows what
// playing up to it shows, for every lesson: a shared link to step 4 is
// the same cluster the learner who clicked next three times sees.
func TestSessionStepLinkEqualsPlaying(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range all {
		walked, _, err := NewNativeSession(l, 0, nil, measuredNothing)
		if err != nil {
			t.Fatal(err)
		}
		for i := range l.Steps {
			if i > 0 {
				if _, err := walked.Next(); err != nil {
					t.Fatalf("%s step %d: %v", l.File, i, err)
				}
			}
			reveal(t, walked)
			linked, _, err := NewNativeSession(l, i, nil, measuredNothing)
			if err != nil {
				t.Fatal(err)
			}
			reveal(t, linked)
			a, b := engineState(walked), engineState(linked)
			if a != b || walked.Status() != linked.Status() {
				t.Errorf("%s step %d: walked to it: %q %+v; linked to it: %q %+v", l.File, i, a, walked.Status(), b, linked.Status())
			}
			linked.Close()
		}
		walked.Close()
	}
}

// measuredNothing stands for the server's native commands: a native
// lesson's `>~` lines must leave the cluster as it was, so a stand-in that
// changes nothing gives the same engine state as the real one.
func measuredNothing(line string) (string, error, bool) {
	if strings.HasPrefix(line, "bench ") {
		return "measured", nil, true
	}
	return "", nil, false
}

// engineState is the simulated cluster as text: the whole view, the
// KRaft quorum included (its elections, epochs and offsets run in virtual
// time, so a replay reaches the same ones), through JSON so that pointers
// are followed rather than printed as addresses.
func engineState(s *Session) string {
	b, err := json.Marshal(s.Lab().View())
	if err != nil {
		return "view: " + err.Error()
	}
	return string(b)
}

// reveal answers a predict step with its first choice.
func reveal(t *testing.T, s *Session) {
	t.Helper()
	if s.Status().Phase != PhaseAsk {
		return
	}
	if _, err := s.Answer(s.Lesson().Steps[s.Status().Step].Predict.Choices[0].Value); err != nil {
		t.Fatal(err)
	}
}
