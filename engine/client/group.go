package client

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// Group protocols (group.protocol).
const (
	GroupProtocolClassic  = "classic"
	GroupProtocolConsumer = "consumer"
)

// consumerRequestTimeout is request.timeout.ms at the consumer's default:
// an unanswered coordinator request (a network partition gives no
// disconnect notice) fails after it and the coordinator is rediscovered.
const consumerRequestTimeout = 30 * time.Second

// ErrConsumerClosed is what a closed or crashed consumer's calls return.
var ErrConsumerClosed = errors.New("IllegalStateException: This consumer has already been closed.")

// groupProtocol is the part of group membership that differs between the
// classic protocol (JoinGroup/SyncGroup/Heartbeat) and KIP-848's
// (ConsumerGroupHeartbeat).
type groupProtocol interface {
	// poll is the membership's share of KafkaConsumer.poll: join or
	// rejoin when needed (never blocking).
	poll()
	// coordinatorFound resumes what waited for a coordinator.
	coordinatorFound()
	// handle takes a coordinator response; false if it is not its own.
	handle(msg sim.Message) bool
	// commitIdentity is the generation (or member epoch) and member id an
	// OffsetCommit carries, or the error a commit must fail with now.
	commitIdentity() (int32, string, error)
	// close leaves the group (commit first is the caller's job).
	close()
	phase() string
	memberID() string
	epoch() int32
}

// groupMember is a consumer's membership of its group: coordinator
// discovery, the requests in flight to the coordinator, the poll timer,
// auto-commit and the rebalance log, shared by both protocols.
type groupMember struct {
	c      *Consumer
	topics []string // the subscription, sorted
	proto  groupProtocol

	coordinator int32 // -1: unknown
	findCorr    int64
	findTo      sim.NodeID
	findWake    *sim.Event
	findFails   int
	// unreachable counts the coordinator connections that failed since a
	// coordinator last answered: rediscovery after a disconnect backs off
	// on it (retry.backoff.ms doubling to retry.backoff.max.ms), as
	// ensureCoordinatorReady sleeps and the network client's reconnect
	// backoff grows while FindCoordinator still names a dead broker.
	unreachable int
	next        int // the bootstrap broker the next FindCoordinator goes to

	pending []*coordRequest // requests in flight to the coordinator, in send order

	// meta is the group metadata the last completed membership gave
	// (GroupMetadata); metaSet is false before any.
	meta    ConsumerGroupMetadata
	metaSet bool

	lastPoll       time.Duration // Kafka's pollTimer: reset by every poll
	nextAutoCommit time.Duration
	fatal          error

	log []RebalanceEntry
	// logDropped and logDroppedTime are the rebalances trimmed off log
	// (maxRebalanceLog), kept for the metrics.
	logDropped     int
	logDroppedTime time.Duration
	current        *RebalanceEntry
	lastEnd        time.Duration // end of the last completed rebalance (-1: none)
}

// coordRequest is one request in flight to the coordinator: failed is
// called with the reason if the coordinator is lost before it answers.
type coordRequest struct {
	corr   int64
	kind   string
	failed func(protocol.ErrorCode)
	timer  *sim.Event
}

func newGroupMember(c *Consumer) *groupMember {
	g := &groupMember{c: c, coordinator: -1, lastEnd: -1}
	g.nextAutoCommit = c.now() + c.cfg.AutoCommitInterval
	if c.cfg.GroupProtocol == GroupProtocolConsumer {
		g.proto = newConsumerMember(g)
	} else {
		g.proto = newClassicMember(g)
	}
	return g
}

func (g *groupMember) event(format string, args ...any) {
	g.c.events(fmt.Sprintf("%s: ", g.c.ID) + fmt.Sprintf(format, args...))
}

func (g *groupMember) alive() bool { return !g.c.closed && !g.c.crashed }

// poll is ConsumerCoordinator.poll: note the poll (the heartbeat thread's
// max.poll.interval.ms check), find the coordinator, let the protocol
// (re)join, then auto-commit when auto.commit.interval.ms passed.
func (g *groupMember) poll() error {
	if g.fatal != nil {
		return g.fatal
	}
	g.lastPoll = g.c.now()
	if len(g.topics) == 0 {
		// A manually assigned consumer with a group.id still starts from
		// committed offsets and auto-commits, outside any membership.
		if len(g.c.assign) > 0 {
			g.maybeAutoCommit()
			g.c.fetchCommittedIfNeeded()
		}
		return nil
	}
	if !g.ensureCoordinator() {
		return nil
	}
	g.proto.poll()
	if m, ok := g.proto.(*classicMember); ok && (m.state != phaseStable || m.rejoinNeeded) {
		// ConsumerCoordinator.poll returns before maybeAutoCommitOffsetsAsync
		// while ensureActiveGroup has not completed: onJoinPrepare has
		// committed already, and a second commit would be written twice.
		g.c.fetchCommittedIfNeeded()
		return nil
	}
	g.maybeAutoCommit()
	g.c.fetchCommittedIfNeeded()
	return nil
}

