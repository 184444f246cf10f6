package server

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// The real-time driver's decisions, with no clock, goroutine or lab of
// their own: the session hands them the wall time (a tick of the driver's
// ticker, or the time a `realtime` command ran) and they say how much
// virtual time to tick. Kafka runs on the wall clock, so its heartbeats,
// session timeouts and retention checks happen on their own; the lab's
// cluster runs on a virtual clock that moves only by command (which is
// what keeps it deterministic). Tying the two for a workshop means
// issuing `tick D` commands at the wall clock's pace, D being the wall
// time since the last one times the speed; those ticks go into the
// command log like any command, so a replay needs no wall clock.

const (
	// realtimePeriod is the wall time between two ticks: a heartbeat
	// (broker 2 s, consumer 3 s by default) moves several ticks apart.
	// Every tick sends every watching page an update, compressed once per
	// page: the load check (make loadtest, 200 pages) measured update
	// latency p50/p99 134/779 ms with 200 ms ticks and 86/521 ms with
	// 500 ms ones, for a clock that moves twice a second instead of five
	// times.
	realtimePeriod = 500 * time.Millisecond
	// realtimeMinSpeed and realtimeMaxSpeed bound the speed: below a
	// tenth nothing seems to move; at 100 one tick is 50 s of virtual
	// time, about where a busy cluster still fits a command's event budget
	// (a tick refused for it pauses the driver, saying why).
	realtimeMinSpeed = 0.1
	realtimeMaxSpeed = 100
	// realtimeMaxCatchUp is the most wall time one tick makes up for: a
	// long command (a `tick 1h` typed, a slow replay) holds the cluster,
	// and the ticker's times pile up meanwhile. The virtual time of that
	// stall is dropped, not run in one burst that the event budget would
	// refuse.
	realtimeMaxCatchUp = 2 * time.Second
)

// realtimeState is what the driver is doing.
type realtimeState struct {
	on     bool
	paused bool
	speed  float64 // virtual seconds per wall second; 0 means 1
	// reason is why the driver paused itself (a refused tick, a lesson);
	// empty when the owner paused it.
	reason string
	// last is the wall time up to which virtual time was accounted; owed
	// the virtual time accounted but not ticked yet (the part of a
	// millisecond a tick's rounding left, or the time run at the former
	// speed when the speed changed).
	last time.Time
	owed time.Duration
}

// Speed is the driver's speed, 1 until someone set one.
func (r *realtimeState) Speed() float64 {
	if r.speed == 0 {
		return 1
	}
	return r.speed
}

// parseSpeed reads speed=X's X: a plain decimal number within the bounds.
func parseSpeed(text string) (float64, error) {
	x, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("speed %.40q is not a number: speed=X takes a number between %v and %v (1: virtual time runs at the wall clock's pace, 10: ten times faster)", text, realtimeMinSpeed, realtimeMaxSpeed)
	}
	if x < realtimeMinSpeed || x > realtimeMaxSpeed {
		return 0, fmt.Errorf("speed %v is out of range: it must be between %v and %v", x, realtimeMinSpeed, realtimeMaxSpeed)
	}
	return x, nil
}

// errRealtimeInLesson refuses to run the clock under a lesson: a lesson's
// outputs are exact (its predictions name the values the engine gives),
// and ticks between its steps would change them.
var errRealtimeInLesson = fmt.Errorf("a lesson is open on this cluster: its steps are exact, so real time waits until the lesson closes")

// turnOn starts the driver at now (a paused one resumes), at speed when
// speed is not 0.
func (r *realtimeState) turnOn(now time.Time, speed float64, lesson bool) error {
	if lesson {
		return errRealtimeInLesson
	}
	if speed != 0 {
		r.setSpeed(now, speed)
	}
	if r.on && !r.paused {
		return nil
	}
	r.on, r.paused, r.reason = true, false, ""
	r.last, r.owed = now, 0
	return nil
}

// pause stops the clock where the last tick left it: the wall time since
// is not made up for on resume. why is the driver's own reason, empty
// when the owner paused it.
func (r *realtimeState) pause(why string) error {
	if !r.on {
		return fmt.Errorf("real time is off: nothing to pause (`realtime on` starts it)")
	}
	if !r.paused || why != "" {
		r.reason = why
	}
	r.paused, r.owed = true, 0
	return nil
}

// resume goes on from now after a pause.
func (r *realtimeState) resume(now time.Time, lesson bool) error {
	if !r.on {
		return fmt.Errorf("real time is off: `realtime on` starts it")
	}
	return r.turnOn(now, 0, lesson)
}

// setSpeed changes the speed from now: the wall time since the last tick
// counts at the former speed.
func (r *realtimeState) setSpeed(now time.Time, speed float64) {
	if r.on && !r.paused {
		r.owed += r.accrue(now)
	}
	r.speed = speed
}

// turnOff stops the driver; the speed is kept for the next `realtime on`.
func (r *realtimeState) turnOff() {
	r.on, r.paused, r.reason, r.owed = false, false, "", 0
}

// accrue is the virtual time the wall time since last is worth at the
// current speed (at most realtimeMaxCatchUp of wall time), and moves last
// to now.
func (r *realtimeState) accrue(now time.Time) time.Duration {
	wall := now.Sub(r.last)
	if wall <= 0 {
		return 0 // a tick from before the last accounting (a late one)
	}
	r.last = now
	wall = min(wall, realtimeMaxCatchUp)
	return time.Duration(math.Round(float64(wall) * r.Speed()))
}

// due is what the driver does at wall time now: tick that much virtual
// time (0: nothing yet), or, with a lesson open, pause (paused is then
// true, and the state says why).
func (r *realtimeState) due(now time.Time, lesson bool) (tick time.Duration, paused bool) {
	if !r.on || r.paused {
		return 0, false
	}
	if lesson {
		r.pause(errRealtimeInLesson.Error())
		return 0, true
	}
	exact := r.owed + r.accrue(now)
	// A tick moves whole milliseconds, as the lab's durations are read;
	// the rest is owed to the next tick, so that virtual time keeps the
	// wall clock's pace however the periods round.
	tick = exact.Round(time.Millisecond)
	if tick < time.Millisecond {
		r.owed = exact
		return 0, false
	}
	r.owed = exact - tick
	return tick, false
}

// refused pauses the driver after the lab refused its tick (too many
// events for one command, the end of virtual time, no cluster): ticking
// again would be refused again.
func (r *realtimeState) refused(err string) {
	r.pause("the lab refused the tick: " + err)
}

// phase is the state as the bar draws it: off, on or paused.
func (r *realtimeState) phase() string {
	switch {
	case !r.on:
		return "off"
	case r.paused:
		return "paused"
	}
	return "on"
}

// describe is the state as the `realtime` command prints it.
func (r *realtimeState) describe() string {
	speed := formatSpeed(r.Speed())
	switch r.phase() {
	case "off":
		return fmt.Sprintf("real time is off: virtual time moves only when a command moves it; `realtime on` ties it to the wall clock (speed ×%s)", speed)
	case "paused":
		why := "paused by its driver"
		if r.reason != "" {
			why = r.reason
		}
		return fmt.Sprintf("real time is paused (speed ×%s): %s; `realtime resume` goes on", speed, why)
	}
	return fmt.Sprintf("real time is on, speed ×%s: every %v of wall time the server runs `tick D` with D = the wall time since the last tick × %s, logged like a typed command", speed, realtimePeriod, speed)
}

// formatSpeed writes a speed as it is typed: 1, 2.5, 0.1.
func formatSpeed(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
