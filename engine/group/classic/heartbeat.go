package classic

// Heartbeat handles a Heartbeat request at virtual time now. Besides
// keeping the session alive, its answer is how a member between polls
// learns a rebalance started (REBALANCE_IN_PROGRESS: rejoin).
func (g *Group) Heartbeat(now int64, req HeartbeatRequest) Error {
	if err := g.validateGeneration(req.MemberID, req.GroupInstanceID, req.GenerationID); err != None {
		return err
	}
	m := g.member(req.MemberID)
	switch g.state {
	case PreparingRebalance:
		g.rescheduleHeartbeat(now, m, m.SessionTimeoutMs)
		return RebalanceInProgress
	case CompletingRebalance, Stable:
		// A member may heartbeat as soon as it has its JoinGroup
		// response, before the group is Stable: a normal heartbeat.
		g.rescheduleHeartbeat(now, m, m.SessionTimeoutMs)
		return None
	}
	return UnknownMemberID // Empty: no member can be valid
}
