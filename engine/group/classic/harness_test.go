package classic

import (
	"fmt"
	"testing"
)

// harness drives one group the way GroupMetadataManagerTestContext drives
// Kafka's: requests at a virtual time, sleep fires due timers, and parked
// responses are collected by request ref.
type harness struct {
	t    *testing.T
	g    *Group
	now  int64
	ref  uint64
	uuid int
	got  map[uint64]Reply
	// order is every reply's ref in the order the group gave them, for
	// the datadriven harness to print.
	order []uint64
}

// testConfig is Kafka's test context: no session-timeout bounds (the
// context bypasses GroupCoordinatorService), the default 3s initial delay.
func testConfig() Config {
	c := DefaultConfig()
	c.MinSessionTimeoutMs = 0
	return c
}

func newHarness(t *testing.T, cfg Config) *harness {
	return &harness{t: t, g: New("group-id", cfg, 0), got: map[uint64]Reply{}}
}

// defaultJoin is JoinGroupRequestBuilder's withDefaultProtocolTypeAndProtocols
// with the test context's 5s session timeout.
func defaultJoin() JoinRequest {
	return JoinRequest{ClientID: "client", ProtocolType: "consumer",
		Protocols:        []Protocol{{Name: "range", Metadata: "t"}},
		SessionTimeoutMs: 5000, RebalanceTimeoutMs: 10000}
}

func (h *harness) collect(rs []Reply) {
	for _, r := range rs {
		if _, dup := h.got[r.Ref]; dup {
			h.t.Fatalf("request %d answered twice", r.Ref)
		}
		h.got[r.Ref] = r
		h.order = append(h.order, r.Ref)
	}
}

func (h *harness) join(req JoinRequest) uint64 {
	h.ref++
	req.Ref = h.ref
	if req.UUID == "" {
		h.uuid++
		req.UUID = fmt.Sprintf("uuid%d", h.uuid)
	}
	h.collect(h.g.Join(h.now, req))
	return h.ref
}

func (h *harness) sync(req SyncRequest) uint64 {
	h.ref++
	req.Ref = h.ref
	h.collect(h.g.Sync(h.now, req))
	return h.ref
}

func (h *harness) heartbeat(id string, gen int32) Error {
	return h.g.Heartbeat(h.now, HeartbeatRequest{MemberID: id, GenerationID: gen})
}

func (h *harness) leave(ms ...LeaveMember) LeaveResponse {
	resp, rs := h.g.Leave(h.now, ms)
	h.collect(rs)
	return resp
}

func (h *harness) sleep(ms int64) {
	h.now += ms
	h.collect(h.g.Tick(h.now))
}

func (h *harness) done(ref uint64) bool { _, ok := h.got[ref]; return ok }

func (h *harness) joinResp(ref uint64) JoinResponse {
	h.t.Helper()
	r, ok := h.got[ref]
	if !ok || r.Join == nil {
		h.t.Fatalf("JoinGroup %d not answered", ref)
	}
	return *r.Join
}

func (h *harness) syncResp(ref uint64) SyncResponse {
	h.t.Helper()
	r, ok := h.got[ref]
	if !ok || r.Sync == nil {
		h.t.Fatalf("SyncGroup %d not answered", ref)
	}
	return *r.Sync
}

func (h *harness) wantState(s State) {
	h.t.Helper()
	if h.g.State() != s {
		h.t.Fatalf("state %s, want %s", h.g.State(), s)
	}
}

func (h *harness) wantErr(got, want Error) {
	h.t.Helper()
	if got != want {
		h.t.Fatalf("error %s, want %s", got, want)
	}
}

// joinDynamic is joinClassicGroupAsDynamicMemberAndCompleteJoin: the
// KIP-394 two-step join, sleeping out the initial delay if the group was
// empty.
func (h *harness) joinDynamic(req JoinRequest) JoinResponse {
	h.t.Helper()
	req.MemberID = ""
	first := h.joinResp(h.join(req))
	h.wantErr(first.Error, MemberIDRequired)
	req.MemberID = first.MemberID
	ref := h.join(req)
	if !h.done(ref) {
		h.sleep(h.g.cfg.InitialRebalanceDelayMs)
	}
	return h.joinResp(ref)
}

// stableGroup is joinClassicGroupAsDynamicMemberAndCompleteRebalance for
// n members: all join together, the leader syncs an assignment, and the
// followers sync. It returns the member ids, leader first.
func (h *harness) stableGroup(reqs ...JoinRequest) []string {
	h.t.Helper()
	refs := make([]uint64, len(reqs))
	for i, req := range reqs {
		if req.GroupInstanceID == "" {
			first := h.joinResp(h.join(req))
			req.MemberID = first.MemberID
		}
		refs[i] = h.join(req)
	}
	// The initial delay extends while members arrive.
	for i := 0; i < 10 && !h.done(refs[0]); i++ {
		h.sleep(h.g.cfg.InitialRebalanceDelayMs)
	}
	var ids []string
	leader := h.joinResp(refs[0])
	h.wantErr(leader.Error, None)
	ids = append(ids, leader.MemberID)
	var as []SyncAssignment
	for _, ref := range refs {
		r := h.joinResp(ref)
		if r.MemberID != leader.MemberID {
			ids = append(ids, r.MemberID)
		}
		as = append(as, SyncAssignment{MemberID: r.MemberID, Assignment: "a:" + r.MemberID})
	}
	h.syncResp(h.sync(SyncRequest{MemberID: leader.MemberID, GenerationID: leader.GenerationID, Assignments: as}))
	for _, id := range ids[1:] {
		r := h.syncResp(h.sync(SyncRequest{MemberID: id, GenerationID: leader.GenerationID}))
		h.wantErr(r.Error, None)
	}
	h.wantState(Stable)
	return ids
}

// joinN is joinWithNMembers: n dynamic members join together and the
// join phase completes; it returns their JoinGroup responses, leader first.
func (h *harness) joinN(n int, rebalanceMs, sessionMs int64) []JoinResponse {
	h.t.Helper()
	var refs []uint64
	for range n {
		req := defaultJoin()
		req.RebalanceTimeoutMs, req.SessionTimeoutMs = rebalanceMs, sessionMs
		req.MemberID = h.joinResp(h.join(req)).MemberID
		refs = append(refs, h.join(req))
	}
	for i := 0; i < 10 && !h.done(refs[0]); i++ {
		h.sleep(h.g.cfg.InitialRebalanceDelayMs)
	}
	var out []JoinResponse
	for _, ref := range refs {
		r := h.joinResp(ref)
		h.wantErr(r.Error, None)
		out = append(out, r)
	}
	h.wantState(CompletingRebalance)
	return out
}

// staticJoin is defaultJoin for a static member (group.instance.id).
func staticJoin(instance string) JoinRequest {
	r := defaultJoin()
	r.GroupInstanceID = instance
	return r
}