// commitIdentity is what an OffsetCommit carries: the member's generation
// or epoch and id, or -1 and "" for a consumer outside any membership
// (manual assignment with a group.id).
func (g *groupMember) commitIdentity() (int32, string, error) {
	if len(g.topics) == 0 {
		return -1, "", nil
	}
	return g.proto.commitIdentity()
}

// ensureCoordinator reports whether the coordinator is known, asking for
// it (FindCoordinator to a bootstrap broker) if not.
func (g *groupMember) ensureCoordinator() bool {
	if g.coordinator >= 0 {
		return true
	}
	if g.findCorr != 0 || g.findWake != nil || !g.alive() {
		return false
	}
	c := g.c
	boot := c.meta.bootstrap
	broker := boot[g.next%len(boot)]
	c.corr++
	g.findCorr = c.corr
	g.findTo = kraft.BrokerNode(broker)
	corr := g.findCorr
	c.net.Send(c.ID, g.findTo, protocol.FindCoordinatorRequest{CorrelationID: corr, KeyType: protocol.CoordinatorTypeGroup, Key: c.cfg.GroupID})
	c.sched.After(consumerRequestTimeout, "find-coordinator-timeout "+string(c.ID), func() {
		if g.findCorr == corr {
			g.findFailed(protocol.RequestTimedOut)
		}
	})
	return false
}

// findFailed backs off (retry.backoff.ms, exponential as KIP-580) and asks
// the next bootstrap broker.
func (g *groupMember) findFailed(code protocol.ErrorCode) {
	g.findCorr = 0
	g.next++
	wait := exponentialBackoff{initial: DefaultRetryBackoff, max: DefaultRetryBackoffMax}.backoff(g.findFails, g.c.meta.rng)
	g.findFails++
	g.event("FindCoordinator for group %s failed: %s; retrying in %v", g.c.cfg.GroupID, code.Name(), wait)
	g.findWake = g.c.sched.After(wait, "find-coordinator-backoff "+string(g.c.ID), func() {
		g.findWake = nil
		if g.alive() {
			g.ensureCoordinator()
		}
	})
}

func (g *groupMember) onFindCoordinator(m protocol.FindCoordinatorResponse) {
	if m.CorrelationID != g.findCorr || g.findCorr == 0 {
		return
	}
	if m.Error != protocol.None || m.NodeID < 0 {
		code := m.Error
		if code == protocol.None {
			code = protocol.CoordinatorNotAvailable
		}
		g.findFailed(code)
		return
	}
	g.findCorr, g.findFails = 0, 0
	g.coordinator = m.NodeID
	g.event("discovered group coordinator b%d for group %s", m.NodeID, g.c.cfg.GroupID)
	if len(g.topics) > 0 {
		g.proto.coordinatorFound()
	}
	g.c.sendPendingCommits()
	g.c.fetchCommittedIfNeeded()
}

// markCoordinatorUnknown is AbstractCoordinator.markCoordinatorUnknown:
// forget the coordinator, fail what was in flight to it, and find it
// again (at once: a failed lookup backs off itself).
func (g *groupMember) markCoordinatorUnknown(cause string, code protocol.ErrorCode) {
	if g.coordinator < 0 {
		return
	}
	g.event("group coordinator b%d is unavailable or invalid due to cause: %s; rediscovery will be attempted", g.coordinator, cause)
	g.coordinator = -1
	failed := g.pending
	g.pending = nil
	for _, r := range failed {
		cancel(r.timer)
		r.failed(code)
	}
	if g.alive() && (len(g.topics) > 0 || len(g.c.commits) > 0) {
		g.ensureCoordinator() // its answer resumes what waits
	}
}

// send sends a request to the coordinator, to be answered, failed by a
// lost coordinator, or timed out after timeout (which loses it).
func (g *groupMember) send(kind string, corr int64, msg sim.Message, timeout time.Duration, failed func(protocol.ErrorCode)) {
	c := g.c
	r := &coordRequest{corr: corr, kind: kind, failed: failed}
	r.timer = c.sched.After(timeout, strings.ToLower(kind)+"-timeout "+string(c.ID), func() {
		if g.take(corr) != nil {
			g.pending = append(g.pending, r) // failed with the others below
			g.markCoordinatorUnknown(kind+" request timed out", protocol.RequestTimedOut)
		}
	})
	g.pending = append(g.pending, r)
	c.net.Send(c.ID, kraft.BrokerNode(g.coordinator), msg)
}

