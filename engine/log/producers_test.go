package log

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/producerstate"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
	"github.com/loglab/loglab/engine/txn/txnindex"
)

// pbatch is an idempotent (or transactional) producer's batch of n
// records starting at sequence seq.
func pbatch(pid int64, epoch int16, seq int32, n int, txn bool) *record.Batch {
	b := &record.Batch{BaseTimestamp: 1000, MaxTimestamp: 1000, ProducerID: pid, ProducerEpoch: epoch, BaseSequence: seq,
		Attributes: record.ComputeAttributes(record.None, record.CreateTime, txn, false)}
	for i := range n {
		b.Records = append(b.Records, record.Record{OffsetDelta: int32(i), Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte("v")})
	}
	return b
}

func marker(pid int64, epoch int16, commit bool, coordinatorEpoch int32) *record.Batch {
	t := record.Abort
	if commit {
		t = record.Commit
	}
	b := record.NewControlBatch(0, 2000, pid, epoch, 0, record.EndTxnMarker{Type: t, CoordinatorEpoch: coordinatorEpoch})
	return &b
}

func mustAppend(t *testing.T, l *Log, b *record.Batch) AppendInfo {
	t.Helper()
	var info AppendInfo
	var err error
	if b.IsControl() {
		info, err = l.AppendAsCoordinator(b, 0)
	} else {
		info, err = l.AppendAsLeader(b, 0)
	}
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func producerError(err error) string {
	var pe producerstate.Error
	if errors.As(err, &pe) {
		return pe.Name
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return ""
}

// Each case appends the setup batches, then one more, and checks what the
// leader answered and that a refused or duplicate batch wrote nothing.
func TestAppendChecksProducerStateBeforeWriting(t *testing.T) {
	cases := []struct {
		name    string // the Kafka method the case mirrors
		setup   []*record.Batch
		batch   *record.Batch
		wantErr string
		wantDup bool
		wantOff int64 // FirstOffset answered
	}{
		{name: "findDuplicateBatch: a retry of the last batch gets its original offsets",
			setup: []*record.Batch{pbatch(7, 0, 0, 2, false), pbatch(7, 0, 2, 3, false)},
			batch: pbatch(7, 0, 2, 3, false), wantDup: true, wantOff: 2},
		{name: "findDuplicateBatch: any of the last 5 batches",
			setup: []*record.Batch{pbatch(7, 0, 0, 1, false), pbatch(7, 0, 1, 1, false), pbatch(7, 0, 2, 1, false)},
			batch: pbatch(7, 0, 0, 1, false), wantDup: true, wantOff: 0},
		{name: "checkSequence: a gap is OUT_OF_ORDER_SEQUENCE_NUMBER",
			setup: []*record.Batch{pbatch(7, 0, 0, 2, false)},
			batch: pbatch(7, 0, 5, 1, false), wantErr: "OUT_OF_ORDER_SEQUENCE_NUMBER"},
		{name: "checkProducerEpoch: an older epoch is INVALID_PRODUCER_EPOCH",
			setup: []*record.Batch{pbatch(7, 3, 0, 1, false)},
			batch: pbatch(7, 2, 1, 1, false), wantErr: "INVALID_PRODUCER_EPOCH"},
		{name: "checkSequence: a new epoch starts at sequence 0",
			setup: []*record.Batch{pbatch(7, 0, 0, 1, false)},
			batch: pbatch(7, 1, 0, 1, false), wantOff: 1},
		{name: "ProducerAppendInfo: a plain batch inside the producer's open transaction is INVALID_TXN_STATE",
			setup: []*record.Batch{pbatch(7, 0, 0, 1, true)},
			batch: pbatch(7, 0, 1, 1, false), wantErr: "INVALID_TXN_STATE"},
		{name: "appendEndTxnMarker: a marker from an older coordinator is TRANSACTION_COORDINATOR_FENCED",
			setup: []*record.Batch{pbatch(7, 0, 0, 1, true), marker(7, 0, true, 5), pbatch(7, 0, 1, 1, true)},
			batch: marker(7, 0, true, 4), wantErr: "TRANSACTION_COORDINATOR_FENCED"},
		{name: "non-idempotent batches (pid -1) are never duplicates",
			setup: []*record.Batch{mkBatch(1000, rec("a", "1"))},
			batch: mkBatch(1000, rec("a", "1")), wantOff: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := openLog(t, storage.NewMem(), DefaultConfig())
			for _, b := range tc.setup {
				mustAppend(t, l, b)
			}
			end, size := l.EndOffset(), l.Size()
			var info AppendInfo
			var err error
			if tc.batch.IsControl() {
				info, err = l.AppendAsCoordinator(tc.batch, 0)
			} else {
				info, err = l.AppendAsLeader(tc.batch, 0)
			}
			if got := producerError(err); got != tc.wantErr {
				t.Fatalf("error %q, want %q", got, tc.wantErr)
			}
			if tc.wantErr != "" || tc.wantDup {
				if l.EndOffset() != end || l.Size() != size {
					t.Fatalf("refused/duplicate batch changed the log: end %d->%d size %d->%d", end, l.EndOffset(), size, l.Size())
				}
			}
			if tc.wantErr == "" && (info.Duplicate != tc.wantDup || info.FirstOffset != tc.wantOff) {
				t.Fatalf("got %+v, want duplicate=%v first offset %d", info, tc.wantDup, tc.wantOff)
			}
		})
	}
}

func TestClientMayNotWriteMarkers(t *testing.T) {
	l := openLog(t, storage.NewMem(), DefaultConfig())
	mustAppend(t, l, pbatch(7, 0, 0, 1, true))
	if _, err := l.AppendAsLeader(marker(7, 0, true, 0), 0); !errors.Is(err, ErrInvalidRecord) {
		t.Fatalf("client marker: %v, want INVALID_RECORD", err)
	}
}

// The LSO: an open transaction holds it at its first offset; after the
// marker it still does until the high watermark passes the marker
// (ProducerStateManager's unreplicatedTxns), then it is the HW.
func TestLastStableOffsetFollowsTransactions(t *testing.T) {
	l := openLog(t, storage.NewMem(), DefaultConfig())
	mustAppend(t, l, mkBatch(1000, rec("a", "1"))) // 0
	mustAppend(t, l, pbatch(7, 0, 0, 2, true))     // 1-2
	mustAppend(t, l, pbatch(8, 0, 0, 1, false))    // 3
	if fuo, ok := l.FirstUnstableOffset(); !ok || fuo != 1 {
		t.Fatalf("first unstable %d %v, want 1", fuo, ok)
	}
	if got := l.LastStableOffset(4); got != 1 {
		t.Fatalf("LSO %d, want 1 (the open transaction's first offset)", got)
	}
	if got := l.LastStableOffset(1); got != 1 {
		t.Fatalf("LSO %d, want the HW 1", got)
	}
	mustAppend(t, l, marker(7, 0, true, 0)) // 4
	if got := l.LastStableOffset(4); got != 1 {
		t.Fatalf("LSO %d with the marker above the HW, want 1", got)
	}
	if got := l.LastStableOffset(5); got != 5 {
		t.Fatalf("LSO %d once the HW passed the marker, want 5", got)
	}
	if _, ok := l.FirstUnstableOffset(); ok {
		t.Fatal("no transaction is unstable any more")
	}
	e := l.Producers()
	if len(e) != 2 || e[0].ProducerID != 7 || e[0].CurrentTxnFirstOffset != -1 || e[1].LastSeq() != 0 {
		t.Fatalf("producers %+v", e)
	}
}

// An ABORT marker that completes a transaction adds an entry to the
// .txnindex of the segment it lands in, with the LSO Kafka computes then
// (the oldest other open transaction's first offset); a fetch reads it back.
func TestAbortWritesTxnIndexReadBackAfterReopen(t *testing.T) {
	fs := storage.NewMem()
	l := openLog(t, fs, DefaultConfig())
	mustAppend(t, l, pbatch(7, 0, 0, 2, true)) // 0-1
	mustAppend(t, l, pbatch(8, 0, 0, 1, true)) // 2
	mustAppend(t, l, marker(7, 0, false, 0))   // 3: abort 7
	mustAppend(t, l, marker(8, 0, true, 0))    // 4: commit 8, no entry
	mustAppend(t, l, pbatch(9, 0, 0, 1, true)) // 5
	mustAppend(t, l, marker(9, 0, false, 0))   // 6: abort 9
	want := []txnindex.AbortedTxn{txnindex.NewAbortedTxn(7, 0, 3, 2), txnindex.NewAbortedTxn(9, 5, 6, 7)}
	if got := l.AbortedTxns(); !slices.Equal(got, want) {
		t.Fatalf("txnindex %v, want %v", got, want)
	}
	f, err := fs.Open(path.Join("orders-0", FileName(0, TxnIndexSuffix)))
	if err != nil {
		t.Fatal(err)
	}
	if f.Size() != 2*txnindex.EntrySize {
		t.Fatalf(".txnindex is %d bytes, want %d", f.Size(), 2*txnindex.EntrySize)
	}
	wantFetch := []protocol.AbortedTransaction{{ProducerID: 7, FirstOffset: 0}}
	if got := l.AbortedTransactions(0, 3); !slices.Equal(got, wantFetch) {
		t.Fatalf("aborted in [0,3) %v, want %v", got, wantFetch)
	}
	if got := l.AbortedTransactions(4, 5); len(got) != 0 {
		t.Fatalf("aborted in [4,5) %v, want none", got)
	}
	l.Close()
	// Reopened without recovery: the index is read from the file.
	l2, _, err := Open(fs, "orders-0", DefaultConfig(), l.EndOffset())
	if err != nil {
		t.Fatal(err)
	}
	if got := l2.AbortedTxns(); !slices.Equal(got, want) {
		t.Fatalf("reopened txnindex %v, want %v", got, want)
	}
}

// A roll writes a snapshot at the new segment's base; reopening without
// recovery loads it (the state it holds is not in the log) and replays
// only what follows; reopening with recovery of that segment rebuilds
// from the log instead.
func TestSnapshotOnRollUsedOnReopen(t *testing.T) {
	fs := storage.NewMem()
	l := openLog(t, fs, DefaultConfig())
	mustAppend(t, l, pbatch(7, 0, 0, 2, false)) // 0-1
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	if got := l.Snapshots(); !slices.Equal(got, []int64{2}) {
		t.Fatalf("snapshots %v, want [2]", got)
	}
	mustAppend(t, l, pbatch(8, 0, 0, 1, false)) // 2
	end := l.EndOffset()
	l.Close()
	// Replace the snapshot by one naming a producer the log never saw.
	fake := producerstate.EncodeSnapshot([]producerstate.Entry{{ProducerID: 99, Epoch: 3, CoordinatorEpoch: -1,
		LastTimestamp: 1000, CurrentTxnFirstOffset: -1, Batches: []producerstate.BatchMetadata{{LastSeq: 4, LastOffset: 1, Timestamp: 1000}}}})
	f, _ := fs.Create(path.Join("orders-0", producerstate.SnapshotFileName(2)))
	f.Write(fake)
	f.Close()

	ids := func(l *Log) []int64 {
		var out []int64
		for _, e := range l.Producers() {
			out = append(out, e.ProducerID)
		}
		return out
	}
	l2, _, err := Open(fs, "orders-0", DefaultConfig(), end)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(l2); !slices.Equal(got, []int64{8, 99}) {
		t.Fatalf("producers after reopen %v, want [8 99] (snapshot at 2 + replay of offset 2)", got)
	}
	l2.Close()
	l3, _, err := Open(fs, "orders-0", DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(l3); !slices.Equal(got, []int64{7, 8}) {
		t.Fatalf("producers after full recovery %v, want [7 8] (rebuilt from the log)", got)
	}
}

// Truncation rebuilds the state: the batches past the cut are forgotten,
// so the producer's retry of them is appended again, not a duplicate; an
// abort cut off leaves its transaction open and its .txnindex entry goes.
func TestTruncationRebuildsProducerState(t *testing.T) {
	fs := storage.NewMem()
	l := openLog(t, fs, smallConfig())
	mustAppend(t, l, pbatch(7, 0, 0, 1, false)) // 0
	mustAppend(t, l, pbatch(8, 0, 0, 1, true))  // 1
	mustAppend(t, l, pbatch(7, 0, 1, 1, false)) // 2
	mustAppend(t, l, marker(8, 0, false, 0))    // 3
	mustAppend(t, l, pbatch(7, 0, 2, 1, false)) // 4
	if len(l.AbortedTxns()) != 1 {
		t.Fatalf("txnindex %v", l.AbortedTxns())
	}
	if err := l.TruncateTo(3); err != nil {
		t.Fatal(err)
	}
	if got := l.AbortedTxns(); len(got) != 0 {
		t.Fatalf("txnindex after truncation %v, want empty", got)
	}
	if fuo, ok := l.FirstUnstableOffset(); !ok || fuo != 1 {
		t.Fatalf("first unstable %d %v, want 1: the abort was cut off", fuo, ok)
	}
	info, err := l.AppendAsLeader(pbatch(7, 0, 2, 1, false), 0)
	if err != nil || info.Duplicate || info.FirstOffset != 3 {
		t.Fatalf("retry of the cut batch: %+v %v, want appended at 3", info, err)
	}
	if _, err := l.AppendAsLeader(pbatch(7, 0, 2, 1, false), 0); err != nil {
		t.Fatal(err)
	}
	for _, off := range l.Snapshots() {
		if off > l.EndOffset() {
			t.Fatalf("snapshot %d beyond the log end %d", off, l.EndOffset())
		}
	}
}

// A crash tears the last batch (a marker): recovery cuts it, replays the
// producer state over the recovered segments and rebuilds their .txnindex
// without the torn abort; snapshots beyond the new end are deleted.
func TestCrashRecoveryRebuildsProducerState(t *testing.T) {
	fs := storage.NewMem()
	l := openLog(t, fs, DefaultConfig())
	mustAppend(t, l, pbatch(7, 0, 0, 1, true))       // 0
	mustAppend(t, l, marker(7, 0, false, 0))         // 1
	mustAppend(t, l, pbatch(8, 0, 0, 2, true))       // 2-3
	info := mustAppend(t, l, marker(8, 0, false, 0)) // 4
	if err := l.Shutdown(); err != nil {
		t.Fatal(err)
	}
	if got := l.Snapshots(); !slices.Equal(got, []int64{5}) {
		t.Fatalf("snapshots after shutdown %v, want [5]", got)
	}
	// Tear the last marker.
	f, _ := fs.Open(path.Join("orders-0", FileName(0, LogSuffix)))
	f.Truncate(info.Position + 10)
	f.Close()
	l2, rep, err := Open(fs, "orders-0", DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Truncated() || l2.EndOffset() != 4 {
		t.Fatalf("recovery %+v, end %d", rep, l2.EndOffset())
	}
	if got := l2.Snapshots(); !slices.Equal(got, []int64{4}) {
		t.Fatalf("snapshots %v, want [4]: the one past the end deleted, one at the rebuilt end written", got)
	}
	want := []txnindex.AbortedTxn{txnindex.NewAbortedTxn(7, 0, 1, 2)}
	if got := l2.AbortedTxns(); !slices.Equal(got, want) {
		t.Fatalf("rebuilt txnindex %v, want %v", got, want)
	}
	// Producer 7's replayed abort stays unstable until a high watermark
	// passes it; producer 8's transaction is open again.
	if fuo, ok := l2.FirstUnstableOffset(); !ok || fuo != 0 {
		t.Fatalf("first unstable %d %v, want 0 before any high watermark", fuo, ok)
	}
	if got := l2.LastStableOffset(4); got != 2 {
		t.Fatalf("LSO %d, want 2: producer 8's abort was torn off", got)
	}
}

// A follower's fetch is checked whole before anything is written: a plain
// batch of a producer inside its open transaction refuses the fetch.
func TestFollowerAppendChecksBeforeWriting(t *testing.T) {
	leader := openLog(t, storage.NewMem(), DefaultConfig())
	mustAppend(t, leader, pbatch(7, 0, 0, 1, false))
	mustAppend(t, leader, pbatch(8, 0, 0, 1, true))
	fd, err := leader.Read(0, 1<<20, leader.EndOffset())
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := fd.Slices[0].Bytes()
	follower := openLog(t, storage.NewMem(), DefaultConfig())
	if _, err := follower.AppendEncoded(raw); err != nil {
		t.Fatal(err)
	}
	if got := follower.Producers(); len(got) != 2 || got[1].CurrentTxnFirstOffset != 1 {
		t.Fatalf("follower producers %+v", got)
	}
	bad := pbatch(8, 0, 1, 1, false)
	bad.BaseOffset = 2
	bad.LastOffsetDelta = 0
	enc, _ := bad.AppendEncoded(nil)
	if _, err := follower.AppendEncoded(enc); producerError(err) != "INVALID_TXN_STATE" || follower.EndOffset() != 2 {
		t.Fatalf("follower append: %v, end %d", err, follower.EndOffset())
	}
}

func TestRemoveExpiredProducers(t *testing.T) {
	l := openLog(t, storage.NewMem(), DefaultConfig())
	mustAppend(t, l, pbatch(7, 0, 0, 1, false)) // timestamp 1000
	mustAppend(t, l, pbatch(8, 0, 0, 1, true))  // open transaction: never expires
	if got := l.RemoveExpiredProducers(1000+5000-1, 5000); len(got) != 0 {
		t.Fatalf("expired %v too early", got)
	}
	if got := l.RemoveExpiredProducers(1000+5000, 5000); !slices.Equal(got, []int64{7}) {
		t.Fatalf("expired %v, want [7]", got)
	}
	// Forgotten: any sequence is accepted again (KIP-360).
	if _, err := l.AppendAsLeader(pbatch(7, 0, 42, 1, false), 0); err != nil {
		t.Fatal(err)
	}
}

// Retention deleting a segment deletes its .txnindex and its snapshot.
func TestRetentionDeletesTxnIndexAndSnapshot(t *testing.T) {
	fs := storage.NewMem()
	l := openLog(t, fs, DefaultConfig())
	mustAppend(t, l, pbatch(7, 0, 0, 1, true))
	mustAppend(t, l, marker(7, 0, false, 0))
	l.Roll() // snapshot at 2
	mustAppend(t, l, pbatch(8, 0, 0, 1, false))
	l.Roll() // snapshot at 3
	mustAppend(t, l, pbatch(8, 0, 1, 1, false))
	if err := l.MaybeIncrementLogStartOffset(3); err != nil {
		t.Fatal(err)
	}
	if _, err := l.DeleteOldSegments(0, l.EndOffset()); err != nil {
		t.Fatal(err)
	}
	names, _ := fs.ReadDir("orders-0")
	for _, n := range names {
		if n == FileName(0, TxnIndexSuffix) || n == producerstate.SnapshotFileName(2) {
			t.Fatalf("%s survived its segment's deletion: %v", n, names)
		}
	}
	if !slices.Contains(names, producerstate.SnapshotFileName(3)) {
		t.Fatalf("the kept segment's snapshot went too: %v", names)
	}
}

// UnifiedLog.maybeIncrementFirstUnstableOffset: when the log start moves
// past where an open transaction began (retention is bounded by the high
// watermark only), the last stable offset is the log start, never below.
func TestLastStableOffsetNotBelowLogStart(t *testing.T) {
	l := openLog(t, storage.NewMem(), DefaultConfig())
	mustAppend(t, l, mkBatch(1000, rec("a", "1"))) // 0
	mustAppend(t, l, pbatch(7, 0, 0, 2, true))     // 1-2: an open transaction
	mustAppend(t, l, pbatch(8, 0, 0, 3, false))    // 3-5
	if got := l.LastStableOffset(6); got != 1 {
		t.Fatalf("LSO %d with the transaction open from offset 1, want 1", got)
	}
	if err := l.MaybeIncrementLogStartOffset(4); err != nil {
		t.Fatal(err)
	}
	if got := l.LastStableOffset(6); got != 4 {
		t.Fatalf("LSO %d after the log start moved to 4, want 4", got)
	}
}

// EachBatch walks whole batches from the one holding from, markers
// included, and stops when told to.
func TestEachBatchWalksBatchesAndMarkers(t *testing.T) {
	l := openLog(t, storage.NewMem(), DefaultConfig())
	mustAppend(t, l, pbatch(7, 0, 0, 3, true)) // 0-2
	marker := record.NewControlBatch(0, 0, 7, 0, 0, record.EndTxnMarker{Type: record.Commit})
	if _, err := l.AppendAsCoordinator(&marker, 0); err != nil { // 3
		t.Fatal(err)
	}
	mustAppend(t, l, pbatch(8, 0, 0, 2, false)) // 4-5
	var seen []string
	walk := func(from, to int64, stopAt int) {
		seen = nil
		if err := l.EachBatch(from, to, func(b *record.Batch) bool {
			seen = append(seen, fmt.Sprintf("%d-%d control=%t", b.BaseOffset, b.LastOffset(), b.IsControl()))
			return len(seen) < stopAt
		}); err != nil {
			t.Fatal(err)
		}
	}
	walk(1, l.EndOffset(), 10)
	if got := strings.Join(seen, " "); got != "0-2 control=false 3-3 control=true 4-5 control=false" {
		t.Fatalf("from 1: %s", got)
	}
	walk(0, 4, 10)
	if got := strings.Join(seen, " "); got != "0-2 control=false 3-3 control=true" {
		t.Fatalf("to 4: %s", got)
	}
	walk(0, l.EndOffset(), 1)
	if len(seen) != 1 {
		t.Fatalf("fn returning false did not stop the walk: %v", seen)
	}
}
