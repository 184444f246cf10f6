package web

import (
	"math"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/view"
)

// The transactions panel's words and geometry, computed here so txn.templ
// only draws. Each transactional id is drawn on Kafka's transaction state
// machine (TransactionState.scala): its state highlighted, the transition
// waiting for its __transaction_state record marked, and the states Kafka
// lets it move to next named.

const (
	// TxnsShown bounds the transactional ids the panel draws; the others
	// are counted (`show txn ID` prints any of them).
	TxnsShown = 8
	// TxnPartitionsShown bounds the partitions a transaction lists.
	TxnPartitionsShown = 16
)

// txnStateNames are the coordinator's eight states, in Kafka's id order.
var txnStateNames = []string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

// txnNext is Kafka 4.x's TransactionState.validPreviousStates turned
// around: the states a transactional id may move to from each state (self
// moves left out: they are no step of the picture). PrepareAbort from
// Empty and the Complete states is transaction version 2 (KIP-890): a
// client unsure whether its last transaction ended may abort again.
// TestTxnNextIsKafkas checks it against the coordinator's table.
var txnNext = map[string][]string{
	"Empty":             {"Ongoing", "PrepareAbort", "Dead"},
	"Ongoing":           {"PrepareCommit", "PrepareAbort", "PrepareEpochFence"},
	"PrepareCommit":     {"CompleteCommit"},
	"PrepareAbort":      {"CompleteAbort"},
	"CompleteCommit":    {"Empty", "Ongoing", "PrepareAbort", "Dead"},
	"CompleteAbort":     {"Empty", "Ongoing", "PrepareAbort", "Dead"},
	"Dead":              nil,
	"PrepareEpochFence": {"PrepareAbort"},
}

// txnBox is one state of the drawn machine, centred at X, Y.
type txnBox struct {
	Name  string
	X, Y  float64
	Title string
}

const (
	txnBoxW, txnBoxH = 138.0, 28.0
	txnMachineW      = 760.0
	txnMachineH      = 196.0
)

// txnBoxes lay the machine out left to right as a transaction lives:
// Empty, Ongoing, then the commit path above and the abort path below,
// with the epoch fence between them.
var txnBoxes = []txnBox{
	{"Empty", 72, 98, "no transaction open: after InitProducerId"},
	{"Ongoing", 292, 98, "AddPartitionsToTxn / AddOffsetsToTxn opened a transaction"},
	{"PrepareCommit", 480, 48, "EndTxn(commit) accepted: the decision is in __transaction_state, COMMIT markers are being written"},
	{"CompleteCommit", 686, 48, "every partition has its COMMIT marker"},
	{"PrepareEpochFence", 480, 98, "a new instance's InitProducerId bumps the epoch of the Ongoing transaction to fence the old producer, then aborts it"},
	{"PrepareAbort", 480, 148, "EndTxn(abort), transaction.timeout.ms or a fence: ABORT markers are being written"},
	{"CompleteAbort", 686, 148, "every partition has its ABORT marker"},
	{"Dead", 72, 148, "transactional.id.expiration.ms passed with no transaction: the id is removed (its tombstone follows)"},
}

// txnEdge is one drawn transition.
type txnEdge struct {
	From, To string
	Path     string
	Back     bool // the next transaction's arc back to Ongoing
	Label    words
	LX, LY   float64
}

// txnEdges are the transitions the picture draws: a transaction's life,
// and the arcs back to Ongoing for the next one. Kafka allows a few more
// (txnNext: Complete* to Empty and Dead, PrepareAbort from the idle
// states); the panel names every allowed next state in words.
var txnEdges = func() []txnEdge {
	box := map[string]txnBox{}
	for _, b := range txnBoxes {
		box[b.Name] = b
	}
	line := func(from, to string, label words, dx, dy float64) txnEdge {
		a, b := box[from], box[to]
		x1, y1 := clipToBox(a, b.X, b.Y)
		x2, y2 := clipToBox(b, a.X, a.Y)
		return txnEdge{From: from, To: to, Path: "M" + num(x1) + "," + num(y1) + " L" + num(x2) + "," + num(y2),
			Label: label, LX: (x1+x2)/2 + dx, LY: (y1+y2)/2 + dy}
	}
	top, bottom := txnBoxes[3].Y-txnBoxH/2, txnBoxes[6].Y+txnBoxH/2
	on := box["Ongoing"]
	return []txnEdge{
		line("Empty", "Ongoing", words{"add partitions", "加入分区"}, 0, -6),
		line("Ongoing", "PrepareCommit", words{"EndTxn commit", "EndTxn 提交"}, -30, -4),
		line("Ongoing", "PrepareEpochFence", words{en: "fence"}, 0, -6),
		line("Ongoing", "PrepareAbort", words{"EndTxn abort · timeout", "EndTxn 中止 · 超时"}, -40, 14),
		line("PrepareEpochFence", "PrepareAbort", words{}, 0, 0),
		line("PrepareCommit", "CompleteCommit", words{"markers", "写 marker"}, 0, -6),
		line("PrepareAbort", "CompleteAbort", words{"markers", "写 marker"}, 0, -6),
		line("Empty", "Dead", words{"expire", "过期"}, 24, 4),
		{From: "CompleteCommit", To: "Ongoing", Back: true, Label: words{"next transaction", "下一个事务"}, LX: 480, LY: 12,
			Path: "M" + num(box["CompleteCommit"].X) + "," + num(top) + " C" + num(box["CompleteCommit"].X) + ",6 " + num(on.X) + ",6 " + num(on.X) + "," + num(on.Y-txnBoxH/2)},
		{From: "CompleteAbort", To: "Ongoing", Back: true, Label: words{"next transaction", "下一个事务"}, LX: 480, LY: txnMachineH - 4,
			Path: "M" + num(box["CompleteAbort"].X) + "," + num(bottom) + " C" + num(box["CompleteAbort"].X) + "," + num(txnMachineH-6) + " " + num(on.X) + "," + num(txnMachineH-6) + " " + num(on.X) + "," + num(on.Y+txnBoxH/2)},
	}
}()

