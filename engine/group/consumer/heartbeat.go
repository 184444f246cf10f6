package consumer

import (
	"fmt"
	"maps"
	"slices"
)

// The special member epochs of ConsumerGroupHeartbeat.
const (
	JoinGroupMemberEpoch        int32 = 0
	LeaveGroupMemberEpoch       int32 = -1
	LeaveGroupStaticMemberEpoch int32 = -2
)

// HeartbeatRequest is the part of ConsumerGroupHeartbeatRequest the
// coordinator decides on. Nil fields were not sent: the client sends
// only what changed, except on a join or after an error (a full request).
type HeartbeatRequest struct {
	// MemberID is made by the client (a UUID since KIP-1082, Kafka 4.0);
	// the engine must make it from its seeded RNG.
	MemberID    string
	MemberEpoch int32
	// InstanceID is the client's group.instance.id; "" for a dynamic
	// member (Kafka's null). A static member keeps its place and its
	// partitions across a restart: see static.go.
	InstanceID           string
	RebalanceTimeoutMs   int32    // -1: unchanged
	SubscribedTopicNames []string // nil: unchanged
	OwnedTopicPartitions Partitions
}

// HeartbeatResponse is ConsumerGroupHeartbeatResponse without errors.
type HeartbeatResponse struct {
	MemberID            string
	MemberEpoch         int32
	HeartbeatIntervalMs int32
	// Assignment is nil when not sent: the member keeps the last one.
	Assignment Partitions
	// ReplacedMemberID is not on the wire: it names the departed static
	// member whose place and partitions this join took over, so the
	// coordinator can trace it as Kafka logs it.
	ReplacedMemberID string
}

// validate is Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid.
func (req HeartbeatRequest) validate() error {
	switch {
	case req.MemberID == "":
		return fmt.Errorf("%w: MemberId can't be empty", ErrInvalidRequest)
	case req.MemberEpoch == JoinGroupMemberEpoch && req.RebalanceTimeoutMs == -1:
		return fmt.Errorf("%w: RebalanceTimeoutMs must be provided in first request", ErrInvalidRequest)
	case req.MemberEpoch == JoinGroupMemberEpoch && (req.OwnedTopicPartitions == nil || !req.OwnedTopicPartitions.Empty()):
		return fmt.Errorf("%w: TopicPartitions must be empty when (re-)joining", ErrInvalidRequest)
	case req.MemberEpoch == JoinGroupMemberEpoch && req.SubscribedTopicNames == nil:
		return fmt.Errorf("%w: SubscribedTopicNames must be set in first request", ErrInvalidRequest)
	case req.MemberEpoch == LeaveGroupStaticMemberEpoch && req.InstanceID == "":
		return fmt.Errorf("%w: InstanceId can't be null", ErrInvalidRequest)
	case req.MemberEpoch < LeaveGroupStaticMemberEpoch:
		return fmt.Errorf("%w: MemberEpoch is invalid", ErrInvalidRequest)
	}
	return nil
}

// Heartbeat is Kafka's GroupMetadataManager.consumerGroupHeartbeat: join,
// stay alive, report what the member owns, and learn its next epoch and
// assignment. now is the virtual time in ms.
func (g *Group) Heartbeat(now int64, req HeartbeatRequest) (HeartbeatResponse, error) {
	if err := req.validate(); err != nil {
		return HeartbeatResponse{}, err
	}
	if req.MemberEpoch == LeaveGroupMemberEpoch || req.MemberEpoch == LeaveGroupStaticMemberEpoch {
		return g.leave(req)
	}
	if req.InstanceID != "" {
		return g.staticHeartbeat(now, req)
	}
	// A known member rejoining at epoch 0 goes through the epoch check
	// like any heartbeat, as in the Kafka source this follows.
	old, exists := g.members[req.MemberID]
	if !exists && req.MemberEpoch != JoinGroupMemberEpoch {
		return HeartbeatResponse{}, fmt.Errorf("%w: member %s is not a member of group %s", ErrUnknownMemberID, req.MemberID, g.id)
	}
	if exists {
		if err := checkMemberEpoch(old, req); err != nil {
			return HeartbeatResponse{}, err
		}
	} else {
		old = newMember(req.MemberID)
	}
	return g.heartbeat(now, req, old)
}

func newMember(id string) *Member {
	return &Member{ID: id, State: Stable, Assigned: Partitions{}, PendingRevocation: Partitions{}}
}

