package server

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/lessons"
	"github.com/loglab/loglab/web"
)

// pacedPage is a page following a real-time session on a fake clock from
// a snapshot taken after `realtime on` at t0 (so the paced fragments were
// last sent at t0).
type pacedPage struct {
	t   *testing.T
	s   *liveSession
	fc  *fakeWallClock
	sub *subscriber
	p   pageModel
}

func newPacedPage(t *testing.T) *pacedPage {
	t.Helper()
	s, fc := realtimeSession(t)
	// A producer's records and a group's lag give the charts lines that
	// move with every tick; the group settles first, so the ticks the
	// tests run are quiet (no event worth a transcript entry).
	for _, line := range []string{"produce orders key=a value=1 count=6", "consumer create c1 topics=orders group=g", "poll c1", "tick 5s", "poll c1", "realtime on"} {
		mustRun(t, s, line)
	}
	pp := &pacedPage{t: t, s: s, fc: fc, sub: s.resume(func() {}, 0)}
	t.Cleanup(func() { s.unsubscribe(pp.sub) })
	if u := pp.p.apply(t, nextMessage(t, pp.sub)); !u.Clear || u.View == "" {
		t.Fatal("the first message is not a snapshot")
	}
	pp.takeAll()
	return pp
}

// takeAll applies every queued update to the page and returns the keys
// of the fragments they carried (with "(view)" for a whole view).
func (pp *pacedPage) takeAll() []string {
	pp.t.Helper()
	var keys []string
	for _, raw := range queuedMessages(pp.t, pp.sub) {
		if messageKind(raw) != "update" {
			continue
		}
		u := pp.p.apply(pp.t, raw)
		if u.View != "" {
			keys = append(keys, "(view)")
		}
		for _, f := range u.Fragments {
			keys = append(keys, f.Key)
		}
	}
	return keys
}

// drawn is the fragment key as the session's lab draws it now.
func (pp *pacedPage) drawn(key string) string {
	pp.t.Helper()
	pp.s.mu.Lock()
	defer pp.s.mu.Unlock()
	frags, err := web.RenderFragments(context.Background(), pp.s.lab.View())
	if err != nil {
		pp.t.Fatal(err)
	}
	for _, f := range frags {
		if f.Key == key {
			return f.HTML
		}
	}
	pp.t.Fatalf("the view has no fragment %q", key)
	return ""
}

// wake runs a wake-up of the driver at ms after t0 (the wall clock says
// so too, as the ticker's times follow it) and applies what the page was
// sent.
func (pp *pacedPage) wake(ms int) []string {
	pp.t.Helper()
	pp.fc.now = at(ms)
	wake(pp.s, ms)
	return pp.takeAll()
}

// run types a command at ms after t0 and applies what the page was sent.
func (pp *pacedPage) run(ms int, line string) []string {
	pp.t.Helper()
	pp.fc.now = at(ms)
	mustRun(pp.t, pp.s, line)
	return pp.takeAll()
}

// heldBack fails unless the page was sent updates without the charts,
// while the lab draws them otherwise (so there was something to hold).
func (pp *pacedPage) heldBack(when string, keys []string) {
	pp.t.Helper()
	if len(keys) == 0 {
		pp.t.Fatalf("%s: the page was sent nothing: the tick changed nothing it shows", when)
	}
	if has(keys, "charts") {
		pp.t.Errorf("%s: a quiet tick's update carried the charts within %v of the last: %v", when, pacedEvery, keys)
	}
	if pp.p.fragment(pp.t, "charts") == pp.drawn("charts") {
		pp.t.Fatalf("%s: the page's charts are the lab's: the tick did not change them, so nothing was held back", when)
	}
	if !pp.s.updates.withholding() {
		pp.t.Errorf("%s: the stream does not know it owes the pages the charts", when)
	}
}

// upToDate fails unless the update carried the charts and the page now
// shows exactly the view the lab draws: the latest charts, not a skipped
// drawing.
func (pp *pacedPage) upToDate(when string, keys []string) {
	pp.t.Helper()
	if !has(keys, "charts") && !has(keys, "(view)") {
		pp.t.Errorf("%s: the update did not carry the charts: %v", when, keys)
	}
	if got, want := pp.p.view(pp.t), currentView(pp.t, pp.s); got != want {
		pp.t.Errorf("%s: the page's view differs from the lab's:\n%s", when, firstDifference(got, want))
	}
	if pp.s.updates.withholding() {
		pp.t.Errorf("%s: the stream still owes the pages a fragment", when)
	}
}

