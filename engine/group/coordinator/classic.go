package coordinator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loglab/loglab/engine/group/classic"
	"github.com/loglab/loglab/engine/protocol"
)

// join is GroupMetadataManager.classicGroupJoin.
func (s *Shard) join(now int64, req Request, m protocol.JoinGroupRequest) Result {
	fail := func(c protocol.ErrorCode) Result {
		return Result{Replies: []Reply{{req.Ref, protocol.JoinGroupResponse{Error: c, GenerationID: -1, MemberID: m.MemberID}}}}
	}
	switch {
	case m.GroupID == "":
		return fail(protocol.InvalidGroupID)
	case int64(m.SessionTimeoutMs) < s.cfg.Classic.MinSessionTimeoutMs || int64(m.SessionTimeoutMs) > s.cfg.Classic.MaxSessionTimeoutMs:
		// GroupCoordinatorService checks the bounds before any group is
		// looked up or created.
		return fail(protocol.InvalidSessionTimeout)
	case s.consumer[m.GroupID] != nil:
		// A classic member joining a KIP-848 group: Kafka 4 migrates it
		// in (classicGroupJoinToConsumerGroup); loglab does not model it.
		return fail(protocol.GroupIDNotFound)
	}
	e := s.classic[m.GroupID]
	if e == nil {
		if m.MemberID != "" {
			// getOrMaybeCreateClassicGroup(groupId, false): "Classic group
			// not found" is an UnknownMemberIdException.
			return fail(protocol.UnknownMemberID)
		}
		// A new group is written at once, empty (Kafka's
		// newEmptyGroupMetadataRecord), so it survives a failover.
		e = &classicEntry{g: classic.New(m.GroupID, s.cfg.Classic, now), written: -1, hosts: map[string]string{}}
		s.classic[m.GroupID] = e
	}
	jr := classic.JoinRequest{Ref: req.Ref, MemberID: m.MemberID, GroupInstanceID: m.GroupInstanceID, ClientID: req.Client,
		ProtocolType: m.ProtocolType, SessionTimeoutMs: int64(m.SessionTimeoutMs), RebalanceTimeoutMs: int64(m.RebalanceTimeoutMs),
		UUID: req.UUID}
	for _, p := range m.Protocols {
		jr.Protocols = append(jr.Protocols, classic.Protocol{Name: p.Name, Metadata: string(p.Metadata)})
	}
	// A static member's new incarnation keeps the old one's client id and
	// host (ClassicGroup.replaceStaticMember copies them).
	hostOf := map[string]string{}
	for _, mem := range e.g.Members() {
		if mem.InstanceID != "" {
			hostOf[mem.InstanceID] = e.hosts[mem.ID]
		}
	}
	return s.classicOp(now, e, "was replaced by a new incarnation of its static member", func() []classic.Reply {
		rs := e.g.Join(now, jr)
		for _, mem := range e.g.Members() {
			if _, ok := e.hosts[mem.ID]; ok {
				continue
			}
			if h, ok := hostOf[mem.InstanceID]; ok && mem.InstanceID != "" {
				e.hosts[mem.ID] = h
			} else {
				e.hosts[mem.ID] = "/" + req.Client
			}
		}
		return rs
	})
}

// classicGroup finds the classic group a SyncGroup, Heartbeat or
// LeaveGroup names, or the error Kafka answers when there is none.
func (s *Shard) classicGroup(id string) (*classicEntry, protocol.ErrorCode) {
	switch {
	case s.consumer[id] != nil:
		return nil, protocol.GroupIDNotFound // "Group is not a classic group"
	case s.classic[id] == nil:
		return nil, protocol.UnknownMemberID // "Classic group not found"
	}
	return s.classic[id], protocol.None
}

// sync is GroupMetadataManager.classicGroupSync.
func (s *Shard) sync(now int64, req Request, m protocol.SyncGroupRequest) Result {
	e, c := s.classicGroup(m.GroupID)
	if c != protocol.None {
		return Result{Replies: []Reply{{req.Ref, protocol.SyncGroupResponse{Error: c}}}}
	}
	sr := classic.SyncRequest{Ref: req.Ref, MemberID: m.MemberID, GroupInstanceID: m.GroupInstanceID,
		GenerationID: m.GenerationID, ProtocolType: m.ProtocolType, ProtocolName: m.ProtocolName}
	for _, a := range m.Assignments {
		sr.Assignments = append(sr.Assignments, classic.SyncAssignment{MemberID: a.MemberID, Assignment: string(a.Assignment)})
	}
	return s.classicOp(now, e, "left", func() []classic.Reply { return e.g.Sync(now, sr) })
}

// heartbeat is GroupMetadataManager.classicGroupHeartbeat.
func (s *Shard) heartbeat(now int64, req Request, m protocol.HeartbeatRequest) Result {
	e, c := s.classicGroup(m.GroupID)
	if c != protocol.None {
		return Result{Replies: []Reply{{req.Ref, protocol.HeartbeatResponse{Error: c}}}}
	}
	var err classic.Error
	out := s.classicOp(now, e, "left", func() []classic.Reply {
		err = e.g.Heartbeat(now, classic.HeartbeatRequest{MemberID: m.MemberID, GroupInstanceID: m.GroupInstanceID, GenerationID: m.GenerationID})
		return nil
	})
	if err != classic.None {
		out.Events = append(out.Events, fmt.Sprintf("group %s: Heartbeat of %s at generation %d answered %s", m.GroupID, m.MemberID, m.GenerationID, err))
	}
	out.Replies = append(out.Replies, Reply{req.Ref, protocol.HeartbeatResponse{Error: code(err)}})
	return out
}

