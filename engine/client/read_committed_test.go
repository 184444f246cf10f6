package client

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
)

// dataBatch is n records at base of producer pid (-1: none), values
// "v<offset>", transactional or not.
func dataBatch(base int64, pid int64, n int, transactional bool) record.Batch {
	b := record.Batch{BaseOffset: base, Attributes: record.ComputeAttributes(record.None, record.CreateTime, transactional, false),
		ProducerID: pid, ProducerEpoch: 0, BaseSequence: 0, LastOffsetDelta: int32(n - 1)}
	if pid < 0 {
		b.ProducerEpoch, b.BaseSequence = -1, -1
	}
	for i := range n {
		b.Records = append(b.Records, record.Record{OffsetDelta: int32(i), Value: []byte("v" + string(rune('0'+int(base)+i)))})
	}
	return b
}

func markerBatch(base, pid int64, commit bool) record.Batch {
	t := record.Abort
	if commit {
		t = record.Commit
	}
	return record.NewControlBatch(base, 0, pid, 0, 0, record.EndTxnMarker{Type: t})
}

func encodeBatches(t *testing.T, bs ...record.Batch) []byte {
	var raw []byte
	for _, b := range bs {
		var err error
		if raw, err = b.AppendEncoded(raw); err != nil {
			t.Fatal(err)
		}
	}
	return raw
}

func offsetsOf(recs []ConsumedRecord) []int64 {
	out := []int64{}
	for _, r := range recs {
		out = append(out, r.Offset)
	}
	return out
}

// TestCompletedFetch mirrors CompletedFetch.nextFetchedRecord /
// nextFetchedBatch (FetcherTest's read_committed cases): control records
// are never returned but the position passes them; read_committed drops
// the batches of a producer from its aborted transaction's first offset to
// its ABORT marker; read_uncommitted returns aborted records too.
func TestCompletedFetch(t *testing.T) {
	// 0-1 producer 7 (aborted), 2 its ABORT, 3-4 producer 8, 5 its COMMIT, 6 plain.
	mixed := []record.Batch{dataBatch(0, 7, 2, true), markerBatch(2, 7, false), dataBatch(3, 8, 2, true), markerBatch(5, 8, true), dataBatch(6, -1, 1, false)}
	cases := []struct {
		name          string
		batches       []record.Batch
		position      int64
		readCommitted bool
		aborted       []protocol.AbortedTransaction
		want          []int64
		next          int64
	}{
		{"read_uncommitted returns aborted records, never markers", mixed, 0, false,
			nil, []int64{0, 1, 3, 4, 6}, 7},
		{"read_committed drops the aborted transaction (testReturnCommittedTransactions / testReadCommittedWithAbortMarker)", mixed, 0, true,
			[]protocol.AbortedTransaction{{ProducerID: 7, FirstOffset: 0}}, []int64{3, 4, 6}, 7},
		{"read_committed without an aborted list keeps everything", mixed, 0, true,
			nil, []int64{0, 1, 3, 4, 6}, 7},
		{"the ABORT marker ends the aborted transaction: the same producer's next one is read (testMultipleAbortMarkers)",
			[]record.Batch{dataBatch(0, 7, 1, true), markerBatch(1, 7, false), dataBatch(2, 7, 2, true), markerBatch(4, 7, true)}, 0, true,
			[]protocol.AbortedTransaction{{ProducerID: 7, FirstOffset: 0}}, []int64{2, 3}, 5},
		{"an aborted transaction becomes active at its first offset, not before",
			[]record.Batch{dataBatch(0, 7, 1, true), markerBatch(1, 7, true), dataBatch(2, 7, 1, true), markerBatch(3, 7, false)}, 0, true,
			[]protocol.AbortedTransaction{{ProducerID: 7, FirstOffset: 2}}, []int64{0}, 4},
		{"only markers: nothing returned, the position passes them (testConsumerPositionUpdatedWhenSkippingAbortedTransactions)",
			[]record.Batch{markerBatch(0, 7, false), markerBatch(1, 8, true)}, 0, true,
			nil, []int64{}, 2},
		{"only an aborted transaction and its marker",
			[]record.Batch{dataBatch(0, 7, 3, true), markerBatch(3, 7, false)}, 0, true,
			[]protocol.AbortedTransaction{{ProducerID: 7, FirstOffset: 0}}, []int64{}, 4},
		{"a fetch from the middle of a batch returns the records from the position", mixed, 4, true,
			[]protocol.AbortedTransaction{{ProducerID: 7, FirstOffset: 0}}, []int64{4, 6}, 7},
		{"two aborted transactions interleaved with a committed one",
			[]record.Batch{dataBatch(0, 7, 1, true), dataBatch(1, 8, 1, true), dataBatch(2, 9, 1, true), markerBatch(3, 8, true),
				markerBatch(4, 7, false), markerBatch(5, 9, false)}, 0, true,
			[]protocol.AbortedTransaction{{ProducerID: 9, FirstOffset: 2}, {ProducerID: 7, FirstOffset: 0}}, []int64{1}, 6},
	}
	for _, c := range cases {
		recs, next := completedFetch(tps(0)[0], encodeBatches(t, c.batches...), c.position, c.readCommitted, c.aborted)
		if got := offsetsOf(recs); !slices.Equal(got, c.want) || next != c.next {
			t.Errorf("%s: got %v next %d, want %v next %d", c.name, got, next, c.want, c.next)
		}
	}
}

