package cluster

import (
	"errors"
	"fmt"
	"github.com/loglab/loglab/engine/check"
	"slices"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// ErrClientExists and ErrNoClient name client mistakes in lab commands.
var (
	ErrClientExists = errors.New("a client with that name exists")
	ErrNoClient     = errors.New("no such client")
)

func (c *Cluster) bootstrap() []int32 {
	ids := make([]int32, len(c.brokers))
	for i, b := range c.brokers {
		ids[i] = b.ID
	}
	return ids
}

func (c *Cluster) nameTaken(name string) bool {
	if name == "ctl" || name == string(AdminNode) || (len(name) > 1 && name[0] == 'b' && name[1] >= '0' && name[1] <= '9') {
		return true
	}
	return c.Producer(name) != nil || c.Consumer(name) != nil
}

// CreateProducer adds a producer named name.
func (c *Cluster) CreateProducer(name string, cfg client.ProducerConfig) (*client.Producer, error) {
	if c.nameTaken(name) {
		return nil, fmt.Errorf("%w: %q", ErrClientExists, name)
	}
	p := client.NewProducer(sim.NodeID(name), cfg, c.bootstrap(), c.net, c.sched, c.rng, c.event)
	c.producers = append(c.producers, p)
	return p, nil
}

// Producer finds a producer.
func (c *Cluster) Producer(name string) *client.Producer {
	for _, p := range c.producers {
		if string(p.ID) == name {
			return p
		}
	}
	return nil
}

// Producers lists producers in creation order.
func (c *Cluster) Producers() []*client.Producer { return c.producers }

// CreateConsumer adds a consumer with the given partitions assigned.
func (c *Cluster) CreateConsumer(name string, cfg client.ConsumerConfig, tps []protocol.TopicPartition) (*client.Consumer, error) {
	if c.nameTaken(name) {
		return nil, fmt.Errorf("%w: %q", ErrClientExists, name)
	}
	for _, tp := range tps {
		if _, err := c.PartitionInfo(tp.Topic, int(tp.Partition)); err != nil {
			return nil, err
		}
	}
	co := client.NewConsumer(sim.NodeID(name), cfg, c.bootstrap(), c.net, c.sched, c.rng, c.event)
	if len(tps) > 0 {
		co.Assign(tps)
	}
	c.consumers = append(c.consumers, co)
	c.specs[name] = consumerSpec{cfg: cfg, tps: tps}
	return co, nil
}

// Consumer finds a consumer.
func (c *Cluster) Consumer(name string) *client.Consumer {
	for _, co := range c.consumers {
		if string(co.ID) == name {
			return co
		}
	}
	return nil
}

// Consumers lists consumers in creation order.
func (c *Cluster) Consumers() []*client.Consumer { return c.consumers }

// Message is one record to produce; Partition < 0 lets the partitioner choose.
type Message struct {
	Key, Value []byte
	Partition  int32
}

// AckedRecord is a record whose producer got a successful acknowledgement:
// what the invariant checker holds the cluster to.
type AckedRecord = check.AckedRecord

// Produce sends messages through producer p and runs the cluster until
// every one has its delivery report (bounded by the producer's delivery
// timeout). Successful acks=1 and acks=all deliveries are remembered for
// the invariant checker.
func (c *Cluster) Produce(p *client.Producer, topic string, msgs []Message) ([]*client.Delivery, error) {
	if c.controller.Image().Topic(topic) == nil {
		return nil, fmt.Errorf("%w: no topic %q", ErrUnknownTopicOrPartition, topic)
	}
	ds := c.Send(p, topic, msgs)
	limit := p.Config().DeliveryTimeout + p.Config().RequestTimeout + time.Second
	// Deliveries only ever become done: the wait resumes where the
	// previous look stopped rather than walking all of ds after each event.
	next := 0
	_, err := c.RunUntil(func() bool {
		for next < len(ds) && ds[next].Done {
			next++
		}
		return next == len(ds)
	}, limit)
	return ds, err
}

// Send hands messages to producer p without waiting: the deliveries
// complete as the simulation runs. Acknowledged ones are recorded for the
// invariant checker the moment they complete.
func (c *Cluster) Send(p *client.Producer, topic string, msgs []Message) []*client.Delivery {
	ds := make([]*client.Delivery, len(msgs))
	// Room for them all once acknowledged: a large produce otherwise
	// grew (copied) the list a few dozen times.
	c.acked = slices.Grow(c.acked, len(msgs))
	for i, m := range msgs {
		ds[i] = p.Send(topic, m.Partition, m.Key, m.Value)
	}
	c.pending = append(c.pending, ds...)
	if !slices.Contains(c.pendingFrom, p) {
		c.pendingFrom = append(c.pendingFrom, p)
	}
	c.pendingSent = true
	return ds
}

// collectAcks moves completed deliveries out of the pending list and
// remembers the acknowledged ones.
//
// Deliveries complete mostly in the order they were sent, so the walk stops
// once it has found as many newly completed deliveries as their producers
// completed since the last look (none beyond can be done), and the
// deliveries still pending before that point move up to the ones after
// it: a completion costs the deliveries it completed, not all those still
// pending (a produce of N records was N x batches).
func (c *Cluster) collectAcks() {
	nAcked, nFailed := len(c.acked), len(c.failed)
	defer func() {
		c.appendAcked("a", c.acked[nAcked:])
		c.appendAcked("f", c.failed[nFailed:])
	}()
	completed := len(c.pending) // at most: the walk's bound
	if !c.pendingSent {
		completed = c.pendingCompletions() - c.pendingSeen
	}
	end, found := 0, 0
	for ; end < len(c.pending) && found < completed; end++ {
		d := c.pending[end]
		if !d.Done {
			continue
		}
		found++
		tp := protocol.TopicPartition{Topic: d.Topic, Partition: d.Partition}
		switch {
		case d.Err == protocol.None && d.Acks != 0:
			c.acked = append(c.acked, AckedRecord{TP: tp, Offset: d.Offset, Key: d.Key, Value: d.Value, Acks: d.Acks, At: c.clock.Elapsed()})
		case d.Err != protocol.None && d.Key != nil:
			// A produce that timed out may have been appended all the same:
			// on a compacted topic it may have superseded an earlier record.
			c.failed = append(c.failed, AckedRecord{TP: tp, Offset: -1, Key: d.Key, Value: d.Value, Acks: d.Acks, At: c.clock.Elapsed()})
		}
	}
	// The deliveries still pending among the first end move, in order, to
	// just before the rest.
	w := end
	for i := end - 1; i >= 0; i-- {
		if d := c.pending[i]; !d.Done {
			w--
			c.pending[w] = d
		}
	}
	clear(c.pending[:w])
	c.pending = c.pending[w:]
	c.pendingSent = false
	if len(c.pending) == 0 {
		c.pendingFrom = nil
	}
	c.pendingSeen = c.pendingCompletions()
}

// ackMayHaveCompleted reports whether a pending delivery may have
// completed since collectAcks last looked: one was sent, or one of their
// producers completed one (a delivery is done once and for all).
func (c *Cluster) ackMayHaveCompleted() bool {
	return c.pendingSent || c.pendingCompletions() != c.pendingSeen
}

func (c *Cluster) pendingCompletions() int {
	n := 0
	for _, p := range c.pendingFrom {
		n += p.Completions()
	}
	return n
}

func allDone(ds []*client.Delivery) bool {
	for _, d := range ds {
		if !d.Done {
			return false
		}
	}
	return true
}

// Poll polls consumer co, running the cluster until it returns records or
// timeout passes in virtual time (Kafka's poll(Duration)).
func (c *Cluster) Poll(co *client.Consumer, max int, timeout time.Duration) ([]client.ConsumedRecord, error) {
	// A wait past the end of virtual time is refused before the consumer
	// fetches anything, so that the failed poll changes nothing.
	if err := c.CheckAdvance(timeout); err != nil {
		return nil, err
	}
	var out []client.ConsumedRecord
	var pollErr error
	poll := func() bool {
		recs, err := co.Poll(max - len(out))
		out = append(out, recs...)
		if err != nil {
			pollErr = err
			return true
		}
		return len(out) > 0
	}
	defer func() {
		c.ledger.lastDone = c.ledger.deliver(c.processingScope(co), string(co.ID), out)
		c.checker.NotePolled(string(co.ID), co.Config().IsolationLevel == client.ReadCommitted, out)
	}()
	if poll() {
		return out, pollErr
	}
	_, err := c.RunUntil(poll, timeout)
	if err != nil {
		return out, err
	}
	return out, pollErr
}

// processingScope is whose processing a record counts against: the
// consumer's group, so that a record two members process is a duplicate.
func (c *Cluster) processingScope(co *client.Consumer) string {
	if g := co.GroupID(); g != "" {
		return "group " + g
	}
	return "consumer " + string(co.ID)
}

// ProcessedAtPoll lists what the last Poll's application processed before
// it polled: the records the previous poll had handed it.
func (c *Cluster) ProcessedAtPoll() []Processed { return c.ledger.lastDone }

// Acked lists the acknowledged records so far.
func (c *Cluster) Acked() []AckedRecord { return c.acked }
