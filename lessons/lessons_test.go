package lessons

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected outputs in the .lesson files with the engine's current output")

// TestLessonsPlay plays every embedded lesson: each command must print its
// transcript, each predict check must pick exactly one choice, and each
// goal must be false before its solution and true after it.
func TestLessonsPlay(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no lessons embedded")
	}
	for _, l := range all {
		t.Run(l.File, func(t *testing.T) {
			pt, err := Play(l)
			if err != nil {
				t.Fatal(err)
			}
			if *rewrite {
				rewriteOutputs(t, l, pt)
				return
			}
			checkTranscripts(t, l, pt)
			checkValues(t, l, pt)
			checkPredictions(t, l, pt)
			checkGoals(t, l, pt)
		})
	}
}

func checkTranscripts(t *testing.T, l *Lesson, pt *Playthrough) {
	t.Helper()
	for i, s := range l.Steps {
		for j, c := range s.Commands {
			if got := TrimLineEnds(pt.Outputs[i][j]); got != c.Want {
				t.Errorf("%s:%d: `%s` printed a different transcript (run with -rewrite after a deliberate change)\n--- want\n%s--- got\n%s", l.File, c.Line, c.Text, c.Want, got)
			}
		}
	}
}

// checkValues: each engine value the narration states must be what its
// check gives after the step's commands, in English and in Chinese.
func checkValues(t reporter, l *Lesson, pt *Playthrough) {
	t.Helper()
	for i, s := range l.Steps {
		for k, v := range s.Values {
			if got := pt.Values[i][k]; got != v.Want {
				t.Errorf("%s:%d: the narration states %s but %s %s gives %q after the step (run with -rewrite after a deliberate change)", l.File, v.Line, v.Text, v.Check, strings.Join(v.Args, " "), got)
			}
		}
	}
}

// reporter is the part of *testing.T the checks use, so a test can see
// what they report on a lesson made to fail.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// fakeT records what a check reports.
type fakeT struct{ errs []string }

func (f *fakeT) Helper() {}
func (f *fakeT) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func checkPredictions(t *testing.T, l *Lesson, pt *Playthrough) {
	t.Helper()
	for i, s := range l.Steps {
		pr := s.Predict
		if pr == nil {
			continue
		}
		matched := 0
		for _, c := range pr.Choices {
			if c.Value == pt.Predictions[i] {
				matched++
			}
		}
		if matched != 1 {
			t.Errorf("%s:%d: predict %s gave %q, which matches %d choices (want exactly 1)", l.File, pr.Line, pr.Check, pt.Predictions[i], matched)
		}
	}
}

func checkGoals(t *testing.T, l *Lesson, pt *Playthrough) {
	t.Helper()
	for i, s := range l.Steps {
		g := s.Check
		if g == nil {
			continue
		}
		if pt.GoalBefore[i] == g.Want {
			t.Errorf("%s:%d: goal %q already holds (%s = %s) before the learner did anything", l.File, g.Line, s.Name, g.Check, g.Want)
		}
		if pt.GoalAfter[i] != g.Want {
			t.Errorf("%s:%d: the solution of goal %q leaves %s = %q, want %q", l.File, g.Line, s.Name, g.Check, pt.GoalAfter[i], g.Want)
		}
	}
}

// TestLessonsDeterministic plays every lesson twice: same commands, same
// transcript and check values, or a learner's replay (back, reset) would
// show another story than the first run.
func TestLessonsDeterministic(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range all {
		first, err1 := Play(l)
		second, err2 := Play(l)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v / %v", l.File, err1, err2)
		}
		if a, b := flatten(first), flatten(second); a != b {
			t.Errorf("%s: two plays differ:\n%s\n---\n%s", l.File, a, b)
		}
	}
}

func flatten(pt *Playthrough) string {
	var b strings.Builder
	for i, outs := range pt.Outputs {
		b.WriteString(strings.Join(outs, ""))
		b.WriteString("predict=" + pt.Predictions[i] + " before=" + pt.GoalBefore[i] + " after=" + pt.GoalAfter[i] + "\n")
	}
	return b.String()
}

// rewriteOutputs replaces each command's output lines in the lesson file,
// last command first so earlier line numbers stay valid.
func rewriteOutputs(t *testing.T, l *Lesson, pt *Playthrough) {
	t.Helper()
	src, err := Source(l.File)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(src, "\n")
	// The narration's engine values first: they change no line count, so
	// the outputs' line numbers below stay valid.
	for i, s := range l.Steps {
		for k, v := range s.Values {
			lines[v.Line-1] = strings.ReplaceAll(lines[v.Line-1], v.Text, v.withValue(pt.Values[i][k]))
		}
	}
	var cmds []Command
	var outs []string
	for i, s := range l.Steps {
		cmds = append(cmds, s.Commands...)
		outs = append(outs, pt.Outputs[i]...)
	}
	for k := len(cmds) - 1; k >= 0; k-- {
		c := cmds[k]
		var repl []string
		if o := strings.TrimSuffix(TrimLineEnds(outs[k]), "\n"); o != "" {
			repl = strings.Split(o, "\n")
		}
		lines = append(lines[:c.OutFrom], append(repl, lines[c.OutTo:]...)...)
	}
	text := strings.Join(lines, "\n")
	// An output line the parser would read as the end of the output (a
	// blank line, a keyword) would make the rewritten lesson lie: refuse it.
	again, err := Parse(l.File, text)
	if err != nil {
		t.Fatalf("the rewritten lesson does not parse: %v", err)
	}
	k := 0
	for _, s := range again.Steps {
		for _, c := range s.Commands {
			if c.Want != TrimLineEnds(outs[k]) {
				t.Fatalf("%s:%d: the output of `%s` cannot be written back unambiguously:\n%s", l.File, c.Line, c.Text, outs[k])
			}
			k++
		}
	}
	if err := os.WriteFile(l.File, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPlayToRebuildsAStep: replaying to a step gives the state a full play
// had there, which is what the player's back button relies on.
func TestPlayToRebuildsAStep(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range all {
		pt, err := Play(l)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range l.Steps {
			if s.Predict == nil {
				continue
			}
			p := PlayTo(l, i)
			p.RunStep(s)
			got, err := p.Evaluate(s.Predict.Check, s.Predict.Args)
			p.Close()
			if err != nil || got != pt.Predictions[i] {
				t.Errorf("%s step %q: replayed to it, %s = %q (err %v), a full play gave %q", l.File, s.Name, s.Predict.Check, got, err, pt.Predictions[i])
			}
		}
	}
}
