package broker

import (
	"slices"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
)

var tp0 = protocol.TopicPartition{Topic: "t"}

// idempotentBatch is one record of producer pid at sequence seq.
func idempotentBatch(t *testing.T, pid int64, epoch int16, seq int32, txn bool) []byte {
	t.Helper()
	b := record.Batch{Attributes: record.ComputeAttributes(record.None, record.CreateTime, txn, false),
		ProducerID: pid, ProducerEpoch: epoch, BaseSequence: seq, Records: []record.Record{{Value: []byte("v")}}}
	raw, err := b.AppendEncoded(nil)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func (h *harness) send(m sim.Message) {
	h.net.Send(client, h.broker.Node, m)
	h.run(5 * time.Millisecond)
}

func (h *harness) produceResponses() []protocol.ProduceResponse {
	var out []protocol.ProduceResponse
	for _, m := range h.responses {
		if r, ok := m.(protocol.ProduceResponse); ok {
			out = append(out, r)
		}
	}
	return out
}

func (h *harness) lastFetch() protocol.FetchResponse {
	h.t.Helper()
	for i := len(h.responses) - 1; i >= 0; i-- {
		if r, ok := h.responses[i].(protocol.FetchResponse); ok {
			return r
		}
	}
	h.t.Fatalf("no fetch response in %v", h.responses)
	return protocol.FetchResponse{}
}

// A retried batch (same pid, epoch and sequence) is a duplicate: the
// leader writes nothing and answers NONE with the original base offset,
// for acks=all only once the high watermark covers the original
// (UnifiedLog.analyzeAndValidateProducerState + the delayed produce).
func TestDuplicateAnsweredWithOriginalOffsetAfterHW(t *testing.T) {
	h := newHarness(t, []int32{1, 2}, []int32{1, 2}, "2")
	h.send(protocol.ProduceRequest{CorrelationID: 1, Acks: 1, TimeoutMs: 1000, TP: tp0, Records: idempotentBatch(t, 1000, 0, 0, false)})
	h.send(protocol.ProduceRequest{CorrelationID: 2, Acks: -1, TimeoutMs: 5000, TP: tp0, Records: idempotentBatch(t, 1000, 0, 0, false)})
	if got := h.produceResponses(); len(got) != 1 {
		t.Fatalf("the duplicate was answered before the HW covered the original: %+v", got)
	}
	h.fetchAsFollower(2, 1)
	got := h.produceResponses()
	if len(got) != 2 || got[1].CorrelationID != 2 || got[1].Error != protocol.None || got[1].BaseOffset != 0 {
		t.Fatalf("responses %+v, want the retry answered NONE at offset 0", got)
	}
	if end := h.broker.Replica(tp0).Log.EndOffset(); end != 1 {
		t.Fatalf("log end %d: the duplicate was written", end)
	}
}

// Producer-state refusals travel as Kafka's codes.
func TestProduceProducerStateErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		first []byte
		then  []byte
		want  protocol.ErrorCode
	}{
		{"a sequence gap (checkSequence)", idempotentBatch(t, 5, 0, 0, false), idempotentBatch(t, 5, 0, 3, false), protocol.OutOfOrderSequenceNumber},
		{"an older epoch (checkProducerEpoch)", idempotentBatch(t, 5, 2, 0, false), idempotentBatch(t, 5, 1, 1, false), protocol.InvalidProducerEpoch},
		{"a plain batch inside the producer's transaction", idempotentBatch(t, 5, 0, 0, true), idempotentBatch(t, 5, 0, 1, false), protocol.InvalidTxnState},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, []int32{1}, []int32{1}, "1")
			h.send(protocol.ProduceRequest{CorrelationID: 1, Acks: 1, TimeoutMs: 1000, TP: tp0, Records: c.first})
			h.send(protocol.ProduceRequest{CorrelationID: 2, Acks: 1, TimeoutMs: 1000, TP: tp0, Records: c.then})
			got := h.produceResponses()
			if len(got) != 2 || got[1].Error != c.want {
				t.Fatalf("responses %+v, want %s", got, c.want.Name())
			}
		})
	}
}

