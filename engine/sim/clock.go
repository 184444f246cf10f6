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

// Advance moves time forward. Time never runs backwards: a negative duration
// is a caller bug, reported rather than silently ignored.
func (c *Clock) Advance(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("cannot move the clock backwards by %v", d)
	}
	c.elapsed += d
	return nil
}
