package cluster

import (
	"fmt"
	"slices"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// PollLoopInterval is how often the application behind an idle group
// consumer calls poll. Between lab commands a consumer's application
// waits in a poll loop, as a Java application's `while (true)
// consumer.poll(100 ms)` does: the group protocol runs (joins, syncs,
// reconciliation, auto-commit when due) and the poll timer of
// max.poll.interval.ms keeps being reset. Records are handed over only
// by the lab's `poll`, so the learner sees every one. An application
// that is busy (processing for a while, or holding records it has not
// processed) does not poll: its group waits for it, and its poll timer
// runs out if it stays busy too long.
const PollLoopInterval = 100 * time.Millisecond

// consumerSpec is how a lab consumer was created, so `consumer restart`
// starts the same application again (a new process: new member id).
type consumerSpec struct {
	cfg    client.ConsumerConfig
	topics []string                  // subscription (group consumers)
	tps    []protocol.TopicPartition // manual assignment
}

// busy reports whether consumer name's application is not in poll():
// processing until busyUntil, or holding records it has not processed.
func (c *Cluster) busy(name string) bool {
	c.ledger.init()
	return len(c.ledger.inHand[name]) > 0 || c.clock.Elapsed() < c.ledger.busyUntil[name]
}

// startPollLoop runs co's application's poll loop while co lives.
func (c *Cluster) startPollLoop(co *client.Consumer) {
	name := string(co.ID)
	c.sched.After(PollLoopInterval, "poll-loop "+name, func() {
		if co.Closed() || c.Consumer(name) != co {
			return
		}
		if !c.busy(name) {
			// An error here (FENCED_INSTANCE_ID, ...) is kept by the
			// consumer and raised by the learner's next poll.
			_ = co.PollGroup()
		}
		c.startPollLoop(co)
	})
}

// CreateGroupConsumer adds a consumer in group cfg.GroupID subscribed to
// topics; its application starts in its poll loop.
func (c *Cluster) CreateGroupConsumer(name string, cfg client.ConsumerConfig, topics []string) (*client.Consumer, error) {
	if cfg.GroupID == "" {
		return nil, fmt.Errorf("a group consumer needs group.id")
	}
	for _, t := range topics {
		if c.controller.Image().Topic(t) == nil {
			// Kafka's subscribe() does not refuse: the broker may auto-create
			// the topic (auto.create.topics.enable), or the member waits,
			// assigned nothing, logging UNKNOWN_TOPIC_OR_PARTITION. The lab
			// asks for the topic first instead.
			return nil, fmt.Errorf("topic %q does not exist: create it with `topic create %s` first (loglab does not auto-create topics)", t, t)
		}
	}
	co, err := c.CreateConsumer(name, cfg, nil)
	if err != nil {
		return nil, err
	}
	if err := co.Subscribe(topics); err != nil {
		return nil, err
	}
	c.specs[name] = consumerSpec{cfg: cfg, topics: slices.Clone(topics)}
	c.startPollLoop(co)
	return co, nil
}

// CloseConsumer is KafkaConsumer.close: records held unprocessed are
// abandoned (counted as never processed), what was consumed is
// auto-committed, and a dynamic member leaves its group. It runs until
// the close completes and returns the final commit's error.
func (c *Cluster) CloseConsumer(co *client.Consumer) (abandoned int, err error) {
	abandoned = c.dropInHand(string(co.ID))
	cl := co.Close()
	// close() waits for its LeaveGroup to be answered, within the close
	// timeout (30 s): the coordinator has the member gone when it returns.
	sent := func() bool {
		for _, env := range c.net.InFlight() {
			if env.From == co.ID {
				return false
			}
		}
		return cl.Done
	}
	if _, err := c.RunUntil(sent, time.Minute+co.Config().MaxPollInterval); err != nil {
		return abandoned, err
	}
	return abandoned, cl.Err
}

// CrashConsumer kills the consumer's process: nothing is committed or
// sent, and what its application held is never processed.
func (c *Cluster) CrashConsumer(co *client.Consumer) int {
	n := c.dropInHand(string(co.ID))
	co.Crash()
	return n
}

// RestartConsumer starts a closed or crashed consumer's application
// again with the same configuration: a new process, so a new member id
// (a static member keeps its group.instance.id).
func (c *Cluster) RestartConsumer(name string) (*client.Consumer, error) {
	old := c.Consumer(name)
	if old == nil {
		return nil, fmt.Errorf("%w: %q", ErrNoClient, name)
	}
	if !old.Closed() {
		return nil, fmt.Errorf("consumer %s is running: close or crash it first", name)
	}
	spec, ok := c.specs[name]
	if !ok {
		return nil, fmt.Errorf("consumer %s has no recorded configuration", name)
	}
	co := client.NewConsumer(sim.NodeID(name), spec.cfg, c.bootstrap(), c.net, c.sched, c.rng, c.event)
	c.consumers[slices.Index(c.consumers, old)] = co
	if spec.cfg.GroupID != "" && len(spec.topics) > 0 {
		if err := co.Subscribe(spec.topics); err != nil {
			return nil, err
		}
		c.startPollLoop(co)
	} else {
		co.Assign(spec.tps)
	}
	return co, nil
}

// Commit commits what consumer co consumed (commitSync or commitAsync);
// a sync commit runs until it completes, an async one returns at once
// (its outcome comes later, as a callback's would).
func (c *Cluster) Commit(co *client.Consumer, sync bool) (*client.Commit, error) {
	if !sync {
		return co.CommitAsync(nil), nil
	}
	h := co.CommitSync(nil)
	if _, err := c.RunUntil(func() bool { return h.Done }, 2*time.Minute); err != nil {
		return h, err
	}
	if !h.Done {
		return h, fmt.Errorf("commitSync did not complete within 2 minutes of virtual time")
	}
	return h, nil
}
