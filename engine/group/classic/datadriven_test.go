package classic

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loglab/loglab/internal/datadriven"
)

// TestDataDriven replays testdata/*.txt: each case drives one group with
// commands named after Kafka's requests and GroupMetadataManagerTest's
// helpers, and prints the group's answers and state after each.
//
//	config max-size=N initial-delay=MS kafka-defaults   before anything else
//	join [member=] [instance=] [client=] [uuid=] [protocol-type=]
//	     [protocols=range:t,roundrobin | no-protocols] [session=MS]
//	     [rebalance=MS] [legacy] [repeat=N]              JoinGroup
//	join-dynamic (join's args)   joinClassicGroupAsDynamicMemberAndCompleteJoin
//	stable-group members=N | instances=I,...   joinClassicGroupAsDynamicMemberAndCompleteRebalance
//	                             (static members for instances, joining at once)
//	stable-group-protocols instances= protocols=a,b   the same, offering those
//	                             protocols (no metadata)
//	join-n members=N [rebalance=10000] [session=5000]   joinWithNMembers: N dynamic
//	                             members join together and the join phase completes
//	sync member= [instance=] gen= [protocol-type=] [protocol-name=] [assign=ID:A,...]   SyncGroup
//	heartbeat member= gen=       Heartbeat
//	leave members=ID,ID/INSTANCE,/INSTANCE   LeaveGroup (v3+: a batch)
//	sleep MS                     the test context's sleep: fires due timers
//	unload                       onUnloaded: the group goes Dead
//	prepare-rebalance            prepareRebalance
//	add-member id=ID             ClassicGroup.add, bypassing JoinGroup
//	describe                     members (join order), pending ids, leader
//	timers                       the coordinator's timers, earliest first
//
// Metadata after ':' is opaque; '+' stands for a comma inside it.
func TestDataDriven(t *testing.T) {
	for _, file := range []string{"join.txt", "sync.txt", "heartbeat.txt", "leave.txt", "static.txt"} {
		t.Run(file, func(t *testing.T) { datadriven.Run(t, "testdata/"+file, newDDCase) })
	}
}

