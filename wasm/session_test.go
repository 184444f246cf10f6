package main

import (
	"encoding/json"
	"html"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/lessons"
)

func TestSessionRunsCommandsAndRendersTheView(t *testing.T) {
	s := newSession()
	for _, line := range strings.Split(lab.StarterScript, "\n") {
		if r := s.run(line); !r.OK {
			t.Fatalf("starter command %q failed: %s", line, r.Output)
		}
	}
	r := s.run("produce orders key=a value=hello partition=2")
	if !r.OK || !strings.HasPrefix(r.Output, "produced to orders/2 at offset 0 (acks=all)\n") || !strings.Contains(r.Output, "console-producer: producer id 0, epoch 0") {
		t.Fatalf("produce gave ok=%v %q", r.OK, r.Output)
	}
	if !hasFragment(r.Fragments, "topic/orders/2", `data-partition="orders/2"`) || !hasFragment(r.Fragments, "topic/orders/2", "hello") {
		t.Fatalf("the fragments sent do not show the new record: %v", keys(r.Fragments))
	}
	if !strings.Contains(r.Entry, "produce orders key=a value=hello partition=2") || !strings.Contains(r.Entry, "offset 0") {
		t.Fatalf("the transcript entry does not show the command and its output:\n%s", r.Entry)
	}
}

func TestSessionReportsErrorsAndStillRenders(t *testing.T) {
	r := newSession().run("produce orders value=1")
	if r.OK || !strings.HasPrefix(r.Output, "error: produce: there is no cluster yet") {
		t.Fatalf("got ok=%v %q, want the no-cluster error", r.OK, r.Output)
	}
	if !strings.Contains(r.View, `id="cluster-view"`) {
		t.Fatalf("a failed command left no view to show:\n%s", r.View)
	}
}

// A long simulation must give the event loop turns: in WASM goroutines
// run only when the running one blocks, and timers (raft's heartbeats,
// the page's own work) fire only when the module returns to JavaScript.
// Without the pacer, the ticker below cannot fire until the simulation
// ends. (Whether raft then keeps its leader also depends on how busy the
// machine is, so that is not asserted.)
func TestLongSimulationLetsTimersFire(t *testing.T) {
	s := newSession()
	defer s.lab.Close()
	for _, line := range strings.Split(lab.StarterScript, "\n") {
		if r := s.run(line); !r.OK {
			t.Fatalf("starter command %q failed: %s", line, r.Output)
		}
	}
	var fired atomic.Int64
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				fired.Add(1)
			}
		}
	}()
	if r := s.run("produce orders value=v{i} count=3000"); !r.OK {
		t.Fatal(r.Output)
	}
	if r := s.run("tick 2h"); !r.OK {
		t.Fatal(r.Output)
	}
	during := fired.Load()
	close(stop)
	if during == 0 {
		t.Fatal("no timer fired while two hours of virtual time ran: the simulation held the thread")
	}
	if after := s.run("show quorum"); !after.OK || !strings.Contains(after.Output, "is active") {
		t.Fatalf("no active controller after the simulation:\n%s", after.Output)
	}
}

func decode[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v in %s", err, s)
	}
	return v
}

// The catalogue lists every embedded lesson with its step count, and the
// lesson data is the rendered prose of the one asked for.
func TestCatalogueListsEveryLesson(t *testing.T) {
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	cat := decode[[]lessons.Entry](t, catalogueJSON())
	if len(cat) != len(all) || len(cat) == 0 {
		t.Fatalf("catalogue has %d lessons, the module embeds %d", len(cat), len(all))
	}
	for i, l := range all {
		c := cat[i]
		if c.ID != l.ID || c.Steps != len(l.Steps) || c.Level != l.Level || c.Minutes != l.Minutes || c.Title.En == "" || c.Title.Zh == "" {
			t.Errorf("catalogue entry %d is %+v for lesson %s (%d steps)", i, c, l.ID, len(l.Steps))
		}
	}
	r := decode[lessons.Rendered](t, lessonDataJSON(all[0].ID))
	if r.ID != all[0].ID || len(r.Steps) != len(all[0].Steps) || r.Steps[0].Say[0].Zh == "" {
		t.Fatalf("lesson data %+v", r)
	}
	if e := decode[map[string]string](t, lessonDataJSON("no-such-lesson")); !strings.Contains(e["error"], "no-such-lesson") {
		t.Fatalf("an unknown lesson gave %v", e)
	}
}