// leave is GroupMetadataManager.classicGroupLeave.
func (s *Shard) leave(now int64, req Request, m protocol.LeaveGroupRequest) Result {
	e, c := s.classicGroup(m.GroupID)
	if c != protocol.None {
		return Result{Replies: []Reply{{req.Ref, protocol.LeaveGroupResponse{Error: c}}}}
	}
	var members []classic.LeaveMember
	for _, lm := range m.Members {
		members = append(members, classic.LeaveMember{MemberID: lm.MemberID, GroupInstanceID: lm.GroupInstanceID})
	}
	var resp classic.LeaveResponse
	out := s.classicOp(now, e, "left", func() []classic.Reply {
		var rs []classic.Reply
		resp, rs = e.g.Leave(now, members)
		return rs
	})
	lr := protocol.LeaveGroupResponse{Error: code(resp.Error)}
	for _, r := range resp.Members {
		lr.Members = append(lr.Members, protocol.LeaveGroupMemberResponse{MemberID: r.MemberID, GroupInstanceID: r.GroupInstanceID, Error: code(r.Error)})
	}
	out.Replies = append(out.Replies, Reply{req.Ref, lr})
	return out
}

// classicOp runs op on a group and turns what changed into records and
// trace lines (gone says how a member that disappeared went): Kafka writes a GroupMetadata record when a generation's
// SyncGroup completes (with the assignment) and when the group becomes
// Empty (classicGroupSyncToLeader, completeClassicGroupJoin), an empty
// one for a new group, and the Stable group again when a static member's
// new incarnation takes its place (classicGroupJoinToStaticMember).
func (s *Shard) classicOp(now int64, e *classicEntry, gone string, op func() []classic.Reply) Result {
	beforeState, beforeGen := e.g.State(), e.g.Generation()
	before := memberIDs(e.g.Members())
	var out Result
	for _, r := range op() {
		out.Replies = append(out.Replies, classicReply(r))
		switch {
		case r.Join != nil && r.Join.Error == classic.MemberIDRequired:
			out.Events = append(out.Events, fmt.Sprintf("group %s: JoinGroup answered MEMBER_ID_REQUIRED with member id %s", e.g.ID, r.Join.MemberID))
		case r.Join != nil && r.Join.Error != classic.None:
			out.Events = append(out.Events, fmt.Sprintf("group %s: JoinGroup of %s answered %s", e.g.ID, orNew(r.Join.MemberID), r.Join.Error))
		case r.Sync != nil && r.Sync.Error != classic.None:
			out.Events = append(out.Events, fmt.Sprintf("group %s: SyncGroup answered %s", e.g.ID, r.Sync.Error))
		}
	}
	after := memberIDs(e.g.Members())
	var changes []string
	for _, id := range after {
		if !slices.Contains(before, id) {
			changes = append(changes, "member "+id+" joined")
		}
	}
	for _, id := range before {
		if !slices.Contains(after, id) {
			changes = append(changes, "member "+id+" "+gone)
			delete(e.hosts, id)
		}
	}
	st, gen := e.g.State(), e.g.Generation()
	if st != beforeState || gen != beforeGen || len(changes) > 0 {
		line := fmt.Sprintf("group %s: %s (generation %d)", e.g.ID, st, gen)
		if len(changes) > 0 {
			line += ", " + strings.Join(changes, ", ")
		}
		out.Events = append(out.Events, line)
	}
	if (st == classic.Stable || st == classic.Empty) && (gen != e.written || !slices.Equal(after, e.writtenMembers)) {
		out.Records = append(out.Records, s.groupMetadataRecord(e))
		e.written, e.writtenMembers = gen, after
	}
	return out
}

func orNew(id string) string {
	if id == "" {
		return "a new member"
	}
	return id
}

func memberIDs(ms []classic.Member) []string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids
}

// classicReply turns a state machine reply into the protocol response.
func classicReply(r classic.Reply) Reply {
	if r.Join != nil {
		j := r.Join
		resp := protocol.JoinGroupResponse{Error: code(j.Error), GenerationID: j.GenerationID, ProtocolType: j.ProtocolType,
			ProtocolName: j.ProtocolName, Leader: j.Leader, SkipAssignment: j.SkipAssignment, MemberID: j.MemberID}
		for _, m := range j.Members {
			resp.Members = append(resp.Members, protocol.JoinGroupMember{MemberID: m.MemberID, GroupInstanceID: m.GroupInstanceID, Metadata: []byte(m.Metadata)})
		}
		return Reply{r.Ref, resp}
	}
	sy := r.Sync
	return Reply{r.Ref, protocol.SyncGroupResponse{Error: code(sy.Error), ProtocolType: sy.ProtocolType,
		ProtocolName: sy.ProtocolName, Assignment: []byte(sy.Assignment)}}
}
