package classic

// Sync handles a SyncGroup request at virtual time now. A follower's
// SyncGroup in CompletingRebalance is parked until the leader's brings the
// assignment; all responses produced by this call are returned.
func (g *Group) Sync(now int64, req SyncRequest) []Reply {
	g.sync(now, req)
	return g.flush()
}

func (g *Group) sync(now int64, req SyncRequest) {
	if g.state == Empty {
		// Kafka answers before looking at the member: an empty group has
		// none.
		g.replySync(req.Ref, SyncResponse{Error: UnknownMemberID})
		return
	}
	if err := g.validateSync(req); err != None {
		g.replySync(req.Ref, SyncResponse{Error: err})
		return
	}
	switch g.state {
	case PreparingRebalance:
		g.replySync(req.Ref, SyncResponse{Error: RebalanceInProgress})
	case CompletingRebalance:
		m := g.member(req.MemberID)
		m.syncRef = req.Ref
		g.removePendingSync(req.MemberID)
		if !g.isLeader(req.MemberID) {
			return
		}
		// The leader's assignment ends the rebalance. A member the leader
		// gave nothing gets an empty assignment rather than waiting
		// forever. Kafka stores the group with its assignment first; the
		// append is taken to succeed here.
		for _, m := range g.members {
			m.Assignment = ""
			for _, a := range req.Assignments {
				if a.MemberID == m.ID {
					m.Assignment = a.Assignment
				}
			}
		}
		g.propagateAssignment(now, None)
		g.transitionTo(now, Stable)
	case Stable:
		// A late or repeated SyncGroup just gets the stored assignment.
		g.removePendingSync(req.MemberID)
		m := g.member(req.MemberID)
		g.replySync(req.Ref, SyncResponse{Error: None, ProtocolType: g.protocolType,
			ProtocolName: g.protocolName, Assignment: m.Assignment})
	}
}

func (g *Group) validateSync(req SyncRequest) Error {
	if err := g.validateGeneration(req.MemberID, req.GroupInstanceID, req.GenerationID); err != None {
		return err
	}
	// SyncGroup v5+ echoes the protocol the JoinGroup response named; a
	// mismatch means the client is confused about the generation.
	if (req.ProtocolType != "" && req.ProtocolType != g.protocolType) ||
		(req.ProtocolName != "" && req.ProtocolName != g.protocolName) {
		return InconsistentGroupProto
	}
	return None
}

func (g *Group) removePendingSync(id string) {
	g.pendingSync = without(g.pendingSync, id)
	if len(g.pendingSync) == 0 {
		g.cancel(syncKey)
	}
}

// resetAndPropagateAssignment fails every parked SyncGroup (the
// generation is being abandoned) and forgets the assignment.
func (g *Group) resetAndPropagateAssignment(now int64, err Error) {
	for _, m := range g.members {
		m.Assignment = ""
	}
	g.propagateAssignment(now, err)
}

func (g *Group) propagateAssignment(now int64, err Error) {
	for _, m := range g.members {
		r := SyncResponse{Error: err, Assignment: m.Assignment}
		if err == None {
			r.ProtocolType, r.ProtocolName = g.protocolType, g.protocolName
		}
		if g.completeSync(m, r) {
			// A session that expired while the member waited on the
			// leader was ignored; restart it now that it has its answer.
			g.rescheduleHeartbeat(now, m, m.SessionTimeoutMs)
		}
	}
}