// The leader verifies a transactional producer's first batch on a
// partition with its coordinator (KIP-890) and appends only on NONE.
func TestTransactionalBatchNeedsVerification(t *testing.T) {
	h := newHarness(t, []int32{1}, []int32{1}, "1")
	r := h.broker.Replica(tp0)
	if !needsTxnVerification(r, mustHeader(t, idempotentBatch(t, 5, 0, 0, true)), "tx") {
		t.Fatal("the first transactional batch must be verified")
	}
	if needsTxnVerification(r, mustHeader(t, idempotentBatch(t, 5, 0, 0, false)), "tx") ||
		needsTxnVerification(r, mustHeader(t, idempotentBatch(t, 5, 0, 0, true)), "") {
		t.Fatal("plain batches and batches without a transactional id are not verified")
	}
	// Sent without its transactional id so it is appended unverified: this
	// harness has no transaction coordinator (__transaction_state), whose
	// verification would refuse it.
	h.send(protocol.ProduceRequest{CorrelationID: 1, Acks: 1, TimeoutMs: 1000, TP: tp0, Records: idempotentBatch(t, 5, 0, 0, true)})
	if needsTxnVerification(r, mustHeader(t, idempotentBatch(t, 5, 0, 1, true)), "tx") {
		t.Fatal("a producer with a transaction open here is not verified again")
	}
	// UnifiedLog.hasOngoingTransaction(producerId, producerEpoch): the next
	// transaction's batch (transaction version 2 bumped the epoch) may
	// arrive before the last one's marker, and starts a new transaction.
	if !needsTxnVerification(r, mustHeader(t, idempotentBatch(t, 5, 1, 0, true)), "tx") {
		t.Fatal("a newer epoch's batch skipped verification while the older epoch's transaction is open here")
	}
}

