package coordinator

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/loglab/loglab/engine/group/assignor"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// harness drives a shard like GroupMetadataManagerTestContext drives
// Kafka's: requests at a virtual time, every record kept as the log
// would keep it (encoded and decoded again, so what is written is what
// a new coordinator reads).
type harness struct {
	t       *testing.T
	s       *Shard
	now     int64
	ref     uint64
	log     []offsets.Record
	entries []logEntry // the partition as a loader reads it
	replies map[uint64]sim.Message
}

// logEntry is one record of the partition with its offset and its
// batch's producer id, or a transaction marker.
type logEntry struct {
	offset     int64
	producerID int64
	rec        offsets.Record
	marker     bool
	committed  bool
}

func newHarness(t *testing.T) *harness {
	cfg := DefaultConfig()
	s := New(0, cfg)
	s.SetTopics(assignor.Topics{"t": 2})
	return &harness{t: t, s: s, now: 1_000_000, replies: map[uint64]sim.Message{}}
}

func (h *harness) apply(r Result) {
	pid := int64(-1)
	if r.Txn != nil {
		pid = r.Txn.ProducerID
	}
	for _, rec := range r.Records {
		k, err := offsets.EncodeKey(rec.Key)
		if err != nil {
			h.t.Fatalf("encode key %T: %v", rec.Key, err)
		}
		v, err := offsets.EncodeValue(rec.ValueVersion, rec.Value)
		if err != nil {
			h.t.Fatalf("encode value %T: %v", rec.Value, err)
		}
		back, err := offsets.Decode(k, v)
		if err != nil {
			h.t.Fatalf("decode: %v", err)
		}
		h.log = append(h.log, back)
		off := int64(len(h.entries))
		h.entries = append(h.entries, logEntry{offset: off, producerID: pid, rec: back})
		if r.Txn != nil {
			// The broker hands an appended transactional commit back.
			h.s.ReplayRecord(off, pid, back)
		}
	}
	for _, rp := range r.Replies {
		h.replies[rp.Ref] = rp.Msg
	}
}

func (h *harness) do(client string, msg sim.Message) uint64 {
	h.ref++
	h.s.SetLogEndOffset(int64(len(h.entries)))
	h.apply(h.s.Handle(h.now, Request{Ref: h.ref, Client: client, UUID: fmt.Sprintf("uuid%d", h.ref), Msg: msg}))
	return h.ref
}

// tick advances the time by ms, running each timer at its deadline as
// the broker's scheduler does.
func (h *harness) tick(ms int64) {
	end := h.now + ms
	for at, ok := h.s.NextDeadline(); ok && at <= end; at, ok = h.s.NextDeadline() {
		h.now = max(h.now, at)
		h.apply(h.s.Tick(h.now))
	}
	h.now = end
}

// marker appends producer pid's COMMIT or ABORT marker, as the
// partition leader does on WriteTxnMarkers, and hands it to the shard.
func (h *harness) marker(pid int64, committed bool) []string {
	h.entries = append(h.entries, logEntry{offset: int64(len(h.entries)), producerID: pid, marker: true, committed: committed})
	return h.s.ReplayEndTxnMarker(pid, committed)
}

// reload replays the log into a new shard, as a new leader does.
func (h *harness) reload() {
	s := New(0, h.s.cfg)
	s.SetTopics(h.s.topics)
	for _, e := range h.entries {
		if e.marker {
			s.ReplayEndTxnMarker(e.producerID, e.committed)
		} else {
			s.ReplayRecord(e.offset, e.producerID, e.rec)
		}
	}
	s.Loaded(h.now)
	h.s = s
}

func (h *harness) join(client, member string) protocol.JoinGroupResponse {
	ref := h.do(client, protocol.JoinGroupRequest{GroupID: "g", SessionTimeoutMs: 45000, RebalanceTimeoutMs: 300000,
		MemberID: member, ProtocolType: "consumer", Protocols: []protocol.JoinGroupProtocol{{Name: "range", Metadata: []byte("sub-" + client)}}})
	r, _ := h.replies[ref].(protocol.JoinGroupResponse)
	return r
}

// assignment is a ConsumerProtocolAssignment v0 of topic t's partitions.
func assignment(parts ...int32) []byte {
	b := binary.BigEndian.AppendUint16(nil, 0)
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint16(b, 1)
	b = append(b, 't')
	b = binary.BigEndian.AppendUint32(b, uint32(len(parts)))
	for _, p := range parts {
		b = binary.BigEndian.AppendUint32(b, uint32(p))
	}
	return binary.BigEndian.AppendUint32(b, 0xffffffff)
}

// stableGroupOfTwo runs a classic group g of c1 and c2 to Stable at
// generation 1, c1 leading with t-0, c2 with t-1.
func (h *harness) stableGroupOfTwo() (m1, m2 string) {
	m1 = h.join("c1", "").MemberID
	m2 = h.join("c2", "").MemberID
	r1 := h.do("c1", protocol.JoinGroupRequest{GroupID: "g", SessionTimeoutMs: 45000, RebalanceTimeoutMs: 300000, MemberID: m1,
		ProtocolType: "consumer", Protocols: []protocol.JoinGroupProtocol{{Name: "range", Metadata: []byte("sub-c1")}}})
	r2 := h.do("c2", protocol.JoinGroupRequest{GroupID: "g", SessionTimeoutMs: 45000, RebalanceTimeoutMs: 300000, MemberID: m2,
		ProtocolType: "consumer", Protocols: []protocol.JoinGroupProtocol{{Name: "range", Metadata: []byte("sub-c2")}}})
	h.tick(6000) // group.initial.rebalance.delay.ms, extended once for c2
	j1, _ := h.replies[r1].(protocol.JoinGroupResponse)
	j2, _ := h.replies[r2].(protocol.JoinGroupResponse)
	if j1.Error != protocol.None || j2.Error != protocol.None || j1.GenerationID != 1 || j1.Leader != m1 {
		h.t.Fatalf("joins: %+v %+v", j1, j2)
	}
	s2 := h.do("c2", protocol.SyncGroupRequest{GroupID: "g", GenerationID: 1, MemberID: m2})
	s1 := h.do("c1", protocol.SyncGroupRequest{GroupID: "g", GenerationID: 1, MemberID: m1, Assignments: []protocol.SyncGroupAssignment{
		{MemberID: m1, Assignment: assignment(0)}, {MemberID: m2, Assignment: assignment(1)}}})
	for _, ref := range []uint64{s1, s2} {
		if r, _ := h.replies[ref].(protocol.SyncGroupResponse); r.Error != protocol.None {
			h.t.Fatalf("sync: %+v", h.replies[ref])
		}
	}
	return m1, m2
}
