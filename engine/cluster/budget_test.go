package cluster

import (
	"errors"
	"testing"
	"time"
)

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 2_000_000: "2,000,000", -1234567: "-1,234,567"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// The rate is measured per command, only over commands that moved time a
// second or more (a burst is not the rate time runs at): the latest one,
// or conservatively the highest of the last few; before any, a guess per
// broker.
func TestEventRateFromMeasuredCommands(t *testing.T) {
	c := newTestCluster(t, 1)
	c.Checker().EveryStep = false
	if got, want := c.EventRate(false), float64(defaultEventsPerSecondPerBroker*len(c.brokers)); got != want {
		t.Fatalf("rate before any command = %v, want the per-broker guess %v", got, want)
	}
	command := func(d time.Duration) {
		t.Helper()
		c.BeginCommand(defaultEventBudget)
		if err := c.Tick(d); err != nil {
			t.Fatal(err)
		}
	}
	command(time.Hour)
	c.BeginCommand(defaultEventBudget) // closes the hour's window
	idle := c.EventRate(false)
	if idle < 1 || idle > 200 { // no topic: heartbeats only
		t.Fatalf("an idle cluster's rate over an hour = %v events a virtual second", idle)
	}
	command(500 * time.Millisecond) // too short to count
	c.BeginCommand(defaultEventBudget)
	if got := c.EventRate(false); got != idle {
		t.Errorf("a half-second command changed the rate from %v to %v", idle, got)
	}
	// A busier second: checking after every event does not change the
	// event rate, only each event's weight.
	c.Checker().EveryStep = true
	if w := c.EventWeight(); w != 2+c.liveReplicas() || w < 2 {
		t.Errorf("weight with the checker on = %d, want 2 + %d live replicas", w, c.liveReplicas())
	}
	c.Checker().EveryStep = false
	if w := c.EventWeight(); w != 1 {
		t.Errorf("weight with the checker off = %d, want 1", w)
	}
}

// Out of budget, Tick stops at the last event it ran and says how far it
// got; the clock is not moved to the end of the tick.
func TestTickStopsWhereTheBudgetRunsOut(t *testing.T) {
	c := newTestCluster(t, 1)
	c.Checker().EveryStep = false
	start := c.Elapsed()
	c.BeginCommand(50)
	err := c.Tick(time.Hour)
	var over *BudgetExceeded
	if !errors.As(err, &over) {
		t.Fatalf("tick 1h on a budget of 50 events: %v, want BudgetExceeded", err)
	}
	if over.Spent != 50 || over.Events != 50 || over.Limit != 50 || over.At != c.Elapsed() || over.Ran != c.Elapsed()-start || c.Elapsed() >= start+time.Hour {
		t.Errorf("BudgetExceeded %+v with the clock at %v (started at %v)", over, c.Elapsed(), start)
	}
	if over.Rate() <= 0 {
		t.Errorf("rate of the run = %v", over.Rate())
	}
}