func mustHeader(t *testing.T, raw []byte) record.BatchHeader {
	h, err := record.ReadHeader(raw)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// read_committed reads below the LSO only; WriteTxnMarkers appends the
// ABORT marker, answers once the HW passed it, and then the fetch carries
// the aborted transaction for the records it returns.
func TestReadCommittedAndWriteTxnMarkers(t *testing.T) {
	h := newHarness(t, []int32{1}, []int32{1}, "1")
	h.send(protocol.ProduceRequest{CorrelationID: 1, Acks: 1, TimeoutMs: 1000, TP: tp0, Records: idempotentBatch(t, 7, 0, 0, false)})
	h.send(protocol.ProduceRequest{CorrelationID: 2, Acks: 1, TimeoutMs: 1000, TP: tp0, Records: idempotentBatch(t, 8, 0, 0, true)})
	r := h.broker.Replica(tp0)
	if r.HW != 2 || r.LastStableOffset() != 1 {
		t.Fatalf("HW %d LSO %d, want 2 and 1", r.HW, r.LastStableOffset())
	}
	fetch := protocol.FetchRequest{CorrelationID: 3, ReplicaID: -1, TP: tp0, CurrentLeaderEpoch: -1, MaxBytes: 1 << 20, IsolationLevel: protocol.ReadCommitted}
	h.send(fetch)
	f := h.lastFetch()
	if f.LastStableOffset != 1 || endOfBatches(f.Records) != 1 {
		t.Fatalf("read_committed got up to %d with LSO %d, want 1 and 1", endOfBatches(f.Records), f.LastStableOffset)
	}
	uncommitted := fetch
	uncommitted.IsolationLevel = protocol.ReadUncommitted
	h.send(uncommitted)
	if f := h.lastFetch(); endOfBatches(f.Records) != 2 || f.LastStableOffset != 1 || len(f.AbortedTransactions) != 0 {
		t.Fatalf("read_uncommitted got up to %d (LSO %d, aborted %v), want 2", endOfBatches(f.Records), f.LastStableOffset, f.AbortedTransactions)
	}

	h.send(protocol.WriteTxnMarkersRequest{CorrelationID: 4, ProducerID: 8, ProducerEpoch: 0, Committed: false,
		Partitions: []protocol.TopicPartition{tp0, {Topic: "nope"}}, CoordinatorEpoch: 0})
	var resp *protocol.WriteTxnMarkersResponse
	for _, m := range h.responses {
		if x, ok := m.(protocol.WriteTxnMarkersResponse); ok {
			resp = &x
		}
	}
	want := []protocol.WriteTxnMarkersPartitionResult{{TP: tp0, Error: protocol.None}, {TP: protocol.TopicPartition{Topic: "nope"}, Error: protocol.UnknownTopicOrPartition}}
	if resp == nil || !slices.Equal(resp.Partitions, want) {
		t.Fatalf("WriteTxnMarkers answered %+v, want %+v", resp, want)
	}
	if r.LastStableOffset() != 3 {
		t.Fatalf("LSO %d after the marker, want 3", r.LastStableOffset())
	}
	fetch.CorrelationID = 5
	h.send(fetch)
	f = h.lastFetch()
	wantAborted := []protocol.AbortedTransaction{{ProducerID: 8, FirstOffset: 1}}
	// (The marker, stamped with the broker's clock, rolled a new segment:
	// this fetch returns the first segment's batches, the aborted one too.)
	if endOfBatches(f.Records) < 2 || !slices.Equal(f.AbortedTransactions, wantAborted) {
		t.Fatalf("read_committed got up to %d aborted %v, want past 2 and %v", endOfBatches(f.Records), f.AbortedTransactions, wantAborted)
	}

	// A stale coordinator's marker is refused with its code.
	h.send(protocol.ProduceRequest{CorrelationID: 6, Acks: 1, TimeoutMs: 1000, TP: tp0, Records: idempotentBatch(t, 8, 0, 1, true)})
	h.send(protocol.WriteTxnMarkersRequest{CorrelationID: 7, ProducerID: 8, ProducerEpoch: 0, Committed: true,
		Partitions: []protocol.TopicPartition{tp0}, CoordinatorEpoch: -5})
	last := h.responses[len(h.responses)-1].(protocol.WriteTxnMarkersResponse)
	if last.Partitions[0].Error != protocol.TransactionCoordinatorFenced {
		t.Fatalf("stale marker answered %v", last.Partitions)
	}
}

// ListOffsets latest for a read_committed client is the LSO.
func TestListOffsetsLatestIsLSOForReadCommitted(t *testing.T) {
	h := newHarness(t, []int32{1}, []int32{1}, "1")
	h.send(protocol.ProduceRequest{CorrelationID: 1, Acks: 1, TimeoutMs: 1000, TP: tp0, Records: idempotentBatch(t, 7, 0, 0, false)})
	h.send(protocol.ProduceRequest{CorrelationID: 2, Acks: 1, TimeoutMs: 1000, TP: tp0, Records: idempotentBatch(t, 8, 0, 0, true)})
	for _, c := range []struct {
		iso  int8
		want int64
	}{{protocol.ReadCommitted, 1}, {protocol.ReadUncommitted, 2}} {
		h.send(protocol.ListOffsetsRequest{CorrelationID: 3, TP: tp0, Timestamp: -1, IsolationLevel: c.iso})
		got := h.responses[len(h.responses)-1].(protocol.ListOffsetsResponse)
		if got.Offset != c.want {
			t.Errorf("isolation %d: latest %d, want %d", c.iso, got.Offset, c.want)
		}
	}
}

// WriteTxnMarkers appends with acks=all semantics: the answer waits until
// the high watermark passes the marker (the follower fetched it).
func TestWriteTxnMarkersWaitsForTheHW(t *testing.T) {
	h := newHarness(t, []int32{1, 2}, []int32{1, 2}, "1")
	h.send(protocol.ProduceRequest{CorrelationID: 1, Acks: 1, TimeoutMs: 1000, TP: tp0, Records: idempotentBatch(t, 8, 0, 0, true)})
	h.send(protocol.WriteTxnMarkersRequest{CorrelationID: 2, ProducerID: 8, ProducerEpoch: 1, Committed: true,
		Partitions: []protocol.TopicPartition{tp0}, TransactionVersion: 2})
	markers := func() []protocol.WriteTxnMarkersResponse {
		var out []protocol.WriteTxnMarkersResponse
		for _, m := range h.responses {
			if r, ok := m.(protocol.WriteTxnMarkersResponse); ok {
				out = append(out, r)
			}
		}
		return out
	}
	if got := markers(); len(got) != 0 {
		t.Fatalf("answered before the follower had the marker: %+v", got)
	}
	h.fetchAsFollower(2, 1) // has the data, not the marker
	if got := markers(); len(got) != 0 {
		t.Fatalf("answered with the HW below the marker: %+v", got)
	}
	h.fetchAsFollower(2, 2)
	got := markers()
	if len(got) != 1 || got[0].Partitions[0].Error != protocol.None {
		t.Fatalf("markers answered %+v, want NONE once the HW passed the marker", got)
	}
	if lso := h.broker.Replica(tp0).LastStableOffset(); lso != 2 {
		t.Fatalf("LSO %d, want 2", lso)
	}
}
