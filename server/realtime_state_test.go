package server

import (
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// The tick a wake-up issues: the wall time since the last one times the
// speed, in whole milliseconds, the rest carried to the next, and at most
// realtimeMaxCatchUp of wall time made up after a stall. Kafka has no such
// step (it runs on the wall clock itself); this is how the lab's virtual
// clock follows it: MockTime.sleep in Kafka's tests is the closest kin.
func TestRealtimeTickIsWallTimeTimesSpeed(t *testing.T) {
	cases := []struct {
		name   string
		speed  float64
		wakeMs []int // wall times of the wake-ups, ms after `realtime on` at 0
		ticks  []time.Duration
	}{
		{"one period at the wall clock's pace", 1, []int{200}, []time.Duration{200 * time.Millisecond}},
		{"two and a half times faster", 2.5, []int{200, 400}, []time.Duration{500 * time.Millisecond, 500 * time.Millisecond}},
		{"a hundred times faster: 20 s a period", 100, []int{200}, []time.Duration{20 * time.Second}},
		{"a tenth: 20 ms a period", 0.1, []int{200}, []time.Duration{20 * time.Millisecond}},
		{"a late wake-up ticks what passed", 1, []int{200, 650}, []time.Duration{200 * time.Millisecond, 450 * time.Millisecond}},
		{"under a millisecond waits and is not lost", 0.1, []int{3, 6, 9, 12}, []time.Duration{0, 1 * time.Millisecond, 0, 0}},
		{"a third: the rounding is carried", 1.0 / 3, []int{200, 400, 600}, []time.Duration{67 * time.Millisecond, 66 * time.Millisecond, 67 * time.Millisecond}},
		{"a stall is made up for at most 2 s", 10, []int{200, 30200}, []time.Duration{2 * time.Second, 20 * time.Second}},
		{"a wake-up from before the last is nothing", 1, []int{200, 100}, []time.Duration{200 * time.Millisecond, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r realtimeState
			if err := r.turnOn(at(0), c.speed, false); err != nil {
				t.Fatal(err)
			}
			for i, ms := range c.wakeMs {
				got, paused := r.due(at(ms), false)
				if paused || got != c.ticks[i] {
					t.Errorf("wake-up at %dms: tick %v (paused %v), want %v", ms, got, paused, c.ticks[i])
				}
			}
		})
	}
}

// Over many wake-ups the ticks add up to the wall time times the speed:
// rounding each to a millisecond loses nothing.
func TestRealtimeTicksKeepTheWallClocksPace(t *testing.T) {
	for _, speed := range []float64{0.1, 0.37, 1, 2.5, 7} {
		var r realtimeState
		r.turnOn(at(0), speed, false)
		var sum time.Duration
		ms := 0
		for i := range 500 {
			ms += 190 + i%23 // uneven periods, as a loaded machine wakes
			d, _ := r.due(at(ms), false)
			sum += d
		}
		want := time.Duration(float64(ms) * speed * float64(time.Millisecond))
		if diff := sum - want; diff < -time.Millisecond || diff > time.Millisecond {
			t.Errorf("speed %v: ticked %v over %dms of wall time, want %v", speed, sum, ms, want)
		}
	}
}

// The owner's commands and what the driver does on its own.
func TestRealtimeDecisions(t *testing.T) {
	cases := []struct {
		name string
		run  func(r *realtimeState) error
		// then: a wake-up at 1000ms
		wantErr   string
		wantPhase string
		wantTick  time.Duration
		wantWhy   string
	}{
		{
			name:      "off does not tick",
			run:       func(r *realtimeState) error { return nil },
			wantPhase: "off",
		},
		{
			name:      "on ticks from the moment it was turned on",
			run:       func(r *realtimeState) error { return r.turnOn(at(600), 0, false) },
			wantPhase: "on", wantTick: 400 * time.Millisecond,
		},
		{
			name:      "refused while a lesson is open: its steps are exact",
			run:       func(r *realtimeState) error { return r.turnOn(at(0), 0, true) },
			wantErr:   "a lesson is open",
			wantPhase: "off",
		},
		{
			name: "paused does not tick",
			run: func(r *realtimeState) error {
				r.turnOn(at(0), 0, false)
				return r.pause("")
			},
			wantPhase: "paused",
		},
		{
			name: "resume does not make up for the pause",
			run: func(r *realtimeState) error {
				r.turnOn(at(0), 0, false)
				r.due(at(200), false)
				r.pause("")
				return r.resume(at(900), false)
			},
			wantPhase: "on", wantTick: 100 * time.Millisecond,
		},
		{
			name:      "pause when off is refused",
			run:       func(r *realtimeState) error { return r.pause("") },
			wantErr:   "real time is off",
			wantPhase: "off",
		},
		{
			name:      "resume when off is refused",
			run:       func(r *realtimeState) error { return r.resume(at(0), false) },
			wantErr:   "`realtime on` starts it",
			wantPhase: "off",
		},
		{
			name: "resume during a lesson is refused",
			run: func(r *realtimeState) error {
				r.turnOn(at(0), 0, false)
				r.pause("")
				return r.resume(at(0), true)
			},
			wantErr:   "a lesson is open",
			wantPhase: "paused",
		},
		{
			name: "a speed change counts the time before it at the former speed",
			run: func(r *realtimeState) error {
				r.turnOn(at(0), 1, false)
				r.due(at(800), false)
				r.setSpeed(at(900), 10)
				return nil
			},
			// 100ms at ×1, then 100ms at ×10
			wantPhase: "on", wantTick: 1100 * time.Millisecond,
		},
		{
			name: "a speed set while off is the next on's",
			run: func(r *realtimeState) error {
				r.setSpeed(at(0), 3)
				return r.turnOn(at(800), 0, false)
			},
			wantPhase: "on", wantTick: 600 * time.Millisecond,
		},
		{
			name: "a refused tick pauses, saying why",
			run: func(r *realtimeState) error {
				r.turnOn(at(0), 0, false)
				r.refused("tick 20s would run about 3,000,000 simulation events")
				return nil
			},
			wantPhase: "paused", wantWhy: "the lab refused the tick: tick 20s would run",
		},
		{
			name: "off forgets the pause and its reason",
			run: func(r *realtimeState) error {
				r.turnOn(at(0), 0, false)
				r.refused("x")
				r.turnOff()
				return nil
			},
			wantPhase: "off",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r realtimeState
			err := c.run(&r)
			if (err != nil) != (c.wantErr != "") || err != nil && !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want one saying %q", err, c.wantErr)
			}
			tick, _ := r.due(at(1000), false)
			if r.phase() != c.wantPhase || tick != c.wantTick || !strings.Contains(r.reason, c.wantWhy) || (c.wantWhy == "") != (r.reason == "") {
				t.Errorf("phase %s, tick %v, reason %q; want %s, %v, %q", r.phase(), tick, r.reason, c.wantPhase, c.wantTick, c.wantWhy)
			}
		})
	}
}

