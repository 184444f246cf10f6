package cluster

import (
	"fmt"
	"time"

	"github.com/loglab/loglab/engine/protocol"
)

// A command's cost is counted in simulation events, deterministically (a
// count, never the wall clock, so that the same session is refused at the
// same command natively, in WASM and on a loaded machine). An event the
// invariant checker follows (check invariants always=true) weighs more:
// the checker walks every live replica after it, so the event counts once
// for itself and once for each replica walked, plus one for the walk.

// BudgetExceeded is a command that ran out of its event budget midway:
// the simulation stopped at At, after Events events weighing Spent. The
// lab undoes the command (see lab.Lab); the cluster alone cannot.
type BudgetExceeded struct {
	Limit  int64         // the budget, in weighted events
	Spent  int64         // what the command had used when it stopped
	Events int64         // events the command ran
	Ran    time.Duration // virtual time the command had moved
	At     time.Duration // the clock when it stopped
}

func (e *BudgetExceeded) Error() string {
	return fmt.Sprintf("ran %s simulation events in %v of virtual time, past the limit of %s events per command",
		Thousands(e.Spent), e.Ran, Thousands(e.Limit))
}

// Rate is events per virtual second, measured.
func (e *BudgetExceeded) Rate() float64 {
	if e.Ran <= 0 {
		return 0
	}
	return float64(e.Events) / e.Ran.Seconds()
}

// rateWindows is how many past commands the rate estimate remembers.
const rateWindows = 8

// minRateWindow is the shortest command whose event rate is remembered:
// shorter ones (a produce's burst, the start-up registration) measure a
// burst, not the rate time runs at.
const minRateWindow = time.Second

// defaultEventsPerSecondPerBroker estimates a cluster's rate before any
// command has measured one: an idle broker heartbeats to the controller
// every 2 s and long-polls each leader it follows every 500 ms, about 18
// events a virtual second per broker (3 brokers: 55 measured).
const defaultEventsPerSecondPerBroker = 20

// window is one command's measured rate.
type window struct {
	events int64
	ran    time.Duration
}

// budget is the cluster's per-command accounting.
type budget struct {
	limit   int64 // 0: no command started; RunUntil and Tick bound each call by defaultEventBudget
	spent   int64
	events  int64
	start   time.Duration // the clock when the command began
	total   int64         // events since the cluster started
	windows []window      // the newest last
}

// defaultEventBudget bounds each Tick or RunUntil call when no command
// budget was set (the cluster's own tests, start-up), so that a cluster
// that never settles reports it instead of hanging.
const defaultEventBudget = 2_000_000

// BeginCommand starts counting a command's events against limit (weighted
// events), and remembers the rate the previous command ran at.
func (c *Cluster) BeginCommand(limit int64) {
	b := &c.budget
	if ran := c.clock.Elapsed() - b.start; b.limit > 0 && ran >= minRateWindow {
		b.windows = append(b.windows, window{events: b.events, ran: ran})
		if len(b.windows) > rateWindows {
			b.windows = b.windows[1:]
		}
	}
	b.limit, b.spent, b.events, b.start = limit, 0, 0, c.clock.Elapsed()
}

// CommandRan is the virtual time the current command has moved.
func (c *Cluster) CommandRan() time.Duration { return c.clock.Elapsed() - c.budget.start }

// Spent is the weighted events the current command has run.
func (c *Cluster) Spent() int64 { return c.budget.spent }

// count charges one event that just ran.
func (c *Cluster) count() {
	c.budget.total++
	c.budget.events++
	c.budget.spent += c.EventWeight()
}

// overBudget reports the command's budget exhausted, or, with no command
// budget, n events run by one call past defaultEventBudget.
func (c *Cluster) overBudget(n int) error {
	b := &c.budget
	if b.limit == 0 {
		if n >= defaultEventBudget {
			return &BudgetExceeded{Limit: defaultEventBudget, Spent: int64(n), Events: int64(n), At: c.clock.Elapsed()}
		}
		return nil
	}
	if b.spent >= b.limit {
		return &BudgetExceeded{Limit: b.limit, Spent: b.spent, Events: b.events, Ran: c.clock.Elapsed() - b.start, At: c.clock.Elapsed()}
	}
	return nil
}

// EventWeight is what one event costs now: 1, plus the checker's walk
// when it checks after every event.
func (c *Cluster) EventWeight() int64 {
	if !c.checker.EveryStep {
		return 1
	}
	return 2 + c.liveReplicas()
}

// liveReplicas counts the replicas on running brokers: what the checker
// walks after each event.
func (c *Cluster) liveReplicas() int64 {
	var n int64
	for _, t := range c.controller.Image().Topics {
		for i := range t.Partitions {
			tp := protocol.TopicPartition{Topic: t.Name, Partition: int32(i)}
			for _, b := range c.brokers {
				if b.Alive() && b.Replica(tp) != nil {
					n++
				}
			}
		}
	}
	return n
}

// EventRate is the events per virtual second the cluster ran at lately:
// over the latest command that moved time by a second or more, or, when
// conservative, the highest of the last few such commands. Before any
// command measured one it is a per-broker guess.
func (c *Cluster) EventRate(conservative bool) float64 {
	ws := c.budget.windows
	if len(ws) == 0 {
		return float64(defaultEventsPerSecondPerBroker * len(c.brokers))
	}
	if !conservative {
		return ws[len(ws)-1].rate()
	}
	best := 0.0
	for _, w := range ws {
		best = max(best, w.rate())
	}
	return best
}

func (w window) rate() float64 { return float64(w.events) / w.ran.Seconds() }

// Thousands prints n with thousands separators, as limits are read.
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}
