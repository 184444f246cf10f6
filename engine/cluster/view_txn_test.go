package cluster

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

// The strip's tail gives each transactional record the fate its
// producer's marker decides, keeps markers as offsets of their own, and
// leaves a transaction without a marker open.
func TestTailRecordsGiveTransactionsTheirFate(t *testing.T) {
	l, _, err := log.Open(storage.NewMem(), "t-0", log.DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	next := int64(0)
	appendBatch := func(b record.Batch) {
		t.Helper()
		b.BaseOffset = next
		raw, err := b.AppendEncoded(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.AppendEncoded(raw); err != nil {
			t.Fatal(err)
		}
		next = b.NextOffset()
	}
	data := func(pid int64, txn bool, values ...string) record.Batch {
		b := record.Batch{Attributes: record.ComputeAttributes(record.None, record.CreateTime, txn, false),
			ProducerID: pid, ProducerEpoch: 0, BaseSequence: 0, LastOffsetDelta: int32(len(values) - 1)}
		if pid < 0 {
			b.ProducerEpoch, b.BaseSequence = -1, -1
		}
		for i, v := range values {
			b.Records = append(b.Records, record.Record{OffsetDelta: int32(i), Value: []byte(v)})
		}
		return b
	}
	marker := func(pid int64, t record.ControlType) record.Batch {
		return record.NewControlBatch(0, 0, pid, 1, 0, record.EndTxnMarker{Type: t})
	}
	appendBatch(data(3, true, "a1", "a2")) // 0-1 aborted
	appendBatch(data(4, true, "c1"))       // 2 committed
	appendBatch(marker(3, record.Abort))   // 3
	appendBatch(data(-1, false, "plain"))  // 4
	appendBatch(marker(4, record.Commit))  // 5
	appendBatch(data(5, true, "o1"))       // 6 open

	recs, err := tailRecords(l, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%d:%s%s%s", r.Offset, r.Value, r.Control, r.Txn))
	}
	want := "1:a2aborted 2:c1committed 3:ABORT 4:plain 5:COMMIT 6:o1open"
	if strings.Join(got, " ") != want {
		t.Fatalf("tail = %q, want %q", strings.Join(got, " "), want)
	}
	if recs, _ := tailRecords(l, 0, 2); len(recs) != 2 || recs[0].Offset != 5 {
		t.Fatalf("limit 2 keeps %v, want the newest two (offsets 5 and 6)", recs)
	}

	// A log whose last batch is a marker (every committed transaction's
	// partition): the read moves past it and stops, the marker once.
	appendBatch(marker(5, record.Commit)) // 7
	recs, err = tailRecords(l, 6, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Txn != "committed" || recs[1].Control != "COMMIT" || recs[1].Offset != 7 {
		t.Fatalf("tail of a log ending with a marker = %+v, want o1 committed then COMMIT at 7", recs)
	}
}

// A log whose last batch is a marker (every committed or aborted
// transaction's log, once the coordinator wrote it) is read to its end: the
// marker's offset moves the read on like a data batch's does, or the strip
// would read the marker again forever.
func TestTailRecordsEndOnAMarker(t *testing.T) {
	l, _, err := log.Open(storage.NewMem(), "t-0", log.DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range []record.Batch{
		{Attributes: record.ComputeAttributes(record.None, record.CreateTime, true, false), ProducerID: 7, BaseSequence: 0,
			Records: []record.Record{{Value: []byte("t1")}}},
		record.NewControlBatch(0, 0, 7, 1, 0, record.EndTxnMarker{Type: record.Commit}),
	} {
		b.BaseOffset = int64(i)
		raw, err := b.AppendEncoded(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.AppendEncoded(raw); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := tailRecords(l, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Txn != "committed" || recs[1].Control != "COMMIT" {
		t.Fatalf("tail = %+v, want t1 committed then the COMMIT marker", recs)
	}
}
