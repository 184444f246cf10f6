package classic

// Leave handles a LeaveGroup request at virtual time now: a consumer
// closing (dynamic members send it; static members do not, to keep their
// place over a restart), or an admin removing static members by instance
// id. It returns the response and any parked responses it released.
func (g *Group) Leave(now int64, members []LeaveMember) (LeaveResponse, []Reply) {
	if g.state == Dead {
		return LeaveResponse{Error: CoordinatorNotAvailable}, nil
	}
	resp := LeaveResponse{Error: None}
	left := 0
	for _, lm := range members {
		r := LeaveMemberResponse{MemberID: lm.MemberID, GroupInstanceID: lm.GroupInstanceID, Error: None}
		switch {
		case lm.MemberID == "":
			if id, ok := g.staticMembers[lm.GroupInstanceID]; ok && lm.GroupInstanceID != "" {
				g.removeLeaving(id)
			} else {
				r.Error = UnknownMemberID
			}
		case contains(g.pendingJoin, lm.MemberID):
			g.remove(lm.MemberID)
		default:
			if err := g.validateMember(lm.MemberID, lm.GroupInstanceID); err != None {
				r.Error = err
			} else {
				g.removeLeaving(lm.MemberID)
			}
		}
		if r.Error == None {
			left++
		}
		resp.Members = append(resp.Members, r)
	}
	if left > 0 {
		switch g.state {
		case Stable, CompletingRebalance:
			g.maybePrepareRebalanceOrCompleteJoin(now)
		case PreparingRebalance:
			g.maybeCompleteJoinPhase(now)
		}
	}
	return resp, g.flush()
}

// removeLeaving removes a member that asked to leave; its parked
// JoinGroup, if any, is answered so the client is not left waiting.
func (g *Group) removeLeaving(id string) {
	m := g.member(id)
	g.completeJoin(m, JoinResponse{Error: UnknownMemberID})
	g.remove(id)
}

// Unload marks the group Dead, as when its coordinator moves away or the
// group is deleted: parked requests are told NOT_COORDINATOR so clients
// find the new coordinator.
func (g *Group) Unload(now int64) []Reply {
	for _, m := range g.members {
		g.completeJoin(m, JoinResponse{Error: NotCoordinator, MemberID: m.ID})
		g.completeSync(m, SyncResponse{Error: NotCoordinator})
	}
	g.transitionTo(now, Dead)
	g.timers = nil
	return g.flush()
}
