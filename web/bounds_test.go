package web

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// worstView is a cluster at every size the engine allows and more: the
// most partitions, brokers as replicas, long keys and values, thousands of
// segments, index entries, lost records, violations, and an opened batch
// of a megabyte. The parts are shared between partitions: only what is
// drawn is read.
func worstView() view.Cluster {
	long := strings.Repeat("é", 2000) // 4,000 bytes, two per character
	var segments []view.Segment
	index := make([]view.IndexEntry, 5000)
	for i := range index {
		index[i] = view.IndexEntry{Offset: int64(i), Position: int64(i) * 4096}
	}
	for i := range 500 {
		segments = append(segments, view.Segment{File: strconv.Itoa(i) + ".log", Size: 1 << 30, Index: index, Active: i == 499})
	}
	var records, lost []view.Record
	for i := range 1000 {
		r := view.Record{Offset: int64(i), Key: long, Value: long, Acked: true}
		lost = append(lost, r)
		if i < view.RecordsShown {
			records = append(records, r)
		}
	}
	var replicas []view.Replica
	for b := 1; b <= 9; b++ {
		replicas = append(replicas, view.Replica{Broker: b, Alive: true, Opened: true, InISR: true, LEO: 1000})
	}
	p := view.Partition{Topic: long[:200], Replicas: replicas, Records: records, Lost: lost, Segments: segments, LogEndOffset: 1000, HighWatermark: 500, ShownBroker: 1, Leader: 1}
	var partitions []view.Partition
	for i := range 64 {
		p.Index = i
		partitions = append(partitions, p)
	}
	c := view.Cluster{Exists: true, Brokers: 9, Controllers: 5}
	for range 4 {
		c.Topics = append(c.Topics, view.Topic{Name: long[:200], ReplicationFactor: 9, Partitions: partitions})
	}
	for i := range 10000 {
		c.Checks = append(c.Checks, view.Violation{At: strconv.Itoa(i) + "ms", Invariant: "acked-record-lost", Detail: long})
	}
	batch := &view.BatchDetail{Partition: "orders/0", Size: 1 << 20, Valid: true}
	cells := make([]view.HexCell, 16)
	for i := range cells {
		cells[i] = view.HexCell{Hex: "ab", Field: -1}
	}
	for off := 0; off < 1<<20; off += 16 {
		batch.Hex = append(batch.Hex, view.HexRow{Offset: off, Cells: cells})
	}
	for i := range 10000 {
		batch.Records = append(batch.Records, view.RecordDetail{Offset: int64(i), Key: long, Value: long, Headers: long})
	}
	c.Inspector.Batch = batch
	var seqs []view.ProducerSequence
	var tps []string
	for i := range 1000 {
		seqs = append(seqs, view.ProducerSequence{TP: long[:200] + "/" + strconv.Itoa(i), NextSequence: 1 << 30})
		tps = append(tps, long[:200]+"/"+strconv.Itoa(i))
	}
	for i := range 20 {
		c.ClientNodes = append(c.ClientNodes, view.Client{Name: "p" + strconv.Itoa(i), Kind: "producer",
			Producer: &view.ProducerState{Idempotent: true, TransactionalID: long, ProducerID: 1 << 40, TxnState: "IN_TRANSACTION", Sequences: seqs}})
	}
	for i := range 1000 {
		c.Transactions = append(c.Transactions, view.Transaction{ID: long[:200] + strconv.Itoa(i), State: "Ongoing", PendingState: "PrepareCommit",
			ProducerID: 1 << 40, TimeoutMs: 900000, DurationMs: 1 << 40, Partitions: tps, Coordinator: 9})
	}
	return c
}

// However large the cluster's logs, the view every page receives after
// every command stays within MaxViewBytes: the bytes stay reachable
// through commands (show log, show batch), not through the drawing.
func TestViewStaysBounded(t *testing.T) {
	html, err := RenderString(context.Background(), ClusterView(worstView()))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the largest view: %d bytes", len(html))
	if len(html) > MaxViewBytes {
		t.Fatalf("view of %d bytes, over MaxViewBytes (%d)", len(html), MaxViewBytes)
	}
	for _, want := range []string{
		`data-segments-hidden="494"`, `data-lost-hidden="990"`, `data-violations-hidden="9980"`,
		`data-partitions-hidden="40"`, `data-partitions-hidden="64"`, `data-hex-rows-hidden="65516"`, "… 9980 more records …",
		"… (4000 bytes)", `data-txns-hidden="992"`, `data-partitions-hidden="984"`, `data-sequences-hidden="996"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the view does not say what it left out: no %s", want)
		}
	}
}

func TestCutTextKeepsWholeCharacters(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 8, "short"},
		{"exactly8", 8, "exactly8"},
		{"abcdefghij", 4, "abcd… (10 bytes)"},
		{"aéé", 2, "a… (5 bytes)"}, // byte 2 is inside the first é
		{"ééé", 4, "éé… (6 bytes)"},
	} {
		if got := cutText(tc.in, tc.n); got != tc.want {
			t.Errorf("cutText(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestIndexTicksSpreadOverTheSegment(t *testing.T) {
	s := view.Segment{}
	for i := range 100 {
		s.Index = append(s.Index, view.IndexEntry{Offset: int64(i)})
	}
	ticks := indexTicks(s)
	if len(ticks) != IndexTicksShown || ticks[0].Offset != 0 || ticks[len(ticks)-1].Offset != 99 {
		t.Fatalf("ticks %v: want %d from the first entry to the last", ticks, IndexTicksShown)
	}
}
