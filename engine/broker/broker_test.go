package broker

import (
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/storage"
)

// harness is one broker on a simulated network with a scripted controller
// and a client, so the broker's request handling is tested on its own: the
// controller registers and unfences it and hands it exactly the metadata a
// case needs, and the client sees every response.
type harness struct {
	t         *testing.T
	sched     *sim.Scheduler
	net       *sim.Network
	broker    *Broker
	responses []sim.Message // what the client received, in order
	metadata  []protocol.MetadataRecord
}

const client sim.NodeID = "client"

// newHarness starts broker 1 leading t/0 with the given replicas, ISR and
// min.insync.replicas, and runs until it serves requests.
func newHarness(t *testing.T, replicas, isr []int32, minISR string) *harness {
	t.Helper()
	clock := &sim.Clock{}
	h := &harness{t: t, sched: sim.NewScheduler(clock)}
	h.net = sim.NewNetwork(h.sched)
	h.metadata = []protocol.MetadataRecord{
		{Offset: 0, Type: "RegisterBroker", BrokerID: 1, BrokerEpoch: 1},
		{Offset: 1, Type: "UnfenceBroker", BrokerID: 1, BrokerEpoch: 1},
		{Offset: 2, Type: "Topic", Topic: "t", Partitions: 1},
		{Offset: 3, Type: "Config", Topic: "t", Name: "min.insync.replicas", Value: minISR},
		{Offset: 4, Type: "Partition", Topic: "t", Partition: 0, Replicas: replicas, ISR: isr, Leader: 1},
	}
	h.net.Attach(kraft.ControllerNode, h.controller)
	h.net.Attach(client, func(env *sim.Envelope) { h.responses = append(h.responses, env.Msg) })
	h.broker = New(1, 1, DefaultConfig(), h.net, h.sched, storage.NewMem(), func(string) {})
	h.run(100 * time.Millisecond)
	if !h.broker.serving {
		t.Fatal("the broker does not serve requests after its registration and unfencing")
	}
	return h
}

// controller registers the broker, unfences it and hands it the metadata
// in heartbeat responses; AlterPartition requests go unanswered, so the
// ISR stays what the case set.
func (h *harness) controller(env *sim.Envelope) {
	switch m := env.Msg.(type) {
	case protocol.BrokerRegistrationRequest:
		h.net.Send(kraft.ControllerNode, env.From, protocol.BrokerRegistrationResponse{BrokerEpoch: 1, Attempt: m.Attempt, Incarnation: m.Incarnation})
	case protocol.BrokerHeartbeatRequest:
		h.net.Send(kraft.ControllerNode, env.From, protocol.BrokerHeartbeatResponse{Records: h.metadata, Seq: m.Seq})
	}
}

func (h *harness) run(d time.Duration) {
	h.t.Helper()
	if _, err := h.sched.RunUntil(h.sched.Clock.Elapsed()+d, 100_000); err != nil {
		h.t.Fatal(err)
	}
}

// produce sends one record with the given acks and runs for d.
func (h *harness) produce(acks int16, d time.Duration) {
	h.t.Helper()
	b := record.Batch{Attributes: record.ComputeAttributes(record.None, record.CreateTime, false, false),
		ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: []record.Record{{Value: []byte("v")}}}
	raw, err := b.AppendEncoded(nil)
	if err != nil {
		h.t.Fatal(err)
	}
	h.net.Send(client, h.broker.Node, protocol.ProduceRequest{CorrelationID: 1, Acks: acks, TimeoutMs: 1000,
		TP: protocol.TopicPartition{Topic: "t"}, Records: raw})
	h.run(d)
}

// fetchAsFollower sends a follower's fetch from offset and runs briefly.
func (h *harness) fetchAsFollower(id int32, offset int64) {
	h.net.Send(kraft.BrokerNode(id), h.broker.Node, protocol.FetchRequest{CorrelationID: 9, ReplicaID: id,
		TP: protocol.TopicPartition{Topic: "t"}, FetchOffset: offset, CurrentLeaderEpoch: 0, LastFetchedEpoch: -1,
		MaxBytes: 1 << 20})
	h.run(5 * time.Millisecond)
}

func (h *harness) produceResponse() protocol.ProduceResponse {
	h.t.Helper()
	for _, m := range h.responses {
		if r, ok := m.(protocol.ProduceResponse); ok {
			return r
		}
	}
	h.t.Fatalf("no produce response; the client received %v", h.responses)
	return protocol.ProduceResponse{}
}

func (h *harness) hw() int64 { return h.broker.Replica(protocol.TopicPartition{Topic: "t"}).HW }

// Partition.appendRecordsToLeader and maybeIncrementLeaderHW, wired
// through the broker's Produce: what the client hears and where the high
// watermark stands afterwards.
func TestProduceAgainstTheISR(t *testing.T) {
	for _, c := range []struct {
		name     string
		replicas []int32
		isr      []int32
		minISR   string
		acks     int16
		wait     time.Duration
		wantErr  protocol.ErrorCode
		wantHW   int64
	}{
		{"acks=all below min ISR is refused before the append (appendRecordsToLeader)",
			[]int32{1, 2, 3}, []int32{1}, "2", -1, 10 * time.Millisecond, protocol.NotEnoughReplicas, 0},
		{"acks=1 below min ISR is acknowledged, but the HW stands still (maybeIncrementLeaderHW, KAFKA-15583)",
			[]int32{1, 2, 3}, []int32{1}, "2", 1, 10 * time.Millisecond, protocol.None, 0},
		{"effective min ISR is min(min.insync.replicas, replicas): rf=1 takes acks=all (effectiveMinIsr)",
			[]int32{1}, []int32{1}, "2", -1, 10 * time.Millisecond, protocol.None, 1},
		{"acks=all waits for the ISR's other member and times out without it (checkEnoughReplicasReachOffset)",
			[]int32{1, 2}, []int32{1, 2}, "1", -1, 2 * time.Second, protocol.RequestTimedOut, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.replicas, c.isr, c.minISR)
			h.produce(c.acks, c.wait)
			if got := h.produceResponse().Error; got != c.wantErr {
				t.Errorf("produce answered %s, want %s", got.Name(), c.wantErr.Name())
			}
			if got := h.hw(); got != c.wantHW {
				t.Errorf("high watermark %d, want %d", got, c.wantHW)
			}
		})
	}
}

// Partition.updateFollowerFetchState: a follower's fetch from past the
// record tells the leader it has it, which moves the high watermark and
// completes the waiting acks=all produce.
func TestFollowerFetchCompletesAcksAll(t *testing.T) {
	h := newHarness(t, []int32{1, 2}, []int32{1, 2}, "2")
	h.produce(-1, 10*time.Millisecond)
	if len(h.responses) != 0 {
		t.Fatalf("acks=all answered before the follower had the record: %v", h.responses)
	}
	h.fetchAsFollower(2, 1)
	if got := h.produceResponse(); got.Error != protocol.None || got.BaseOffset != 0 {
		t.Errorf("produce answered %s at offset %d, want NONE at 0", got.Error.Name(), got.BaseOffset)
	}
	if got := h.hw(); got != 1 {
		t.Errorf("high watermark %d, want 1", got)
	}
}
