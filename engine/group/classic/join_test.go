package classic

import (
	"fmt"
	"testing"
)

func TestJoin(t *testing.T) {
	runCases(t, []kafkaCase{
		{name: "testJoinGroupShouldReceiveErrorIfGroupOverMaxSize", cfg: func(c *Config) { c.MaxSize = 10 },
			run: func(h *harness) {
				req := defaultJoin()
				req.Legacy = true
				for range 10 {
					if ref := h.join(req); h.done(ref) {
						h.t.Fatalf("join %d answered, want parked", ref)
					}
				}
				h.wantErr(h.joinResp(h.join(req)).Error, GroupMaxSizeReached)
			}},
		{name: "testDynamicMembersJoinGroupWithMaxSizeAndRequiredKnownMember",
			cfg: func(c *Config) { c.MaxSize, c.InitialRebalanceDelayMs = 10, 50 },
			run: func(h *harness) {
				var ids []string
				for range 11 {
					r := h.joinResp(h.join(defaultJoin()))
					h.wantErr(r.Error, MemberIDRequired)
					ids = append(ids, r.MemberID)
				}
				h.wantState(Empty)
				if len(h.g.pendingJoin) != 11 {
					h.t.Fatalf("%d pending, want 11", len(h.g.pendingJoin))
				}
				round := func() []uint64 {
					var refs []uint64
					for _, id := range ids {
						req := defaultJoin()
						req.MemberID = id
						refs = append(refs, h.join(req))
					}
					return refs
				}
				second := round()
				h.sleep(50)
				h.sleep(50)
				for i, ref := range second {
					want := None
					if i == 10 {
						want = GroupMaxSizeReached
					}
					h.wantErr(h.joinResp(ref).Error, want)
				}
				if len(h.g.Members()) != 10 || len(h.g.pendingJoin) != 0 {
					h.t.Fatalf("%d members %d pending", len(h.g.Members()), len(h.g.pendingJoin))
				}
				h.wantState(CompletingRebalance)
				third := round()
				for i, ref := range third {
					want := None
					if i == 10 {
						want = GroupMaxSizeReached
					}
					h.wantErr(h.joinResp(ref).Error, want)
				}
			}},
		{name: "testLastJoiningMembersAreKickedOutWhenRejoiningGroupWithMaxSize",
			cfg: func(c *Config) { c.MaxSize, c.InitialRebalanceDelayMs = 10, 50 },
			run: func(h *harness) {
				// group.max.size was lowered below the group's size: the
				// last two members to rejoin are turned away.
				var ids []string
				for i := range 12 {
					id := fmt.Sprintf("client-id-%d", i)
					ids = append(ids, id)
					h.g.add(&Member{ID: id, ClientID: "client-id", ProtocolType: "consumer",
						Protocols: defaultJoin().Protocols, SessionTimeoutMs: 5000, RebalanceTimeoutMs: 10000})
				}
				h.g.prepareRebalance(h.now)
				var refs []uint64
				for _, id := range ids {
					req := defaultJoin()
					req.MemberID = id
					refs = append(refs, h.join(req))
				}
				if len(h.g.Members()) != 10 || h.g.numAwaitingJoin() != 10 {
					h.t.Fatalf("%d members, %d awaiting", len(h.g.Members()), h.g.numAwaitingJoin())
				}
				h.wantState(PreparingRebalance)
				h.sleep(10000)
				for i, ref := range refs {
					want := None
					if i >= 10 {
						want = GroupMaxSizeReached
					}
					h.wantErr(h.joinResp(ref).Error, want)
				}
				h.wantState(CompletingRebalance)
				for i, id := range ids {
					if (h.g.member(id) != nil) != (i < 10) {
						h.t.Fatalf("member %s present=%v", id, h.g.member(id) != nil)
					}
				}
			}},
		{name: "testClassicGroupJoinInconsistentProtocolType", run: func(h *harness) {
			h.joinDynamic(defaultJoin())
			req := defaultJoin()
			req.ProtocolType = "connect"
			h.wantErr(h.joinResp(h.join(req)).Error, InconsistentGroupProto)
		}},
		{name: "testJoinGroupWithEmptyProtocolType", run: func(h *harness) {
			req := defaultJoin()
			req.ProtocolType = ""
			h.wantErr(h.joinResp(h.join(req)).Error, InconsistentGroupProto)
		}},
		{name: "testJoinGroupWithEmptyGroupProtocol", run: func(h *harness) {
			req := defaultJoin()
			req.Protocols = nil
			h.wantErr(h.joinResp(h.join(req)).Error, InconsistentGroupProto)
		}},
		{name: "testJoinGroupInconsistentGroupProtocol", run: func(h *harness) {
			a := defaultJoin()
			a.Legacy = true
			h.join(a)
			b := defaultJoin()
			b.Legacy = true
			b.Protocols = []Protocol{{Name: "roundrobin"}}
			h.wantErr(h.joinResp(h.join(b)).Error, InconsistentGroupProto)
		}},
		{name: "testJoinGroupSecondJoinInconsistentProtocol", run: func(h *harness) {
			r := h.joinResp(h.join(defaultJoin()))
			h.wantErr(r.Error, MemberIDRequired)
			req := defaultJoin()
			req.MemberID = r.MemberID
			req.Protocols = nil
			h.wantErr(h.joinResp(h.join(req)).Error, InconsistentGroupProto)
		}},
		{name: "testMemberIdGeneration", run: func(h *harness) {
			req := defaultJoin()
			req.UUID = "6c4a6b1d"
			r := h.joinResp(h.join(req))
			h.wantErr(r.Error, MemberIDRequired)
			if r.MemberID != "client-6c4a6b1d" {
				h.t.Fatalf("member id %q, want client-6c4a6b1d (<client.id>-<uuid>)", r.MemberID)
			}
		}},
		{name: "testDelayInitialRebalanceByGroupInitialRebalanceDelayOnEmptyGroup", run: func(h *harness) {
			req := defaultJoin()
			req.Legacy = true
			ref := h.join(req)
			h.sleep(1500)
			if h.done(ref) {
				h.t.Fatal("answered before group.initial.rebalance.delay.ms")
			}
			h.sleep(1501)
			h.wantErr(h.joinResp(ref).Error, None)
		}},
		{name: "testResetRebalanceDelayWhenNewMemberJoinsGroupDuringInitialRebalance", run: func(h *harness) {
			req := defaultJoin()
			req.Legacy = true
			req.RebalanceTimeoutMs = 9000
			first := h.join(req)
			h.sleep(2999)
			second := h.join(req)
			h.sleep(2)
			h.sleep(1501)
			if h.done(first) || h.done(second) {
				h.t.Fatal("answered before the extended delay")
			}
			h.sleep(1500)
			h.wantErr(h.joinResp(first).Error, None)
			h.wantErr(h.joinResp(second).Error, None)
		}},
		{name: "testDelayRebalanceUptoRebalanceTimeout", run: func(h *harness) {
			req := defaultJoin()
			req.Legacy = true
			req.RebalanceTimeoutMs = 6000
			first, second := h.join(req), h.join(req)
			h.sleep(3001)
			third := h.join(req)
			h.sleep(2999)
			if h.done(first) || h.done(second) || h.done(third) {
				h.t.Fatal("answered before the rebalance timeout")
			}
			h.sleep(1)
			for _, ref := range []uint64{first, second, third} {
				h.wantErr(h.joinResp(ref).Error, None)
			}
		}},
		{name: "testNewMemberJoinExpiration", run: func(h *harness) {
			req := defaultJoin()
			req.SessionTimeoutMs = 5000 + h.g.cfg.NewMemberJoinTimeoutMs
			req.RebalanceTimeoutMs = 2 * h.g.cfg.NewMemberJoinTimeoutMs
			firstID := h.joinDynamic(req).MemberID
			req.Legacy, req.SessionTimeoutMs, req.RebalanceTimeoutMs = true, 5000, 5000
			second := h.join(req)
			if h.done(second) || len(h.g.Members()) != 2 {
				h.t.Fatal("second member should be parked in the group")
			}
			h.sleep(h.g.cfg.NewMemberJoinTimeoutMs)
			h.wantErr(h.joinResp(second).Error, UnknownMemberID)
			if ms := h.g.Members(); len(ms) != 1 || ms[0].ID != firstID {
				h.t.Fatalf("members %v, want only %s", ms, firstID)
			}
		}},
		{name: "testHeartbeatExpirationShouldRemovePendingMember", run: func(h *harness) {
			r := h.joinResp(h.join(defaultJoin()))
			h.wantErr(r.Error, MemberIDRequired)
			if !contains(h.g.pendingJoin, r.MemberID) {
				h.t.Fatal("not pending")
			}
			h.sleep(5000)
			if contains(h.g.pendingJoin, r.MemberID) {
				h.t.Fatal("pending member not expired after its session timeout")
			}
		}},
		{name: "testJoinGroupCompletionWhenPendingMemberJoins", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin())
			pending := h.joinResp(h.join(defaultJoin()))
			h.wantErr(pending.Error, MemberIDRequired)
			// The leader rejoins: the join phase still waits for the
			// pending member, then completes when it joins.
			req := defaultJoin()
			req.MemberID = ids[0]
			leader := h.join(req)
			h.wantState(PreparingRebalance)
			if h.done(leader) {
				h.t.Fatal("completed without the pending member")
			}
			req.MemberID = pending.MemberID
			joined := h.join(req)
			h.wantState(CompletingRebalance)
			h.wantErr(h.joinResp(leader).Error, None)
			h.wantErr(h.joinResp(joined).Error, None)
		}},
		{name: "testJoinGroupCompletionWhenPendingMemberTimesOut", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin())
			h.wantErr(h.joinResp(h.join(defaultJoin())).Error, MemberIDRequired)
			req := defaultJoin()
			req.MemberID = ids[0]
			leader := h.join(req)
			h.sleep(5000)
			h.wantState(CompletingRebalance)
			h.wantErr(h.joinResp(leader).Error, None)
			if n := len(h.g.Members()); n != 1 {
				h.t.Fatalf("%d members, want 1", n)
			}
		}},
		{name: "testCompleteJoinRemoveNotYetRejoinedDynamicMembers", run: func(h *harness) {
			req := defaultJoin()
			req.SessionTimeoutMs, req.RebalanceTimeoutMs = 1000, 1000
			h.joinDynamic(req)
			if h.g.Generation() != 1 {
				h.t.Fatalf("generation %d", h.g.Generation())
			}
			req.Legacy = true
			ref := h.join(req)
			h.wantState(PreparingRebalance)
			h.sleep(1000)
			r := h.joinResp(ref)
			h.wantErr(r.Error, None)
			if ms := h.g.Members(); len(ms) != 1 || ms[0].ID != r.MemberID || h.g.Generation() != 2 {
				h.t.Fatalf("members %v generation %d", ms, h.g.Generation())
			}
		}},
		{name: "testCompleteJoinPhaseNoMembersRejoinedExtendsJoinPhase", run: func(h *harness) {
			req := defaultJoin()
			req.GroupInstanceID, req.SessionTimeoutMs, req.RebalanceTimeoutMs = "first-instance-id", 30000, 10000
			ref := h.join(req)
			h.sleep(3000)
			firstID := h.joinResp(ref).MemberID
			req.GroupInstanceID = "second-instance-id"
			second := h.join(req)
			req.MemberID, req.GroupInstanceID = firstID, "first-instance-id"
			first := h.join(req)
			h.wantErr(h.joinResp(first).Error, None)
			secondID := h.joinResp(second).MemberID
			if h.g.Generation() != 2 {
				h.t.Fatalf("generation %d, want 2", h.g.Generation())
			}
			h.g.prepareRebalance(h.now)
			for range 2 {
				h.sleep(10000)
				if at := h.g.Timers(); !hasTimer(at, joinKey, h.now+10000) {
					h.t.Fatalf("join phase not extended: %v", at)
				}
			}
			h.wantState(PreparingRebalance)
			first = h.join(req)
			req.MemberID, req.GroupInstanceID = secondID, "second-instance-id"
			second = h.join(req)
			h.wantErr(h.joinResp(first).Error, None)
			h.wantErr(h.joinResp(second).Error, None)
			h.wantState(CompletingRebalance)
			if h.g.Generation() != 3 {
				h.t.Fatalf("generation %d, want 3", h.g.Generation())
			}
		}},
		{name: "testJoinGroupExistingMemberDoesNotTriggerRebalanceInStableState", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin(), defaultJoin())
			req := defaultJoin()
			req.MemberID = ids[1]
			r := h.joinResp(h.join(req))
			h.wantErr(r.Error, None)
			h.wantState(Stable)
			if r.GenerationID != 1 || r.Leader != ids[0] || r.Members != nil {
				h.t.Fatalf("response %+v", r)
			}
		}},
		{name: "testJoinGroupAsExistingLeaderTriggersRebalanceInStableState", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin(), defaultJoin())
			req := defaultJoin()
			req.MemberID = ids[0]
			h.join(req)
			h.wantState(PreparingRebalance)
		}},
		{name: "testJoinGroupAsExistingMemberWithUpdatedMetadataTriggersRebalanceInStableState", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin(), defaultJoin())
			req := defaultJoin()
			req.MemberID = ids[1]
			req.Protocols = []Protocol{{Name: "range", Metadata: "t,u"}}
			h.join(req)
			h.wantState(PreparingRebalance)
		}},
		{name: "testJoinGroupExistingMemberUpdatedMetadataTriggersRebalance", run: func(h *harness) {
			// In CompletingRebalance: changed metadata restarts the join.
			req := defaultJoin()
			id := h.joinDynamic(req).MemberID
			h.wantState(CompletingRebalance)
			req.MemberID = id
			req.Protocols = []Protocol{{Name: "range", Metadata: "t,u"}}
			r := h.joinResp(h.join(req))
			h.wantErr(r.Error, None)
			if r.GenerationID != 2 {
				h.t.Fatalf("generation %d, want 2", r.GenerationID)
			}
		}},
		{name: "testJoinGroupExistingMemberInEmptyState", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin())
			h.leave(LeaveMember{MemberID: ids[0]})
			h.wantState(Empty)
			req := defaultJoin()
			req.MemberID = ids[0]
			h.wantErr(h.joinResp(h.join(req)).Error, UnknownMemberID)
		}},
		{name: "testGenerationIdIncrementsOnRebalance", run: func(h *harness) {
			r := h.joinDynamic(defaultJoin())
			if r.GenerationID != 1 {
				h.t.Fatalf("generation %d", r.GenerationID)
			}
			req := defaultJoin()
			req.MemberID = r.MemberID
			r = h.joinResp(h.join(req))
			if r.GenerationID != 1 {
				h.t.Fatalf("unchanged rejoin in CompletingRebalance: generation %d, want 1", r.GenerationID)
			}
			h.g.prepareRebalance(h.now)
			r = h.joinResp(h.join(req))
			h.wantErr(r.Error, None)
			if r.GenerationID != 2 {
				h.t.Fatalf("generation %d, want 2", r.GenerationID)
			}
		}},
		{name: "testExistingMemberJoinDeadGroup", run: func(h *harness) {
			id := h.joinDynamic(defaultJoin()).MemberID
			h.collect(h.g.Unload(h.now))
			req := defaultJoin()
			req.MemberID = id
			h.wantErr(h.joinResp(h.join(req)).Error, CoordinatorNotAvailable)
		}},
		{name: "testJoinGroupUnknownConsumerNewDeadGroup", run: func(h *harness) {
			h.collect(h.g.Unload(h.now))
			h.wantErr(h.joinResp(h.join(defaultJoin())).Error, CoordinatorNotAvailable)
		}},
		{name: "GroupCoordinatorServiceTest.testJoinGroupInvalidSessionTimeout", cfg: func(c *Config) { *c = DefaultConfig() },
			run: func(h *harness) {
				req := defaultJoin()
				req.SessionTimeoutMs = 5999
				h.wantErr(h.joinResp(h.join(req)).Error, InvalidSessionTimeout)
				req.SessionTimeoutMs = 1800001
				h.wantErr(h.joinResp(h.join(req)).Error, InvalidSessionTimeout)
			}},
	})
}

