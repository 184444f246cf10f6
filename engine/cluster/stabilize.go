package cluster

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/sim"
)

// StabilizeLimit bounds Stabilize: ten minutes of virtual time is far
// more than any catch-up in a lab needs (sessions expire in seconds,
// followers copy megabytes a second), so a cluster still unconverged then
// will not converge.
const StabilizeLimit = 10 * time.Minute

// QuietWindow is how long Stabilize watches a settled cluster for a busy
// loop: long enough for every periodic message (a 2 s heartbeat, a 500 ms
// long-poll) to come several times.
const QuietWindow = 10 * time.Second

// Stability is what Stabilize found.
type Stability struct {
	// Settled: no message is in flight, no producer has records waiting,
	// and the cluster converged, or what remains is kept so by a fault in
	// force (each such Lag names it). False: StabilizeLimit ran out, or
	// the command's events (OutOfEvents).
	Settled bool
	// OutOfEvents is the command's event budget, when it ran out before
	// the cluster settled: a result like StabilizeLimit running out, not
	// a failure to undo, and no liveness violation (the cluster was not
	// given its ten minutes).
	OutOfEvents *BudgetExceeded
	Took        time.Duration // virtual time Stabilize ran, the quiet window included
	Lags        []Lag         // what has not converged at the end
	// Window is the quiet window watched after settling (0 when it did
	// not settle); Rates are every node's sends in it, or over the whole
	// run when it did not settle; Busy are the nodes above their bound.
	Window time.Duration
	Rates  []Rate
	Busy   []Rate
}

// Converged reports whether every liveness property holds.
func (s Stability) Converged() bool { return s.Settled && len(s.Lags) == 0 && len(s.Busy) == 0 }

// Rate is how many messages a node sent over a stretch of virtual time,
// and the most it may send over it while nothing changes.
type Rate struct {
	Node  sim.NodeID
	Sent  uint64
	Over  time.Duration
	Bound float64 // messages per virtual second
}

// PerSecond is the node's sending rate.
func (r Rate) PerSecond() float64 { return float64(r.Sent) / r.Over.Seconds() }

func (r Rate) String() string {
	return fmt.Sprintf("%s sent %d messages in %v (%.1f/s, bound %.0f/s)", r.Node, r.Sent, r.Over, r.PerSecond(), r.Bound)
}

// Stabilize runs until no message is in flight, no producer has records
// waiting and the cluster has converged (Lags) or cannot while the faults
// in force last, bounded by StabilizeLimit. Fetches parked on a leader
// and timers are fine: a settled cluster still heartbeats and long-polls.
// It then watches QuietWindow more for nodes sending more than their
// bound (a busy loop). Not settling in time, and a busy node, are
// liveness violations the checker records; a lag a fault excuses is not.
func (c *Cluster) Stabilize() (Stability, error) {
	start := c.clock.Elapsed()
	var s Stability
	settled := false
	// A cluster that converged may stop being converged in the quiet
	// window for a reason of its own (a preferred leader election moves a
	// group's coordinator, and the group takes a heartbeat to follow), and
	// settles again; one that loops through a converged state (a KIP-848
	// group whose member keeps changing its subscription passes through
	// Stable between reconciliations, as it has no barrier) does so every
	// time. Three rounds in a row tell them apart.
	for round := 1; ; round++ {
		roundStart, before := c.clock.Elapsed(), c.sentCounts()
		limit := StabilizeLimit - (c.clock.Elapsed() - start)
		var err error
		settled = false
		if limit > 0 {
			settled, err = c.RunUntil(func() bool { return c.quiet() && c.settled() }, limit)
		}
		var over *BudgetExceeded
		if err != nil && !errors.As(err, &over) {
			return Stability{}, err
		}
		s = Stability{Settled: settled, OutOfEvents: over}
		if !settled {
			s.Rates = c.rates(before, c.clock.Elapsed()-roundStart)
			break
		}
		before = c.sentCounts()
		if err := c.Tick(QuietWindow); err != nil {
			return Stability{}, err
		}
		s.Window = QuietWindow
		s.Rates = c.rates(before, QuietWindow)
		for _, r := range s.Rates {
			if r.PerSecond() > r.Bound {
				s.Busy = append(s.Busy, r)
				c.checker.report(NoBusyLoop, fmt.Sprintf("%s in a quiet window after stabilize", r))
			}
		}
		s.Lags = c.Lags()
		if !slices.ContainsFunc(s.Lags, func(l Lag) bool { return l.Blocked == "" }) || round == resettleRounds {
			break
		}
	}
	s.Took = c.clock.Elapsed() - start
	s.Lags = c.Lags()
	if !settled && s.OutOfEvents == nil {
		for _, l := range s.Lags {
			if l.Blocked == "" {
				c.checker.report(l.Property, fmt.Sprintf("not after %v of stabilize: %s", StabilizeLimit, l.Detail))
			}
		}
	}
	if settled {
		for _, l := range s.Lags {
			if l.Blocked == "" {
				c.checker.report(l.Property, fmt.Sprintf("converged, then not after the %v quiet window, %d times in a row: %s", QuietWindow, resettleRounds, l.Detail))
			}
		}
	}
	return s, nil
}

