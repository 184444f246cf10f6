package client

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/group/assignor"
	"github.com/loglab/loglab/engine/group/consumerprotocol"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// Client phases of a classic member (Kafka's MemberState, plus the wait
// for the pre-rebalance auto-commit).
const (
	phaseUnjoined    = "unjoined"
	phaseCommitting  = "committing" // onJoinPrepare's auto-commit in flight
	phaseJoining     = "joining"    // PREPARING_REBALANCE: JoinGroup in flight
	phaseSyncing     = "syncing"    // COMPLETING_REBALANCE: SyncGroup in flight
	phaseStable      = "stable"
	phaseReconciling = "reconciling" // KIP-848: revoking/assigning
	phaseAcking      = "acknowledging"
	phaseLeaving     = "leaving"
	phaseStale       = "stale" // KIP-848: left after max.poll.interval.ms; rejoins at the next poll
	phaseClosed      = "closed"
	phaseCrashed     = "crashed"
)

// classicMember is the classic protocol's client side: Kafka's
// AbstractCoordinator and ConsumerCoordinator, with the heartbeat thread
// as a timer on the simulation clock (it runs whether or not poll is
// called, as the Java thread does).
type classicMember struct {
	g          *groupMember
	state      string
	id         string // member id, "" until the coordinator gives one
	generation int32  // -1: none
	protocol   string // the assignor the coordinator selected
	leader     string

	rejoinNeeded     bool
	rejoinReason     string
	needsJoinPrepare bool
	prepareCommit    *Commit // onJoinPrepare's auto-commit
	joinCorr         int64
	syncCorr         int64
	hbCorr           int64
	hbTimer          *sim.Event
	lastHbSent       time.Duration
	lastHbAck        time.Duration // the session timer's start
	hbRetry          bool          // the last heartbeat failed: retry after retry.backoff.ms
	retryJoinAt      time.Duration

	// prepareSince is when onJoinPrepare first tried to commit (its
	// joinPrepareTimer, rebalance.timeout.ms = max.poll.interval.ms); -1: not trying.
	prepareSince time.Duration

	// What the assignors remember between rebalances (onAssignment): the
	// last assignment and its generation, for the sticky assignors' user data.
	lastAssigned []assignor.TopicPartition
	lastGen      int32
}

func newClassicMember(g *groupMember) *classicMember {
	return &classicMember{g: g, state: phaseUnjoined, generation: -1, lastGen: -1, rejoinNeeded: true, needsJoinPrepare: true, rejoinReason: "the consumer subscribed", prepareSince: -1}
}

func (m *classicMember) phase() string    { return m.state }
func (m *classicMember) memberID() string { return m.id }
func (m *classicMember) epoch() int32     { return m.generation }

// cooperative is ConsumerCoordinator's protocol choice: COOPERATIVE only
// when every configured assignor supports it, so Kafka 4's default list
// [range, cooperative-sticky] still rebalances eagerly (the upgrade path
// is to drop range in a second rolling bounce).
func (m *classicMember) cooperative() bool { return m.rebalanceProtocol() == "cooperative" }

func (m *classicMember) rebalanceProtocol() string {
	return rebalanceProtocolFor(m.g.c.cfg.PartitionAssignmentStrategy)
}

func (m *classicMember) commitIdentity() (int32, string, error) {
	switch {
	case m.state == phaseStable && m.generation >= 0:
		return m.generation, m.id, nil
	case m.state == phaseJoining || m.state == phaseSyncing:
		return 0, "", errRebalancing
	case m.state == phaseCommitting && m.generation >= 0:
		// onJoinPrepare's commit goes in the old generation, still valid
		// while the coordinator prepares the rebalance.
		return m.generation, m.id, nil
	}
	return 0, "", errNotInGroup
}

func (m *classicMember) requestRejoin(reason string) {
	if !m.rejoinNeeded {
		m.rejoinNeeded, m.rejoinReason = true, reason
	}
}