// firstPredict is the first lesson with a prediction, and that step.
func firstPredict(t *testing.T) (*lessons.Lesson, int) {
	t.Helper()
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range all {
		for i, st := range l.Steps {
			if st.Predict != nil {
				return l, i
			}
		}
	}
	t.Fatal("no lesson asks anything")
	return nil, 0
}

// Opening a lesson at its question rebuilds the lab by replay; the
// console is refused until the learner answers, the answer runs the
// step and reveals the engine's value; closing goes back to the sandbox
// as the learner left it.
func TestLessonOpensAnswersAndCloses(t *testing.T) {
	s := newSession()
	t.Cleanup(func() { s.lab.Close() })
	if r := s.run("cluster brokers=1 seed=3"); !r.OK {
		t.Fatal(r.Output)
	}
	l, ask := firstPredict(t)
	u := s.lesson("open", lessonArg{Lesson: l.ID, Step: ask})
	t.Cleanup(func() { s.lesson("close", lessonArg{}) })
	if u.Error != "" || u.Status == nil || u.Status.Step != ask || u.Status.Phase != lessons.PhaseAsk || !u.Clear {
		t.Fatalf("open gave %+v", u)
	}
	// The steps before the question were replayed into the transcript.
	if first := l.Steps[0].Commands[0].Text; ask > 0 && !strings.Contains(u.Entry, first) {
		t.Fatalf("the replayed transcript lacks %q:\n%s", first, u.Entry)
	}
	if ask > 0 && !strings.Contains(u.View, "data-partition=") {
		t.Fatalf("the view is not the lesson's lab:\n%.300s", u.View)
	}

	r := s.run("tick 1s")
	if r.OK || !strings.Contains(r.Output, "answer the question first") || r.Status == nil || r.Status.Phase != lessons.PhaseAsk {
		t.Fatalf("a command before the answer gave ok=%v %q %+v", r.OK, r.Output, r.Status)
	}
	if u := s.lesson("next", lessonArg{}); u.Error == "" || u.Status.Step != ask {
		t.Fatalf("next before the answer gave %+v", u)
	}

	pr := l.Steps[ask].Predict
	u = s.lesson("answer", lessonArg{Value: pr.Choices[0].Value})
	if u.Error != "" || u.Clear || u.Status.Phase == lessons.PhaseAsk || u.Status.Answer != pr.Choices[0].Value || u.Status.Right == "" {
		t.Fatalf("answer gave %+v", u)
	}
	for _, c := range l.Steps[ask].Commands {
		if !strings.Contains(u.Entry, html.EscapeString(c.Text)) {
			t.Errorf("the answer's transcript lacks the step's command %q", c.Text)
		}
	}
	if u := s.lesson("answer", lessonArg{Value: pr.Choices[0].Value}); u.Error == "" {
		t.Fatal("a second answer was taken")
	}
	if r := s.run("tick 1s"); !r.OK || r.Status == nil {
		t.Fatalf("free play after the answer gave ok=%v %q", r.OK, r.Output)
	}

	u = s.lesson("close", lessonArg{})
	if u.Status != nil || !u.Clear || !strings.Contains(u.View, "seed 3") {
		t.Fatalf("close gave status %+v, view %.300s", u.Status, u.View)
	}
	if r := s.run("tick 1s"); r.Status != nil || !r.OK {
		t.Fatalf("after close the console is not the sandbox's: %+v", r)
	}
}

