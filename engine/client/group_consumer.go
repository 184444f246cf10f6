package client

import (
	"encoding/base64"
	"fmt"
	"slices"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// KIP-848's special member epochs.
const (
	joinEpoch        int32 = 0
	leaveEpoch       int32 = -1
	leaveStaticEpoch int32 = -2
)

// consumerMember is group.protocol=consumer's client side (KIP-848):
// Kafka 4.x's ConsumerMembershipManager and ConsumerHeartbeatRequestManager.
// One request, ConsumerGroupHeartbeat, joins, keeps alive, reports what the
// member owns and brings its assignment, which the member reconciles on
// its own: revoke first, then take what is new.
type consumerMember struct {
	g           *groupMember
	id          string // made by the client (KIP-1082)
	memberEpoch int32
	state       string
	interval    time.Duration // heartbeat interval the coordinator gave (0: none yet)
	hbCorr      int64
	hbTimer     *sim.Event
	lastHbSent  time.Duration
	leavingPoll bool // the leave in flight is for an expired poll timer
	full        bool // the next heartbeat carries every field
	joined      bool // a join's answer has been seen since the last (re)join
	sentOwned   []protocol.TopicPartition
	sentOwnedOK bool

	target    []protocol.TopicPartition // the last assignment the coordinator sent
	hasTarget bool
	pending   *Commit // the auto-commit a revocation waits for
}

// newMemberUUID is Uuid.randomUuid().toString() from the seeded RNG: 16
// random bytes with the version 4 and IETF variant bits, printed in
// Kafka's URL-safe base64 without padding.
func newMemberUUID(rng interface{ Uint64() uint64 }) string {
	var b [16]byte
	for i := range 2 {
		v := rng.Uint64()
		for j := range 8 {
			b[i*8+j] = byte(v >> (8 * j))
		}
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func newConsumerMember(g *groupMember) *consumerMember {
	return &consumerMember{g: g, id: newMemberUUID(g.c.meta.rng), state: phaseUnjoined, full: true}
}

func (m *consumerMember) phase() string    { return m.state }
func (m *consumerMember) memberID() string { return m.id }
func (m *consumerMember) epoch() int32     { return m.memberEpoch }

func (m *consumerMember) commitIdentity() (int32, string, error) {
	if m.memberEpoch <= 0 || m.state == phaseStale || m.state == phaseUnjoined {
		return 0, "", errNotInGroup
	}
	return m.memberEpoch, m.id, nil
}

// poll: join after subscribing, rejoin a member that left when its poll
// timer expired (maybeRejoinStaleMember), and reconcile.
func (m *consumerMember) poll() {
	switch m.state {
	case phaseUnjoined, phaseStale:
		m.transitionToJoining()
	}
	m.maybeReconcile()
}

func (m *consumerMember) transitionToJoining() {
	if m.hbCorr != 0 {
		// An answer to the leave still in flight must not read as the join's.
		m.g.take(m.hbCorr)
		m.hbCorr = 0
	}
	m.state = phaseJoining
	m.memberEpoch = joinEpoch
	m.full, m.joined = true, false
	m.g.startRebalance("joining")
	m.heartbeatNow()
}

func (m *consumerMember) coordinatorFound() { m.heartbeatNow() }

// heartbeatNow sends a heartbeat at once when one is due now (joining,
// acknowledging a reconciliation, leaving), else arms the interval timer.
func (m *consumerMember) heartbeatNow() {
	cancel(m.hbTimer)
	m.hbTimer = nil
	m.heartbeatManager()
}

// heartbeatManager is one turn of ConsumerHeartbeatRequestManager.poll.
func (m *consumerMember) heartbeatManager() {
	g, c := m.g, m.g.c
	if !g.alive() || g.fatal != nil || m.state == phaseUnjoined || m.state == phaseStale {
		return
	}
	if g.coordinator < 0 {
		g.ensureCoordinator()
		return // coordinatorFound calls back
	}
	if g.pollTimerExpired() && m.state != phaseLeaving {
		g.event("%s", pollTimeoutMessage)
		m.leave(true)
		return
	}
	now := c.now()
	urgent := m.state == phaseJoining || m.state == phaseAcking
	if m.hbCorr == 0 && (urgent || now-m.lastHbSent >= m.interval) {
		m.sendHeartbeat(m.memberEpoch)
	}
	next := m.interval - (now - m.lastHbSent)
	if m.hbCorr != 0 || next <= 0 {
		next = max(m.interval, DefaultRetryBackoff)
	}
	if pollLeft := g.lastPoll + c.cfg.MaxPollInterval - now; pollLeft < next {
		next = max(pollLeft, 0)
	}
	cancel(m.hbTimer)
	m.hbTimer = c.sched.After(next, "heartbeat "+string(c.ID), func() {
		m.hbTimer = nil
		m.heartbeatManager()
	})
}

func (m *consumerMember) owned() []protocol.TopicPartition {
	return sortTPs(m.g.c.Assignment())
}

// sendHeartbeat builds ConsumerGroupHeartbeatRequest: every field on a
// join or after an error, else only what changed.
func (m *consumerMember) sendHeartbeat(epoch int32) {
	g, c := m.g, m.g.c
	req := protocol.ConsumerGroupHeartbeatRequest{GroupID: c.cfg.GroupID, MemberID: m.id, MemberEpoch: epoch,
		InstanceID: c.cfg.GroupInstanceID, RebalanceTimeoutMs: -1}
	owned := m.owned()
	if m.full {
		req.RebalanceTimeoutMs = int32(c.cfg.MaxPollInterval.Milliseconds())
		req.SubscribedTopicNames = slices.Clone(g.topics)
		req.ServerAssignor = c.cfg.GroupRemoteAssignor
	}
	if m.full || !m.sentOwnedOK || !slices.Equal(owned, m.sentOwned) {
		req.TopicPartitions = topicPartitions(owned)
		m.sentOwned, m.sentOwnedOK = owned, true
	}
	m.full = false
	c.corr++
	m.hbCorr = c.corr
	req.CorrelationID = m.hbCorr
	m.lastHbSent = c.now()
	if m.state == phaseAcking {
		// onHeartbeatRequestGenerated: the acknowledgement is out.
		m.state = phaseStable
	}
	g.send("ConsumerGroupHeartbeat", m.hbCorr, req, consumerRequestTimeout, func(protocol.ErrorCode) {
		m.hbCorr = 0
		m.full = true
	})
}

func topicPartitions(tps []protocol.TopicPartition) []protocol.TopicPartitions {
	out := []protocol.TopicPartitions{}
	for _, tp := range tps {
		if n := len(out); n > 0 && out[n-1].Topic == tp.Topic {
			out[n-1].Partitions = append(out[n-1].Partitions, tp.Partition)
			continue
		}
		out = append(out, protocol.TopicPartitions{Topic: tp.Topic, Partitions: []int32{tp.Partition}})
	}
	return out
}

func (m *consumerMember) handle(msg sim.Message) bool {
	r, ok := msg.(protocol.ConsumerGroupHeartbeatResponse)
	if !ok {
		return false
	}
	if r.CorrelationID == m.hbCorr && m.g.take(r.CorrelationID) != nil {
		m.hbCorr = 0
		m.onHeartbeat(r)
		if m.state == phaseAcking {
			// A reconciliation finished while this heartbeat was out: its
			// acknowledgement goes now, not an interval later.
			m.heartbeatNow()
		}
	}
	return true
}

func (m *consumerMember) onHeartbeat(r protocol.ConsumerGroupHeartbeatResponse) {
	g, c := m.g, m.g.c
	if m.state == phaseLeaving || m.state == phaseStale {
		m.onLeft()
		return
	}
	switch r.Error {
	case protocol.None:
	case protocol.FencedMemberEpoch, protocol.UnknownMemberID:
		m.transitionToFenced(r.Error)
		return
	case protocol.NotCoordinator, protocol.CoordinatorNotAvailable:
		m.full = true
		g.markCoordinatorUnknown(r.Error.Name(), r.Error)
		return
	case protocol.CoordinatorLoadInProgress:
		m.full = true
		return // the next turn retries
	default:
		m.g.fatal = fmt.Errorf("%s: %s", r.Error.Name(), r.ErrorMessage)
		g.event("fatal: ConsumerGroupHeartbeat failed: %v", m.g.fatal)
		return
	}
	if r.MemberID != "" {
		m.id = r.MemberID
	}
	if r.HeartbeatIntervalMs > 0 {
		m.interval = time.Duration(r.HeartbeatIntervalMs) * time.Millisecond
	}
	prev := m.memberEpoch
	m.memberEpoch = r.MemberEpoch
	if r.MemberEpoch > 0 {
		g.setGroupMetadata(r.MemberEpoch, m.id)
	}
	if !m.joined {
		m.joined = true
		g.event("joined group %s as member %s with epoch %d (consumer protocol)", c.cfg.GroupID, m.id, m.memberEpoch)
		if m.state == phaseJoining {
			m.state = phaseStable
		}
	} else if prev != m.memberEpoch {
		g.event("member epoch %d -> %d", prev, m.memberEpoch)
	}
	if r.HasAssignment {
		var tps []protocol.TopicPartition
		for _, t := range r.Assignment {
			for _, p := range t.Partitions {
				tps = append(tps, protocol.TopicPartition{Topic: t.Topic, Partition: p})
			}
		}
		m.target, m.hasTarget = sortTPs(tps), true
		if m.state == phaseStable || m.state == phaseJoining {
			m.state = phaseReconciling
		}
		// With auto-commit the reconciliation waits for the application's
		// next poll (maybeReconcile(canCommit=true) from the PollEvent,
		// KAFKA-18641): only then are the positions it commits safe, so a
		// member busy processing revokes nothing until it polls (or its
		// rebalance timeout fences it). Without auto-commit the background
		// thread reconciles at once (Kafka since KAFKA-20106 waits for
		// poll in both cases).
		if !c.cfg.EnableAutoCommit {
			m.maybeReconcile()
		}
	}
}

// maybeReconcile is ConsumerMembershipManager.maybeReconcile: revoke what
// the target takes away (auto-commit first, fetching stopped), then take
// what it adds, then acknowledge with the next heartbeat.
func (m *consumerMember) maybeReconcile() {
	g, c := m.g, m.g.c
	if !m.hasTarget || m.pending != nil || m.state == phaseLeaving || m.state == phaseStale || !g.alive() {
		return
	}
	owned := m.owned()
	revoked := minus(owned, m.target)
	added := minus(m.target, owned)
	if len(revoked) == 0 && len(added) == 0 {
		m.hasTarget = false
		if m.state == phaseReconciling {
			m.state = phaseStable
			g.endRebalance(m.memberEpoch, nil)
		}
		return
	}
	m.state = phaseReconciling
	g.startRebalance(fmt.Sprintf("new assignment at epoch %d", m.memberEpoch))
	target := m.target
	// markPendingRevocationToPauseFetching, then (signalReconciliationStarted)
	// an auto-commit of everything consumed before any reconciliation, so
	// the revoked partitions' positions are committed before they go.
	c.markRevoking(revoked)
	if offsets := c.consumedOffsets(nil); c.cfg.EnableAutoCommit && len(offsets) > 0 {
		m.pending = c.commit(offsets, true, "auto-commit before reconciling")
		m.pending.onDone = func() {
			m.pending = nil
			if g.alive() && m.state == phaseReconciling {
				m.finishReconcile(revoked, added, target)
			}
		}
		if !m.pending.Done {
			return
		}
		m.pending = nil
	}
	m.finishReconcile(revoked, added, target)
}

func (m *consumerMember) finishReconcile(revoked, added, target []protocol.TopicPartition) {
	g, c := m.g, m.g.c
	if len(revoked) > 0 {
		g.event("revoked %s", partitionNames(revoked))
		c.removePartitions(revoked)
		g.logRevoked(revoked, false)
	}
	if len(added) > 0 {
		g.event("assigned %s", partitionNames(added))
		c.addPartitions(added)
	}
	if slices.Equal(m.target, target) {
		m.hasTarget = false
	}
	m.state = phaseAcking
	g.endRebalance(m.memberEpoch, added)
	m.heartbeatNow()
	if m.hasTarget {
		m.maybeReconcile()
	}
}

// transitionToFenced: the coordinator no longer knows this member at its
// epoch. Its partitions are lost (another member may own them already, so
// nothing is committed) and it rejoins at epoch 0 with the same id.
func (m *consumerMember) transitionToFenced(code protocol.ErrorCode) {
	g, c := m.g, m.g.c
	owned := m.owned()
	g.event("member %s fenced with epoch %d (%s): partitions lost %s; rejoining with epoch 0", m.id, m.memberEpoch, code.Name(), partitionNames(owned))
	c.removePartitions(owned)
	g.logRevoked(owned, true)
	m.hasTarget, m.pending = false, nil
	m.transitionToJoining()
}

// leave sends the leave heartbeat: epoch -1, or -2 for a static member
// (which keeps its assignment for session.timeout.ms).
func (m *consumerMember) leave(pollExpired bool) {
	g, c := m.g, m.g.c
	epoch := leaveEpoch
	if c.cfg.GroupInstanceID != "" {
		epoch = leaveStaticEpoch
	}
	m.leavingPoll = pollExpired
	m.state = phaseLeaving
	if pollExpired {
		// transitionToStale: the partitions are lost, not revoked: the
		// member missed its deadline and may already be replaced.
		owned := m.owned()
		if len(owned) > 0 {
			g.event("partitions lost on leaving after the poll timeout: %s", partitionNames(owned))
			c.removePartitions(owned)
			g.logRevoked(owned, true)
		}
		m.hasTarget = false
	}
	if g.coordinator >= 0 {
		g.event("member %s leaving group %s with epoch %d", m.id, c.cfg.GroupID, epoch)
		if m.hbCorr != 0 {
			g.take(m.hbCorr)
			m.hbCorr = 0
		}
		m.sendHeartbeat(epoch)
	}
	m.memberEpoch = epoch
	if pollExpired {
		m.state = phaseStale
	}
	cancel(m.hbTimer)
	m.hbTimer = nil
}

func (m *consumerMember) onLeft() {
	if m.state == phaseLeaving {
		m.state = phaseUnjoined
	}
}

func (m *consumerMember) close() {
	g, c := m.g, m.g.c
	if owned := m.owned(); len(owned) > 0 {
		g.event("revoking previously assigned partitions %s (the consumer is being closed)", partitionNames(owned))
		c.removePartitions(owned)
	}
	m.leave(false)
}