func has(keys []string, key string) bool {
	for _, k := range keys {
		if k == key {
			return true
		}
	}
	return false
}

// A quiet tick's update leaves the charts out until pacedEvery of wall
// time passed since the pages last got them, then carries their latest
// drawing; the window starts again from there.
func TestQuietTickUpdatesPaceTheCharts(t *testing.T) {
	pp := newPacedPage(t)
	for _, ms := range []int{500, 1000, 1500} {
		pp.heldBack("a tick "+at(ms).Sub(t0).String()+" after the charts went out", pp.wake(ms))
	}
	pp.upToDate("the tick 2s after", pp.wake(2000))
	pp.heldBack("the tick 500ms after that", pp.wake(2500))
	pp.upToDate("a tick 2.5s later", pp.wake(4500))
	if got := pp.s.stats().Paced; got != 4 {
		t.Errorf("%d updates counted as paced, want the 4 that left the charts out", got)
	}
}

// A typed command's update carries the charts whatever the ticks before
// it left out, and leaves the page with exactly the view the lab draws (as
// without pacing); the next quiet ticks' window starts from it.
func TestTypedCommandAlwaysCarriesTheCharts(t *testing.T) {
	pp := newPacedPage(t)
	pp.heldBack("a tick", pp.wake(500))
	pp.heldBack("a second tick", pp.wake(1000))
	pp.upToDate("a produce typed 1.1s after the charts went out", pp.run(1100, "produce orders key=b value=2"))
	pp.heldBack("a tick 900ms after the command", pp.wake(2000))
	pp.upToDate("a tick 2s after the command", pp.wake(3100))
	// A command typed right after a tick that sent the charts sends the
	// ones it changed, again without waiting.
	pp.upToDate("a tick typed at once", pp.run(3100, "tick 100ms"))
}

// When the driver stops, pauses, or a lesson takes the cluster, no tick
// will come to send what the ticks left out: the pages are sent the
// latest drawing at once, never left with a stale one. So are they with a
// tick whose events make a transcript entry.
func TestChartsAreFlushedWhenTheDriverStops(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(pp *pacedPage) []string
	}{
		{"realtime pause", func(pp *pacedPage) []string { return pp.run(700, "realtime pause") }},
		{"realtime off", func(pp *pacedPage) []string { return pp.run(700, "realtime off") }},
		{"a lesson opens", func(pp *pacedPage) []string {
			pp.s.lessonAction(nil, lessonRequest{Type: "lesson", Action: "open", Lesson: testLesson})
			return pp.takeAll()
		}},
		{"the lab refuses a tick", func(pp *pacedPage) []string {
			pp.s.mu.Lock()
			run := pp.s.runLine
			pp.s.runLine = func(line string) (string, error) {
				if strings.HasPrefix(line, "tick ") {
					return "", &lab.CommandError{Command: "tick", Usage: "tick DURATION", Err: errors.New("too many events for one command")}
				}
				return run(line)
			}
			pp.s.mu.Unlock()
			return pp.wake(1000)
		}},
		{"a tick's events make a transcript entry", func(pp *pacedPage) []string {
			// Not a stop: an entry is read like a typed command's, and
			// the charts beside it are those of the same moment.
			pp.s.mu.Lock()
			run := pp.s.runLine
			pp.s.runLine = func(line string) (string, error) {
				out, err := run(line)
				if strings.HasPrefix(line, "tick ") {
					out += "\n  [9.999s] b1: an event worth an entry"
				}
				return out, err
			}
			pp.s.mu.Unlock()
			return pp.wake(1000)
		}},
		{"a lesson found open at a tick", func(pp *pacedPage) []string {
			// A driver still on when a lesson is open (none opens so
			// today: opening one pauses the driver) pauses at its next
			// wake-up, without ticking.
			// The tick's path only asks whether one is open.
			pp.s.mu.Lock()
			pp.s.lesson = &lessons.Session{}
			pp.s.mu.Unlock()
			keys := pp.wake(1000)
			pp.s.mu.Lock()
			pp.s.lesson = nil
			pp.s.mu.Unlock()
			return keys
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pp := newPacedPage(t)
			pp.heldBack("a tick", pp.wake(500))
			keys := tc.stop(pp)
			if st := pp.s.realtimeState(); st == "on" && !strings.Contains(tc.name, "entry") {
				t.Fatalf("the driver is still on")
			}
			pp.upToDate(tc.name, keys)
		})
	}
}
