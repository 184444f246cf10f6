package classic

import "testing"

func TestSync(t *testing.T) {
	runCases(t, []kafkaCase{
		{name: "testSyncGroupReturnsAnErrorWhenProtocolTypeIsInconsistent", run: func(h *harness) {
			r := h.joinN(1, 10000, 5000)[0]
			h.wantErr(h.syncResp(h.sync(SyncRequest{MemberID: r.MemberID, GenerationID: r.GenerationID, ProtocolType: "connect"})).Error, InconsistentGroupProto)
		}},
		{name: "testSyncGroupReturnsAnErrorWhenProtocolNameIsInconsistent", run: func(h *harness) {
			r := h.joinN(1, 10000, 5000)[0]
			h.wantErr(h.syncResp(h.sync(SyncRequest{MemberID: r.MemberID, GenerationID: r.GenerationID, ProtocolType: "consumer", ProtocolName: "roundrobin"})).Error, InconsistentGroupProto)
		}},
		{name: "testSyncGroupSucceedWhenProtocolTypeAndNameAreConsistent", run: func(h *harness) {
			r := h.joinN(1, 10000, 5000)[0]
			s := h.syncResp(h.sync(SyncRequest{MemberID: r.MemberID, GenerationID: r.GenerationID, ProtocolType: "consumer", ProtocolName: "range"}))
			h.wantErr(s.Error, None)
			if s.ProtocolType != "consumer" || s.ProtocolName != "range" {
				h.t.Fatalf("response %+v", s)
			}
		}},
		{name: "testSyncGroupFromUnknownMember", run: func(h *harness) {
			r := h.joinN(1, 10000, 5000)[0]
			h.wantErr(h.syncResp(h.sync(SyncRequest{MemberID: "unknown", GenerationID: r.GenerationID})).Error, UnknownMemberID)
		}},
		{name: "testSyncGroupFromIllegalGeneration", run: func(h *harness) {
			r := h.joinN(1, 10000, 5000)[0]
			h.wantErr(h.syncResp(h.sync(SyncRequest{MemberID: r.MemberID, GenerationID: r.GenerationID + 1})).Error, IllegalGeneration)
		}},
		{name: "testSyncGroupEmptyAssignment", run: func(h *harness) {
			r := h.joinN(1, 10000, 5000)[0]
			s := h.syncResp(h.sync(SyncRequest{MemberID: r.MemberID, GenerationID: r.GenerationID}))
			h.wantErr(s.Error, None)
			if s.Assignment != "" {
				h.t.Fatalf("assignment %q, want empty", s.Assignment)
			}
			h.wantState(Stable)
		}},
		{name: "testSyncGroupFollowerAfterLeader", run: func(h *harness) {
			rs := h.joinN(2, 10000, 5000)
			leader, follower := rs[0], rs[1]
			if leader.Members == nil || follower.Members != nil {
				h.t.Fatal("only the leader gets the members")
			}
			h.syncResp(h.sync(SyncRequest{MemberID: leader.MemberID, GenerationID: leader.GenerationID,
				Assignments: []SyncAssignment{{leader.MemberID, "L"}, {follower.MemberID, "F"}}}))
			h.wantState(Stable)
			s := h.syncResp(h.sync(SyncRequest{MemberID: follower.MemberID, GenerationID: follower.GenerationID}))
			if s.Error != None || s.Assignment != "F" {
				h.t.Fatalf("follower sync %+v", s)
			}
		}},
		{name: "testSyncGroupLeaderAfterFollower", run: func(h *harness) {
			rs := h.joinN(2, 10000, 5000)
			leader, follower := rs[0], rs[1]
			fref := h.sync(SyncRequest{MemberID: follower.MemberID, GenerationID: follower.GenerationID})
			if h.done(fref) {
				h.t.Fatal("follower's SyncGroup must wait for the leader's")
			}
			l := h.syncResp(h.sync(SyncRequest{MemberID: leader.MemberID, GenerationID: leader.GenerationID,
				Assignments: []SyncAssignment{{leader.MemberID, "L"}, {follower.MemberID, "F"}}}))
			if l.Assignment != "L" || h.syncResp(fref).Assignment != "F" {
				h.t.Fatalf("leader %+v follower %+v", l, h.syncResp(fref))
			}
		}},
		{name: "testLeaderFailureInSyncGroup", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin())
			req := defaultJoin()
			req.Legacy = true
			follower := h.join(req)
			req.MemberID = ids[0]
			leader := h.join(req)
			lr, fr := h.joinResp(leader), h.joinResp(follower)
			if fr.Leader != ids[0] || lr.GenerationID != fr.GenerationID {
				h.t.Fatalf("leader %+v follower %+v", lr, fr)
			}
			h.wantState(CompletingRebalance)
			fsync := h.sync(SyncRequest{MemberID: fr.MemberID, GenerationID: fr.GenerationID})
			h.sleep(10000)
			h.wantErr(h.syncResp(fsync).Error, RebalanceInProgress)
			if ms := h.g.Members(); len(ms) != 1 || ms[0].ID != fr.MemberID {
				h.t.Fatalf("members %v, want only the follower", ms)
			}
			h.wantState(PreparingRebalance)
		}},
		{name: "testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromFollowers", run: func(h *harness) {
			rs := h.joinN(3, 5000, 5000)
			h.sleep(2500)
			for _, r := range rs {
				h.wantErr(h.heartbeat(r.MemberID, r.GenerationID), None)
			}
			h.wantErr(h.syncResp(h.sync(SyncRequest{MemberID: rs[0].MemberID, GenerationID: 1})).Error, None)
			h.wantState(Stable)
			h.wantErr(h.heartbeat(rs[0].MemberID, 1), None)
			h.sleep(2500)
			h.wantErr(h.heartbeat(rs[0].MemberID, 1), RebalanceInProgress)
			for _, r := range rs[1:] {
				h.wantErr(h.heartbeat(r.MemberID, 1), UnknownMemberID)
			}
			h.wantState(PreparingRebalance)
		}},
		{name: "testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromLeaders", run: func(h *harness) {
			rs := h.joinN(3, 5000, 5000)
			h.sleep(2500)
			for _, r := range rs[1:] {
				ref := h.sync(SyncRequest{MemberID: r.MemberID, GenerationID: 1})
				if h.done(ref) {
					h.t.Fatal("follower sync answered before the leader's")
				}
			}
			h.sleep(2500)
			// The leader is removed; the parked followers are told to
			// rejoin, and the new leader is one of them.
			if h.g.member(rs[0].MemberID) != nil {
				h.t.Fatal("leader not removed")
			}
			h.wantState(PreparingRebalance)
			if l := h.g.Leader(); l != rs[1].MemberID {
				h.t.Fatalf("leader %s, want %s", l, rs[1].MemberID)
			}
		}},
		{name: "testRebalanceDoesNotTimeOutWhenAllSyncAreReceived", run: func(h *harness) {
			rs := h.joinN(3, 5000, 5000)
			h.sleep(2500)
			for _, r := range rs {
				h.wantErr(h.heartbeat(r.MemberID, 1), None)
			}
			for _, r := range rs {
				h.wantErr(h.syncResp(h.sync(SyncRequest{MemberID: r.MemberID, GenerationID: 1})).Error, None)
			}
			h.wantState(Stable)
			for range 2 {
				h.sleep(2500)
				for _, r := range rs {
					h.wantErr(h.heartbeat(r.MemberID, 1), None)
				}
			}
			h.wantState(Stable)
		}},
		{name: "testSyncGroupFromUnknownGroup (empty group)", run: func(h *harness) {
			h.wantErr(h.syncResp(h.sync(SyncRequest{MemberID: "member", GenerationID: 1})).Error, UnknownMemberID)
		}},
	})
}
