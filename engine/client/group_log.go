package client

import (
	"slices"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// RebalanceEntry is one rebalance this member took part in, for the lab's
// rebalance timeline: a classic round runs from the member's (re)join to
// its SyncGroup answer; a KIP-848 one from the heartbeat that brought a new
// assignment to the reconciliation's end.
type RebalanceEntry struct {
	Start, End time.Duration // virtual time; End is -1 while in progress
	Generation int32         // the generation (classic) or member epoch it ended in
	Protocol   string        // eager, cooperative (classic) or consumer (KIP-848)
	Reason     string
	Revoked    []protocol.TopicPartition
	RevokedAt  time.Duration // -1: nothing revoked
	Assigned   []protocol.TopicPartition
	AssignedAt time.Duration // -1: nothing assigned yet
	Lost       bool          // partitions were lost (fenced, expired), not revoked
	// StoppedFrom and StoppedTo are the interval the member consumed
	// nothing because of the rebalance: an eager member from revoking
	// everything to its new assignment. -1 when it never stopped (a
	// cooperative or KIP-848 member keeps consuming what it keeps).
	StoppedFrom, StoppedTo time.Duration
}

func cancel(e *sim.Event) {
	if e != nil {
		e.Cancelled = true
	}
}

func (c *Consumer) now() time.Duration { return c.sched.Clock.Elapsed() }

// startRebalance opens a log entry unless one is open (Kafka's
// lastRebalanceStartMs is set once per rebalance).
func (g *groupMember) startRebalance(reason string) {
	if g.current != nil {
		return
	}
	g.current = &RebalanceEntry{Start: g.c.now(), End: -1, Reason: reason, Protocol: g.rebalanceProtocol(), RevokedAt: -1, AssignedAt: -1, StoppedFrom: -1, StoppedTo: -1}
}

func (g *groupMember) logRevoked(tps []protocol.TopicPartition, lost bool) {
	if len(tps) == 0 {
		return
	}
	g.startRebalance("partitions revoked")
	e := g.current
	e.Revoked = append(e.Revoked, tps...)
	e.RevokedAt = g.c.now()
	e.Lost = e.Lost || lost
	if len(g.c.assign) == 0 && e.StoppedFrom < 0 {
		e.StoppedFrom = g.c.now()
	}
}

// endRebalance closes the open entry with the partitions it added.
func (g *groupMember) endRebalance(generation int32, added []protocol.TopicPartition) {
	e := g.current
	if e == nil {
		return
	}
	now := g.c.now()
	e.End, e.Generation = now, generation
	if len(added) > 0 {
		e.Assigned, e.AssignedAt = added, now
	}
	if e.StoppedFrom >= 0 {
		e.StoppedTo = now
	}
	g.log = append(g.log, *e)
	if len(g.log) > maxRebalanceLog {
		// A member that rebalances all session long keeps its totals;
		// only the oldest entries go, so each view stays cheap.
		g.logDropped += len(g.log) - maxRebalanceLog
		g.logDroppedTime += rebalanceTime(g.log[:len(g.log)-maxRebalanceLog])
		g.log = slices.Clone(g.log[len(g.log)-maxRebalanceLog:])
	}
	g.current = nil
	g.lastEnd = now
}

// maxRebalanceLog is how many finished rebalances a member keeps.
const maxRebalanceLog = 100

func rebalanceTime(es []RebalanceEntry) time.Duration {
	var sum time.Duration
	for _, e := range es {
		sum += e.End - e.Start
	}
	return sum
}

// RebalanceLog lists the rebalances this member took part in, oldest
// first, the one in progress (End -1) last.
func (c *Consumer) RebalanceLog() []RebalanceEntry {
	if c.group == nil {
		return nil
	}
	out := append([]RebalanceEntry(nil), c.group.log...)
	if e := c.group.current; e != nil {
		out = append(out, *e)
	}
	return out
}

// Metrics are the consumer coordinator's and fetcher's metrics loglab
// models, by Kafka's names.
type Metrics struct {
	RebalanceTotal           int     // rebalance-total
	RebalanceLatencyAvgMs    float64 // rebalance-latency-avg (NaN-free: 0 with none)
	LastRebalanceSecondsAgo  float64 // last-rebalance-seconds-ago (-1: never)
	RecordsLagMax            int64   // records-lag-max: the largest high watermark - position now (-1: unknown)
	CommitTotal, CommitFails int
}

// Metrics reports the consumer's metrics now.
func (c *Consumer) Metrics() Metrics {
	m := Metrics{LastRebalanceSecondsAgo: -1, RecordsLagMax: -1, CommitTotal: c.commitsDone, CommitFails: c.commitsFailed}
	if g := c.group; g != nil {
		// Finished rebalances only: g.log never holds the one in progress.
		sum := rebalanceTime(g.log) + g.logDroppedTime
		m.RebalanceTotal = len(g.log) + g.logDropped
		if m.RebalanceTotal > 0 {
			m.RebalanceLatencyAvgMs = float64(sum.Milliseconds()) / float64(m.RebalanceTotal)
		}
		if g.lastEnd >= 0 {
			m.LastRebalanceSecondsAgo = (c.now() - g.lastEnd).Seconds()
		}
	}
	for _, a := range c.assign {
		if a.hw >= 0 && a.position >= 0 {
			m.RecordsLagMax = max(m.RecordsLagMax, a.hw-a.position)
		}
	}
	return m
}

// rebalanceProtocol names how the member rebalances: eager or cooperative
// (classic), consumer (KIP-848).
func (g *groupMember) rebalanceProtocol() string {
	if m, ok := g.proto.(*classicMember); ok {
		return m.rebalanceProtocol()
	}
	return GroupProtocolConsumer
}

// RebalanceProtocol is eager or cooperative (classic) or consumer
// (KIP-848); "" without a group.
func (c *Consumer) RebalanceProtocol() string {
	if c.group == nil {
		return ""
	}
	return c.group.rebalanceProtocol()
}

// Revoking lists the partitions being revoked: no longer fetched while the
// commit before their revocation is out.
func (c *Consumer) Revoking() []protocol.TopicPartition {
	var out []protocol.TopicPartition
	for _, a := range c.assign {
		if a.revoking {
			out = append(out, a.tp)
		}
	}
	return out
}