// TestIsolationLevelConfig mirrors ConsumerConfig's isolation.level
// definition: read_uncommitted by default, ValidString's message.
func TestIsolationLevelConfig(t *testing.T) {
	cfg := DefaultConsumerConfig()
	if cfg.IsolationLevel != "read_uncommitted" || cfg.Validate() != nil {
		t.Fatalf("default %q: %v", cfg.IsolationLevel, cfg.Validate())
	}
	cfg.IsolationLevel = "read_committed"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	cfg.IsolationLevel = "READ_COMMITTED"
	want := "ConfigException: Invalid value READ_COMMITTED for configuration isolation.level: String must be one of: read_committed, read_uncommitted"
	if err := cfg.Validate(); err == nil || err.Error() != want {
		t.Fatalf("got %v", err)
	}
}

// fakeTxnLeader is broker 1 leading orders/0 whose log holds fixed
// batches with markers: it answers a read_committed fetch up to the last
// stable offset with the aborted list, a read_uncommitted one up to the
// high watermark, and "latest" by isolation level.
type fakeTxnLeader struct {
	t         *testing.T
	net       *sim.Network
	sched     *sim.Scheduler
	batches   []record.Batch
	hw, lso   int64
	aborted   []protocol.AbortedTransaction
	isolation []int8 // of the fetches received
	listed    []int8 // of the ListOffsets received
}

func (f *fakeTxnLeader) handle(env *sim.Envelope) {
	tp := tps(0)[0]
	switch m := env.Msg.(type) {
	case protocol.MetadataRequest:
		f.net.Send(fakeNode, env.From, protocol.MetadataResponse{CorrelationID: m.CorrelationID, Brokers: []int32{1},
			Partitions: []protocol.PartitionMetadata{{TP: tp, Leader: 1}}})
	case protocol.ListOffsetsRequest:
		f.listed = append(f.listed, m.IsolationLevel)
		off := int64(0)
		if m.Timestamp == -1 {
			off = f.hw
			if m.IsolationLevel == protocol.ReadCommitted {
				off = f.lso
			}
		}
		f.net.Send(fakeNode, env.From, protocol.ListOffsetsResponse{CorrelationID: m.CorrelationID, TP: tp, Offset: off})
	case protocol.FetchRequest:
		f.isolation = append(f.isolation, m.IsolationLevel)
		end := f.hw
		if m.IsolationLevel == protocol.ReadCommitted {
			end = f.lso
		}
		resp := protocol.FetchResponse{CorrelationID: m.CorrelationID, TP: tp, HighWatermark: f.hw, LastStableOffset: f.lso}
		var out []record.Batch
		for _, b := range f.batches {
			if b.LastOffset() >= m.FetchOffset && b.LastOffset() < end {
				out = append(out, b)
			}
		}
		if len(out) == 0 {
			f.sched.After(time.Duration(m.MaxWaitMs)*time.Millisecond, "fetch-wait", func() { f.net.Send(fakeNode, env.From, resp) })
			return
		}
		resp.Records = encodeBatches(f.t, out...)
		if m.IsolationLevel == protocol.ReadCommitted {
			resp.AbortedTransactions = f.aborted
		}
		f.net.Send(fakeNode, env.From, resp)
	}
}

func newTxnLeaderTest(t *testing.T) *fakeTxnLeader {
	sched := sim.NewScheduler(&sim.Clock{})
	f := &fakeTxnLeader{t: t, net: sim.NewNetwork(sched), sched: sched}
	f.net.Attach(fakeNode, f.handle)
	// 0-1 aborted (producer 7), 2 ABORT, 3-4 committed (producer 8), 5
	// COMMIT, 6-7 producer 9's open transaction: LSO 6, HW 8.
	f.batches = []record.Batch{dataBatch(0, 7, 2, true), markerBatch(2, 7, false), dataBatch(3, 8, 2, true), markerBatch(5, 8, true), dataBatch(6, 9, 2, true)}
	f.hw, f.lso = 8, 6
	f.aborted = []protocol.AbortedTransaction{{ProducerID: 7, FirstOffset: 0}}
	return f
}

