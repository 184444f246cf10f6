package lab

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/view"
)

var clusterCommand = &command{
	name: "cluster",
	usage: "cluster [brokers=3] [controllers=3] [seed=1] [replica.lag.time.max.ms=30000] [replica.fetch.wait.max.ms=500] " +
		"[broker.heartbeat.interval.ms=2000] [broker.session.timeout.ms=9000] [log.retention.check.interval.ms=300000] [log.cleaner.backoff.ms=15000] " +
		"[auto.leader.rebalance.enable=true] [leader.imbalance.check.interval.seconds=300] " +
		"[controller.quorum.election.timeout.ms=1000] [controller.quorum.fetch.timeout.ms=2000] [controller.quorum.election.backoff.max.ms=1000] " +
		"[offsets.topic.num.partitions=50] [offsets.topic.replication.factor=3] [offsets.topic.segment.bytes=104857600] [group.initial.rebalance.delay.ms=3000] " +
		"[group.consumer.heartbeat.interval.ms=5000] [group.consumer.session.timeout.ms=45000] [offsets.retention.minutes=10080] " +
		"[transaction.state.log.num.partitions=50] [transaction.state.log.replication.factor=3] [transaction.max.timeout.ms=900000] " +
		"[transaction.abort.timed.out.transaction.cleanup.interval.ms=10000] [producer.id.expiration.ms=86400000]",
	summary: "start a new cluster (replacing any current one and its data); brokers register with the controller before it returns",
	run: func(l *Lab, a *args) (string, error) {
		def := cluster.DefaultConfig()
		cfg := def
		cfg.Brokers = a.integer("brokers", def.Brokers, 1, cluster.MaxBrokers)
		cfg.Controllers = a.integer("controllers", def.Controllers, 1, cluster.MaxControllers)
		cfg.Seed = a.uint64("seed", def.Seed)
		cfg.Broker.ReplicaLagTimeMax = a.millis("replica.lag.time.max.ms", def.Broker.ReplicaLagTimeMax)
		cfg.Broker.ReplicaFetchWaitMax = a.millis("replica.fetch.wait.max.ms", def.Broker.ReplicaFetchWaitMax)
		cfg.Broker.HeartbeatInterval = a.millis("broker.heartbeat.interval.ms", def.Broker.HeartbeatInterval)
		cfg.SessionTimeout = a.millis("broker.session.timeout.ms", def.SessionTimeout)
		cfg.Broker.RetentionCheckInterval = a.millis("log.retention.check.interval.ms", def.Broker.RetentionCheckInterval)
		cfg.Broker.CleanerBackoff = a.millis("log.cleaner.backoff.ms", def.Broker.CleanerBackoff)
		cfg.AutoLeaderRebalance = a.boolean("auto.leader.rebalance.enable", def.AutoLeaderRebalance)
		cfg.ImbalanceCheckInterval = time.Duration(a.integer("leader.imbalance.check.interval.seconds", int(def.ImbalanceCheckInterval.Seconds()), 1, 1<<30)) * time.Second
		cfg.Quorum.ElectionTimeout = a.millis("controller.quorum.election.timeout.ms", def.Quorum.ElectionTimeout)
		cfg.Quorum.FetchTimeout = a.millis("controller.quorum.fetch.timeout.ms", def.Quorum.FetchTimeout)
		cfg.Quorum.ElectionBackoffMax = a.millis("controller.quorum.election.backoff.max.ms", def.Quorum.ElectionBackoffMax)
		groupOptions(a, &cfg.Broker.Groups, def.Broker.Groups)
		txnOptions(a, &cfg.Broker.Txn, def.Broker.Txn)
		cfg.Broker.ProducerIDExpiration = a.millis("producer.id.expiration.ms", def.Broker.ProducerIDExpiration)
		if err := noPositional(a); err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		if err := cfg.Validate(); err != nil {
			return "", err
		}
		if l.cluster != nil {
			if err := l.cluster.Destroy(); err != nil {
				return "", fmt.Errorf("removing the previous cluster's data: %w", err)
			}
		}
		cfg.Pace, cfg.MetadataDir, cfg.OpenQuorum = l.pace, l.metadataDir, l.openQuorum
		c, err := cluster.New(cfg, l.fs)
		if err != nil {
			if l.cluster != nil {
				// The old cluster's data is gone already: say so, rather
				// than leave the lab pointing at a destroyed cluster.
				l.cluster, l.inspector, l.history = nil, view.Inspector{}, nil
				return "", fmt.Errorf("%w (the previous cluster was removed; there is no cluster now)", err)
			}
			return "", err
		}
		l.cluster = c
		l.inspector = view.Inspector{}
		out := fmt.Sprintf("cluster started: brokers=%d controllers=%d seed=%d; every broker registered by %v",
			cfg.Brokers, cfg.Controllers, cfg.Seed, c.Elapsed())
		// Kafka accepts any offsets.topic.segment.bytes (atLeast(1)), but
		// __consumer_offsets is created with it as its segment.bytes.
		if note := segmentBytesNote("segment.bytes (which __consumer_offsets gets from offsets.topic.segment.bytes)",
			strconv.FormatInt(cfg.Broker.Groups.OffsetsTopicSegmentBytes, 10)); note != "" {
			out += "\n" + note
		}
		return out, nil
	},
}