// resetGeneration is resetStateAndGeneration: the member is no longer in
// any generation (kicked out, or left); it rejoins at the next poll and
// its partitions are lost then, not revoked.
func (m *classicMember) resetGeneration(reason string) {
	m.g.event("resetting generation of group %s (was %d) due to: %s", m.g.c.cfg.GroupID, m.generation, reason)
	m.generation = -1
	if !strings.Contains(reason, protocol.IllegalGeneration.Name()) {
		m.id = ""
	}
	m.state = phaseUnjoined
	m.requestRejoin(reason)
	// AbstractCoordinator.resetStateAndRejoin: the next join prepares
	// again, so a cooperative member whose generation was reset (its
	// session expired out of reach of the coordinator) gives up what it
	// owned before it joins, rather than keeping partitions the group has
	// handed to others (VOPR seed 158).
	m.needsJoinPrepare = true
	m.stopHeartbeats()
}

func (m *classicMember) poll() {
	if m.rejoinNeeded || m.state == phaseUnjoined {
		m.joinGroupIfNeeded()
	}
}

func (m *classicMember) coordinatorFound() {
	// heartbeat.resetSessionTimeout, as FindCoordinatorResponseHandler's
	// onSuccess does: the session timer that made the heartbeat thread
	// mark the coordinator unknown starts again with the rediscovered one.
	// Without it the expired timer marked it unknown at once, and the
	// member looped FindCoordinator a few hundred times a second for as
	// long as the coordinator's answers waited (VOPR seed 18).
	m.lastHbAck = m.g.c.now()
	if m.rejoinNeeded && m.joinCorr == 0 && m.syncCorr == 0 {
		m.joinGroupIfNeeded()
	}
	if m.state == phaseStable || m.state == phaseSyncing {
		m.scheduleHeartbeat(0)
	}
}

// joinGroupIfNeeded is AbstractCoordinator.joinGroupIfNeeded, one step at
// a time: onJoinPrepare (auto-commit, then revoke), then JoinGroup.
func (m *classicMember) joinGroupIfNeeded() {
	g, c := m.g, m.g.c
	if m.joinCorr != 0 || m.syncCorr != 0 || !g.alive() || c.now() < m.retryJoinAt {
		return
	}
	if !c.meta.known {
		c.meta.refresh() // the leader needs partition counts; everyone needs the topics
		return
	}
	if !g.ensureCoordinator() {
		return
	}
	if m.needsJoinPrepare {
		g.startRebalance(m.rejoinReason)
		if m.prepareSince < 0 {
			m.prepareSince = c.now()
		}
		if c.cfg.EnableAutoCommit && m.prepareCommit == nil && m.generation >= 0 {
			if offsets := c.consumedOffsets(nil); len(offsets) > 0 {
				// maybeMarkPartitionsPendingRevocation: an eager member
				// stops fetching while the commit is out, so the positions
				// committed are the ones it revokes at.
				if !m.cooperative() {
					c.markRevoking(c.Assignment())
				}
				m.state = phaseCommitting
				// maybeAutoCommitOffsetsAsync: an asynchronous commit, not
				// retried with these offsets; a retriable failure makes a
				// later poll commit the positions of then (below). Retrying
				// these could write them after a newer auto-commit and move
				// the committed offset back (VOPR seed 15).
				m.prepareCommit = c.commit(offsets, false, "auto-commit before rebalance")
				m.prepareCommit.onDone = func() {
					if g.alive() {
						m.joinGroupIfNeeded()
					}
				}
				if !m.prepareCommit.Done {
					return
				}
			}
		}
		if m.prepareCommit != nil && !m.prepareCommit.Done {
			return
		}
		if p := m.prepareCommit; p != nil && isRetriableCommit(p.Err) {
			m.prepareCommit = nil
			if c.now()-m.prepareSince < c.cfg.MaxPollInterval {
				// onJoinPrepare returns false: the next poll, after
				// retry.backoff.ms, commits the positions it then has.
				m.retryJoinAt = c.now() + DefaultRetryBackoff
				return
			}
			g.event("asynchronous auto-commit of offsets failed: joinPrepare timeout; will continue to join group %s", c.cfg.GroupID)
		}
		m.prepareCommit = nil
		m.prepareSince = -1
		m.needsJoinPrepare = false
		m.onJoinPrepare()
	}
	m.sendJoinGroup()
}

