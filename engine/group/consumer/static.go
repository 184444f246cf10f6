package consumer

import (
	"fmt"
	"maps"
	"slices"
)

// Static membership (KIP-345, carried into KIP-848): a consumer started
// with group.instance.id keeps its place in the group across a restart.
// Its leave heartbeat says epoch -2 instead of -1: the coordinator then
// keeps the member, its assignment and its partitions (nobody else gets
// them) and does NOT bump the group epoch. If a consumer with the same
// instance id joins before the session timeout, it takes the departed
// member's place under its own new member id, at the same epoch, with
// the same partitions: no rebalance. If none comes back, the session
// timeout fences the member like any other and the group rebalances.

// staticMember is Kafka's ConsumerGroup.staticMember: the member that
// holds the instance id, nil if none. Kafka keeps an instance id ->
// member id index; here it is derived from the members, so restoring
// the members restores it too.
func (g *Group) staticMember(instanceID string) *Member {
	for _, id := range slices.Sorted(maps.Keys(g.members)) {
		if m := g.members[id]; m.InstanceID == instanceID {
			return m
		}
	}
	return nil
}

// staticHeartbeat is consumerGroupHeartbeat for a request with an
// instance id, whose member is found by Kafka's
// getOrMaybeSubscribeStaticConsumerGroupMember.
func (g *Group) staticHeartbeat(now int64, req HeartbeatRequest) (HeartbeatResponse, error) {
	existing := g.staticMember(req.InstanceID)
	if req.MemberEpoch != JoinGroupMemberEpoch {
		if err := g.checkStaticMember(existing, req); err != nil {
			return HeartbeatResponse{}, err
		}
		if err := checkMemberEpoch(existing, req); err != nil {
			return HeartbeatResponse{}, err
		}
		return g.heartbeat(now, req, existing)
	}
	if existing == nil {
		// A new static member. Kafka's getOrMaybeCreateMember hands back
		// a known member id as it is, without the epoch check.
		old, ok := g.members[req.MemberID]
		if !ok {
			old = newMember(req.MemberID)
		}
		return g.heartbeat(now, req, old)
	}
	// Kafka's throwIfInstanceIdIsUnreleased: the instance id is taken
	// until its holder left with -2. Two live consumers configured with
	// the same group.instance.id get this error, not a takeover.
	if existing.MemberEpoch != LeaveGroupStaticMemberEpoch {
		return HeartbeatResponse{}, fmt.Errorf("%w: static member %s with instance id %s cannot join the group because the instance id is owned by %s member",
			ErrUnreleasedInstanceID, req.MemberID, req.InstanceID, existing.ID)
	}
	// The rejoining consumer takes over the departed member: a copy
	// under its new member id, at epoch 0 so the reconciliation below
	// brings it straight to the target epoch with the same partitions.
	// Kafka writes the replacement as records that are dropped if the
	// heartbeat fails; the snapshot plays that part.
	undo := g.snapshot()
	takeover := *existing
	takeover.ID = req.MemberID
	takeover.MemberEpoch, takeover.PreviousMemberEpoch = JoinGroupMemberEpoch, JoinGroupMemberEpoch
	takeover.revocationDeadlineMs = 0
	g.replaceMember(existing, &takeover)
	resp, err := g.heartbeat(now, req, &takeover)
	if err != nil {
		undo()
		return HeartbeatResponse{}, err
	}
	resp.ReplacedMemberID = existing.ID
	return resp, nil
}

// checkStaticMember is Kafka's throwIfStaticMemberIsUnknown and
// throwIfInstanceIdIsFenced: the instance id must be held, and by the
// member id that sends the request.
func (g *Group) checkStaticMember(m *Member, req HeartbeatRequest) error {
	if m == nil {
		return fmt.Errorf("%w: instance id %s is unknown", ErrUnknownMemberID, req.InstanceID)
	}
	if m.ID != req.MemberID {
		return fmt.Errorf("%w: static member %s with instance id %s was fenced by member %s",
			ErrFencedInstanceID, req.MemberID, req.InstanceID, m.ID)
	}
	return nil
}

// staticLeave is consumerGroupLeave for a static member. Epoch -1 (the
// consumer leaves for good, e.g. it was unsubscribed) fences it like a
// dynamic member. Epoch -2 (the consumer closes, meaning to come back)
// is Kafka's consumerGroupStaticMemberGroupLeave: the member stays with
// epoch -2 and keeps its assignment, so its partitions stay unavailable
// to the others and the group epoch does not move. Only what it was
// still revoking is released, as the closing consumer gave it up. Its
// session timeout keeps running from its last heartbeat; the rebalance
// timeout no longer applies (Kafka's fires only for an unchanged epoch).
func (g *Group) staticLeave(req HeartbeatRequest) (HeartbeatResponse, error) {
	m := g.staticMember(req.InstanceID)
	if err := g.checkStaticMember(m, req); err != nil {
		return HeartbeatResponse{}, err
	}
	if req.MemberEpoch == LeaveGroupMemberEpoch {
		g.fence(m.ID)
		return HeartbeatResponse{MemberID: req.MemberID, MemberEpoch: LeaveGroupMemberEpoch}, nil
	}
	left := *m
	left.MemberEpoch = LeaveGroupStaticMemberEpoch
	left.PendingRevocation = Partitions{}
	left.revocationDeadlineMs = 0
	// Cannot fail: the member only gives partitions up.
	_ = g.replaceOwnership(m, &left)
	g.members[left.ID] = &left
	return HeartbeatResponse{MemberID: m.ID, MemberEpoch: LeaveGroupStaticMemberEpoch}, nil
}

// replaceMember is Kafka's replaceMember: the departed member's records
// are deleted and the new one gets its subscription, its target and
// its current assignment. The departed member's timers go with it. The
// new member id may be the old one: since KIP-1082 (Kafka 4.0) the
// client keeps its member id, so a consumer that left with -2 and
// joins again (e.g. unsubscribe, then subscribe) comes back with it.
func (g *Group) replaceMember(old, updated *Member) {
	target := g.target[old.ID]
	_ = g.replaceOwnership(old, nil)
	delete(g.members, old.ID)
	delete(g.target, old.ID)
	g.target[updated.ID] = target
	g.members[updated.ID] = updated
	_ = g.replaceOwnership(nil, updated)
}

// snapshot saves what a heartbeat may change and returns the function
// that restores it.
func (g *Group) snapshot() (restore func()) {
	members, target, owners := maps.Clone(g.members), maps.Clone(g.target), maps.Clone(g.owners)
	groupEpoch, assignmentEpoch, metadataChanged := g.groupEpoch, g.assignmentEpoch, g.metadataChanged
	return func() {
		g.members, g.target, g.owners = members, target, owners
		g.groupEpoch, g.assignmentEpoch, g.metadataChanged = groupEpoch, assignmentEpoch, metadataChanged
	}
}