// resettleRounds is how many times in a row a cluster may converge and
// then not within the quiet window before it is said to loop.
const resettleRounds = 3

// nodes lists every node that sends: brokers, the controller, clients.
func (c *Cluster) nodes() []sim.NodeID {
	var ids []sim.NodeID
	for _, b := range c.brokers {
		ids = append(ids, b.Node)
	}
	ids = append(ids, kraft.ControllerNode)
	for _, p := range c.producers {
		ids = append(ids, p.ID)
	}
	for _, co := range c.consumers {
		ids = append(ids, co.ID)
	}
	return ids
}

func (c *Cluster) sentCounts() []uint64 {
	var n []uint64
	for _, id := range c.nodes() {
		n = append(n, c.net.Sent(id))
	}
	return n
}

// rates is each node's sending since before was counted, over d.
func (c *Cluster) rates(before []uint64, d time.Duration) []Rate {
	var rs []Rate
	for i, id := range c.nodes() {
		var was uint64
		if i < len(before) {
			was = before[i]
		}
		rs = append(rs, Rate{Node: id, Sent: c.net.Sent(id) - was, Over: d, Bound: c.busyBound(id)})
	}
	return rs
}

// busyBound is the most messages per virtual second a node may send while
// nothing changes. Such a cluster's traffic is periodic:
//
//   - a follower long-polls each partition it follows, one Fetch per
//     replica.fetch.wait.max.ms (500 ms: 2/s), and the leader answers
//     each: 2/s per follower of each partition it leads;
//   - a broker heartbeats every broker.heartbeat.interval.ms (2 s), and
//     the controller answers every broker's heartbeat;
//   - an idle client sends nothing but a metadata refresh now and then,
//     and retries at most every retry.backoff.ms (100 ms: 10/s).
//
// The bound is 20/s plus four times that periodic rate: far above normal
// (a leadership may move, a session expire, a retry come in the window),
// far below a busy loop, which sends once per round trip (1 ms): a
// follower refetching a diverging epoch every 2 ms sends 500/s, a client
// asking for metadata every millisecond 1000/s.
func (c *Cluster) busyBound(id sim.NodeID) float64 {
	const floor, factor = 20, 4
	perSecond := func(d time.Duration) float64 { return float64(time.Second) / float64(max(d, time.Millisecond)) }
	cfg := c.config.Broker
	periodic := 0.0
	if id == kraft.ControllerNode {
		periodic = float64(len(c.brokers)) * perSecond(cfg.HeartbeatInterval)
	}
	for _, b := range c.brokers {
		if b.Node != id {
			continue
		}
		periodic = perSecond(cfg.HeartbeatInterval)
		for _, r := range b.Replicas() {
			polls := 1 // as a follower: its own fetches
			if r.IsLeader() {
				polls = max(len(r.Replicas)-1, 0) // as a leader: one answer per follower's fetch
			}
			periodic += float64(polls) * perSecond(cfg.ReplicaFetchWaitMax)
		}
	}
	return floor + factor*periodic
}
