package classic

// Restore rebuilds a classic group from its last GroupMetadata record, as
// Kafka's GroupMetadataManager.replay (ClassicGroup.fromRecord) and
// onLoaded do when a broker becomes the group's coordinator: the group is
// Empty without members, else Stable at the stored generation with the
// stored assignments, and every member's session timer starts again from
// now. A member that heartbeats the new coordinator within its session
// timeout keeps its partitions: a coordinator failover is no rebalance.
//
// Each member comes back with the one protocol the group chose (the
// record keeps only that protocol's subscription), as Kafka's fromRecord
// does. stateSince is the record's currentStateTimestamp (offsets of an
// Empty group expire counted from it); -1 when the record has none.
func Restore(id string, cfg Config, now int64, generation int32, protocolType, protocolName, leader string,
	stateSince int64, members []Member) *Group {
	g := New(id, cfg, now)
	g.generation, g.protocolType, g.protocolName = generation, protocolType, protocolName
	if stateSince >= 0 {
		g.stateSince = stateSince
	}
	for _, rm := range members {
		m := rm
		m.isNew, m.joinRef, m.syncRef = false, 0, 0
		if m.ProtocolType == "" {
			m.ProtocolType = protocolType
		}
		g.members = append(g.members, &m)
		if m.InstanceID != "" {
			g.staticMembers[m.InstanceID] = m.ID
		}
	}
	g.leader = leader
	if len(g.members) > 0 {
		if g.member(leader) == nil {
			g.leader = g.members[0].ID
		}
		// fromRecord sets the state straight to Stable: no transition,
		// the group was Stable when the coordinator wrote it.
		g.previousState, g.state = Empty, Stable
		for _, m := range g.members {
			g.rescheduleHeartbeat(now, m, m.SessionTimeoutMs)
		}
		if len(g.members) > cfg.MaxSize {
			// Kafka's onLoaded: group.max.size may have shrunk meanwhile.
			g.prepareRebalance(now)
		}
	} else {
		g.leader = ""
	}
	return g
}

// StateSince is when the group entered its current state: Kafka's
// currentStateTimestamp, written in GroupMetadata records and the base
// an Empty group's offsets expire from.
func (g *Group) StateSince() int64 { return g.stateSince }
