package client

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// Subscribe joins the consumer's group (group.id) for topics: the next
// Poll finds the coordinator and joins, as KafkaConsumer.subscribe does
// nothing on the network itself.
func (c *Consumer) Subscribe(topics []string) error {
	if c.group == nil {
		return ErrNoGroupID
	}
	if c.closed || c.crashed {
		return ErrConsumerClosed
	}
	ts := slices.Clone(topics)
	slices.Sort(ts)
	ts = slices.Compact(ts)
	g := c.group
	changed := !slices.Equal(ts, g.topics)
	g.topics = ts
	c.meta.requestUpdate(true)
	if changed {
		switch m := g.proto.(type) {
		case *classicMember:
			m.requestRejoin("subscription changed")
			m.rejoinNeeded = true
		case *consumerMember:
			m.full = true
		}
	}
	return nil
}

// PollGroup is the group half of Poll, without fetching or returning
// records: find the coordinator, (re)join, reconcile, auto-commit when
// due, and reset the poll timer. The lab calls it for a consumer whose
// application waits inside poll() between commands (Java's poll runs the
// coordinator the whole time it blocks); records are still handed over
// only by Poll.
func (c *Consumer) PollGroup() error {
	if c.closed || c.crashed {
		return ErrConsumerClosed
	}
	if c.group == nil {
		return nil
	}
	return c.group.poll()
}

// Subscription lists the subscribed topics.
func (c *Consumer) Subscription() []string {
	if c.group == nil {
		return nil
	}
	return slices.Clone(c.group.topics)
}

// Closing is the progress of Close: Done once the consumer is gone.
type Closing struct {
	Done bool
	Err  error // the final auto-commit's failure, if any
}

// Close is KafkaConsumer.close: commit what was consumed (auto-commit),
// revoke, leave the group (a static member does not send LeaveGroup, a
// KIP-848 one leaves with epoch -2), then detach from the network. The
// engine runs until Done.
func (c *Consumer) Close() *Closing {
	cl := &Closing{}
	if c.closed || c.crashed {
		cl.Done = true
		return cl
	}
	finish := func() {
		if g := c.group; g != nil && len(g.topics) > 0 && !c.closed {
			g.proto.close()
		}
		c.detach(false)
		cl.Done = true
	}
	g := c.group
	if g != nil && len(g.topics) > 0 && c.cfg.EnableAutoCommit {
		if offsets := c.consumedOffsets(nil); len(offsets) > 0 {
			// maybeAutoCommitOffsetsSync within close's timer; a failure is
			// logged, not thrown (Closing.Err says what it was).
			h := c.commitWithin(offsets, true, "auto-commit on close", closeTimeout)
			h.onDone = func() {
				cl.Err = h.Err
				finish()
			}
			if h.Done {
				finish()
			}
			return cl
		}
	}
	finish()
	return cl
}

// Crash makes the consumer vanish as a killed process does: no commit, no
// LeaveGroup, its timers stop and nothing more is sent or received. Its
// group notices only when its session times out.
func (c *Consumer) Crash() {
	if c.closed || c.crashed {
		return
	}
	if c.group != nil {
		c.group.event("crashed: no commit, no LeaveGroup")
	}
	c.detach(true)
}

func (c *Consumer) detach(crashed bool) {
	if crashed {
		c.crashed = true
	} else {
		c.closed = true
	}
	if g := c.group; g != nil {
		switch m := g.proto.(type) {
		case *classicMember:
			m.stopHeartbeats()
		case *consumerMember:
			cancel(m.hbTimer)
		}
		for _, r := range g.pending {
			cancel(r.timer)
		}
		g.pending = nil
		cancel(g.findWake)
	}
	c.assign = nil
	c.meta.stop() // a closed or dead client asks for metadata no more
	c.net.Attach(c.ID, func(*sim.Envelope) {})
}

// Closed reports whether Close finished or Crash happened.
func (c *Consumer) Closed() bool { return c.closed || c.crashed }

