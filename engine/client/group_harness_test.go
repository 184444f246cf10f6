package client

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/group/assignor"
	"github.com/loglab/loglab/engine/group/classic"
	"github.com/loglab/loglab/engine/group/consumer"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
)

// fakeGroupBroker is broker 1, test-only: leader of every partition of one
// topic (an in-memory log per partition) and coordinator of every group,
// wrapping the pure coordinator state machines engine/group/classic and
// engine/group/consumer with committed offsets in a map. It stands in for
// the broker-side coordinator so the client is tested on its own.
type fakeGroupBroker struct {
	t       *testing.T
	net     *sim.Network
	sched   *sim.Scheduler
	topic   string
	logs    [][][]byte // per partition: the values
	classic *classic.Group
	kip848  *consumer.Group
	tick    *sim.Event
	refs    map[uint64]pendingReply
	ref     uint64
	uuids   int
	commits map[protocol.TopicPartition]int64
	got     []string // the group requests received, by kind, for assertions
	epochs  []int32  // the member epochs of the ConsumerGroupHeartbeats received
	events  []string // the consumers' traced decisions
	// notCoordinator answers that many Heartbeats NOT_COORDINATOR, as a
	// broker that just lost the group's __consumer_offsets partition.
	notCoordinator int
	// unstable answers that many OffsetFetches UNSTABLE_OFFSET_COMMIT for
	// every partition, as while a transaction's offsets are pending.
	unstable int
}

type pendingReply struct {
	to   sim.NodeID
	corr int64
}

const fakeNode = sim.NodeID("b1")

func newGroupTest(t *testing.T, partitions int) *fakeGroupBroker {
	t.Helper()
	sched := sim.NewScheduler(&sim.Clock{})
	f := &fakeGroupBroker{t: t, net: sim.NewNetwork(sched), sched: sched, topic: "orders", logs: make([][][]byte, partitions),
		refs: map[uint64]pendingReply{}, commits: map[protocol.TopicPartition]int64{}}
	cfg := classic.DefaultConfig()
	cfg.InitialRebalanceDelayMs = 0 // tests join members one by one
	f.classic = classic.New("g", cfg, 0)
	f.kip848 = consumer.NewGroup("g", assignor.Uniform{}, assignor.Topics{"orders": int32(partitions)}, consumer.DefaultConfig())
	if kraft.BrokerNode(1) != fakeNode {
		t.Fatal("broker 1 is not b1")
	}
	f.net.Attach(fakeNode, f.handle)
	return f
}

func (f *fakeGroupBroker) nowMs() int64 { return f.sched.Clock.Elapsed().Milliseconds() }

// produce appends n records to partition p, values "p-offset".
func (f *fakeGroupBroker) produce(p, n int) {
	for range n {
		f.logs[p] = append(f.logs[p], []byte(fmt.Sprintf("%d-%d", p, len(f.logs[p]))))
	}
}