// onJoinPrepare is ConsumerCoordinator.onJoinPrepare's revocation: a
// member that lost its generation loses everything; an eager member
// revokes everything; a cooperative one only what it no longer subscribes to.
func (m *classicMember) onJoinPrepare() {
	c := m.g.c
	revoked, lost := joinPrepareRevocation(m.generation, m.id, m.rebalanceProtocol(), c.Assignment(), m.g.topics)
	if len(revoked) == 0 {
		return
	}
	switch {
	case lost:
		m.g.event("giving away all assigned partitions as lost since generation/memberID has been reset: %s", partitionNames(revoked))
	case m.cooperative():
		m.g.event("revoking partitions of topics no longer subscribed: %s", partitionNames(revoked))
	default:
		m.g.event("revoking previously assigned partitions %s (eager rebalance)", partitionNames(revoked))
	}
	c.removePartitions(revoked)
	m.g.logRevoked(revoked, lost)
}

// metadata is ConsumerCoordinator.metadata: one protocol per configured
// assignor, in preference order, each with its subscription bytes.
func (m *classicMember) metadata() []protocol.JoinGroupProtocol {
	c := m.g.c
	var owned []assignor.TopicPartition
	for _, tp := range c.Assignment() {
		owned = append(owned, assignor.TopicPartition{Topic: tp.Topic, Partition: tp.Partition})
	}
	var out []protocol.JoinGroupProtocol
	for _, name := range c.cfg.PartitionAssignmentStrategy {
		s := consumerprotocol.Subscription{Topics: m.g.topics, OwnedPartitions: owned, GenerationID: m.generation}
		switch name {
		case "sticky":
			if m.lastAssigned != nil {
				s.UserData = consumerprotocol.EncodeStickyUserData(m.lastAssigned, m.lastGen)
			}
		case "cooperative-sticky":
			s.UserData = consumerprotocol.EncodeCooperativeUserData(m.lastGen)
		}
		out = append(out, protocol.JoinGroupProtocol{Name: name, Metadata: consumerprotocol.EncodeSubscription(s)})
	}
	return out
}

func (m *classicMember) sendJoinGroup() {
	g, c := m.g, m.g.c
	m.state = phaseJoining
	m.rejoinNeeded = false
	c.corr++
	m.joinCorr = c.corr
	req := protocol.JoinGroupRequest{CorrelationID: m.joinCorr, GroupID: c.cfg.GroupID,
		SessionTimeoutMs: int32(c.cfg.SessionTimeout.Milliseconds()), RebalanceTimeoutMs: int32(c.cfg.MaxPollInterval.Milliseconds()),
		MemberID: m.id, GroupInstanceID: c.cfg.GroupInstanceID, ProtocolType: "consumer", Protocols: m.metadata(), Reason: m.rejoinReason}
	g.event("(re-)joining group %s (%s protocol, reason: %s)", c.cfg.GroupID, m.rebalanceProtocol(), m.rejoinReason)
	// A JoinGroup waits up to the rebalance timeout at the coordinator:
	// its request timeout is max(request.timeout.ms, rebalance timeout + 5 s).
	timeout := max(consumerRequestTimeout, c.cfg.MaxPollInterval+5*time.Second)
	g.send("JoinGroup", m.joinCorr, req, timeout, func(protocol.ErrorCode) {
		m.joinCorr = 0
		m.requestRejoin("JoinGroup failed")
		m.rejoinNeeded = true
	})
}