func (f *fakeTxnLeader) consume(isolation, reset string) (*Consumer, []int64) {
	cfg := DefaultConsumerConfig()
	cfg.IsolationLevel, cfg.AutoOffsetReset = isolation, reset
	if err := cfg.Validate(); err != nil {
		f.t.Fatal(err)
	}
	c := NewConsumer("c", cfg, []int32{1}, f.net, f.sched, sim.NewRand(1), func(e string) { f.t.Log(e) })
	c.Assign(tps(0))
	var got []int64
	for range 30 {
		recs, err := c.Poll(0)
		if err != nil {
			f.t.Fatal(err)
		}
		got = append(got, offsetsOf(recs)...)
		if _, err := f.sched.RunUntil(f.sched.Clock.Elapsed()+100*time.Millisecond, 1_000_000); err != nil {
			f.t.Fatal(err)
		}
	}
	return c, got
}

// A read_committed consumer reads only the committed transaction, below
// the LSO, and its position passes the markers and the aborted records;
// read_uncommitted reads everything below the HW.
func TestReadCommittedConsumerSkipsAbortedAndMarkers(t *testing.T) {
	f := newTxnLeaderTest(t)
	c, got := f.consume(ReadCommitted, "earliest")
	if !slices.Equal(got, []int64{3, 4}) {
		t.Fatalf("read_committed read %v, want [3 4]", got)
	}
	if pos := c.Position(tps(0)[0]); pos != 6 {
		t.Fatalf("read_committed position %d, want 6 (past the COMMIT marker, at the LSO)", pos)
	}
	if len(f.isolation) == 0 || slices.ContainsFunc(f.isolation, func(l int8) bool { return l != protocol.ReadCommitted }) {
		t.Fatalf("fetch isolation levels %v", f.isolation)
	}

	f2 := newTxnLeaderTest(t)
	c2, got2 := f2.consume(ReadUncommitted, "earliest")
	if !slices.Equal(got2, []int64{0, 1, 3, 4, 6, 7}) {
		t.Fatalf("read_uncommitted read %v", got2)
	}
	if pos := c2.Position(tps(0)[0]); pos != 8 {
		t.Fatalf("read_uncommitted position %d, want 8", pos)
	}
	if slices.Contains(f2.isolation, protocol.ReadCommitted) {
		t.Fatalf("read_uncommitted fetched with %v", f2.isolation)
	}
}

// auto.offset.reset=latest: a read_committed consumer starts at the LSO
// (ListOffsets with its isolation level), a read_uncommitted one at the HW.
func TestLatestResetByIsolationLevel(t *testing.T) {
	f := newTxnLeaderTest(t)
	f.batches, f.hw, f.lso = nil, 8, 6 // nothing to read: the positions stay where the reset put them
	c, _ := f.consume(ReadCommitted, "latest")
	if pos := c.Position(tps(0)[0]); pos != 6 || !slices.Equal(f.listed, []int8{protocol.ReadCommitted}) {
		t.Fatalf("read_committed latest: position %d, ListOffsets %v", pos, f.listed)
	}
	f2 := newTxnLeaderTest(t)
	f2.batches = nil
	c2, _ := f2.consume(ReadUncommitted, "latest")
	if pos := c2.Position(tps(0)[0]); pos != 8 || !slices.Equal(f2.listed, []int8{protocol.ReadUncommitted}) {
		t.Fatalf("read_uncommitted latest: position %d, ListOffsets %v", pos, f2.listed)
	}
}

// While a transaction's offsets are pending the coordinator answers
// UNSTABLE_OFFSET_COMMIT (the consumer always asks RequireStable): the
// consumer reads nothing from the partition, asks again after
// retry.backoff.ms, and starts from the committed offset once the
// transaction is decided (ConsumerCoordinator's OffsetFetchResponseHandler).
func TestUnstableOffsetCommitIsRetried(t *testing.T) {
	f := newGroupTest(t, 1)
	f.produce(0, 6)
	f.commits[tps(0)[0]] = 4
	f.unstable = 3
	c := f.newConsumer("c1", nil)
	got := f.run(5*time.Second, c)[c]
	if len(got) != 2 || got[0].Offset != 4 {
		t.Fatalf("read %v, want offsets 4 and 5", offsetsOf(got))
	}
	fetches := 0
	for _, k := range f.got {
		if k == "OffsetFetch" {
			fetches++
		}
	}
	if fetches != 4 || f.unstable != 0 {
		t.Fatalf("%d OffsetFetches, want 3 unstable answers then one more", fetches)
	}
	if !slices.ContainsFunc(f.events, func(e string) bool {
		return strings.Contains(e, "still have unstable offsets") && strings.Contains(e, "orders/0")
	}) {
		t.Fatal("the unstable offsets were not traced")
	}
}
