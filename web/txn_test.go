package web

import (
	"context"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// A partition with transactions draws its markers as offsets of their
// own, its aborted and open records distinctly, and the last stable
// offset beside the high watermark, where read_committed readers stop.
func TestPartitionDrawsTransactions(t *testing.T) {
	p := view.Partition{Topic: "orders", Index: 0, LogEndOffset: 6, HighWatermark: 6, LastStableOffset: 4, Leader: 1, ShownBroker: 1,
		Records: []view.Record{
			{Offset: 0, Value: "a", Committed: true, Txn: "aborted", ProducerID: 3},
			{Offset: 1, Committed: true, Control: "ABORT", ProducerID: 3},
			{Offset: 2, Value: "b", Committed: true, Txn: "committed", ProducerID: 3},
			{Offset: 3, Committed: true, Control: "COMMIT", ProducerID: 3},
			{Offset: 4, Value: "c", Committed: true, Txn: "open", ProducerID: 4},
			{Offset: 5, Value: "d", Committed: true},
		}}
	html, err := RenderString(context.Background(), PartitionLog(p, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`data-txn="aborted"`, `txn-aborted`, `data-control="ABORT"`, `class="key control-type">ABORT<`, `pid 3`,
		`txn-open`, `class="lso-divider" aria-label="last stable offset 4"`,
		`data-focus="partition orders/0 lso" data-focus-state="4">4</b>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("rendered partition lacks %q:\n%s", want, html)
		}
	}
	// The LSO divider sits between offsets 3 and 4, the HW one after 5.
	lso, four := strings.Index(html, `class="lso-divider"`), strings.Index(html, `data-offset="4"`)
	three := strings.Index(html, `data-offset="3"`)
	if !(three < lso && lso < four) {
		t.Errorf("the LSO divider is not between offsets 3 and 4 (at %d, offsets at %d and %d)", lso, three, four)
	}

	// Without transactions nothing about them is drawn.
	plain := view.Partition{Topic: "orders", LogEndOffset: 1, HighWatermark: 1, LastStableOffset: 1, Leader: 1, ShownBroker: 1,
		Records: []view.Record{{Offset: 0, Value: "a", Committed: true}}}
	html, err = RenderString(context.Background(), PartitionLog(plain, nil))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, "lso") || strings.Contains(html, "last stable") {
		t.Errorf("a partition without transactions shows the LSO:\n%s", html)
	}
}