func (m *classicMember) handle(msg sim.Message) bool {
	switch r := msg.(type) {
	case protocol.JoinGroupResponse:
		if r.CorrelationID == m.joinCorr && m.g.take(r.CorrelationID) != nil {
			m.joinCorr = 0
			m.onJoinGroup(r)
		}
	case protocol.SyncGroupResponse:
		if r.CorrelationID == m.syncCorr && m.g.take(r.CorrelationID) != nil {
			m.syncCorr = 0
			m.onSyncGroup(r)
		}
	case protocol.HeartbeatResponse:
		if r.CorrelationID == m.hbCorr && m.g.take(r.CorrelationID) != nil {
			m.hbCorr = 0
			m.onHeartbeat(r)
		}
	case protocol.LeaveGroupResponse:
		m.g.take(r.CorrelationID) // nothing waits for it
	default:
		return false
	}
	return true
}

func (m *classicMember) fail(err error) {
	m.g.fatal = err
	m.g.event("fatal: %v", err)
	m.stopHeartbeats()
}

// onJoinGroup is JoinGroupResponseHandler.
func (m *classicMember) onJoinGroup(r protocol.JoinGroupResponse) {
	g, c := m.g, m.g.c
	switch r.Error {
	case protocol.None:
	case protocol.MemberIDRequired:
		// KIP-394: the coordinator made our member id; join again with it.
		m.id = r.MemberID
		g.event("group %s requires a member id: rejoining as %s", c.cfg.GroupID, m.id)
		m.sendJoinGroup()
		return
	case protocol.UnknownMemberID, protocol.IllegalGeneration:
		m.resetGeneration("JoinGroup failed with " + r.Error.Name())
		m.joinGroupIfNeeded()
		return
	case protocol.RebalanceInProgress:
		m.requestRejoin("JoinGroup answered REBALANCE_IN_PROGRESS")
		m.sendJoinGroup()
		return
	case protocol.NotCoordinator, protocol.CoordinatorNotAvailable:
		m.rejoinNeeded = true
		g.markCoordinatorUnknown(r.Error.Name(), r.Error)
		return
	case protocol.CoordinatorLoadInProgress:
		m.rejoinNeeded = true
		m.retryJoinAt = c.now() + DefaultRetryBackoff
		c.sched.After(DefaultRetryBackoff, "join-retry "+string(c.ID), m.joinGroupIfNeeded)
		return
	case protocol.FencedInstanceID:
		m.fail(fmt.Errorf("FencedInstanceIdException: group.instance.id %s is in use by another member of group %s", c.cfg.GroupInstanceID, c.cfg.GroupID))
		return
	case protocol.GroupMaxSizeReached:
		m.fail(fmt.Errorf("GroupMaxSizeReachedException: Consumer group %s already has the configured maximum number of members.", c.cfg.GroupID))
		return
	default:
		m.fail(fmt.Errorf("JoinGroup failed: %s", r.Error.Name()))
		return
	}
	m.id, m.generation, m.protocol, m.leader = r.MemberID, r.GenerationID, r.ProtocolName, r.Leader
	m.state = phaseSyncing
	m.lastHbAck = c.now() // heartbeat.resetSessionTimeout
	req := protocol.SyncGroupRequest{GroupID: c.cfg.GroupID, GenerationID: m.generation, MemberID: m.id,
		GroupInstanceID: c.cfg.GroupInstanceID, ProtocolType: "consumer", ProtocolName: m.protocol}
	if r.Leader == r.MemberID && !r.SkipAssignment {
		g.event("joined group %s generation %d as leader (%s)", c.cfg.GroupID, m.generation, m.protocol)
		assignments, err := m.performAssignment(r.Members)
		if err != nil {
			m.fail(err)
			return
		}
		req.Assignments = assignments
	} else if r.Leader == r.MemberID {
		// KIP-814: a static leader that rejoined keeps the assignment the
		// group already has; it sends an empty SyncGroup like a follower.
		g.event("joined group %s generation %d as leader (%s), assignment skipped: the group keeps its current one", c.cfg.GroupID, m.generation, m.protocol)
	} else {
		g.event("joined group %s generation %d as follower (%s)", c.cfg.GroupID, m.generation, m.protocol)
	}
	c.corr++
	m.syncCorr = c.corr
	req.CorrelationID = m.syncCorr
	g.send("SyncGroup", m.syncCorr, req, consumerRequestTimeout, func(protocol.ErrorCode) {
		m.syncCorr = 0
		m.rejoinNeeded = true
	})
	m.scheduleHeartbeat(c.cfg.HeartbeatInterval)
}

