package classic

// ValidateOffsetCommit is Kafka's ClassicGroup.validateOffsetCommit for a
// (non-transactional) OffsetCommit at virtual time now. A valid commit in
// Stable or PreparingRebalance also counts as a heartbeat
// (OffsetMetadataManager.commitOffset reschedules the member's session):
// a consumer busy committing is alive.
func (g *Group) ValidateOffsetCommit(now int64, memberID, instanceID string, generation int32) Error {
	if g.state == Dead {
		return CoordinatorNotAvailable
	}
	if generation < 0 && g.state == Empty {
		// An admin client or a consumer without group management
		// (generation -1): it may commit while the group has no members.
		return None
	}
	if generation >= 0 || memberID != "" || instanceID != "" {
		if err := g.validateMember(memberID, instanceID); err != None {
			return err
		}
		if generation != g.generation {
			return IllegalGeneration
		}
	} else if g.state != Empty {
		// No member id and no generation: accepted only while the group is
		// empty, else a live group's positions would be overwritten.
		return UnknownMemberID
	}
	if g.state == CompletingRebalance {
		// The member has its JoinGroup answer but not its assignment:
		// let it retry once the rebalance completes.
		return RebalanceInProgress
	}
	if m := g.member(memberID); m != nil && (g.state == Stable || g.state == PreparingRebalance) {
		g.rescheduleHeartbeat(now, m, m.SessionTimeoutMs)
	}
	return None
}
