// Package sim holds what makes the engine deterministic: a virtual clock and
// a seeded random source. Nothing in the engine reads the wall clock or a
// global RNG; drivers decide how fast virtual time runs.
package sim

import (
	"fmt"
	"time"
)

// Epoch is virtual time zero. Record timestamps are Kafka CreateTime values
// (milliseconds since the Unix epoch); starting every cluster at the same
// instant keeps transcripts byte-identical across runs and platforms.
var Epoch = time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)

// Clock is virtual time. It only moves when told to.
type Clock struct {
	elapsed time.Duration
}

// Elapsed is the virtual time since the cluster started.
func (c *Clock) Elapsed() time.Duration { return c.elapsed }

// Now is the current virtual instant.
func (c *Clock) Now() time.Time { return Epoch.Add(c.elapsed) }

// NowMs is the current virtual instant as Kafka timestamps it.
func (c *Clock) NowMs() int64 { return c.Now().UnixMilli() }

// MaxElapsed is how far virtual time can go: 100 years (of 365 days) after
// Epoch. Every duration the lab accepts is at most this, and the clock never
// passes it, so elapsed time plus any accepted duration (200 years at most)
// still fits in a time.Duration (292 years): no timer or deadline can
// overflow and wrap into the past, which would break fencing, session
// timeouts and ordering for good. Kafka has no such limit (its clock is the
// wall clock); a lab session never needs more.
const MaxElapsed = 100 * 365 * 24 * time.Hour

// MaxElapsedText names MaxElapsed in error messages.
var MaxElapsedText = fmt.Sprintf("100 years (%v)", MaxElapsed)

// CheckAdvance reports why time cannot move forward by d, or nil if it can:
// callers that run events on the way (a tick) ask first, so that a refused
// move changes nothing.
func (c *Clock) CheckAdvance(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("cannot move the clock backwards by %v", d)
	}
	if d > MaxElapsed-c.elapsed {
		return fmt.Errorf("cannot move the clock by %v: time is %v and the virtual clock stops at its maximum of %s", d, c.elapsed, MaxElapsedText)
	}
	return nil
}

// Room is how much further the clock can move.
func (c *Clock) Room() time.Duration { return MaxElapsed - c.elapsed }

// Advance moves time forward. Time never runs backwards nor past
// MaxElapsed: either is a caller bug, reported rather than silently done.
func (c *Clock) Advance(d time.Duration) error {
	if err := c.CheckAdvance(d); err != nil {
		return err
	}
	c.elapsed += d
	return nil
}