// assignorFor names the client-side assignors (partition.assignment.strategy).
func assignorFor(name string) (assignor.Assignor, bool) {
	switch name {
	case "range":
		return assignor.Range{}, true
	case "roundrobin":
		return assignor.RoundRobin{}, true
	case "sticky":
		return assignor.Sticky{}, true
	case "cooperative-sticky":
		return assignor.CooperativeSticky{}, true
	}
	return nil, false
}

// performAssignment is ConsumerCoordinator.onLeaderElected: decode every
// member's subscription, run the selected assignor over the leader's
// metadata, encode each member's assignment.
func (m *classicMember) performAssignment(members []protocol.JoinGroupMember) ([]protocol.SyncGroupAssignment, error) {
	g, c := m.g, m.g.c
	a, ok := assignorFor(m.protocol)
	if !ok {
		return nil, fmt.Errorf("IllegalStateException: Coordinator selected invalid assignment protocol: %s", m.protocol)
	}
	topics := assignor.Topics{}
	var ms []assignor.Member
	for _, jm := range members {
		s, err := consumerprotocol.DecodeSubscription(jm.Metadata)
		if err != nil {
			return nil, err
		}
		am := assignor.Member{ID: jm.MemberID, InstanceID: jm.GroupInstanceID, Topics: s.Topics, Owned: s.OwnedPartitions, Generation: s.GenerationID}
		if s.RackID != nil {
			am.Rack = *s.RackID
		}
		switch m.protocol {
		case "sticky":
			// StickyAssignor reads what it owned from its own user data:
			// an eager member's ownedPartitions are empty by now.
			am.Owned, am.Generation = nil, -1
			if len(s.UserData) > 0 {
				if prev, gen, err := consumerprotocol.DecodeStickyUserData(s.UserData); err == nil {
					am.Owned, am.Generation = prev, gen
				}
			}
		}
		for _, t := range s.Topics {
			if n := c.meta.partitions(t); n > 0 {
				topics[t] = int32(n)
			}
		}
		ms = append(ms, am)
	}
	result, err := a.Assign(topics, ms)
	if err != nil {
		return nil, fmt.Errorf("PartitionAssignorException: %v", err)
	}
	var out []protocol.SyncGroupAssignment
	var parts []string
	for _, am := range ms {
		tps := result[am.ID]
		out = append(out, protocol.SyncGroupAssignment{MemberID: am.ID, Assignment: consumerprotocol.EncodeAssignment(consumerprotocol.Assignment{Partitions: tps})})
		parts = append(parts, fmt.Sprintf("%s=[%s]", am.ID, strings.Join(tpStrings(tps), " ")))
	}
	g.event("leader computed the assignment of generation %d (%s): %s", m.generation, m.protocol, strings.Join(parts, " "))
	return out, nil
}

func tpStrings(tps []assignor.TopicPartition) []string {
	out := make([]string, len(tps))
	for i, tp := range tps {
		out[i] = tp.String()
	}
	return out
}

