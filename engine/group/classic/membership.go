package classic

import "slices"

// add puts a member in the group. The first member ever added (or the
// first after the leader left) becomes the leader: Kafka keeps the leader
// stable so the member that computes assignments changes as little as it
// can.
func (g *Group) add(m *Member) {
	if m.InstanceID != "" {
		g.staticMembers[m.InstanceID] = m.ID
	}
	if len(g.members) == 0 {
		g.protocolType = m.ProtocolType
	}
	if g.leader == "" {
		g.leader = m.ID
	}
	g.members = append(g.members, m)
	g.pendingJoin = without(g.pendingJoin, m.ID)
}

// remove drops a member (or a pending member id). A departing leader is
// replaced by the first remaining member; Kafka takes whichever its
// HashMap yields first.
func (g *Group) remove(id string) {
	if i := slices.IndexFunc(g.members, func(m *Member) bool { return m.ID == id }); i >= 0 {
		m := g.members[i]
		g.members = slices.Delete(g.members, i, i+1)
		if m.InstanceID != "" {
			delete(g.staticMembers, m.InstanceID)
		}
	}
	if g.isLeader(id) {
		g.leader = ""
		if len(g.members) > 0 {
			g.leader = g.members[0].ID
		}
	}
	g.pendingJoin = without(g.pendingJoin, id)
	g.pendingSync = without(g.pendingSync, id)
	g.cancel(heartbeatKey(id))
}

func (g *Group) numAwaitingJoin() int {
	n := 0
	for _, m := range g.members {
		if m.awaitingJoin() {
			n++
		}
	}
	return n
}

// hasAllMembersJoined: every member has a parked JoinGroup and no id
// handed out with MEMBER_ID_REQUIRED is still expected back.
func (g *Group) hasAllMembersJoined() bool {
	return g.numAwaitingJoin() == len(g.members) && len(g.pendingJoin) == 0
}

// supportedBy counts the members that list a protocol.
func (g *Group) supportedBy(name string) int {
	n := 0
	for _, m := range g.members {
		if slices.ContainsFunc(m.Protocols, func(p Protocol) bool { return p.Name == name }) {
			n++
		}
	}
	return n
}

// supportsProtocols: a joining member must share at least one assignor
// with every current member, or the group could not pick one protocol
// for all (INCONSISTENT_GROUP_PROTOCOL). An empty group accepts any
// non-empty protocol type and list.
func (g *Group) supportsProtocols(protocolType string, ps []Protocol) bool {
	if g.state == Empty {
		return protocolType != "" && len(ps) > 0
	}
	if g.protocolType != protocolType {
		return false
	}
	for _, p := range ps {
		if g.supportedBy(p.Name) == len(g.members) {
			return true
		}
	}
	return false
}

// selectProtocol lets each member vote for its most preferred assignor
// among those every member supports; the most votes win. Kafka breaks a
// tie by HashMap order; here the earliest-joined member's vote among the
// tied protocols wins, so the choice is reproducible.
func (g *Group) selectProtocol() string {
	var candidates []string
	for _, m := range g.members {
		for _, p := range m.Protocols {
			if !slices.Contains(candidates, p.Name) && g.supportedBy(p.Name) == len(g.members) {
				candidates = append(candidates, p.Name)
			}
		}
	}
	var order []string
	votes := map[string]int{}
	for _, m := range g.members {
		for _, p := range m.Protocols {
			if slices.Contains(candidates, p.Name) {
				if votes[p.Name] == 0 {
					order = append(order, p.Name)
				}
				votes[p.Name]++
				break
			}
		}
	}
	best := ""
	for _, name := range order {
		if best == "" || votes[name] > votes[best] {
			best = name
		}
	}
	return best
}

// rebalanceTimeoutMs is the longest rebalance timeout of any member: the
// join phase must wait for the slowest member's poll loop.
func (g *Group) rebalanceTimeoutMs() int64 {
	var t int64
	for _, m := range g.members {
		t = max(t, m.RebalanceTimeoutMs)
	}
	return t
}

// maybeElectNewJoinedLeader keeps the leader if it rejoined, else makes
// the first rejoined member leader; false when nobody rejoined.
func (g *Group) maybeElectNewJoinedLeader() bool {
	if g.leader == "" {
		return false
	}
	if l := g.member(g.leader); l != nil && l.awaitingJoin() {
		return true
	}
	for _, m := range g.members {
		if m.awaitingJoin() {
			g.leader = m.ID
			return true
		}
	}
	return false
}

// initNextGeneration starts a generation: bump the id and pick the
// protocol, or go Empty when nobody is left.
func (g *Group) initNextGeneration(now int64) {
	g.generation++
	if len(g.members) > 0 {
		g.protocolName = g.selectProtocol()
		g.transitionTo(now, CompletingRebalance)
	} else {
		g.protocolName = ""
		g.transitionTo(now, Empty)
	}
	g.pendingSync = nil
}

// joinMembers is what the leader's JoinGroup response lists: every
// member's metadata for the selected protocol, so it can run the assignor.
func (g *Group) joinMembers() []JoinMember {
	out := make([]JoinMember, len(g.members))
	for i, m := range g.members {
		out[i] = JoinMember{MemberID: m.ID, GroupInstanceID: m.InstanceID, Metadata: m.metadata(g.protocolName)}
	}
	return out
}