// A lesson that opens while the driver runs pauses it at its next wake-up
// (the session also pauses it when the lesson opens).
func TestRealtimePausesUnderALesson(t *testing.T) {
	var r realtimeState
	r.turnOn(at(0), 0, false)
	tick, paused := r.due(at(200), true)
	if tick != 0 || !paused || r.phase() != "paused" || !strings.Contains(r.reason, "lesson") {
		t.Fatalf("tick %v, paused %v, phase %s, reason %q", tick, paused, r.phase(), r.reason)
	}
	if tick, paused := r.due(at(400), true); tick != 0 || paused {
		t.Fatalf("a paused driver ticked %v or paused again (%v)", tick, paused)
	}
}

func TestRealtimeCommandWords(t *testing.T) {
	cases := []struct {
		args    string
		action  string
		speed   float64
		wantErr string
	}{
		{"", "", 0, ""},
		{"on", "on", 0, ""},
		{"on speed=2", "on", 2, ""},
		{"speed=0.1", "speed", 0.1, ""},
		{"speed=100", "speed", 100, ""},
		{"pause", "pause", 0, ""},
		{"resume", "resume", 0, ""},
		{"off", "off", 0, ""},
		{"speed=abc", "", 0, `speed "abc" is not a number`},
		{"speed=", "", 0, `speed "" is not a number`},
		{"speed=NaN", "", 0, "is not a number"},
		{"speed=Inf", "", 0, "is not a number"},
		{"speed=0", "", 0, "speed 0 is out of range: it must be between 0.1 and 100"},
		{"speed=0.05", "", 0, "out of range"},
		{"speed=-1", "", 0, "out of range"},
		{"speed=101", "", 0, "out of range"},
		{"speed=1e3", "", 0, "out of range"},
		{"on off", "", 0, "one action at a time"},
		{"speed=1 speed=2", "", 0, "given twice"},
		{"pause speed=2", "", 0, "not with pause"},
		{"fast", "", 0, `unknown "fast"; usage: realtime [on`},
	}
	for _, c := range cases {
		action, speed, err := parseRealtime(strings.Fields(c.args))
		if (err != nil) != (c.wantErr != "") || err != nil && !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("realtime %s: error %v, want one saying %q", c.args, err, c.wantErr)
			continue
		}
		if action != c.action || speed != c.speed {
			t.Errorf("realtime %s: action %q speed %v, want %q %v", c.args, action, speed, c.action, c.speed)
		}
	}
}
