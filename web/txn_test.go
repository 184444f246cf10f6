package web

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/txn/txnlog"
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

// The panel's table of next states is Kafka's (TransactionState's
// validPreviousStates, as the coordinator enforces it), every drawn arrow
// is a transition Kafka allows, and every state is drawn once.
func TestTxnNextIsKafkas(t *testing.T) {
	byName := map[string]txnlog.TransactionState{}
	for _, s := range txnlog.AllStates {
		byName[s.String()] = s
	}
	if len(txnStateNames) != len(txnlog.AllStates) || len(txnBoxes) != len(txnlog.AllStates) {
		t.Fatalf("%d names, %d boxes, Kafka has %d states", len(txnStateNames), len(txnBoxes), len(txnlog.AllStates))
	}
	for i, s := range txnlog.AllStates {
		if txnStateNames[i] != s.String() {
			t.Errorf("state %d is %s, Kafka's is %s", i, txnStateNames[i], s)
		}
	}
	drawn := map[string]bool{}
	for _, b := range txnBoxes {
		if _, ok := byName[b.Name]; !ok || drawn[b.Name] {
			t.Errorf("box %q: not a Kafka state, or drawn twice", b.Name)
		}
		drawn[b.Name] = true
	}
	for _, from := range txnlog.AllStates {
		for _, to := range txnlog.AllStates {
			if from == to {
				continue
			}
			if got, want := allowedNext(from.String(), to.String()), txnlog.ValidTransition(from, to); got != want {
				t.Errorf("%s -> %s: the panel says %v, Kafka %v", from, to, got, want)
			}
		}
	}
	for _, e := range txnEdges {
		if !txnlog.ValidTransition(byName[e.From], byName[e.To]) {
			t.Errorf("the picture draws %s -> %s, which Kafka does not allow", e.From, e.To)
		}
	}
}

func renderTxn(t *testing.T, c view.Cluster) string {
	t.Helper()
	html, err := RenderString(context.Background(), TransactionsPanel(c))
	if err != nil {
		t.Fatal(err)
	}
	return html
}

// A transactional id is drawn on the state machine: its state lit, the
// transition waiting for its __transaction_state record marked, its
// producer, timeout, age, partitions and coordinator spelled out.
func TestTransactionsPanelDrawsTheStateMachine(t *testing.T) {
	c := view.Cluster{
		ClientNodes: []view.Client{
			{Name: "p1", Kind: "producer", Down: true, Producer: &view.ProducerState{Idempotent: true, TransactionalID: "tx-1", ProducerID: -1, ProducerEpoch: -1, TxnState: "UNINITIALIZED"}},
			{Name: "p2", Kind: "producer", Producer: &view.ProducerState{Idempotent: true, TransactionalID: "tx-1", ProducerID: 3, ProducerEpoch: 2, TxnState: "COMMITTING_TRANSACTION"}},
			{Name: "p3", Kind: "producer", Producer: &view.ProducerState{Idempotent: true, TransactionalID: "other", TxnState: "READY"}},
		},
		Transactions: []view.Transaction{
			{ID: "tx-1", State: "Ongoing", PendingState: "PrepareCommit", ProducerID: 3, ProducerEpoch: 2, TimeoutMs: 60000,
				StartMs: 2000, DurationMs: 15000, Partitions: []string{"orders/0", "orders/1"}, Coordinator: 2, StatePartition: 17},
			{ID: "tx-2", Error: "COORDINATOR_LOAD_IN_PROGRESS", ProducerID: -1, ProducerEpoch: -1, StartMs: -1, DurationMs: -1, StatePartition: 4},
			{ID: "tx-3", Error: "TRANSACTIONAL_ID_NOT_FOUND", ProducerID: -1, ProducerEpoch: -1, StartMs: -1, DurationMs: -1, StatePartition: -1},
		},
	}
	html := renderTxn(t, c)
	for _, want := range []string{
		`data-txn="tx-1" data-state="Ongoing" data-pending="PrepareCommit" data-focus="txn tx-1" data-focus-state="Ongoing"`,
		`class="txn-box current" data-txn-state="Ongoing"`,
		`class="txn-box pending" data-txn-state="PrepareCommit"`,
		`class="txn-edge pending" data-from="Ongoing" data-to="PrepareCommit"`,
		`→ PrepareCommit`,
		`producer id <b>3</b> · epoch <b>2</b>`,
		`transaction.timeout.ms <b>60000</b>`,
		en("open for 15s of 60s"), `style="width: 25%;"`,
		en("coordinator broker 2 · __transaction_state/17"),
		`data-focus="txn tx-1 partitions" data-focus-state="orders/0,orders/1"`, `>orders/1</span>`,
		`>p1` + " " + en("crashed"), `>p2 </span>`,
		`Kafka allows next:`, `<b>PrepareCommit, PrepareAbort, PrepareEpochFence</b>`,
		// The id whose coordinator is loading says so instead of a state.
		`data-focus="txn tx-2" data-focus-state="COORDINATOR_LOAD_IN_PROGRESS"`,
		en("no coordinator (__transaction_state/4 has no leader)"),
		en("no coordinator (__transaction_state does not exist yet)"),
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the transactions panel lacks %q", want)
		}
	}
	if strings.Contains(html, ">p3<") {
		t.Error("a producer with another transactional.id is listed")
	}
	if n := strings.Count(html, `class="txn-machine"`); n != 1 {
		t.Errorf("%d state machines drawn, want one (none for the id its coordinator cannot describe)", n)
	}
	// With no pending transition, the states Kafka allows next are lit.
	c.Transactions = c.Transactions[:1]
	c.Transactions[0].PendingState = ""
	html = renderTxn(t, c)
	for _, want := range []string{`class="txn-box next" data-txn-state="PrepareEpochFence"`, `class="txn-edge next" data-from="Ongoing" data-to="PrepareAbort"`} {
		if !strings.Contains(html, want) {
			t.Errorf("without a pending transition the panel lacks %q", want)
		}
	}
	if strings.Contains(html, "txn-box pending") || strings.Contains(html, "edge pending") || strings.Contains(html, "txn-pending") {
		t.Error("a pending transition is drawn that the coordinator does not have")
	}
	// A completed transaction has no age bar and no partitions.
	c.Transactions[0] = view.Transaction{ID: "tx-1", State: "CompleteCommit", ProducerID: 3, ProducerEpoch: 3, TimeoutMs: 60000, StartMs: 2000, DurationMs: 30000}
	html = renderTxn(t, c)
	if strings.Contains(html, "open for") || !strings.Contains(html, `data-focus="txn tx-1 partitions" data-focus-state="none"`) {
		t.Errorf("a completed transaction is drawn as open:\n%s", html)
	}
	// No transactional id, no panel.
	if html := renderTxn(t, view.Cluster{}); html != "" {
		t.Errorf("the panel is drawn with no transactional id: %s", html)
	}
}

