package classic

// JoinRequest is a JoinGroup request. Ref is the caller's handle for the
// request: a JoinGroup may be parked until the join phase ends, and its
// response then comes out of a later call, addressed by Ref (non-zero).
type JoinRequest struct {
	Ref                uint64
	MemberID           string // "" on a member's first join
	GroupInstanceID    string // group.instance.id; "" for a dynamic member
	ClientID           string
	ProtocolType       string // "consumer" for consumers
	Protocols          []Protocol
	SessionTimeoutMs   int64
	RebalanceTimeoutMs int64
	// UUID makes a new member id, <client.id>-<uuid> (or
	// <group.instance.id>-<uuid> for a static member); the caller draws it
	// from the engine's seeded RNG so runs replay exactly.
	UUID string
	// Legacy is JoinGroup v0-v3, before KIP-394: an unknown member is
	// admitted at once instead of being asked to rejoin with its new id.
	Legacy bool
}

// JoinMember is one member in the leader's JoinGroup response.
type JoinMember struct {
	MemberID        string
	GroupInstanceID string
	Metadata        string
}

// JoinResponse is a JoinGroup response.
type JoinResponse struct {
	Error          Error
	MemberID       string
	GenerationID   int32
	ProtocolType   string
	ProtocolName   string
	Leader         string
	SkipAssignment bool
	Members        []JoinMember // only for the leader
}

// SyncRequest is a SyncGroup request; only the leader sends Assignments.
type SyncRequest struct {
	Ref             uint64
	MemberID        string
	GroupInstanceID string
	GenerationID    int32
	ProtocolType    string // "" when the client does not send it (v<5)
	ProtocolName    string
	Assignments     []SyncAssignment
}

// SyncAssignment is one member's assignment in the leader's SyncGroup.
type SyncAssignment struct {
	MemberID   string
	Assignment string
}

// SyncResponse is a SyncGroup response.
type SyncResponse struct {
	Error        Error
	ProtocolType string
	ProtocolName string
	Assignment   string
}

// HeartbeatRequest is a Heartbeat request.
type HeartbeatRequest struct {
	MemberID        string
	GroupInstanceID string
	GenerationID    int32
}

// LeaveMember is one member named in a LeaveGroup request (v3+ batches).
type LeaveMember struct {
	MemberID        string // "" to remove a static member by instance id
	GroupInstanceID string
}

// LeaveMemberResponse is the outcome for one LeaveMember.
type LeaveMemberResponse struct {
	MemberID        string
	GroupInstanceID string
	Error           Error
}

// LeaveResponse is a LeaveGroup response.
type LeaveResponse struct {
	Error   Error
	Members []LeaveMemberResponse
}

// Reply is a response to a JoinGroup or SyncGroup request, possibly one
// parked earlier; exactly one of Join and Sync is set.
type Reply struct {
	Ref  uint64
	Join *JoinResponse
	Sync *SyncResponse
}

func (g *Group) replyJoin(ref uint64, r JoinResponse) {
	if r.Error != None {
		// JoinGroupResponse's default generation id: an error carries none.
		r.GenerationID = -1
	}
	g.replies = append(g.replies, Reply{Ref: ref, Join: &r})
}

func (g *Group) replySync(ref uint64, r SyncResponse) {
	g.replies = append(g.replies, Reply{Ref: ref, Sync: &r})
}

// flush hands the replies produced by one call to the caller, in the
// order the coordinator produced them.
func (g *Group) flush() []Reply {
	out := g.replies
	g.replies = nil
	return out
}

// completeJoin answers a member's parked JoinGroup, if it has one.
func (g *Group) completeJoin(m *Member, r JoinResponse) bool {
	if m == nil || !m.awaitingJoin() {
		return false
	}
	g.replyJoin(m.joinRef, r)
	m.joinRef = 0
	return true
}

// completeSync answers a member's parked SyncGroup, if it has one.
func (g *Group) completeSync(m *Member, r SyncResponse) bool {
	if m == nil || !m.awaitingSync() {
		return false
	}
	g.replySync(m.syncRef, r)
	m.syncRef = 0
	return true
}

// currentJoinResponse is the current generation as a JoinGroup response.
func (g *Group) currentJoinResponse(memberID string, withMembers bool) JoinResponse {
	r := JoinResponse{Error: None, MemberID: memberID, GenerationID: g.generation,
		ProtocolType: g.protocolType, ProtocolName: g.protocolName, Leader: g.leader}
	if withMembers {
		r.Members = g.joinMembers()
	}
	return r
}