// onSyncGroup is SyncGroupResponseHandler and onJoinComplete.
func (m *classicMember) onSyncGroup(r protocol.SyncGroupResponse) {
	g, c := m.g, m.g.c
	switch r.Error {
	case protocol.None:
	case protocol.RebalanceInProgress:
		g.event("SyncGroup for generation %d failed: REBALANCE_IN_PROGRESS; rejoining", m.generation)
		m.state = phaseJoining
		m.requestRejoin("SyncGroup answered REBALANCE_IN_PROGRESS")
		m.rejoinNeeded = true
		m.joinGroupIfNeeded()
		return
	case protocol.UnknownMemberID, protocol.IllegalGeneration:
		m.resetGeneration("SyncGroup failed with " + r.Error.Name())
		m.joinGroupIfNeeded()
		return
	case protocol.NotCoordinator, protocol.CoordinatorNotAvailable:
		m.state = phaseJoining
		m.rejoinNeeded = true
		g.markCoordinatorUnknown(r.Error.Name(), r.Error)
		return
	case protocol.FencedInstanceID:
		m.fail(fmt.Errorf("FencedInstanceIdException: group.instance.id %s is in use by another member of group %s", c.cfg.GroupInstanceID, c.cfg.GroupID))
		return
	default:
		m.fail(fmt.Errorf("SyncGroup failed: %s", r.Error.Name()))
		return
	}
	asg, err := consumerprotocol.DecodeAssignment(r.Assignment)
	if err != nil {
		m.fail(err)
		return
	}
	var assigned []protocol.TopicPartition
	for _, tp := range asg.Partitions {
		if slices.Contains(g.topics, tp.Topic) {
			assigned = append(assigned, protocol.TopicPartition{Topic: tp.Topic, Partition: tp.Partition})
		}
	}
	sortTPs(assigned)
	m.state = phaseStable
	m.needsJoinPrepare = true
	g.setGroupMetadata(m.generation, m.id) // ConsumerCoordinator.onJoinComplete
	revoked, added, rejoin := joinCompleteChanges(c.Assignment(), assigned)
	if rejoin {
		// Only the cooperative protocol gets here with partitions to give up:
		// an eager member revoked everything before joining.
		g.event("revoking partitions that moved to other members: %s", partitionNames(revoked))
		c.removePartitions(revoked)
		g.logRevoked(revoked, false)
		m.requestRejoin("need to revoke partitions and re-join")
	}
	c.addPartitions(added)
	m.lastAssigned, m.lastGen = asg.Partitions, m.generation
	g.event("synced group %s generation %d: assigned %s (newly %s)", c.cfg.GroupID, m.generation, partitionNames(assigned), partitionNames(added))
	g.endRebalance(m.generation, added)
	m.scheduleHeartbeat(c.cfg.HeartbeatInterval)
}

// scheduleHeartbeat (re)arms the heartbeat thread's next wakeup: the next
// heartbeat, or the poll timer's expiry if sooner.
func (m *classicMember) scheduleHeartbeat(after time.Duration) {
	g, c := m.g, m.g.c
	cancel(m.hbTimer)
	if !g.alive() {
		return
	}
	pollLeft := g.lastPoll + c.cfg.MaxPollInterval - c.now()
	wait := max(min(after, pollLeft), 0)
	m.hbTimer = c.sched.After(wait, "heartbeat "+string(c.ID), m.heartbeatThread)
}

func (m *classicMember) stopHeartbeats() {
	cancel(m.hbTimer)
	m.hbTimer = nil
}

// heartbeatThread is one turn of AbstractCoordinator.HeartbeatThread.run.
func (m *classicMember) heartbeatThread() {
	g, c := m.g, m.g.c
	m.hbTimer = nil
	if !g.alive() || g.fatal != nil || (m.state != phaseStable && m.state != phaseSyncing && m.state != phaseCommitting) {
		return
	}
	now := c.now()
	switch {
	case g.coordinator < 0:
		m.scheduleHeartbeat(DefaultRetryBackoff)
	case now-m.lastHbAck >= c.cfg.SessionTimeout:
		g.markCoordinatorUnknown("session timed out without receiving a heartbeat response", protocol.RequestTimedOut)
		m.scheduleHeartbeat(DefaultRetryBackoff)
	case g.pollTimerExpired():
		g.event("%s", pollTimeoutMessage)
		m.maybeLeaveGroup("consumer poll timeout has expired.")
	case m.hbCorr != 0:
		m.scheduleHeartbeat(DefaultRetryBackoff)
	default:
		interval := c.cfg.HeartbeatInterval
		if m.hbRetry {
			interval = DefaultRetryBackoff
		}
		if next := m.lastHbSent + interval; now < next {
			m.scheduleHeartbeat(next - now)
			return
		}
		m.sendHeartbeat()
		m.scheduleHeartbeat(c.cfg.HeartbeatInterval)
	}
}

