package server

import (
	"context"
	"runtime/debug"
	"time"

	"github.com/loglab/loglab/web"
)

// Pacing: the real-time driver ticks a cluster twice a second, and every
// tick redraws the charts (each tick adds samples, so every point of
// every line moves). The charts fragment is SVG full of coordinates that
// compress poorly: measured on the load check's instructor cluster (a
// producer and a consumer group, a command every 300 ms, a tick every
// 500 ms; BenchmarkWorkshopUpdateBytes), it added 2.4-3 KB to every
// update of about 12 KB on the wire, for a drawing nobody reads twice a
// second. So an update that only a tick caused carries the paced
// fragments at most once every pacedEvery of wall time; in between, pages
// keep the drawing last sent.
//
// What a person needs is never held back: an update caused by a typed
// command, a lesson, a tick whose events make a transcript entry, or a
// change of the panels shown (a whole view) carries the paced fragments
// as they are then; when they next go out they are the latest drawing,
// never one of the skipped ones; and when the driver stops or pauses the
// pages are sent the drawing of where time stopped (flushPaced), since no
// tick will come to send it. A typed command's update is the same as
// without pacing: the stream's updates are differences from what pages
// show, and the paced fragments a command's update carries are simply
// the ones the ticks before it left out.
//
// The metrics panel is not paced: its numbers change with the cluster's
// state (an ISR shrinking, a leader elected), not with each tick, and it
// cost 0.1-0.3 KB per update in the same measurement.

const (
	// pacedEvery is the least wall time between two tick-only updates
	// that carry the paced fragments: four ticks at realtimePeriod, so a
	// chart still moves while one watches it, at a quarter of the bytes.
	pacedEvery = 2 * time.Second
)

// pacedFragment reports whether a fragment's key is one a tick-only
// update sends at most every pacedEvery.
func pacedFragment(key string) bool { return key == "charts" }

// fragmentPace is when the paced fragments pages show were last brought
// up to date (zero: never, so the first tick sends them); the session's
// updateStream keeps it, with s.mu held.
type fragmentPace struct {
	syncedAt time.Time
}

// due reports whether a tick-only update at wall time now carries the
// paced fragments.
func (p *fragmentPace) due(now time.Time) bool {
	return p.syncedAt.IsZero() || now.Sub(p.syncedAt) >= pacedEvery
}

// wallNow is the session's wall clock: the real-time driver's (a test's
// fake one in tests), time.Now before the driver was ever used.
func (s *liveSession) wallNow() time.Time {
	if s.realtime != nil {
		return s.realtime.clock.now()
	}
	return wallClock.now()
}

// publishTickView pushes the view after a quiet tick at wall time now,
// with no transcript entry, with s.mu held: the paced fragments only when
// pacedEvery passed since pages last got them. Nobody watching: nothing
// is rendered (and nothing is owed: a page that connects gets a snapshot).
func (s *liveSession) publishTickView(now time.Time) {
	if len(s.subscribers) == 0 {
		return
	}
	var hold func(string) bool
	if !s.updates.pace.due(now) {
		hold = pacedFragment
	}
	ctx := context.Background()
	frags, err := web.RenderFragments(ctx, s.lab.View())
	if err == nil {
		var c *viewChange
		if c, err = s.updates.nextHolding(ctx, nil, false, frags, hold); err == nil {
			s.publishUpdate(c)
			if hold == nil {
				s.updates.pace.syncedAt = now
			} else if s.updates.withholding() {
				s.updateStats.paced.Add(1)
			}
		}
	}
	if err != nil {
		s.logger.Error("rendering the view after a real-time tick", "error", err)
	}
}

// flushPaced sends pages the paced fragments a tick-only update left out,
// with s.mu held: the driver stopped or paused itself, and no tick will
// send them. Nothing left out: nothing is rendered or sent. It recovers
// from a panic of its own: it runs where the driver already handles one.
func (s *liveSession) flushPaced() {
	if !s.updates.withholding() {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("sending the view as the real-time driver stopped panicked", "panic", p, "stack", string(debug.Stack()))
		}
	}()
	if err := s.publishView(nil, false); err != nil {
		s.logger.Error("rendering the view as the real-time driver stopped", "error", err)
	}
}