// take removes and returns the pending request corr answers (nil: it is
// stale, the coordinator was lost since).
func (g *groupMember) take(corr int64) *coordRequest {
	i := slices.IndexFunc(g.pending, func(r *coordRequest) bool { return r.corr == corr })
	if i < 0 {
		return nil
	}
	r := g.pending[i]
	g.pending = slices.Delete(g.pending, i, i+1)
	cancel(r.timer)
	g.unreachable = 0 // the coordinator answered
	return r
}

// coordinatorError handles the errors every coordinator request shares;
// it reports whether it did.
func (g *groupMember) coordinatorError(code protocol.ErrorCode) bool {
	switch code {
	case protocol.NotCoordinator, protocol.CoordinatorNotAvailable:
		g.markCoordinatorUnknown(code.Name(), code)
		return true
	}
	return false
}

// handle routes a message from the network; false if it is not a group one.
func (g *groupMember) handle(msg sim.Message) bool {
	switch m := msg.(type) {
	case protocol.FindCoordinatorResponse:
		g.onFindCoordinator(m)
	case protocol.OffsetCommitResponse:
		g.c.onOffsetCommit(m)
	case protocol.OffsetFetchResponse:
		g.c.onOffsetFetch(m)
	case sim.Disconnected:
		if g.findCorr != 0 && m.Peer == g.findTo {
			g.findFailed(protocol.NetworkException)
		}
		if g.coordinator >= 0 && m.Peer == kraft.BrokerNode(g.coordinator) && g.findWake == nil {
			wait := exponentialBackoff{initial: DefaultRetryBackoff, max: DefaultRetryBackoffMax}.backoff(g.unreachable, g.c.meta.rng)
			g.unreachable++
			// Rediscover after the backoff, not at once: the broker may be
			// named coordinator until the controller fences it.
			g.findWake = g.c.sched.After(wait, "find-coordinator-backoff "+string(g.c.ID), func() {
				g.findWake = nil
				if g.alive() {
					g.ensureCoordinator()
				}
			})
			g.markCoordinatorUnknown("coordinator disconnected", protocol.NetworkException)
		}
		return false // the fetcher wants it too
	default:
		return g.proto.handle(msg)
	}
	return true
}

// pollTimerExpired reports whether max.poll.interval.ms passed since the
// last poll.
func (g *groupMember) pollTimerExpired() bool {
	return g.c.now()-g.lastPoll >= g.c.cfg.MaxPollInterval
}

// pollTimeoutMessage is the warning Kafka logs when it expires.
const pollTimeoutMessage = "consumer poll timeout has expired. This means the time between subsequent calls to poll() " +
	"was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too " +
	"much time processing messages. You can address this either by increasing max.poll.interval.ms or by reducing " +
	"the maximum size of batches returned in poll() with max.poll.records."

// maybeAutoCommit is maybeAutoCommitOffsetsAsync: every
// auto.commit.interval.ms, poll commits the positions consumed so far
// (what earlier polls returned), asynchronously.
func (g *groupMember) maybeAutoCommit() {
	c := g.c
	if !c.cfg.EnableAutoCommit || c.now() < g.nextAutoCommit {
		return
	}
	g.nextAutoCommit = c.now() + c.cfg.AutoCommitInterval
	offsets := c.consumedOffsets(nil)
	if len(offsets) == 0 {
		return
	}
	h := c.commit(offsets, false, "auto-commit")
	h.onDone = func() {
		if h.Err != nil && isRetriableCommit(h.Err) {
			// Kafka retries a retriable auto-commit after retry.backoff.ms.
			g.nextAutoCommit = c.now() + DefaultRetryBackoff
		}
	}
}

// partitionNames prints partitions as "t/0 t/1".
func partitionNames(tps []protocol.TopicPartition) string {
	if len(tps) == 0 {
		return "(none)"
	}
	var b strings.Builder
	for i, tp := range tps {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s/%d", tp.Topic, tp.Partition)
	}
	return b.String()
}

func sortTPs(tps []protocol.TopicPartition) []protocol.TopicPartition {
	slices.SortFunc(tps, func(a, b protocol.TopicPartition) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return int(a.Partition) - int(b.Partition)
	})
	return tps
}

// minus is a \ b.
func minus(a, b []protocol.TopicPartition) []protocol.TopicPartition {
	var out []protocol.TopicPartition
	for _, tp := range a {
		if !slices.Contains(b, tp) {
			out = append(out, tp)
		}
	}
	return out
}
