package cluster

import (
	"time"

	"github.com/loglab/loglab/engine/sim"
)

// Step runs the next event and says what it was.
func (c *Cluster) Step() (string, bool) {
	e, ok := c.sched.Step()
	if !ok {
		return "", false
	}
	if len(c.pending) > 0 && c.ackMayHaveCompleted() {
		c.collectAcks()
	}
	c.checker.AfterEvent()
	c.count()
	c.maybeSampleCharts()
	if c.config.Pace != nil {
		if c.stepped++; c.stepped%paceEvery == 0 {
			c.config.Pace()
		}
	}
	return e.Name, true
}

// Tick advances virtual time by d, running everything due meanwhile:
// heartbeats, fetches, timeouts, retention, the cleaner.
func (c *Cluster) Tick(d time.Duration) error {
	// Refused before any event runs, so that a tick past the end of virtual
	// time changes nothing.
	if err := c.clock.CheckAdvance(d); err != nil {
		return err
	}
	end := c.clock.Elapsed() + d
	for n := 0; ; n++ {
		at, ok := c.sched.Next()
		if !ok || at > end {
			break
		}
		// Out of budget: the clock stays at the last event run (the
		// lab undoes the command, see BudgetExceeded).
		if err := c.overBudget(n); err != nil {
			return err
		}
		c.Step()
	}
	return c.clock.Advance(end - c.clock.Elapsed())
}

// RunUntil runs events until done reports true (checked after each) or
// limit of virtual time passes. It reports whether done became true.
func (c *Cluster) RunUntil(done func() bool, limit time.Duration) (bool, error) {
	// Near the end of virtual time the wait stops there: no event runs
	// after sim.MaxElapsed, and the sum must not wrap into the past.
	end := c.clock.Elapsed() + min(limit, c.clock.Room())
	for n := 0; !done(); n++ {
		at, ok := c.sched.Next()
		if !ok || at > end {
			return false, nil
		}
		if err := c.overBudget(n); err != nil {
			return false, err
		}
		c.Step()
	}
	return true, nil
}

// quiet reports whether no message is in flight and no producer has
// records waiting.
func (c *Cluster) quiet() bool {
	if !c.net.Idle() {
		return false
	}
	for _, p := range c.producers {
		if p.Busy() {
			return false
		}
	}
	return true
}

// InFlight lists the messages on the wire.
func (c *Cluster) InFlight() []*sim.Envelope { return c.net.InFlight() }
