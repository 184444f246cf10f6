package classic

import "testing"

func staticJoin(instance string) JoinRequest {
	r := defaultJoin()
	r.GroupInstanceID = instance
	return r
}

func TestLeave(t *testing.T) {
	runCases(t, []kafkaCase{
		{name: "testLeaveDeadGroup", run: func(h *harness) {
			h.g.Unload(h.now)
			h.wantErr(h.leave(LeaveMember{MemberID: "member-id"}).Error, CoordinatorNotAvailable)
		}},
		{name: "testLeaveGroupUnknownMemberIdExistingGroup", run: func(h *harness) {
			h.stableGroup(defaultJoin())
			r := h.leave(LeaveMember{MemberID: "unknown-member-id"})
			h.wantErr(r.Members[0].Error, UnknownMemberID)
			h.wantState(Stable)
		}},
		{name: "testValidLeaveGroup", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin())
			r := h.leave(LeaveMember{MemberID: ids[0]})
			h.wantErr(r.Error, None)
			h.wantErr(r.Members[0].Error, None)
			// The only member left: the join phase completes at once
			// with nobody, and the group is Empty in a new generation.
			h.wantState(Empty)
			if h.g.Generation() != 2 {
				h.t.Fatalf("generation %d, want 2", h.g.Generation())
			}
		}},
		{name: "testLeaveGroupWithFencedInstanceId", run: func(h *harness) {
			h.stableGroup(staticJoin("group-instance-id"))
			r := h.leave(LeaveMember{MemberID: "other-member-id", GroupInstanceID: "group-instance-id"})
			h.wantErr(r.Members[0].Error, FencedInstanceID)
		}},
		{name: "testLeaveGroupStaticMemberWithUnknownMemberId", run: func(h *harness) {
			h.stableGroup(staticJoin("group-instance-id"))
			r := h.leave(LeaveMember{GroupInstanceID: "group-instance-id"})
			h.wantErr(r.Members[0].Error, None)
			if len(h.g.Members()) != 0 {
				h.t.Fatal("static member not removed")
			}
		}},
		{name: "testStaticMembersUnknownInstanceBatchLeaveGroup", run: func(h *harness) {
			ids := h.stableGroup(staticJoin("instance-1"), staticJoin("instance-2"))
			r := h.leave(LeaveMember{GroupInstanceID: "unknown-instance"}, LeaveMember{MemberID: ids[1], GroupInstanceID: "instance-2"})
			h.wantErr(r.Members[0].Error, UnknownMemberID)
			h.wantErr(r.Members[1].Error, None)
			h.wantState(PreparingRebalance)
		}},
		{name: "testPendingMembersLeaveGroup", run: func(h *harness) {
			// setupGroupWithPendingMember: a stable group of two, a third
			// member holding an id from MEMBER_ID_REQUIRED, and both
			// members rejoined, waiting on it.
			ids := h.stableGroup(defaultJoin(), defaultJoin())
			pending := h.joinResp(h.join(defaultJoin())).MemberID
			for _, id := range ids {
				req := defaultJoin()
				req.MemberID = id
				h.join(req)
			}
			h.wantState(PreparingRebalance)
			r := h.leave(LeaveMember{MemberID: pending})
			h.wantErr(r.Members[0].Error, None)
			h.wantState(CompletingRebalance)
			if len(h.g.Members()) != 2 || len(h.g.pendingJoin) != 0 {
				h.t.Fatalf("%d members %d pending", len(h.g.Members()), len(h.g.pendingJoin))
			}
		}},
		{name: "testLeaveGroupAnswersParkedJoin (removeCurrentMemberFromClassicGroup)", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin(), defaultJoin())
			req := defaultJoin()
			req.MemberID = ids[0] // a rejoining leader starts a rebalance
			parked := h.join(req)
			h.wantState(PreparingRebalance)
			h.leave(LeaveMember{MemberID: ids[0]})
			h.wantErr(h.joinResp(parked).Error, UnknownMemberID)
		}},
	})
}