// clipToBox is where the segment from b's centre towards (x, y) leaves b.
func clipToBox(b txnBox, x, y float64) (float64, float64) {
	dx, dy := x-b.X, y-b.Y
	if dx == 0 && dy == 0 {
		return b.X, b.Y
	}
	s := math.Inf(1)
	if dx != 0 {
		s = math.Min(s, (txnBoxW/2+3)/math.Abs(dx))
	}
	if dy != 0 {
		s = math.Min(s, (txnBoxH/2+3)/math.Abs(dy))
	}
	return b.X + dx*s, b.Y + dy*s
}

func (b txnBox) Left() string { return num(b.X - txnBoxW/2) }
func (b txnBox) Top() string  { return num(b.Y - txnBoxH/2) }

// txnBoxClass marks the current state, the one a pending transition goes
// to, and the states Kafka allows next.
func txnBoxClass(t view.Transaction, name string) string {
	switch {
	case name == t.State:
		return "txn-box current"
	case name == t.PendingState:
		return "txn-box pending"
	case t.PendingState == "" && allowedNext(t.State, name):
		return "txn-box next"
	}
	return "txn-box"
}

func txnEdgeClass(t view.Transaction, e txnEdge) string {
	c := "txn-edge"
	if e.Back {
		c += " back"
	}
	switch {
	case e.From == t.State && e.To == t.PendingState:
		c += " pending"
	case e.From == t.State && t.PendingState == "":
		c += " next"
	}
	return c
}

func allowedNext(from, to string) bool {
	for _, s := range txnNext[from] {
		if s == to {
			return true
		}
	}
	return false
}

// txnNextText names the states Kafka lets the id move to from its state.
func txnNextText(t view.Transaction) string {
	next := txnNext[t.State]
	if len(next) == 0 {
		return "none"
	}
	return strings.Join(next, ", ")
}

// txnOpen: the id has a transaction in flight (Ongoing or a Prepare
// state): its partitions, start time and timeout matter now.
func txnOpen(t view.Transaction) bool {
	switch t.State {
	case "Ongoing", "PrepareCommit", "PrepareAbort", "PrepareEpochFence":
		return true
	}
	return false
}

// txnFocusState is what `txn ID` shows: the coordinator's state, or the
// error it answers describe with.
func txnFocusState(t view.Transaction) string {
	if t.Error != "" {
		return t.Error
	}
	return t.State
}

// txnPartitionsFocusState is the partitions drawn as "T/P,T/P" ("…" last
// when some are left out), "none" when the transaction has none.
func txnPartitionsFocusState(t view.Transaction) string {
	parts, hidden := shownTxnPartitions(t)
	if len(parts) == 0 {
		return "none"
	}
	s := strings.Join(parts, ",")
	if hidden > 0 {
		s += ",…"
	}
	return s
}

// focusTxn is a transaction element's focus form: "txn ID" or
// "txn ID partitions".
func focusTxn(t view.Transaction, part string) string {
	if part == "" {
		return "txn " + t.ID
	}
	return "txn " + t.ID + " " + part
}

// txnAgePercent is how much of transaction.timeout.ms the open
// transaction has used, 0 to 100: the coordinator aborts it at 100.
func txnAgePercent(t view.Transaction) int {
	if t.DurationMs < 0 || t.TimeoutMs <= 0 {
		return 0
	}
	return int(min(100, t.DurationMs*100/t.TimeoutMs))
}

// txnProducers are the lab's producers with this transactional.id, the
// crashed ones too: a zombie and its successor share it.
func txnProducers(c view.Cluster, id string) []view.Client {
	var out []view.Client
	for _, cl := range c.ClientNodes {
		if cl.Producer != nil && cl.Producer.TransactionalID == id {
			out = append(out, cl)
		}
	}
	return out
}

// txnCoordinatorWords says which broker coordinates the id, from which
// __transaction_state partition.
func txnCoordinatorWords(t view.Transaction) words {
	if t.StatePartition < 0 {
		return words{"no coordinator (__transaction_state does not exist yet)", "没有 coordinator（__transaction_state 尚不存在）"}
	}
	p := "__transaction_state/" + strconv.Itoa(t.StatePartition)
	if t.Coordinator == 0 {
		return words{"no coordinator (" + p + " has no leader)", "没有 coordinator（" + p + " 没有 leader）"}
	}
	return words{"coordinator broker " + strconv.Itoa(t.Coordinator) + " · " + p, "coordinator 为 broker " + strconv.Itoa(t.Coordinator) + " · " + p}
}

// shownTxnPartitions are the partitions listed and how many are not.
func shownTxnPartitions(t view.Transaction) ([]string, int) {
	n := min(len(t.Partitions), TxnPartitionsShown)
	return t.Partitions[:n], len(t.Partitions) - n
}