func hasTimer(ts []Timer, key string, at int64) bool {
	for _, t := range ts {
		if t.Key == key && t.At == at {
			return true
		}
	}
	return false
}

// ClassicGroupTest.testSelectProtocol: each member votes for its first
// choice among the protocols all members support.
func TestSelectProtocol(t *testing.T) {
	g := New("group-id", testConfig(), 0)
	add := func(id string, names ...string) {
		var ps []Protocol
		for _, n := range names {
			ps = append(ps, Protocol{Name: n})
		}
		g.add(&Member{ID: id, ProtocolType: "consumer", Protocols: ps})
	}
	add("member", "range", "roundrobin")
	if got := g.selectProtocol(); got != "range" {
		t.Fatalf("one member: %s, want range", got)
	}
	add("member2", "roundrobin", "range")
	add("member3", "roundrobin", "range")
	if got := g.selectProtocol(); got != "roundrobin" {
		t.Fatalf("three members: %s, want roundrobin (2 votes to 1)", got)
	}
	// ClassicGroupTest.testSelectProtocolRaisesIfNoMembers has no Go
	// counterpart: an empty group selects "" and goes Empty instead.
	add("member4", "sticky", "range")
	if got := g.selectProtocol(); got != "range" {
		t.Fatalf("only range is common: %s, want range", got)
	}
}