func (f *fakeGroupBroker) newConsumer(name string, mod func(*ConsumerConfig)) *Consumer {
	cfg := DefaultConsumerConfig()
	cfg.GroupID = "g"
	cfg.AutoOffsetReset = "earliest"
	if mod != nil {
		mod(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		f.t.Fatal(err)
	}
	c := NewConsumer(sim.NodeID(name), cfg, []int32{1}, f.net, f.sched, sim.NewRand(uint64(len(f.net.InFlight())+int(name[len(name)-1]))), func(e string) { f.events = append(f.events, e); f.t.Log(e) })
	if err := c.Subscribe([]string{f.topic}); err != nil {
		f.t.Fatal(err)
	}
	return c
}

func (f *fakeGroupBroker) send(to sim.NodeID, msg sim.Message) { f.net.Send(fakeNode, to, msg) }

func (f *fakeGroupBroker) handle(env *sim.Envelope) {
	now := f.nowMs()
	switch m := env.Msg.(type) {
	case protocol.MetadataRequest:
		resp := protocol.MetadataResponse{CorrelationID: m.CorrelationID, Brokers: []int32{1}}
		for i := range f.logs {
			resp.Partitions = append(resp.Partitions, protocol.PartitionMetadata{TP: protocol.TopicPartition{Topic: f.topic, Partition: int32(i)}, Leader: 1, LeaderEpoch: 0})
		}
		f.send(env.From, resp)
	case protocol.ListOffsetsRequest:
		off := int64(0)
		if m.Timestamp == -1 {
			off = int64(len(f.logs[m.TP.Partition]))
		}
		f.send(env.From, protocol.ListOffsetsResponse{CorrelationID: m.CorrelationID, TP: m.TP, Offset: off})
	case protocol.FetchRequest:
		f.fetch(env.From, m)
	case protocol.FindCoordinatorRequest:
		f.got = append(f.got, "FindCoordinator")
		f.send(env.From, protocol.FindCoordinatorResponse{CorrelationID: m.CorrelationID, Key: m.Key, NodeID: 1})
	case protocol.JoinGroupRequest:
		f.got = append(f.got, "JoinGroup")
		f.ref++
		f.refs[f.ref] = pendingReply{env.From, m.CorrelationID}
		f.uuids++
		req := classic.JoinRequest{Ref: f.ref, MemberID: m.MemberID, GroupInstanceID: m.GroupInstanceID, ClientID: string(env.From),
			ProtocolType: m.ProtocolType, SessionTimeoutMs: int64(m.SessionTimeoutMs), RebalanceTimeoutMs: int64(m.RebalanceTimeoutMs),
			UUID: fmt.Sprintf("uuid%d", f.uuids)}
		for _, p := range m.Protocols {
			req.Protocols = append(req.Protocols, classic.Protocol{Name: p.Name, Metadata: string(p.Metadata)})
		}
		f.replies(f.classic.Join(now, req))
	case protocol.SyncGroupRequest:
		f.got = append(f.got, "SyncGroup")
		f.ref++
		f.refs[f.ref] = pendingReply{env.From, m.CorrelationID}
		req := classic.SyncRequest{Ref: f.ref, MemberID: m.MemberID, GroupInstanceID: m.GroupInstanceID, GenerationID: m.GenerationID,
			ProtocolType: m.ProtocolType, ProtocolName: m.ProtocolName}
		for _, a := range m.Assignments {
			req.Assignments = append(req.Assignments, classic.SyncAssignment{MemberID: a.MemberID, Assignment: string(a.Assignment)})
		}
		f.replies(f.classic.Sync(now, req))
	case protocol.HeartbeatRequest:
		f.got = append(f.got, "Heartbeat")
		if f.notCoordinator > 0 {
			f.notCoordinator--
			f.send(env.From, protocol.HeartbeatResponse{CorrelationID: m.CorrelationID, Error: protocol.NotCoordinator})
			return
		}
		e := f.classic.Heartbeat(now, classic.HeartbeatRequest{MemberID: m.MemberID, GroupInstanceID: m.GroupInstanceID, GenerationID: m.GenerationID})
		f.send(env.From, protocol.HeartbeatResponse{CorrelationID: m.CorrelationID, Error: classicCode(e)})
	case protocol.LeaveGroupRequest:
		f.got = append(f.got, "LeaveGroup")
		var ms []classic.LeaveMember
		for _, x := range m.Members {
			ms = append(ms, classic.LeaveMember{MemberID: x.MemberID, GroupInstanceID: x.GroupInstanceID})
		}
		resp, rs := f.classic.Leave(now, ms)
		f.replies(rs)
		f.send(env.From, protocol.LeaveGroupResponse{CorrelationID: m.CorrelationID, Error: classicCode(resp.Error)})
	case protocol.ConsumerGroupHeartbeatRequest:
		f.got = append(f.got, "ConsumerGroupHeartbeat")
		f.epochs = append(f.epochs, m.MemberEpoch)
		req := consumer.HeartbeatRequest{MemberID: m.MemberID, MemberEpoch: m.MemberEpoch, InstanceID: m.InstanceID, RebalanceTimeoutMs: m.RebalanceTimeoutMs, SubscribedTopicNames: m.SubscribedTopicNames}
		if m.TopicPartitions != nil {
			req.OwnedTopicPartitions = consumer.Partitions{}
			for _, tp := range m.TopicPartitions {
				req.OwnedTopicPartitions[tp.Topic] = tp.Partitions
			}
		}
		resp, err := f.kip848.Heartbeat(now, req)
		out := protocol.ConsumerGroupHeartbeatResponse{CorrelationID: m.CorrelationID, MemberID: resp.MemberID, MemberEpoch: resp.MemberEpoch, HeartbeatIntervalMs: resp.HeartbeatIntervalMs}
		switch {
		case errors.Is(err, consumer.ErrFencedMemberEpoch):
			out.Error = protocol.FencedMemberEpoch
		case errors.Is(err, consumer.ErrUnknownMemberID):
			out.Error = protocol.UnknownMemberID
		case err != nil:
			out.Error, out.ErrorMessage = protocol.InvalidRequest, err.Error()
		}
		if err == nil && resp.Assignment != nil {
			out.HasAssignment = true
			for _, t := range resp.Assignment.Topics() {
				out.Assignment = append(out.Assignment, protocol.TopicPartitions{Topic: t, Partitions: resp.Assignment[t]})
			}
		}
		f.send(env.From, out)
	case protocol.OffsetCommitRequest:
		f.got = append(f.got, "OffsetCommit")
		code := f.validateCommit(m)
		resp := protocol.OffsetCommitResponse{CorrelationID: m.CorrelationID}
		for _, o := range m.Offsets {
			if code == protocol.None {
				f.commits[o.TP] = o.Offset
			}
			resp.Partitions = append(resp.Partitions, protocol.OffsetCommitPartitionResponse{TP: o.TP, Error: code})
		}
		f.send(env.From, resp)
	case protocol.OffsetFetchRequest:
		f.got = append(f.got, "OffsetFetch")
		resp := protocol.OffsetFetchResponse{CorrelationID: m.CorrelationID}
		unstable := f.unstable > 0 && m.RequireStable
		if unstable {
			f.unstable--
		}
		for _, tp := range m.TPs {
			off, ok := f.commits[tp]
			if !ok {
				off = -1
			}
			if unstable {
				resp.Partitions = append(resp.Partitions, protocol.OffsetFetchPartition{TP: tp, Offset: -1, LeaderEpoch: -1, Error: protocol.UnstableOffsetCommit})
				continue
			}
			resp.Partitions = append(resp.Partitions, protocol.OffsetFetchPartition{TP: tp, Offset: off, LeaderEpoch: -1})
		}
		f.send(env.From, resp)
	}
	f.rearm()
}

// validateCommit is the coordinator's generation check, simplified: the
// member must be in the group at its generation (classic) or known
// (consumer protocol); a commit outside a group (-1) is always taken.
func (f *fakeGroupBroker) validateCommit(m protocol.OffsetCommitRequest) protocol.ErrorCode {
	if m.GenerationIDOrMemberEpoch < 0 && m.MemberID == "" {
		return protocol.None
	}
	for _, mem := range f.kip848.Members() {
		if mem.ID == m.MemberID {
			return protocol.None
		}
	}
	if _, ok := f.classic.Member(m.MemberID); !ok {
		return protocol.UnknownMemberID
	}
	if m.GenerationIDOrMemberEpoch != f.classic.Generation() {
		return protocol.IllegalGeneration
	}
	if f.classic.State() == classic.CompletingRebalance {
		return protocol.RebalanceInProgress
	}
	return protocol.None
}

func (f *fakeGroupBroker) fetch(to sim.NodeID, m protocol.FetchRequest) {
	log := f.logs[m.TP.Partition]
	if int(m.FetchOffset) >= len(log) {
		// Hold an empty fetch for fetch.max.wait.ms, as a broker does.
		f.sched.After(time.Duration(m.MaxWaitMs)*time.Millisecond, "fetch-wait", func() {
			f.send(to, protocol.FetchResponse{CorrelationID: m.CorrelationID, TP: m.TP, HighWatermark: int64(len(f.logs[m.TP.Partition])), LeaderEpoch: 0})
		})
		return
	}
	b := record.Batch{BaseOffset: m.FetchOffset, Attributes: record.ComputeAttributes(record.None, record.CreateTime, false, false),
		ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, LastOffsetDelta: int32(len(log) - int(m.FetchOffset) - 1)}
	for i, v := range log[m.FetchOffset:] {
		b.Records = append(b.Records, record.Record{OffsetDelta: int32(i), Value: v})
	}
	raw, err := b.AppendEncoded(nil)
	if err != nil {
		f.t.Fatal(err)
	}
	f.send(to, protocol.FetchResponse{CorrelationID: m.CorrelationID, TP: m.TP, HighWatermark: int64(len(log)), LeaderEpoch: 0, Records: raw})
}

func (f *fakeGroupBroker) replies(rs []classic.Reply) {
	for _, r := range rs {
		p, ok := f.refs[r.Ref]
		if !ok {
			f.t.Fatalf("reply to unknown ref %d", r.Ref)
		}
		delete(f.refs, r.Ref)
		switch {
		case r.Join != nil:
			j := r.Join
			resp := protocol.JoinGroupResponse{CorrelationID: p.corr, Error: classicCode(j.Error), GenerationID: j.GenerationID, ProtocolType: j.ProtocolType,
				ProtocolName: j.ProtocolName, Leader: j.Leader, SkipAssignment: j.SkipAssignment, MemberID: j.MemberID}
			for _, jm := range j.Members {
				resp.Members = append(resp.Members, protocol.JoinGroupMember{MemberID: jm.MemberID, GroupInstanceID: jm.GroupInstanceID, Metadata: []byte(jm.Metadata)})
			}
			f.send(p.to, resp)
		case r.Sync != nil:
			f.send(p.to, protocol.SyncGroupResponse{CorrelationID: p.corr, Error: classicCode(r.Sync.Error), ProtocolType: r.Sync.ProtocolType,
				ProtocolName: r.Sync.ProtocolName, Assignment: []byte(r.Sync.Assignment)})
		}
	}
}

// rearm schedules the coordinators' next timers on the clock.
func (f *fakeGroupBroker) rearm() {
	cancel(f.tick)
	f.tick = nil
	at, ok := f.classic.NextDeadline()
	if at2, ok2 := f.kip848.NextDeadline(); ok2 && (!ok || at2 < at) {
		at, ok = at2, true
	}
	if !ok {
		return
	}
	wait := max(time.Duration(at)*time.Millisecond-f.sched.Clock.Elapsed(), 0)
	f.tick = f.sched.After(wait, "coordinator-timers", func() {
		f.tick = nil
		now := f.nowMs()
		f.replies(f.classic.Tick(now))
		for _, e := range f.kip848.Expire(now) {
			f.t.Logf("b1: member %s expired: %s", e.MemberID, e.Reason)
		}
		f.rearm()
	})
}

func classicCode(e classic.Error) protocol.ErrorCode {
	for code := protocol.ErrorCode(-200); code < 200; code++ {
		if code.Name() == string(e) {
			return code
		}
	}
	return protocol.None
}

// run advances virtual time by d, polling every consumer in polling every
// 100 ms (a poll loop), and returns what each poll returned.
func (f *fakeGroupBroker) run(d time.Duration, polling ...*Consumer) map[*Consumer][]ConsumedRecord {
	f.t.Helper()
	out := map[*Consumer][]ConsumedRecord{}
	end := f.sched.Clock.Elapsed() + d
	for f.sched.Clock.Elapsed() < end {
		for _, c := range polling {
			recs, err := c.Poll(0)
			if err != nil {
				f.t.Fatalf("%s: poll: %v", c.ID, err)
			}
			out[c] = append(out[c], recs...)
		}
		next := min(f.sched.Clock.Elapsed()+100*time.Millisecond, end)
		if _, err := f.sched.RunUntil(next, 1_000_000); err != nil {
			f.t.Fatal(err)
		}
	}
	return out
}

func tps(ps ...int) []protocol.TopicPartition {
	var out []protocol.TopicPartition
	for _, p := range ps {
		out = append(out, protocol.TopicPartition{Topic: "orders", Partition: int32(p)})
	}
	return out
}

func partitionsOf(recs []ConsumedRecord) string {
	seen := map[int32]bool{}
	var ps []string
	for _, r := range recs {
		if !seen[r.TP.Partition] {
			seen[r.TP.Partition] = true
			ps = append(ps, fmt.Sprint(r.TP.Partition))
		}
	}
	return strings.Join(ps, ",")
}