func (m *classicMember) sendHeartbeat() {
	g, c := m.g, m.g.c
	c.corr++
	m.hbCorr = c.corr
	m.lastHbSent = c.now()
	m.hbRetry = false
	gen := m.generation
	g.send("Heartbeat", m.hbCorr, protocol.HeartbeatRequest{CorrelationID: m.hbCorr, GroupID: c.cfg.GroupID, GenerationID: gen,
		MemberID: m.id, GroupInstanceID: c.cfg.GroupInstanceID}, consumerRequestTimeout, func(protocol.ErrorCode) {
		m.hbCorr = 0
		m.hbRetry = true
	})
}

// onHeartbeat is HeartbeatResponseHandler.
func (m *classicMember) onHeartbeat(r protocol.HeartbeatResponse) {
	g := m.g
	switch r.Error {
	case protocol.None:
		m.lastHbAck = g.c.now()
	case protocol.RebalanceInProgress:
		m.lastHbAck = g.c.now()
		if m.state == phaseStable {
			g.event("attempt to heartbeat with generation %d failed since group %s is rebalancing; rejoining at the next poll", m.generation, g.c.cfg.GroupID)
			m.requestRejoin("group is already rebalancing")
		}
	case protocol.IllegalGeneration, protocol.UnknownMemberID:
		if m.state == phaseStable || m.state == phaseSyncing {
			m.resetGeneration("heartbeat failed with " + r.Error.Name())
		}
	case protocol.FencedInstanceID:
		m.fail(fmt.Errorf("FencedInstanceIdException: group.instance.id %s is in use by another member of group %s", g.c.cfg.GroupInstanceID, g.c.cfg.GroupID))
	case protocol.NotCoordinator, protocol.CoordinatorNotAvailable:
		m.hbRetry = true
		g.markCoordinatorUnknown(r.Error.Name(), r.Error)
	default:
		m.hbRetry = true
	}
}

// maybeLeaveGroup is AbstractCoordinator.maybeLeaveGroup: a dynamic member
// sends LeaveGroup (a static one stays, so a restart within
// session.timeout.ms keeps its partitions), then forgets its generation.
func (m *classicMember) maybeLeaveGroup(reason string) {
	g, c := m.g, m.g.c
	if c.cfg.GroupInstanceID == "" && g.coordinator >= 0 && m.state != phaseUnjoined && m.id != "" {
		g.event("member %s sending LeaveGroup request to coordinator b%d due to %s", m.id, g.coordinator, reason)
		c.corr++
		corr := c.corr
		g.send("LeaveGroup", corr, protocol.LeaveGroupRequest{CorrelationID: corr, GroupID: c.cfg.GroupID,
			Members: []protocol.MemberIdentity{{MemberID: m.id, GroupInstanceID: c.cfg.GroupInstanceID, Reason: reason}}},
			consumerRequestTimeout, func(protocol.ErrorCode) {})
	}
	m.resetGeneration(reason)
	m.id = ""
}

func (m *classicMember) close() {
	g, c := m.g, m.g.c
	// onLeavePrepare: a member in a generation revokes (a static one's
	// partitions too: the group keeps them for it, the consumer lets go).
	if owned := c.Assignment(); len(owned) > 0 {
		g.event("revoking previously assigned partitions %s (the consumer is being closed)", partitionNames(owned))
		c.removePartitions(owned)
	}
	m.maybeLeaveGroup("the consumer is being closed")
	m.stopHeartbeats()
}
