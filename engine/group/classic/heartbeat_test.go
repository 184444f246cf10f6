package classic

import "testing"

func TestHeartbeat(t *testing.T) {
	runCases(t, []kafkaCase{
		{name: "testHeartbeatEmptyGroup", run: func(h *harness) {
			h.wantErr(h.heartbeat("member", 1), UnknownMemberID)
		}},
		{name: "testHeartbeatDeadGroup", run: func(h *harness) {
			h.g.Unload(h.now)
			h.wantErr(h.heartbeat("member", 1), CoordinatorNotAvailable)
		}},
		{name: "testHeartbeatUnknownMemberExistingGroup", run: func(h *harness) {
			h.stableGroup(defaultJoin())
			h.wantErr(h.heartbeat("fake-member", 1), UnknownMemberID)
		}},
		{name: "testHeartbeatIllegalGeneration", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin())
			h.wantErr(h.heartbeat(ids[0], 2), IllegalGeneration)
		}},
		{name: "testValidHeartbeat", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin())
			h.wantErr(h.heartbeat(ids[0], 1), None)
		}},
		{name: "testHeartbeatDuringCompletingRebalance", run: func(h *harness) {
			r := h.joinN(1, 10000, 5000)[0]
			h.wantErr(h.heartbeat(r.MemberID, r.GenerationID), None)
		}},
		{name: "testHeartbeatDuringPreparingRebalance", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin(), defaultJoin())
			req := defaultJoin()
			req.MemberID = ids[0]
			h.join(req) // the leader rejoins: a rebalance starts
			h.wantState(PreparingRebalance)
			h.wantErr(h.heartbeat(ids[1], 1), RebalanceInProgress)
		}},
		{name: "testClassicGroupMemberSessionTimeout", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin())
			h.sleep(5000)
			h.wantState(Empty)
			h.wantErr(h.heartbeat(ids[0], 1), UnknownMemberID)
		}},
		{name: "testClassicGroupMemberHeartbeatMaintainsSession", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin())
			h.sleep(2500)
			h.wantErr(h.heartbeat(ids[0], 1), None)
			h.sleep(2500)
			h.wantErr(h.heartbeat(ids[0], 1), None)
		}},
		{name: "testClassicGroupMemberSessionTimeoutDuringRebalance", run: func(h *harness) {
			// A member that does not rejoin in a rebalance is still
			// removed by its session timeout, not kept alive by the
			// rebalance.
			ids := h.stableGroup(defaultJoin(), defaultJoin())
			req := defaultJoin()
			req.MemberID = ids[0]
			req.RebalanceTimeoutMs = 60000
			leader := h.join(req)
			h.wantState(PreparingRebalance)
			h.sleep(2500)
			h.wantErr(h.heartbeat(ids[1], 1), RebalanceInProgress)
			h.sleep(5000)
			h.wantErr(h.joinResp(leader).Error, None)
			h.wantErr(h.heartbeat(ids[1], 1), UnknownMemberID)
			if n := len(h.g.Members()); n != 1 {
				h.t.Fatalf("%d members, want 1", n)
			}
		}},
		{name: "testHeartbeatDuringRebalanceCausesRebalanceInProgress", run: func(h *harness) {
			ids := h.stableGroup(defaultJoin())
			h.join(JoinRequest{ClientID: "client", ProtocolType: "consumer", Protocols: defaultJoin().Protocols,
				SessionTimeoutMs: 5000, RebalanceTimeoutMs: 10000, Legacy: true})
			h.wantErr(h.heartbeat(ids[0], 1), RebalanceInProgress)
		}},
	})
}

// A group whose members keep heartbeating, and rejoin when told to,
// reaches Stable and stays there: no rebalance loop, the generation does
// not move, for ten minutes of virtual time.
func TestHeartbeatingGroupStaysStable(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	j := defaultJoin()
	j.SessionTimeoutMs, j.RebalanceTimeoutMs = 45000, 300000
	ids := h.stableGroup(j, j, j)
	gen := h.g.Generation()
	for step := 0; step < 200; step++ {
		h.sleep(3000) // heartbeat.interval.ms
		for _, id := range ids {
			if err := h.heartbeat(id, gen); err != None {
				t.Fatalf("t=%d: heartbeat of %s: %s", h.now, id, err)
			}
		}
		if h.g.State() != Stable || h.g.Generation() != gen || len(h.g.Members()) != 3 {
			t.Fatalf("t=%d: %s generation %d, %d members", h.now, h.g.State(), h.g.Generation(), len(h.g.Members()))
		}
	}
	// The only pending timers are the three sessions.
	if ts := h.g.Timers(); len(ts) != 3 {
		t.Fatalf("timers %v, want one heartbeat timer per member", ts)
	}
}