// A producer's card draws its TransactionManager: producer id and epoch,
// state, sequences per partition (bounded); a crashed one is drawn down
// with a restart button; one without idempotence says so.
func TestProducerCardDrawsTheTransactionManager(t *testing.T) {
	var seqs []view.ProducerSequence
	for i := range ProducerSequencesShown + 3 {
		seqs = append(seqs, view.ProducerSequence{TP: "orders/" + strconv.Itoa(i), NextSequence: 7, LastAckedSequence: 4, InFlight: 2})
	}
	c := view.Cluster{Exists: true, ControllerNode: "ctl", ClientNodes: []view.Client{
		{Name: "p1", Kind: "producer", Producer: &view.ProducerState{Idempotent: true, TransactionalID: "tx-1", ProducerID: 5, ProducerEpoch: 1, TxnState: "IN_TRANSACTION", Sequences: seqs}},
		{Name: "p2", Kind: "producer", Down: true, Producer: &view.ProducerState{Idempotent: true, ProducerID: -1, ProducerEpoch: -1, TxnState: "UNINITIALIZED"}},
		{Name: "p3", Kind: "producer", Producer: &view.ProducerState{ProducerID: -1, ProducerEpoch: -1}},
		{Name: "c1", Kind: "consumer"},
	}}
	html, err := RenderString(context.Background(), NetworkDiagram(c))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`transactional.id <b>tx-1</b>`,
		`data-focus="producer p1" data-focus-state="5/1"`, `producer id <b>5</b> · epoch <b>1</b>`,
		`data-focus="producer p1 state" data-focus-state="IN_TRANSACTION"`,
		`<tr><td>orders/0</td><td>7</td><td>4</td><td>2</td></tr>`,
		`data-sequences-hidden="3"`,
		`class="node client producer down idempotent" data-node="p2"`, `data-command="producer restart p2"`, en("crashed"),
		`data-focus="producer p2" data-focus-state="none"`, en("no producer id: process gone"),
		`data-command="producer crash p1"`,
		`data-focus="producer p3" data-focus-state="none"`, `enable.idempotence=false`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the network diagram lacks %q", want)
		}
	}
	if strings.Contains(html, "orders/"+strconv.Itoa(ProducerSequencesShown)+"<") {
		t.Error("a sequence row past ProducerSequencesShown is drawn")
	}
	if strings.Contains(html, `data-focus="producer p3 state"`) || strings.Contains(html, `data-focus="producer p2 state"`) {
		t.Error("a producer without idempotence, or crashed, draws a TransactionManager state")
	}
	// The cards are as tall as what they draw: p1's sequence table makes
	// it taller than the consumer's card, and the diagram holds it.
	d := layoutDiagram(c)
	var p1, c1 diagramNode
	for _, n := range d.Nodes {
		switch n.ID {
		case "p1":
			p1 = n
		case "c1":
			c1 = n
		}
	}
	if p1.H <= c1.H || p1.top() != c1.top() || p1.top()+p1.H > d.Height {
		t.Errorf("p1 %+v, c1 %+v, diagram height %v", p1, c1, d.Height)
	}
}
