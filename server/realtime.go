package server

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/loglab/loglab/web"
)

// The real-time driver of a cluster (realtime_state.go decides; this file
// runs it): while it is on, a goroutine wakes every realtimePeriod of wall
// time and runs `tick D` through the session's execute, with the session's
// mutex, so a tick is serialised with the room's commands and written to
// the command log like one of them. Only the cluster's drivers can run
// commands on it, `realtime` included, so the owner controls their
// cluster's clock and the instructor theirs.
//
// A tick usually prints only "time is …": the pages then receive the new
// view and no transcript entry, or five entries a second would bury what
// people typed. A tick whose output says more (a session timeout, a
// rebalance, retention deleting a segment: the events the lab prints
// under a command) is a transcript entry, as if it had been typed.

// realtimeClock is the driver's wall clock: time.Now and a time.Ticker in
// the server, a test's own times in tests (no test waits on real time).
type realtimeClock struct {
	now func() time.Time
	// ticker starts a ticker; stop releases it.
	ticker func(period time.Duration) (ticks <-chan time.Time, stop func())
}

var wallClock = realtimeClock{
	now: time.Now,
	ticker: func(period time.Duration) (<-chan time.Time, func()) {
		t := time.NewTicker(period)
		return t.C, t.Stop
	},
}

// realtimeDriver is a session's driver; its fields are the session's,
// guarded by its mutex.
type realtimeDriver struct {
	state realtimeState
	clock realtimeClock
	// run is closed by `realtime off` to end the goroutine started by the
	// latest `realtime on`; nil while none runs. done is closed when that
	// goroutine has returned.
	run  chan struct{}
	done chan struct{}
}

// realtimeMessage is what pages receive when the driver's state changes.
type realtimeMessage struct {
	Type  string            `json:"type"` // "realtime"
	State web.RealtimeState `json:"state"`
}

func init() {
	registerNativeCommand(&nativeCommand{
		name:    "realtime",
		usage:   "realtime [on [speed=X] | pause | resume | speed=X | off]",
		summary: "tie this cluster's virtual time to the wall clock (speed X between 0.1 and 100, 1 by default); the ticks it issues are logged, so a replay reproduces the session",
		run:     runRealtime,
	})
}

// driver is the session's driver, made on first use, with s.mu held.
func (s *liveSession) driver() *realtimeDriver {
	if s.realtime == nil {
		s.realtime = &realtimeDriver{clock: wallClock}
	}
	return s.realtime
}

// runRealtime is the `realtime` command, with s.mu held.
func runRealtime(s *liveSession, args []string) (string, error) {
	action, speed, err := parseRealtime(args)
	if err != nil {
		return "", err
	}
	d := s.driver()
	now := d.clock.now()
	switch action {
	case "on", "resume":
		if err := s.canRunRealtime(); err != nil {
			return "", err
		}
		if action == "on" {
			err = d.state.turnOn(now, speed, s.lesson != nil)
		} else {
			err = d.state.resume(now, s.lesson != nil)
		}
		if err != nil {
			return "", err
		}
		s.startRealtime(d)
	case "pause":
		err = d.state.pause("")
	case "speed":
		d.state.setSpeed(now, speed)
	case "off":
		d.state.turnOff()
		if d.run != nil {
			close(d.run)
			d.run = nil
		}
	}
	if err != nil {
		return "", err
	}
	if action != "" {
		s.publishRealtime()
	}
	return d.state.describe(), nil
}

// parseRealtime reads the command's words: the action ("" for the
// status) and a speed (0: none given).
func parseRealtime(args []string) (action string, speed float64, err error) {
	const usage = "realtime [on [speed=X] | pause | resume | speed=X | off]"
	for _, w := range args {
		if v, ok := strings.CutPrefix(w, "speed="); ok {
			if speed != 0 {
				return "", 0, fmt.Errorf("speed is given twice; usage: %s", usage)
			}
			if speed, err = parseSpeed(v); err != nil {
				return "", 0, err
			}
			continue
		}
		switch w {
		case "on", "pause", "resume", "off":
			if action != "" {
				return "", 0, fmt.Errorf("%q and %q: one action at a time; usage: %s", action, w, usage)
			}
			action = w
		default:
			return "", 0, fmt.Errorf("unknown %.40q; usage: %s", w, usage)
		}
	}
	switch {
	case speed != 0 && action == "":
		action = "speed"
	case speed != 0 && action != "on":
		return "", 0, fmt.Errorf("speed= goes with `realtime on` or alone, not with %s; usage: %s", action, usage)
	}
	return action, speed, nil
}

