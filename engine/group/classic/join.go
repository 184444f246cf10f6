package classic

// Join handles a JoinGroup request at virtual time now. The response may
// come out now, or later from another call once the join phase ends; all
// responses produced by this call (this request's and others' parked
// ones) are returned.
func (g *Group) Join(now int64, req JoinRequest) []Reply {
	g.join(now, req)
	return g.flush()
}

func (g *Group) join(now int64, req JoinRequest) {
	// GroupCoordinatorService rejects a session timeout outside the
	// broker's bounds before the group is even looked at.
	if req.SessionTimeoutMs < g.cfg.MinSessionTimeoutMs || req.SessionTimeoutMs > g.cfg.MaxSessionTimeoutMs {
		g.replyJoin(req.Ref, JoinResponse{Error: InvalidSessionTimeout, MemberID: req.MemberID})
		return
	}
	if !g.acceptJoiningMember(req.MemberID) {
		g.remove(req.MemberID)
		g.replyJoin(req.Ref, JoinResponse{Error: GroupMaxSizeReached})
		return
	}
	if req.MemberID == "" {
		g.joinNewMember(now, req)
	} else {
		g.joinExistingMember(now, req)
	}
}

// acceptJoiningMember enforces group.max.size. While rebalancing it
// counts the members already rejoined, not all members, so that when the
// limit was lowered the last members to rejoin are the ones turned away.
func (g *Group) acceptJoiningMember(id string) bool {
	switch g.state {
	case PreparingRebalance:
		if m := g.member(id); m != nil && m.awaitingJoin() {
			return true
		}
		return g.numAwaitingJoin() < g.cfg.MaxSize
	case CompletingRebalance, Stable:
		return g.member(id) != nil || len(g.members) < g.cfg.MaxSize
	}
	return true
}

func (g *Group) joinNewMember(now int64, req JoinRequest) {
	switch {
	case g.state == Dead:
		// The group was just removed or moved to another coordinator: the
		// client rediscovers the coordinator and retries.
		g.replyJoin(req.Ref, JoinResponse{Error: CoordinatorNotAvailable})
	case !g.supportsProtocols(req.ProtocolType, req.Protocols):
		g.replyJoin(req.Ref, JoinResponse{Error: InconsistentGroupProto})
	case req.GroupInstanceID != "":
		newID := req.GroupInstanceID + "-" + req.UUID
		if old, ok := g.staticMembers[req.GroupInstanceID]; ok {
			g.replaceStaticMember(now, req, old, newID)
		} else {
			g.addMemberThenRebalanceOrCompleteJoin(now, req, newID)
		}
	case !req.Legacy:
		// KIP-394: hand out the id and have the client rejoin with it, so
		// a client that times out and retries is recognised instead of
		// leaving a defunct member behind in the rebalance. The id is
		// forgotten if it does not come back within the session timeout.
		newID := req.ClientID + "-" + req.UUID
		g.pendingJoin = append(g.pendingJoin, newID)
		g.schedule(heartbeatKey(newID), now+req.SessionTimeoutMs, func(at int64) { g.expireHeartbeat(at, newID) })
		g.replyJoin(req.Ref, JoinResponse{Error: MemberIDRequired, MemberID: newID})
	default:
		g.addMemberThenRebalanceOrCompleteJoin(now, req, req.ClientID+"-"+req.UUID)
	}
}