// Back gives the transcript and view that Next gave at that step: both
// replay the same commands on a fresh lab.
func TestLessonBackReplaysWhatNextShowed(t *testing.T) {
	l, ask := firstPredict(t)
	s := newSession()
	t.Cleanup(func() { s.lesson("close", lessonArg{}); s.lab.Close() })
	u := s.lesson("open", lessonArg{Lesson: l.ID, Step: ask})
	if u.Error != "" {
		t.Fatal(u.Error)
	}
	u = s.lesson("answer", lessonArg{Value: l.Steps[ask].Predict.Choices[0].Value})
	if u.Error != "" {
		t.Fatal(u.Error)
	}
	shown := u.View
	if u = s.lesson("next", lessonArg{}); u.Error != "" || u.Status.Step != ask+1 {
		t.Fatalf("next gave %+v", u)
	}
	u = s.lesson("back", lessonArg{})
	if u.Error != "" || !u.Clear || u.Status.Step != ask || u.Status.Phase != lessons.PhaseAsk {
		t.Fatalf("back gave %+v", u)
	}
	u = s.lesson("answer", lessonArg{Value: l.Steps[ask].Predict.Choices[0].Value})
	if u.View != shown {
		t.Fatal("the view after back and the same answer differs from the first time")
	}
	if u := s.lesson("goto", lessonArg{Step: 99}); u.Error == "" || u.Status.Step != ask {
		t.Fatalf("goto 99 gave %+v", u)
	}
	if u := s.lesson("open", lessonArg{Lesson: "no-such-lesson"}); u.Error == "" || u.Status == nil {
		t.Fatalf("opening an unknown lesson gave %+v (the open one must stay)", u)
	}
}

// A lesson's labs are paced like the sandbox: the page's event loop must
// get turns while a step is replayed, or raft's timers starve.
func TestLessonLabsArePaced(t *testing.T) {
	s := newSession()
	var calls atomic.Int64
	s.pace = func() func() { return func() { calls.Add(1) } }
	t.Cleanup(func() { s.lesson("close", lessonArg{}); s.lab.Close() })
	// A lesson whose replay runs seconds of a three-broker cluster; at
	// its last step the whole lesson is replayed.
	l, err := lessons.Find("acks1-leader-crash")
	if err != nil {
		t.Fatal(err)
	}
	if u := s.lesson("open", lessonArg{Lesson: l.ID, Step: len(l.Steps) - 1}); u.Error != "" {
		t.Fatal(u.Error)
	}
	if calls.Load() == 0 {
		t.Fatal("replaying the whole lesson never called the pacer")
	}
}

// A goal is reached through the console: each command goes through the
// lesson, and the status that comes back with the last one says so.
func TestLessonGoalReachedThroughTheConsole(t *testing.T) {
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	var l *lessons.Lesson
	goal := -1
	for _, c := range all {
		for i, st := range c.Steps {
			if st.Goal && goal < 0 {
				l, goal = c, i
			}
		}
	}
	if l == nil {
		t.Fatal("no lesson has a goal")
	}
	s := newSession()
	t.Cleanup(func() { s.lesson("close", lessonArg{}); s.lab.Close() })
	u := s.lesson("open", lessonArg{Lesson: l.ID, Step: goal})
	if u.Error != "" || u.Status.Phase != lessons.PhaseGoal {
		t.Fatalf("open at the goal gave %+v", u)
	}
	var r update
	for _, cmd := range l.Steps[goal].Solution {
		r = s.run(cmd)
		if r.Status == nil {
			t.Fatalf("%q came back without the lesson's status", cmd)
		}
	}
	if r.Status.Phase != lessons.PhaseReached {
		t.Fatalf("after the lesson's solution the phase is %q", r.Status.Phase)
	}
	if !strings.Contains(r.Entry, html.EscapeString(l.Steps[goal].Solution[len(l.Steps[goal].Solution)-1])) {
		t.Fatalf("the last entry lacks its command:\n%s", r.Entry)
	}
}

// A Next queued behind a slow command, clicked twice, moves one step: the
// second says it was meant for a step the lesson has left.
func TestLessonActionForAnotherStepIsRefused(t *testing.T) {
	l, err := lessons.Find("acks1-leader-crash")
	if err != nil {
		t.Fatal(err)
	}
	s := newSession()
	t.Cleanup(func() { s.lesson("close", lessonArg{}); s.lab.Close() })
	if u := s.lesson("open", lessonArg{Lesson: l.ID}); u.Error != "" {
		t.Fatal(u.Error)
	}
	seen := 0
	if u := s.lesson("next", lessonArg{At: &seen}); u.Error != "" || u.Status.Step != 1 {
		t.Fatalf("first next gave %+v", u)
	}
	u := s.lesson("next", lessonArg{At: &seen})
	if !strings.Contains(u.Error, "the lesson is on step 2 now, not 1") || u.Status.Step != 1 {
		t.Fatalf("the second next, meant for step 1, gave error %q at step %d", u.Error, u.Status.Step)
	}
}