// heartbeat is the part of consumerGroupHeartbeat after the member was
// found or made (old): its subscription, the group's target, and its
// own reconciliation.
func (g *Group) heartbeat(now int64, req HeartbeatRequest, old *Member) (HeartbeatResponse, error) {
	// 1. The member's subscription: a change moves the group epoch.
	// Kafka's maybeUpdateInstanceId: a member that joins with an
	// instance id keeps it.
	updated := *old
	if req.InstanceID != "" {
		updated.InstanceID = req.InstanceID
	}
	if req.RebalanceTimeoutMs != -1 {
		updated.RebalanceTimeoutMs = req.RebalanceTimeoutMs
	}
	subscriptionChanged := false
	if req.SubscribedTopicNames != nil && !sameTopics(req.SubscribedTopicNames, old.SubscribedTopics) {
		updated.SubscribedTopics = sortedTopics(req.SubscribedTopicNames)
		subscriptionChanged = true
	}
	if subscriptionChanged || g.metadataChanged {
		g.groupEpoch++
		g.metadataChanged = false
	}

	// 2. A new target for everybody, computed once per group epoch by
	// whichever member's heartbeat comes first.
	if g.groupEpoch > g.assignmentEpoch {
		target, err := computeTarget(g.assignor, g.topics, g.sortedMembers(updated), g.target)
		if err != nil {
			return HeartbeatResponse{}, err
		}
		g.target, g.assignmentEpoch = target, g.groupEpoch
	}

	// 3. This member's next step towards its own target.
	if !updated.isReconciledTo(g.assignmentEpoch) || subscriptionChanged {
		next, err := reconcile(updated, reconciliation{
			targetEpoch: g.assignmentEpoch, target: g.target[updated.ID], topics: g.topics,
			partitionEpoch: g.partitionEpoch, owned: req.OwnedTopicPartitions,
			subscriptionChanged: subscriptionChanged,
		})
		if err != nil {
			return HeartbeatResponse{}, err
		}
		if next.State != updated.State || next.MemberEpoch != updated.MemberEpoch ||
			!next.Assigned.Equal(updated.Assigned) || !next.PendingRevocation.Equal(updated.PendingRevocation) {
			// The rebalance timeout (the client's max.poll.interval.ms)
			// bounds how long a member may take to revoke; it restarts
			// whenever the member's assignment changes.
			next.revocationDeadlineMs = 0
			if next.State == UnrevokedPartitions {
				next.revocationDeadlineMs = now + int64(next.RebalanceTimeoutMs)
			}
		}
		updated = next
	}
	if err := g.replaceOwnership(old, &updated); err != nil {
		return HeartbeatResponse{}, err
	}
	updated.sessionDeadlineMs = now + int64(g.cfg.SessionTimeoutMs)
	g.members[updated.ID] = &updated

	resp := HeartbeatResponse{MemberID: updated.ID, MemberEpoch: updated.MemberEpoch, HeartbeatIntervalMs: g.cfg.HeartbeatIntervalMs}
	// The assignment goes out on a full request (join, or the client
	// resending everything after an error) or when it changed: heartbeats
	// stay small otherwise.
	full := req.MemberEpoch == JoinGroupMemberEpoch ||
		(req.RebalanceTimeoutMs != -1 && req.SubscribedTopicNames != nil && req.OwnedTopicPartitions != nil)
	if full || !updated.Assigned.Equal(old.Assigned) {
		resp.Assignment = updated.Assigned.normalized()
	}
	return resp, nil
}

// checkMemberEpoch is Kafka's throwIfConsumerGroupMemberEpochIsInvalid.
// An epoch one behind is accepted when the member owns no more than it
// is assigned: the response that carried the new epoch may have been
// lost, and the member has done nothing unsafe.
func checkMemberEpoch(m *Member, req HeartbeatRequest) error {
	got := req.MemberEpoch
	if got > m.MemberEpoch {
		return fmt.Errorf("%w: the consumer group member has a greater member epoch (%d) than the one known by the group coordinator (%d)",
			ErrFencedMemberEpoch, got, m.MemberEpoch)
	}
	if got < m.MemberEpoch && (got != m.PreviousMemberEpoch || req.OwnedTopicPartitions == nil ||
		!req.OwnedTopicPartitions.subsetOf(m.Assigned)) {
		return fmt.Errorf("%w: the consumer group member has a smaller member epoch (%d) than the one known by the group coordinator (%d)",
			ErrFencedMemberEpoch, got, m.MemberEpoch)
	}
	return nil
}

// leave is Kafka's consumerGroupLeave: a dynamic member is fenced at
// once, so its partitions are free without waiting for the session
// timeout; a static member is found by its instance id (see
// staticLeave). Kafka's leave response carries no heartbeat interval.
func (g *Group) leave(req HeartbeatRequest) (HeartbeatResponse, error) {
	if req.InstanceID != "" {
		return g.staticLeave(req)
	}
	if _, ok := g.members[req.MemberID]; !ok {
		return HeartbeatResponse{}, fmt.Errorf("%w: member %s is not a member of group %s", ErrUnknownMemberID, req.MemberID, g.id)
	}
	g.fence(req.MemberID)
	return HeartbeatResponse{MemberID: req.MemberID, MemberEpoch: LeaveGroupMemberEpoch}, nil
}

// Expiry says why a member was fenced by a timer.
type Expiry struct {
	MemberID string
	Reason   string
}

// Expire runs the coordinator's timers due at now, in member id order:
// the session timeout (no heartbeat for group.consumer.session.timeout.ms)
// and the rebalance timeout (partitions not revoked in time). Either
// fences the member, as Kafka's timers do.
func (g *Group) Expire(now int64) []Expiry {
	var out []Expiry
	for _, id := range slices.Sorted(maps.Keys(g.members)) {
		m := g.members[id]
		switch {
		case m.sessionDeadlineMs <= now:
			out = append(out, Expiry{id, "session timeout expired"})
		case m.revocationDeadlineMs != 0 && m.revocationDeadlineMs <= now:
			out = append(out, Expiry{id, fmt.Sprintf("failed to transition from epoch %d within the rebalance timeout", m.MemberEpoch)})
		default:
			continue
		}
		g.fence(id)
	}
	return out
}

// NextDeadline is the earliest time Expire has something to do, so the
// engine can schedule it on its clock; ok is false with no members.
func (g *Group) NextDeadline() (at int64, ok bool) {
	for _, m := range g.members {
		for _, d := range []int64{m.sessionDeadlineMs, m.revocationDeadlineMs} {
			if d != 0 && (!ok || d < at) {
				at, ok = d, true
			}
		}
	}
	return at, ok
}

func sameTopics(a, b []string) bool { return slices.Equal(sortedTopics(a), sortedTopics(b)) }

func sortedTopics(ts []string) []string {
	s := slices.Clone(ts)
	slices.Sort(s)
	return slices.Compact(s)
}