func (g *Group) joinExistingMember(now int64, req JoinRequest) {
	id := req.MemberID
	switch {
	case g.state == Dead:
		g.replyJoin(req.Ref, JoinResponse{Error: CoordinatorNotAvailable, MemberID: id})
		return
	case !g.supportsProtocols(req.ProtocolType, req.Protocols):
		g.replyJoin(req.Ref, JoinResponse{Error: InconsistentGroupProto, MemberID: id})
		return
	case contains(g.pendingJoin, id):
		// The second half of KIP-394's two-step join.
		g.addMemberThenRebalanceOrCompleteJoin(now, req, id)
		return
	}
	if err := g.validateMember(id, req.GroupInstanceID); err != None {
		g.replyJoin(req.Ref, JoinResponse{Error: err, MemberID: id})
		return
	}
	m := g.member(id)
	switch g.state {
	case PreparingRebalance:
		g.updateMemberThenRebalanceOrCompleteJoin(now, m, req)
	case CompletingRebalance:
		if m.matches(req.Protocols) {
			// Same metadata: the member probably lost its JoinGroup
			// response; answer again with the current generation.
			g.replyJoin(req.Ref, g.currentJoinResponse(id, g.isLeader(id)))
		} else {
			g.updateMemberThenRebalanceOrCompleteJoin(now, m, req)
		}
	case Stable:
		if g.isLeader(id) || !m.matches(req.Protocols) {
			// A rejoining leader wants a new assignment (e.g. the topic
			// metadata changed); changed metadata means a new
			// subscription. Both need a rebalance.
			g.updateMemberThenRebalanceOrCompleteJoin(now, m, req)
		} else {
			// An unchanged follower just gets the current generation and
			// can SyncGroup for its assignment: no rebalance.
			g.replyJoin(req.Ref, g.currentJoinResponse(id, false))
		}
	default:
		// Empty: the member is stale; it must reset and join afresh.
		g.replyJoin(req.Ref, JoinResponse{Error: UnknownMemberID, MemberID: id})
	}
}

// validateGeneration is what SyncGroup and Heartbeat check first, in
// Kafka's order: a group that is unloaded, then the member, then its
// generation.
func (g *Group) validateGeneration(memberID, instanceID string, generation int32) Error {
	if g.state == Dead {
		return CoordinatorNotAvailable
	}
	if err := g.validateMember(memberID, instanceID); err != None {
		return err
	}
	if generation != g.generation {
		return IllegalGeneration
	}
	return None
}

// validateMember checks a request's member id and, for a static member,
// that the instance id still maps to that member id: an older
// incarnation of a restarted instance is fenced.
func (g *Group) validateMember(id, instanceID string) Error {
	if instanceID != "" {
		cur, ok := g.staticMembers[instanceID]
		if !ok {
			return UnknownMemberID
		}
		if cur != id {
			return FencedInstanceID
		}
	}
	if g.member(id) == nil {
		return UnknownMemberID
	}
	return None
}

func (g *Group) addMemberThenRebalanceOrCompleteJoin(now int64, req JoinRequest, id string) {
	m := &Member{ID: id, InstanceID: req.GroupInstanceID, ClientID: req.ClientID,
		ProtocolType: req.ProtocolType, Protocols: req.Protocols,
		SessionTimeoutMs: req.SessionTimeoutMs, RebalanceTimeoutMs: req.RebalanceTimeoutMs,
		isNew: true, joinRef: req.Ref}
	// A member arriving during an empty group's initial delay extends it.
	if g.state == PreparingRebalance && g.previousState == Empty {
		g.newMemberAdded = true
	}
	g.add(m)
	// A new member cannot heartbeat and its parked request mutes its
	// socket, so a client that gave up would leave a defunct member in
	// the rebalance: bound its wait instead by the new-member timeout.
	g.rescheduleHeartbeat(now, m, g.cfg.NewMemberJoinTimeoutMs)
	g.maybePrepareRebalanceOrCompleteJoin(now)
}

func (g *Group) updateMemberThenRebalanceOrCompleteJoin(now int64, m *Member, req JoinRequest) {
	g.updateMember(m, req)
	g.maybePrepareRebalanceOrCompleteJoin(now)
}

func (g *Group) updateMember(m *Member, req JoinRequest) {
	m.Protocols = req.Protocols
	m.RebalanceTimeoutMs = req.RebalanceTimeoutMs
	m.SessionTimeoutMs = req.SessionTimeoutMs
	m.joinRef = req.Ref
}

func (g *Group) maybePrepareRebalanceOrCompleteJoin(now int64) {
	if g.canRebalance() {
		g.prepareRebalance(now)
	} else {
		g.maybeCompleteJoinPhase(now)
	}
}