// groupOptions reads the group coordinator's broker settings. Kafka
// refuses a KIP-848 heartbeat interval not below the session timeout
// (GroupCoordinatorConfig); loglab does not model the
// group.consumer.min/max.session.timeout.ms bounds around the latter.
func groupOptions(a *args, g *broker.GroupConfig, def broker.GroupConfig) {
	g.OffsetsTopicNumPartitions = int32(a.integer("offsets.topic.num.partitions", int(def.OffsetsTopicNumPartitions), 1, cluster.MaxPartitions))
	g.OffsetsTopicReplicationFactor = int16(a.integer("offsets.topic.replication.factor", int(def.OffsetsTopicReplicationFactor), 1, 32767))
	// A small segment rolls __consumer_offsets within a lesson, so the
	// cleaner (which never touches the active segment) compacts commits.
	// It becomes the topic's segment.bytes, so it is held to that
	// config's bounds here: a value the log refuses would leave the
	// coordinator partitions offline after the cluster started.
	g.OffsetsTopicSegmentBytes = int64(a.integer("offsets.topic.segment.bytes", int(def.OffsetsTopicSegmentBytes), 1, math.MaxInt32))
	lc := log.DefaultConfig()
	if err := lc.Set("segment.bytes", strconv.FormatInt(g.OffsetsTopicSegmentBytes, 10)); err != nil {
		a.fail("offsets.topic.%v", err)
	}
	g.InitialRebalanceDelay = a.millisOrZero("group.initial.rebalance.delay.ms", def.InitialRebalanceDelay)
	g.ConsumerHeartbeatInterval = a.millis("group.consumer.heartbeat.interval.ms", def.ConsumerHeartbeatInterval)
	g.ConsumerSessionTimeout = a.millis("group.consumer.session.timeout.ms", def.ConsumerSessionTimeout)
	g.OffsetsRetention = time.Duration(a.integer("offsets.retention.minutes", int(def.OffsetsRetention.Minutes()), 1, 1<<30)) * time.Minute
	if g.ConsumerHeartbeatInterval >= g.ConsumerSessionTimeout {
		a.fail("group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms")
	}
}

// txnOptions reads the transaction coordinator's broker settings. A
// small transaction.state.log.num.partitions keeps a lesson's coordinator
// easy to find, as offsets.topic.num.partitions does for groups.
func txnOptions(a *args, t *broker.TxnConfig, def broker.TxnConfig) {
	t.StateLogNumPartitions = int32(a.integer("transaction.state.log.num.partitions", int(def.StateLogNumPartitions), 1, cluster.MaxPartitions))
	t.StateLogReplicationFactor = int16(a.integer("transaction.state.log.replication.factor", int(def.StateLogReplicationFactor), 1, 32767))
	t.MaxTimeout = a.millis("transaction.max.timeout.ms", def.MaxTimeout)
	t.AbortTimedOutInterval = a.millis("transaction.abort.timed.out.transaction.cleanup.interval.ms", def.AbortTimedOutInterval)
}

var tickCommand = &command{
	name:    "tick",
	usage:   "tick DURATION",
	summary: "advance virtual time, e.g. tick 100ms or tick 5m (a bare number is milliseconds; at most 100 years in all), running everything due meanwhile",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		s, err := onePositional(a, "duration")
		if err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		d, err := parseDuration(s)
		if err != nil {
			return "", err
		}
		// A tick that would pass the clock's maximum, or run more events
		// than a command may, is refused before anything runs: a misuse,
		// with the time left unchanged.
		if err := l.cluster.CheckAdvance(d); err != nil {
			return "", err
		}
		if err := l.costCheck(fmt.Sprintf("tick %v", d), d, 0, func(fit time.Duration) string {
			return "tick at most " + roundDown(fit) + " at a time"
		}); err != nil {
			return "", err
		}
		if err := l.cluster.Tick(d); err != nil {
			return "", err
		}
		return fmt.Sprintf("time is %v (+%v)", l.cluster.Elapsed(), d), nil
	},
}

