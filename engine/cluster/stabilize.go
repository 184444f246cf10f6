package cluster

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
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
	// Explained are the nodes above their bound only because of a fault
	// in force that makes Kafka itself resend without backing off (a
	// transactional producer told of a coordinator that is down): not a
	// violation, and said with the fault.
	Explained []Rate
}

// Converged reports whether every liveness property holds.
func (s Stability) Converged() bool { return s.Settled && len(s.Lags) == 0 && len(s.Busy) == 0 }

// Rate is how many messages a node sent over a stretch of virtual time,
// and the most it may send over it while nothing changes.
type Rate struct {
	Node sim.NodeID
	Sent uint64
	// Answers (a broker's) are the messages of Sent that answer a
	// client's requests: at most one per request the client sent it. A
	// broker never writes to a client unasked, so their rate is the
	// clients' own, which each client's bound checks; counted against the
	// broker too, a few clients retrying at their retry.backoff.ms would
	// make it look busy.
	Answers uint64
	// Explained (a transactional producer's) are the FindCoordinator
	// requests of Sent it sent at once because its coordinator refused
	// the connection (Kafka's Sender.maybeFindCoordinatorAndRetry backs
	// off only requests that need no coordinator), while Fault, the
	// reason, holds: that broker is down. Kafka loops so too, once per
	// round trip, for as long as the brokers' metadata names it.
	//
	// A broker's Explained are its heartbeats while starting (Kafka's
	// BrokerLifecycleManager sends the next 10 ms after each answer until
	// the controller says it caught up to its registration record) while
	// Fault keeps it from replaying that record: it is cut off from the
	// KRaft quorum's leader, or the quorum has none. The controller's are
	// its answers to them. What says what they are.
	Explained uint64
	What      string
	Fault     string
	Over      time.Duration
	Bound     float64 // messages per virtual second
}

// PerSecond is the node's sending rate.
func (r Rate) PerSecond() float64 { return float64(r.Sent) / r.Over.Seconds() }

// OwnPerSecond is the rate the bound is for: without the answers to
// clients' requests and the sends a fault explains.
func (r Rate) OwnPerSecond() float64 {
	return float64(r.Sent-min(r.Sent, r.Answers+r.Explained)) / r.Over.Seconds()
}

// Busy reports whether the node sent more than its bound.
func (r Rate) Busy() bool { return r.OwnPerSecond() > r.Bound }

