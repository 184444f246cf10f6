package classic

import "testing"

func TestStaticMembership(t *testing.T) {
	runCases(t, []kafkaCase{
		{name: "testStaticMemberJoinAsFirstMember", run: func(h *harness) {
			// A static member needs no MEMBER_ID_REQUIRED round: its
			// instance id already identifies it across retries.
			ref := h.join(staticJoin("group-instance-id"))
			h.sleep(3000)
			r := h.joinResp(ref)
			h.wantErr(r.Error, None)
			if r.MemberID != "group-instance-id-uuid1" {
				h.t.Fatalf("member id %q, want <group.instance.id>-<uuid>", r.MemberID)
			}
		}},
		{name: "testStaticMemberRejoinWithLeaderIdAndUnknownMemberId", run: func(h *harness) {
			ids := h.stableGroup(staticJoin("leader-instance-id"), staticJoin("follower-instance-id"))
			r := h.joinResp(h.join(staticJoin("leader-instance-id")))
			h.wantErr(r.Error, None)
			h.wantState(Stable)
			if r.GenerationID != 1 || r.Leader != r.MemberID || !r.SkipAssignment || len(r.Members) != 2 || r.MemberID == ids[0] {
				h.t.Fatalf("response %+v", r)
			}
			old := staticJoin("leader-instance-id")
			old.MemberID = ids[0]
			h.wantErr(h.joinResp(h.join(old)).Error, FencedInstanceID)
			h.wantErr(h.syncResp(h.sync(SyncRequest{MemberID: ids[0], GroupInstanceID: "leader-instance-id", GenerationID: 1})).Error, FencedInstanceID)
			h.wantErr(h.syncResp(h.sync(SyncRequest{MemberID: ids[0], GenerationID: 1})).Error, UnknownMemberID)
		}},
		{name: "testStaticMemberRejoinAsFollowerWithUnknownMemberId", run: func(h *harness) {
			ids := h.stableGroup(staticJoin("leader-instance-id"), staticJoin("follower-instance-id"))
			r := h.joinResp(h.join(staticJoin("follower-instance-id")))
			h.wantErr(r.Error, None)
			h.wantState(Stable)
			if r.GenerationID != 1 || r.Leader != ids[0] || r.SkipAssignment || r.Members != nil {
				h.t.Fatalf("response %+v", r)
			}
			// Its assignment survived the restart under the new id.
			s := h.syncResp(h.sync(SyncRequest{MemberID: r.MemberID, GroupInstanceID: "follower-instance-id", GenerationID: 1}))
			if s.Error != None || s.Assignment != "a:"+ids[1] {
				h.t.Fatalf("sync %+v", s)
			}
		}},
		{name: "testStaticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWithSelectedProtocolChanged", run: func(h *harness) {
			j := staticJoin("leader-instance-id")
			j.Protocols = []Protocol{{Name: "range"}, {Name: "roundrobin"}}
			h.stableGroup(j)
			// The restarted instance now only offers roundrobin: the
			// selected protocol would change, so the group rebalances
			// (here at once: its only member has rejoined).
			j.Protocols = []Protocol{{Name: "roundrobin"}}
			r := h.joinResp(h.join(j))
			h.wantErr(r.Error, None)
			if r.GenerationID != 2 || r.ProtocolName != "roundrobin" || r.SkipAssignment {
				h.t.Fatalf("response %+v", r)
			}
			h.wantState(CompletingRebalance)
		}},
		{name: "testStaticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWhileSelectProtocolUnchanged", run: func(h *harness) {
			j := staticJoin("leader-instance-id")
			j.Protocols = []Protocol{{Name: "range"}, {Name: "roundrobin"}}
			h.stableGroup(j)
			j.Protocols = []Protocol{{Name: "range"}}
			r := h.joinResp(h.join(j))
			h.wantErr(r.Error, None)
			if r.GenerationID != 1 || r.ProtocolName != "range" {
				h.t.Fatalf("response %+v", r)
			}
			h.wantState(Stable)
		}},
		{name: "testReplaceStaticMemberInCompletingRebalanceStateTriggersRebalance", run: func(h *harness) {
			ref := h.join(staticJoin("group-instance-id"))
			h.sleep(3000)
			h.wantErr(h.joinResp(ref).Error, None)
			h.wantState(CompletingRebalance)
			h.join(staticJoin("group-instance-id"))
			// The lone member rejoined, so the new join phase completes
			// at once: generation 2.
			h.wantState(CompletingRebalance)
			if h.g.Generation() != 2 {
				h.t.Fatalf("generation %d, want 2", h.g.Generation())
			}
		}},
		{name: "testStaticMemberFenceDuplicateRejoinedFollower", run: func(h *harness) {
			ids := h.stableGroup(staticJoin("leader-instance-id"), staticJoin("follower-instance-id"))
			req := defaultJoin()
			req.Legacy = true
			h.join(req)
			h.wantState(PreparingRebalance)
			old := staticJoin("follower-instance-id")
			old.MemberID = ids[1]
			oldRef := h.join(old)
			if h.done(oldRef) {
				h.t.Fatal("old follower's rejoin should be parked")
			}
			h.join(staticJoin("follower-instance-id"))
			r := h.joinResp(oldRef)
			if r.Error != FencedInstanceID || r.MemberID != ids[1] || r.GenerationID != -1 || r.Leader != "" {
				h.t.Fatalf("old follower %+v", r)
			}
			h.wantState(PreparingRebalance)
		}},
		{name: "testStaticMemberRejoinAsFollowerWithMismatchedInstanceId", run: func(h *harness) {
			ids := h.stableGroup(staticJoin("leader-instance-id"), staticJoin("follower-instance-id"))
			req := staticJoin("leader-instance-id")
			req.MemberID = ids[1]
			h.wantErr(h.joinResp(h.join(req)).Error, FencedInstanceID)
		}},
		{name: "testStaticMemberJoinWithUnknownInstanceIdAndKnownMemberId", run: func(h *harness) {
			ids := h.stableGroup(staticJoin("leader-instance-id"))
			req := staticJoin("unknown-instance-id")
			req.MemberID = ids[0]
			h.wantErr(h.joinResp(h.join(req)).Error, UnknownMemberID)
		}},
		{name: "testGetDifferentStaticMemberIdAfterEachRejoin", run: func(h *harness) {
			ids := h.stableGroup(staticJoin("leader-instance-id"))
			last := ids[0]
			for range 3 {
				r := h.joinResp(h.join(staticJoin("leader-instance-id")))
				if r.MemberID == last {
					h.t.Fatalf("member id %s reused", last)
				}
				last = r.MemberID
			}
		}},
		{name: "testStaticMemberFollowerFailToRejoinBeforeRebalanceTimeout", run: func(h *harness) {
			// A static member that does not rejoin is kept through the
			// rebalance (KIP-345), unlike a dynamic one.
			ids := h.stableGroup(staticJoin("leader-instance-id"), staticJoin("follower-instance-id"))
			req := staticJoin("leader-instance-id")
			req.MemberID = ids[0]
			ref := h.join(req)
			h.wantState(PreparingRebalance)
			for range 2 {
				h.sleep(2500)
				h.wantErr(h.heartbeat(ids[1], 1), RebalanceInProgress)
			}
			h.sleep(5000) // rebalance timeout 10s
			r := h.joinResp(ref)
			h.wantErr(r.Error, None)
			if len(h.g.Members()) != 2 || r.GenerationID != 2 {
				h.t.Fatalf("%d members generation %d", len(h.g.Members()), r.GenerationID)
			}
		}},
		{name: "testGroupStuckInRebalanceTimeoutDueToNonjoinedStaticMember", run: func(h *harness) {
			// Only an absent static member is left: the join phase is
			// extended until its session timeout removes it.
			ids := h.stableGroup(staticJoin("leader-instance-id"))
			h.g.prepareRebalance(h.now)
			h.sleep(5000)
			h.wantState(Empty)
			if h.g.member(ids[0]) != nil {
				h.t.Fatal("absent static member not expired")
			}
		}},
	})
}