var stepCommand = &command{
	name:    "step",
	usage:   "step [N]",
	summary: "run the next N events (message deliveries and timers), one at a time, and list them",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		if len(a.positional) > 1 {
			return "", fmt.Errorf("step takes one count between 1 and %d", MaxStepCount)
		}
		n := 1
		if len(a.positional) == 1 {
			// Exact: "step abc" must not run one step as if nothing were typed.
			v, err := strconv.Atoi(a.positional[0])
			switch {
			case errors.Is(err, strconv.ErrRange) || (err == nil && (v < 1 || v > MaxStepCount)):
				return "", fmt.Errorf("step count %s is out of range: it must be between 1 and %d", a.positional[0], MaxStepCount)
			case err != nil:
				return "", fmt.Errorf("step count %q is not a whole number", a.positional[0])
			}
			n = v
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		// At most n events: exact, whatever the rate.
		if w := l.cluster.EventWeight(); int64(n)*w > l.limits.eventsPerCommand {
			return "", fmt.Errorf("step %d would run %d events, each weighing %d while `check invariants always=true` checks after every event; the limit is %s events per command: step at most %d at a time",
				n, n, w, thousands(l.limits.eventsPerCommand), l.limits.eventsPerCommand/w)
		}
		var b strings.Builder
		for i := range n {
			name, ok := l.cluster.Step()
			if !ok {
				b.WriteString("nothing left to run")
				break
			}
			if i > 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "[%v] %s", l.cluster.Elapsed(), name)
		}
		return b.String(), nil
	},
}

var stabilizeCommand = &command{
	name:    "stabilize",
	usage:   "stabilize",
	summary: "run until nothing is in flight, no producer waits and every live broker is unfenced, in its ISRs and caught up (or a fault keeps it from that), at most ten virtual minutes; then watch 10 quiet seconds for a busy loop",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.noArgs(a); err != nil {
			return "", err
		}
		// Not estimated up front: it usually settles long before its ten
		// minutes. Running out of the command's events is its answer, as
		// running out of time is (describeStability says so), so nothing
		// is undone: replaying a session to undo it would hold a shared
		// server up for seconds more, again at every retry.
		s, err := l.cluster.Stabilize()
		if err != nil {
			return "", err
		}
		return describeStability(l.cluster, s), nil
	},
}

// describeStability says whether the cluster converged and, when not, why.
func describeStability(c *cluster.Cluster, s cluster.Stability) string {
	var b strings.Builder
	switch {
	case s.OutOfEvents != nil:
		fmt.Fprintf(&b, "not converged after %v (time is %v): stabilize ran the %s simulation events a command may run (%s per virtual second); stabilize or tick again to go on",
			s.Took, c.Elapsed(), thousands(s.OutOfEvents.Limit), thousands(int64(s.OutOfEvents.Rate()+0.5)))
	case !s.Settled:
		fmt.Fprintf(&b, "not converged after %v (time is %v)", s.Took, c.Elapsed())
		if len(s.Lags) == 0 {
			fmt.Fprintf(&b, ": %d message(s) still in flight or records waiting in a producer", len(c.InFlight()))
		}
	case len(s.Lags) > 0:
		fmt.Fprintf(&b, "quiet at %v (+%v), but not converged while these faults last", c.Elapsed(), s.Took)
	default:
		fmt.Fprintf(&b, "stable at %v (+%v): every live broker is unfenced, in its ISRs and caught up", c.Elapsed(), s.Took)
		if c.HasGroups() {
			b.WriteString("; every consumer group is Stable with each subscribed partition owned once")
		}
	}
	for _, lag := range s.Lags {
		b.WriteString("\n  " + lag.String())
	}
	if s.Settled && len(s.Busy) == 0 {
		busiest := s.Rates[0]
		for _, r := range s.Rates {
			if r.PerSecond() > busiest.PerSecond() {
				busiest = r
			}
		}
		fmt.Fprintf(&b, "\n  no busy loop in the %v after: the busiest node, %s, sent %.1f messages/s", s.Window, busiest.Node, busiest.PerSecond())
		if busiest.PerSecond() > busiest.Bound {
			// Only what it sent of its own counts (Rate.Answers).
			fmt.Fprintf(&b, ", %.1f/s of its own", busiest.OwnPerSecond())
		}
		fmt.Fprintf(&b, " (bound %.0f/s)", busiest.Bound)
	}
	for _, r := range s.Busy {
		b.WriteString("\n  busy loop: " + r.String())
	}
	for _, r := range s.Explained {
		b.WriteString("\n  no busy loop of the engine's, but Kafka's while a fault lasts: " + r.String())
	}
	if !s.Settled {
		for _, r := range s.Rates {
			if r.Busy() {
				b.WriteString("\n  meanwhile " + r.String())
			}
		}
	}
	return b.String()
}