func (r Rate) String() string {
	var of string
	if r.Answers > 0 {
		of += fmt.Sprintf(", %d of them answers to clients' requests", r.Answers)
	}
	if r.Explained > 0 {
		of += fmt.Sprintf(", %d of them %s: %s", r.Explained, r.What, r.Fault)
	}
	if of == "" {
		return fmt.Sprintf("%s sent %d messages in %v (%.1f/s, bound %.0f/s)", r.Node, r.Sent, r.Over, r.PerSecond(), r.Bound)
	}
	return fmt.Sprintf("%s sent %d messages in %v (%.1f/s%s; %.1f/s of its own, bound %.0f/s)", r.Node, r.Sent, r.Over, r.PerSecond(), of, r.OwnPerSecond(), r.Bound)
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
		roundStart, before := c.clock.Elapsed(), c.sendCounts()
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
		before = c.sendCounts()
		if err := c.Tick(QuietWindow); err != nil {
			return Stability{}, err
		}
		s.Window = QuietWindow
		s.Rates = c.rates(before, QuietWindow)
		for _, r := range s.Rates {
			switch {
			case r.Busy():
				s.Busy = append(s.Busy, r)
				c.checker.Report(NoBusyLoop, fmt.Sprintf("%s in a quiet window after stabilize", r))
			case r.Explained > 0 && r.PerSecond() > r.Bound:
				s.Explained = append(s.Explained, r)
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
				c.checker.Report(l.Property, fmt.Sprintf("not after %v of stabilize: %s", StabilizeLimit, l.Detail))
			}
		}
	}
	if settled {
		for _, l := range s.Lags {
			if l.Blocked == "" {
				c.checker.Report(l.Property, fmt.Sprintf("converged, then not after the %v quiet window, %d times in a row: %s", QuietWindow, resettleRounds, l.Detail))
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

// sendCounts is what rates measures from: every node's sends, each
// link between a broker and a client both ways, and each producer's
// refused coordinator connections, and each broker's heartbeats while
// starting and the controller's messages to it. The maps are only looked
// up.
type sendCounts struct {
	sent     map[sim.NodeID]uint64
	links    map[[2]sim.NodeID]uint64
	refused  map[sim.NodeID]uint64
	starting map[sim.NodeID]uint64
}

func (c *Cluster) sendCounts() sendCounts {
	n := sendCounts{sent: map[sim.NodeID]uint64{}, links: map[[2]sim.NodeID]uint64{}, refused: map[sim.NodeID]uint64{}, starting: map[sim.NodeID]uint64{}}
	for _, id := range c.nodes() {
		n.sent[id] = c.net.Sent(id)
	}
	for _, b := range c.brokers {
		for _, k := range c.clientNodes() {
			n.links[[2]sim.NodeID{b.Node, k}] = c.net.SentTo(b.Node, k)
			n.links[[2]sim.NodeID{k, b.Node}] = c.net.SentTo(k, b.Node)
		}
		n.starting[b.Node] = b.StartingHeartbeats()
		n.links[[2]sim.NodeID{kraft.ControllerNode, b.Node}] = c.net.SentTo(kraft.ControllerNode, b.Node)
	}
	for _, p := range c.producers {
		n.refused[p.ID], _ = p.CoordinatorRefusals()
	}
	return n
}

// clientNodes lists the clients: producers, consumers and the admin
// client.
func (c *Cluster) clientNodes() []sim.NodeID {
	var ids []sim.NodeID
	for _, p := range c.producers {
		ids = append(ids, p.ID)
	}
	for _, co := range c.consumers {
		ids = append(ids, co.ID)
	}
	return append(ids, AdminNode)
}

// since is how far a counter moved from was (all of it if it went back:
// a restarted client counts again from 0).
func since(now, was uint64) uint64 {
	if now < was {
		return now
	}
	return now - was
}

// rates is each node's sending since before was counted, over d.
func (c *Cluster) rates(before sendCounts, d time.Duration) []Rate {
	var rs []Rate
	for _, id := range c.nodes() {
		r := Rate{Node: id, Sent: since(c.net.Sent(id), before.sent[id]), Over: d, Bound: c.busyBound(id)}
		if c.isBrokerNode(id) {
			for _, k := range c.clientNodes() {
				answers := since(c.net.SentTo(id, k), before.links[[2]sim.NodeID{id, k}])
				asked := since(c.net.SentTo(k, id), before.links[[2]sim.NodeID{k, id}])
				r.Answers += min(answers, asked)
			}
		}
		if p := c.Producer(string(id)); p != nil {
			n, by := p.CoordinatorRefusals()
			if refused := since(n, before.refused[id]); refused > 0 && c.net.IsDown(kraft.BrokerNode(by)) {
				r.Explained = min(refused, r.Sent)
				r.What = "FindCoordinator again at once"
				r.Fault = fmt.Sprintf("its coordinator b%d refused the connection (b%d is down, and the brokers it asked still named it)", by, by)
			}
		}
		rs = append(rs, r)
	}
	c.explainStartingHeartbeats(rs, before)
	return rs
}

// explainStartingHeartbeats marks, in rs, a starting broker's heartbeats
// and the controller's answers to them as Kafka's own loop while a fault
// lasts: Kafka's BrokerLifecycleManager, in STARTING, sends the next
// heartbeat 10 ms after each answer until the controller says the broker
// caught up to its registration record (BrokerLifecycleManagerTest), and
// a broker that cannot reach the KRaft quorum's leader (or whose quorum
// has none) cannot replay that record, so it loops so for as long as the
// fault lasts. Only a broker registered, never unfenced, behind its own
// registration and cut off from the leader now is explained so.
func (c *Cluster) explainStartingHeartbeats(rs []Rate, before sendCounts) {
	ctl := slices.IndexFunc(rs, func(r Rate) bool { return r.Node == kraft.ControllerNode })
	var ctlFaults []string
	for _, b := range c.brokers {
		fault := c.startingCutOff(b)
		i := slices.IndexFunc(rs, func(r Rate) bool { return r.Node == b.Node })
		if fault == "" || i < 0 {
			continue
		}
		hb := min(since(b.StartingHeartbeats(), before.starting[b.Node]), rs[i].Sent)
		if hb == 0 {
			continue
		}
		rs[i].Explained += hb
		rs[i].What = "heartbeats while starting (Kafka's BrokerLifecycleManager: every 10 ms until caught up)"
		rs[i].Fault = fault
		if ctl < 0 {
			continue
		}
		answers := min(since(c.net.SentTo(kraft.ControllerNode, b.Node), before.links[[2]sim.NodeID{kraft.ControllerNode, b.Node}]), hb)
		rs[ctl].Explained = min(rs[ctl].Explained+answers, rs[ctl].Sent)
		ctlFaults = append(ctlFaults, fault)
	}
	if ctl >= 0 && len(ctlFaults) > 0 {
		rs[ctl].What = "answers to starting brokers' heartbeats"
		rs[ctl].Fault = strings.Join(ctlFaults, "; ")
	}
}

// startingCutOff says what keeps broker b from replaying its own
// registration record while it is starting (registered, not unfenced
// yet, its metadata behind that record): a cut link or partition between
// it and the KRaft quorum's leader, or a quorum without a leader; "" when
// b is not starting so or nothing keeps it from catching up.
func (c *Cluster) startingCutOff(b *broker.Broker) string {
	if !b.Starting() || b.MetadataOffset() >= b.Epoch() {
		return ""
	}
	leader := c.ActiveController()
	if leader == 0 {
		return fmt.Sprintf("b%d has not replayed its registration (offset %d) and the KRaft quorum has no leader", b.ID, b.Epoch())
	}
	n := c.ControllerNode(leader)
	if !c.net.Connected(b.Node, n) {
		return fmt.Sprintf("b%d has not replayed its registration (offset %d): %s cuts it off from the quorum's leader c%d", b.ID, b.Epoch(), c.separator(b.Node, n), leader)
	}
	// The quorum's leader is the active controller, which answers the
	// heartbeats: a broker cut off from it is cut off from ctl as well, so
	// it hears nothing and does not loop. What keeps a registered broker
	// from the records while its heartbeats are answered is a drop rule.
	if c.net.Drops(b.Node, n, (protocol.QuorumFetchRequest{}).Kind()) || c.net.Drops(n, b.Node, (protocol.QuorumFetchResponse{}).Kind()) {
		return fmt.Sprintf("b%d has not replayed its registration (offset %d): a net drop rule loses its metadata fetches to the quorum's leader c%d", b.ID, b.Epoch(), leader)
	}
	return ""
}

// isBrokerNode reports whether id is a broker's.
func (c *Cluster) isBrokerNode(id sim.NodeID) bool {
	return slices.ContainsFunc(c.brokers, func(b *broker.Broker) bool { return b.Node == id })
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
//
// A transactional producer whose coordinator is not available may send
// twice that client's rate for as long as it lasts, with no growth:
// Kafka's TransactionManager retries at a fixed retry.backoff.ms (not
// KIP-580's exponential backoff, which only the accumulator's batches
// get), and a request answered COORDINATOR_NOT_AVAILABLE or
// NOT_COORDINATOR goes again after it preceded by a FindCoordinator sent
// at once (lookupCoordinator, then reenqueue): two requests per
// retry.backoff.ms, added to its bound as they are.
//
// A broker's answers to clients' requests are not held against its bound
// (Rate.Answers): each client's own bound checks how often it asks.
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
	retrying := 0.0
	if p := c.Producer(string(id)); p != nil && p.Transactional() {
		retrying = 2 * perSecond(p.Config().RetryBackoff)
	}
	return floor + factor*periodic + retrying
}