func newDDCase(t *testing.T) datadriven.Handler {
	cfg := testConfig()
	var h *harness
	printed := 0
	return func(t *testing.T, c *datadriven.Cmd) string {
		if c.Name == "config" {
			if h != nil {
				t.Fatalf("%s: config after the group was made", c.Pos)
			}
			if c.Has("kafka-defaults") {
				cfg = DefaultConfig()
			}
			cfg.MaxSize = int(c.Int(t, "max-size", int64(cfg.MaxSize)))
			cfg.InitialRebalanceDelayMs = c.Int(t, "initial-delay", cfg.InitialRebalanceDelayMs)
			return fmt.Sprintf("config: group.max.size=%d group.initial.rebalance.delay.ms=%d group.min.session.timeout.ms=%d",
				cfg.MaxSize, cfg.InitialRebalanceDelayMs, cfg.MinSessionTimeoutMs)
		}
		if h == nil {
			h = newHarness(t, cfg)
		}
		var out []string
		status := true
		switch c.Name {
		case "join":
			req := ddJoin(t, c)
			for range c.Int(t, "repeat", 1) {
				ref := h.join(req)
				if !h.done(ref) {
					out = append(out, fmt.Sprintf("JoinGroup #%d parked", ref))
				}
			}
		case "join-dynamic":
			r := h.joinDynamic(ddJoin(t, c))
			printed = len(h.order)
			out = append(out, "joined: "+ddJoinResp(r))
		case "stable-group", "stable-group-protocols":
			reqs := make([]JoinRequest, c.Int(t, "members", 1))
			for i := range reqs {
				reqs[i] = defaultJoin()
			}
			if instances := c.List("instances"); instances != nil {
				reqs = reqs[:0]
				for _, in := range instances {
					r := staticJoin(in)
					if names := c.List("protocols"); names != nil {
						r.Protocols = nil
						for _, n := range names {
							r.Protocols = append(r.Protocols, Protocol{Name: n})
						}
					}
					reqs = append(reqs, r)
				}
			}
			ids := h.stableGroup(reqs...)
			printed = len(h.order)
			out = append(out, fmt.Sprintf("stable: members %v, leader first", ids))
		case "join-n":
			rs := h.joinN(int(c.Int(t, "members", 1)), c.Int(t, "rebalance", 10000), c.Int(t, "session", 5000))
			printed = len(h.order)
			for _, r := range rs {
				out = append(out, "joined: "+ddJoinResp(r))
			}
		case "sync":
			req := SyncRequest{MemberID: c.Str("member", ""), GroupInstanceID: c.Str("instance", ""), GenerationID: int32(c.Int(t, "gen", 0)),
				ProtocolType: c.Str("protocol-type", ""), ProtocolName: c.Str("protocol-name", "")}
			for _, a := range c.List("assign") {
				id, as, _ := strings.Cut(a, ":")
				req.Assignments = append(req.Assignments, SyncAssignment{MemberID: id, Assignment: as})
			}
			if ref := h.sync(req); !h.done(ref) {
				out = append(out, fmt.Sprintf("SyncGroup #%d parked", ref))
			}
		case "heartbeat":
			out = append(out, "Heartbeat -> "+string(h.heartbeat(c.Str("member", ""), int32(c.Int(t, "gen", 0)))))
		case "leave":
			var ms []LeaveMember
			for _, m := range c.List("members") {
				id, instance, _ := strings.Cut(m, "/")
				ms = append(ms, LeaveMember{MemberID: id, GroupInstanceID: instance})
			}
			r := h.leave(ms...)
			line := "LeaveGroup -> " + string(r.Error)
			for _, m := range r.Members {
				who := m.MemberID
				if m.GroupInstanceID != "" {
					who += "/" + m.GroupInstanceID
				}
				line += fmt.Sprintf(" %s:%s", who, m.Error)
			}
			out = append(out, line)
		case "sleep":
			w := c.Words()
			var ms int64
			if len(w) != 1 {
				t.Fatalf("%s: sleep MS", c.Pos)
			}
			if _, err := fmt.Sscan(w[0], &ms); err != nil {
				t.Fatalf("%s: sleep %q: %v", c.Pos, w[0], err)
			}
			h.sleep(ms)
		case "unload":
			h.collect(h.g.Unload(h.now))
		case "prepare-rebalance":
			h.g.prepareRebalance(h.now)
		case "add-member":
			h.g.add(&Member{ID: c.Str("id", ""), ClientID: "client-id", ProtocolType: "consumer",
				Protocols: defaultJoin().Protocols, SessionTimeoutMs: 5000, RebalanceTimeoutMs: 10000})
		case "describe":
			status = false
			out = append(out, fmt.Sprintf("group %s gen=%d protocol=%s/%s leader=%s", h.g.State(), h.g.Generation(),
				h.g.ProtocolType(), h.g.ProtocolName(), h.g.Leader()))
			for _, m := range h.g.members {
				line := "  member " + m.ID
				if m.InstanceID != "" {
					line += " instance=" + m.InstanceID
				}
				if m.awaitingJoin() {
					line += " awaiting-join"
				}
				if m.awaitingSync() {
					line += " awaiting-sync"
				}
				out = append(out, line)
			}
			if len(h.g.pendingJoin) > 0 {
				out = append(out, fmt.Sprintf("  pending %v", h.g.pendingJoin))
			}
		case "timers":
			status = false
			line := fmt.Sprintf("now=%d", h.now)
			for _, tm := range h.g.Timers() {
				line += fmt.Sprintf(" %s@%d", tm.Key, tm.At)
			}
			out = append(out, line)
		default:
			t.Fatalf("%s: unknown command %q", c.Pos, c.Name)
		}
		for ; printed < len(h.order); printed++ {
			ref := h.order[printed]
			r, ok := h.got[ref]
			if !ok {
				continue
			}
			switch {
			case r.Join != nil:
				out = append(out, fmt.Sprintf("JoinGroup #%d -> %s", ref, ddJoinResp(*r.Join)))
			case r.Sync != nil:
				out = append(out, fmt.Sprintf("SyncGroup #%d -> %s protocol=%s/%s assignment=%q", ref, r.Sync.Error,
					r.Sync.ProtocolType, r.Sync.ProtocolName, r.Sync.Assignment))
			}
		}
		if status {
			out = append(out, fmt.Sprintf("group %s gen=%d members=%d pending=%d", h.g.State(), h.g.Generation(),
				len(h.g.members), len(h.g.pendingJoin)))
		}
		return strings.Join(out, "\n")
	}
}

func ddJoin(t *testing.T, c *datadriven.Cmd) JoinRequest {
	req := defaultJoin()
	req.MemberID = c.Str("member", "")
	req.GroupInstanceID = c.Str("instance", "")
	req.ClientID = c.Str("client", req.ClientID)
	req.UUID = c.Str("uuid", "")
	req.ProtocolType = c.Str("protocol-type", req.ProtocolType)
	if ps := c.List("protocols"); ps != nil {
		req.Protocols = nil
		for _, p := range ps {
			name, meta, _ := strings.Cut(p, ":")
			req.Protocols = append(req.Protocols, Protocol{Name: name, Metadata: strings.ReplaceAll(meta, "+", ",")})
		}
	}
	if c.Has("no-protocols") {
		req.Protocols = nil
	}
	req.SessionTimeoutMs = c.Int(t, "session", req.SessionTimeoutMs)
	req.RebalanceTimeoutMs = c.Int(t, "rebalance", req.RebalanceTimeoutMs)
	req.Legacy = c.Has("legacy")
	return req
}

func ddJoinResp(r JoinResponse) string {
	s := fmt.Sprintf("%s member=%s gen=%d", r.Error, r.MemberID, r.GenerationID)
	if r.Error != None {
		if r.Leader != "" || r.ProtocolName != "" || r.Members != nil {
			s += fmt.Sprintf(" (but leader=%q protocol=%q members=%v)", r.Leader, r.ProtocolName, r.Members)
		}
		return s
	}
	s += fmt.Sprintf(" protocol=%s/%s leader=%s", r.ProtocolType, r.ProtocolName, r.Leader)
	if r.SkipAssignment {
		s += " skip-assignment"
	}
	if r.Members != nil {
		var ids []string
		for _, m := range r.Members {
			ids = append(ids, m.MemberID)
		}
		s += fmt.Sprintf(" members=%v", ids)
	}
	return s
}