// maybeCompleteJoinPhase ends the join phase early once everyone has
// rejoined; but never during an empty group's initial delay, whose whole
// point is to wait for members not yet known.
func (g *Group) maybeCompleteJoinPhase(now int64) {
	if g.state == PreparingRebalance && g.previousState != Empty && g.hasAllMembersJoined() {
		g.completeJoinPhase(now)
	}
}

// prepareRebalance starts a join phase: every member must rejoin.
func (g *Group) prepareRebalance(now int64) {
	if g.state == CompletingRebalance {
		// Members waiting on SyncGroup will never get this generation's
		// assignment: tell them to rejoin.
		g.resetAndPropagateAssignment(now, RebalanceInProgress)
	}
	g.pendingSync = nil
	g.cancel(syncKey)

	initial := g.state == Empty
	if initial {
		delay := g.cfg.InitialRebalanceDelayMs
		remaining := max(g.rebalanceTimeoutMs()-delay, 0)
		g.schedule(joinKey, now+delay, func(at int64) { g.initialDelay(at, delay, remaining) })
	}
	g.transitionTo(now, PreparingRebalance)
	if initial {
		return
	}
	if g.hasAllMembersJoined() {
		g.completeJoinPhase(now)
	} else {
		g.scheduleJoinTimeout(now)
	}
}

// completeJoinPhase ends the join phase (everyone rejoined, or the
// rebalance timeout fired): drop dynamic members that did not rejoin,
// start the next generation and answer every parked JoinGroup, the
// leader's with all members' metadata.
func (g *Group) completeJoinPhase(now int64) {
	g.cancel(joinKey)
	// Static members that did not rejoin are kept: KIP-345 lets a static
	// member be away (restarting) without losing its place.
	for _, m := range append([]*Member(nil), g.members...) {
		if !m.awaitingJoin() && m.InstanceID == "" {
			g.remove(m.ID)
		}
	}
	switch {
	case g.state == Dead:
	case !g.maybeElectNewJoinedLeader() && len(g.members) > 0:
		// Only absent static members are left: wait another rebalance
		// timeout, until their session timeouts remove them.
		g.scheduleJoinTimeout(now)
	default:
		g.initNextGeneration(now)
		if g.state == Empty {
			return
		}
		for _, m := range g.members {
			g.completeJoin(m, g.currentJoinResponse(m.ID, g.isLeader(m.ID)))
			g.rescheduleHeartbeat(now, m, m.SessionTimeoutMs)
			m.isNew = false
			g.pendingSync = append(g.pendingSync, m.ID)
		}
		g.schedulePendingSync(now)
	}
}

// replaceStaticMember handles a known group.instance.id joining with no
// member id: the instance restarted. It gets a new member id, the old id
// is fenced, and a Stable group whose selected protocol would not change
// does not rebalance (KIP-345): the member keeps its assignment.
func (g *Group) replaceStaticMember(now int64, req JoinRequest, oldID, newID string) {
	old := g.member(oldID)
	// Fence the old incarnation's parked requests.
	g.completeJoin(old, JoinResponse{Error: FencedInstanceID, MemberID: oldID})
	g.completeSync(old, SyncResponse{Error: FencedInstanceID})
	g.cancel(heartbeatKey(oldID))
	old.ID = newID
	old.isNew = false
	g.staticMembers[req.GroupInstanceID] = newID
	if g.leader == oldID {
		g.leader = newID
	}
	g.rescheduleHeartbeat(now, old, old.SessionTimeoutMs)
	g.updateMember(old, req)

	switch g.state {
	case Stable:
		if g.selectProtocol() == g.protocolName {
			// KIP-814: a static leader that restarted gets the members
			// but is told to skip the assignment, which is unchanged.
			// Kafka first persists the new member id; the append is
			// taken to succeed here.
			leader := g.isLeader(newID)
			r := g.currentJoinResponse(newID, leader)
			r.SkipAssignment = leader
			g.completeJoin(old, r)
			return
		}
		g.maybePrepareRebalanceOrCompleteJoin(now)
	case CompletingRebalance:
		// The leader may already be assigning to the old member id, which
		// the new one would never receive: rebalance.
		g.prepareRebalance(now)
	default:
		g.maybeCompleteJoinPhase(now)
	}
}