// canRunRealtime refuses to start the clock where it could not tick.
func (s *liveSession) canRunRealtime() error {
	select {
	case <-s.stop:
		return fmt.Errorf("the server is shutting this cluster down")
	default:
	}
	if s.lab.Cluster() == nil {
		return fmt.Errorf("there is no cluster to run yet; start one with `cluster brokers=3 seed=42`")
	}
	return nil
}

// startRealtime starts the driver's goroutine unless it runs, with s.mu
// held.
func (s *liveSession) startRealtime(d *realtimeDriver) {
	if d.run != nil {
		return
	}
	ticks, stop := d.clock.ticker(realtimePeriod)
	run, done := make(chan struct{}), make(chan struct{})
	d.run, d.done = run, done
	go s.driveRealtime(run, done, ticks, stop)
}

// driveRealtime is the driver's goroutine: a tick at each of the ticker's
// times until `realtime off` (run closed) or the session closes (s.stop,
// closeAll), so no goroutine outlives its cluster.
func (s *liveSession) driveRealtime(run, done chan struct{}, ticks <-chan time.Time, stop func()) {
	defer close(done)
	defer stop()
	for {
		select {
		case now := <-ticks:
			s.realtimeTick(run, now)
		case <-run:
			return
		case <-s.stop:
			return
		}
	}
}

// realtimeTick is one wake-up of the goroutine whose run channel is run,
// at wall time now. A goroutine that `realtime off` ended (a new one may
// run already) does nothing.
func (s *liveSession) realtimeTick(run chan struct{}, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.realtime
	if d == nil || d.run != run {
		return
	}
	select {
	case <-s.stop:
		// A wake-up received as the session closed: its lab is being
		// closed, and a removed participant's files deleted.
		return
	default:
	}
	// This goroutine has no caller to recover for it: a panic here would
	// end the whole server. The driver pauses, so it does not panic again
	// five times a second.
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("the real-time driver panicked", "panic", p, "stack", string(debug.Stack()))
			d.state.pause(fmt.Sprintf("internal error: the tick panicked (%v); the server logged it", p))
			s.flushPaced()
			s.publishRealtime()
		}
	}()
	span, paused := d.state.due(now, s.lesson != nil)
	if paused {
		s.flushPaced()
		s.publishRealtime()
		return
	}
	if span == 0 {
		return
	}
	e := s.execute(fmt.Sprintf("tick %dms", span/time.Millisecond))
	e.Command += " · real time ×" + formatSpeed(d.state.Speed())
	if !e.OK {
		why, _, _ := strings.Cut(strings.TrimPrefix(e.Output, "error: "), "\n") // not the usage
		d.state.refused(why)
		e.Output += "\nreal time paused: `realtime resume` tries again"
		s.publishEntry(e)
		s.publishRealtime()
		return
	}
	if strings.Contains(strings.TrimSpace(e.Output), "\n") {
		s.publishEntry(e) // events: worth a transcript entry
		return
	}
	s.publishTickView(now) // pacing.go
}

// realtimeStateNow is the driver's state as pages draw it, with s.mu held.
func (s *liveSession) realtimeStateNow() web.RealtimeState {
	st := web.RealtimeState{State: "off", Speed: 1}
	if d := s.realtime; d != nil {
		st = web.RealtimeState{State: d.state.phase(), Speed: d.state.Speed(), Reason: d.state.reason}
	}
	return st
}

func (s *liveSession) realtimeMessage() []byte {
	b, err := json.Marshal(realtimeMessage{Type: "realtime", State: s.realtimeStateNow()})
	if err != nil {
		panic(err) // strings and a finite float always marshal
	}
	return b
}

// publishRealtime tells every page the driver's state, with s.mu held.
func (s *liveSession) publishRealtime() {
	if len(s.subscribers) > 0 {
		s.publish(s.realtimeMessage())
	}
}

// tellRealtime tells a page that just connected the driver's state, with
// s.mu held; the page draws "off" until told, so a cluster whose driver
// never ran sends nothing.
func (s *liveSession) tellRealtime(sub *subscriber) {
	if s.realtime != nil {
		s.send(sub, s.realtimeMessage())
	}
}

// pauseRealtimeForLesson pauses the driver when a lesson opens, with s.mu
// held: the lesson's steps are exact. The owner resumes it after the
// lesson closes.
func (s *liveSession) pauseRealtimeForLesson() {
	d := s.realtime
	if d == nil || d.state.phase() != "on" {
		return
	}
	d.state.pause(errRealtimeInLesson.Error())
	s.publishRealtime()
}