// Pause stops fetching tps and returning their records; heartbeats go on,
// so the member stays in its group (KafkaConsumer.pause).
func (c *Consumer) Pause(tps []protocol.TopicPartition) error { return c.setPaused(tps, true) }

// Resume undoes Pause.
func (c *Consumer) Resume(tps []protocol.TopicPartition) error { return c.setPaused(tps, false) }

func (c *Consumer) setPaused(tps []protocol.TopicPartition, paused bool) error {
	for _, tp := range tps {
		if c.find(tp) == nil {
			return fmt.Errorf("IllegalStateException: No current assignment for partition %s/%d", tp.Topic, tp.Partition)
		}
	}
	for _, tp := range tps {
		c.find(tp).paused = paused
	}
	return nil
}

// Paused lists the paused partitions.
func (c *Consumer) Paused() []protocol.TopicPartition {
	var out []protocol.TopicPartition
	for _, a := range c.assign {
		if a.paused {
			out = append(out, a.tp)
		}
	}
	return out
}

// GroupID is group.id ("" without a group).
func (c *Consumer) GroupID() string { return c.cfg.GroupID }

// MemberID is the member id in the group ("" until the coordinator gave
// one, classic; made by the client at once, consumer protocol).
func (c *Consumer) MemberID() string {
	if c.group == nil {
		return ""
	}
	return c.group.proto.memberID()
}

// Generation is the classic generation id, or the KIP-848 member epoch
// (-1: none).
func (c *Consumer) Generation() int32 {
	if c.group == nil {
		return -1
	}
	return c.group.proto.epoch()
}

// Phase is where the member is: unjoined, committing, joining, syncing,
// stable (classic); joining, reconciling, acknowledging, stable, leaving,
// stale (consumer protocol); closed or crashed. "" without a group.
func (c *Consumer) Phase() string {
	switch {
	case c.crashed:
		return phaseCrashed
	case c.closed:
		return phaseClosed
	case c.group == nil:
		return ""
	}
	if m, ok := c.group.proto.(*classicMember); ok && m.state == phaseStable && m.rejoinNeeded {
		return "stable (rejoin pending)"
	}
	return c.group.proto.phase()
}

// Coordinator is the coordinator broker (-1: unknown).
func (c *Consumer) Coordinator() int32 {
	if c.group == nil {
		return -1
	}
	return c.group.coordinator
}

// GroupError is the fatal group error Poll returns, if any.
func (c *Consumer) GroupError() error {
	if c.group == nil {
		return nil
	}
	return c.group.fatal
}

// addPartitions adds newly assigned partitions; they start from their
// committed offsets.
func (c *Consumer) addPartitions(tps []protocol.TopicPartition) {
	for _, tp := range tps {
		if c.find(tp) == nil {
			c.assign = append(c.assign, &assignment{tp: tp, position: -1, hw: -1, lastEpoch: -1, fetchedEnd: -1, needCommitted: true})
		}
	}
	slices.SortFunc(c.assign, func(a, b *assignment) int {
		if tpLess(a.tp, b.tp) {
			return -1
		}
		if a.tp == b.tp {
			return 0
		}
		return 1
	})
	c.meta.refresh()
	c.fetchCommittedIfNeeded()
}

// removePartitions drops partitions: their buffered records are dropped
// and answers in flight for them ignored, as assignFromSubscribed does.
func (c *Consumer) removePartitions(tps []protocol.TopicPartition) {
	c.assign = slices.DeleteFunc(c.assign, func(a *assignment) bool {
		if slices.Contains(tps, a.tp) {
			a.corr = -1
			return true
		}
		return false
	})
}

// markRevoking stops fetching partitions being revoked and returning
// their buffered records (markPendingRevocation).
func (c *Consumer) markRevoking(tps []protocol.TopicPartition) {
	for _, a := range c.assign {
		if slices.Contains(tps, a.tp) {
			a.revoking = true
		}
	}
}
