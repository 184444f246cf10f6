package lessons_test

import (
	"context"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
	"github.com/loglab/loglab/lessons"
	"github.com/loglab/loglab/web"
)

// focusElement is one element of a rendered view that carries data-focus.
type focusElement struct {
	Tag, State string
	HasState   bool
}

var (
	startTag = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z_:][-a-zA-Z0-9_:.]*(?:="[^"]*")?)*)\s*/?>`)
	attr     = regexp.MustCompile(`([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:="([^"]*)")?`)
)

// focusElements maps every data-focus value in the HTML to the elements
// carrying it. templ writes every attribute value double-quoted and
// escaped, so a start tag ends at the first '>' outside a value.
func focusElements(doc string) map[string][]focusElement {
	out := map[string][]focusElement{}
	for _, m := range startTag.FindAllStringSubmatch(doc, -1) {
		if !strings.Contains(m[2], "data-focus=") {
			continue
		}
		var form string
		el := focusElement{Tag: m[1]}
		for _, a := range attr.FindAllStringSubmatch(m[2], -1) {
			switch a[1] {
			case "data-focus":
				form = html.UnescapeString(a[2])
			case "data-focus-state":
				el.State, el.HasState = html.UnescapeString(a[2]), true
			}
		}
		out[form] = append(out[form], el)
	}
	return out
}

func render(t *testing.T, c view.Cluster) string {
	t.Helper()
	doc, err := web.RenderString(context.Background(), web.ClusterView(c))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// checkFocusable: every element the page offers to lessons names a form
// of the vocabulary, once, with a state: what makes a lesson's focus line
// find exactly one element.
func checkFocusable(t *testing.T, where string, els map[string][]focusElement) {
	t.Helper()
	for form, list := range els {
		if f, err := lessons.ParseFocus(form); err != nil || f.Form != form {
			t.Errorf("%s: the page has data-focus=%q, not a form of the vocabulary: %v", where, form, err)
		}
		if len(list) != 1 {
			t.Errorf("%s: %d elements carry data-focus=%q, want one", where, len(list), form)
		}
		for _, el := range list {
			if !el.HasState {
				t.Errorf("%s: <%s data-focus=%q> has no data-focus-state", where, el.Tag, form)
			}
		}
	}
}

// TestLessonFocusIsDrawn plays every lesson and, after each step (a goal
// step after its solution), renders the cluster view the learner sees:
// the step's focus must name exactly one element, showing the state the
// lesson says.
func TestLessonFocusIsDrawn(t *testing.T) {
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range all {
		t.Run(l.File, func(t *testing.T) {
			p := lessons.NewPlayer()
			defer p.Close()
			for _, s := range l.Steps {
				p.RunStep(s)
				for _, cmd := range s.Solution {
					p.Run(cmd)
				}
				els := focusElements(render(t, p.Lab.View()))
				checkFocusable(t, fmt.Sprintf("%s step %q", l.File, s.Name), els)
				if s.Focus == "" {
					continue
				}
				switch found := els[s.Focus]; {
				case len(found) == 0:
					t.Errorf("%s:%d: focus %q: the view after step %q draws no such element", l.File, s.FocusLine, s.Focus, s.Name)
				case len(found) > 1:
					t.Errorf("%s:%d: focus %q: %d elements carry it", l.File, s.FocusLine, s.Focus, len(found))
				case s.FocusState != "" && found[0].State != s.FocusState:
					t.Errorf("%s:%d: focus %q: the page draws %q, the lesson says %q", l.File, s.FocusLine, s.Focus, found[0].State, s.FocusState)
				}
			}
		})
	}
}

// TestEveryFocusFormIsDrawn: a view holding something of every kind draws
// one element per form of the vocabulary, with the state README.md gives.
func TestEveryFocusFormIsDrawn(t *testing.T) {
	p := view.Partition{
		Topic: "orders", Index: 0, LogStartOffset: 0, LogEndOffset: 3, HighWatermark: 1, Leader: 2, LeaderEpoch: 4,
		ISR: []int{2, 3}, ShownBroker: 2,
		Replicas: []view.Replica{
			{Broker: 2, Alive: true, Opened: true, Leader: true, InISR: true, LEO: 3, HW: 1, Epoch: 4},
			{Broker: 3, Alive: true, Opened: true, InISR: true, LEO: 1, HW: 1, Epoch: 4},
			{Broker: 1, Alive: false, Opened: true},
		},
		Records:  []view.Record{{Offset: 0, Committed: true, Acked: true}, {Offset: 1, Acked: true}, {Offset: 2}},
		Lost:     []view.Record{{Offset: 5, Acked: true}, {Offset: 7, Acked: true}},
		Segments: []view.Segment{{File: "0.log", NextOffset: 2}, {File: "2.log", BaseOffset: 2, NextOffset: 3, Active: true}},
	}
	c := view.Cluster{
		Exists: true, Brokers: 3, Controllers: 3,
		Topics:      []view.Topic{{Name: "orders", ReplicationFactor: 3, Partitions: []view.Partition{p}}},
		BrokerNodes: []view.Broker{{ID: 1, Node: "b1", Fenced: true}, {ID: 2, Node: "b2", Alive: true, Registered: true}, {ID: 3, Node: "b3", Alive: true, Fenced: true, Registered: true}},
		Quorum:      []view.Controller{{ID: 1, Up: true, Role: "follower", Leader: 2}, {ID: 2, Up: true, Role: "leader"}, {ID: 3, Role: "down"}},
		Checks:      []view.Violation{{Invariant: "acks=1-loss", Detail: "orders/0 offset 5"}, {Invariant: "acks=1-loss", Detail: "orders/0 offset 7"}},

		ActiveController: 2, MetadataOffset: 12, ControllerNode: "ctl",
		QuorumReplication: []view.QuorumReplica{{ID: 2, Status: "Leader", LogEndOffset: 13}, {ID: 1, Status: "Follower", LogEndOffset: 13},
			{ID: 1, Status: "Observer", LogEndOffset: 9, Lag: 4}},
		ClientNodes: []view.Client{
			{Name: "p1", Kind: "producer", Producer: &view.ProducerState{Idempotent: true, TransactionalID: "tx-1", ProducerID: 0, ProducerEpoch: 1, TxnState: "IN_TRANSACTION",
				Sequences: []view.ProducerSequence{{TP: "orders/0", NextSequence: 2, LastAckedSequence: 1}}}},
			{Name: "p2", Kind: "producer", Down: true, Producer: &view.ProducerState{Idempotent: true, ProducerID: -1, ProducerEpoch: -1, TxnState: "UNINITIALIZED"}},
		},
		Transactions: []view.Transaction{
			{ID: "tx-1", State: "Ongoing", ProducerID: 0, ProducerEpoch: 1, TimeoutMs: 60000, StartMs: 1000, DurationMs: 8000,
				Partitions: []string{"orders/0", "orders/1"}, Coordinator: 2, StatePartition: 7},
			{ID: "tx-2", State: "CompleteCommit", ProducerID: 1, ProducerEpoch: 4, TimeoutMs: 60000, StartMs: -1, DurationMs: -1, Coordinator: 3},
		},

		SideEffects: []view.SideEffect{{Consumer: "worker", Input: "orders/0", Offset: 0, Value: "order-0", Times: 1},
			{Consumer: "worker", Input: "orders/0", Offset: 1, Value: "order-1", Times: 2}},

		NowMs: 9000,
		Groups: []view.Group{{
			ID: "billing", Protocol: "classic", State: "Stable", Assignor: "range", Epoch: 3, Coordinator: 2,
			Members: []view.GroupMember{
				{MemberID: "c1-x", Client: "c1", Epoch: 3, Assigned: []string{"orders/0"}, Phase: "stable"},
				{MemberID: "c2-x", Client: "c2", Epoch: 3, Phase: "stable", Colour: 1},
			},
			Partitions: []view.GroupPartition{{TP: "orders/0", Owner: "c1", Committed: 1, LogEnd: 3, Lag: 2}},
			Rebalances: []view.Rebalance{
				{Client: "c1", Protocol: "eager", Start: 1000, End: 4000, PausedFrom: 1000, PausedTo: 4000},
				{Client: "c2", Protocol: "eager", Start: 1000, End: 4000, PausedFrom: 1000, PausedTo: 4000},
			},
			// orders/0: c2 gave it up at 1s, c1 got it 3.012 s later.
			Ownership: []view.PartitionOwnership{{TP: "orders/0", Spans: []view.OwnershipSpan{
				{Owner: "c2", Colour: 1, From: 500, To: 1000}, {Colour: -1, From: 1000, To: 4012}, {Owner: "c1", From: 4012, To: -1}}}},
		}},
	}
	withBatch, withLookup := c, c
	withBatch.Inspector.Batch = &view.BatchDetail{Partition: "orders/0", Fields: []view.Field{{Name: "baseOffset", Value: "2"}}}
	withLookup.Inspector.Lookup = &view.LookupTrace{Partition: "orders/0", Target: 2, Segment: "2.log"}

	want := map[string]string{
		"partition orders/0":                         "2",
		"partition orders/0 leader":                  "2",
		"partition orders/0 epoch":                   "4",
		"partition orders/0 isr":                     "2,3",
		"partition orders/0 hw":                      "1",
		"partition orders/0 log-start":               "0",
		"partition orders/0 log-end":                 "3",
		"partition orders/0 lso":                     "0",
		"partition orders/0 record 0":                "committed",
		"partition orders/0 record 1":                "uncommitted",
		"partition orders/0 lost":                    "5,7",
		"partition orders/0 segments":                "2",
		"partition orders/0 replica 2":               "leader",
		"partition orders/0 replica 3":               "follower",
		"partition orders/0 replica 1":               "down",
		"partition orders/0 replica 2 hw":            "1",
		"partition orders/0 replica 3 leo":           "1",
		"partition orders/0 replica 3 isr":           "true",
		"partition orders/0 replica 1 isr":           "false",
		"broker 1":                                   "down fenced",
		"broker 2":                                   "running",
		"broker 3":                                   "running fenced",
		"controller 1":                               "follower",
		"controller 2":                               "active",
		"controller 3":                               "down",
		"metadata-log":                               "12",
		"quorum-replication":                         "4",
		"violations":                                 "2",
		"group billing":                              "Stable",
		"group billing epoch":                        "3",
		"group billing member c1":                    "orders/0",
		"group billing member c2":                    "none",
		"group billing partition orders/0":           "c1",
		"group billing committed orders/0":           "1",
		"group billing timeline":                     "2",
		"group billing partition orders/0 ownership": "3",
		"producer p1":                                "0/1",
		"producer p1 state":                          "IN_TRANSACTION",
		"producer p2":                                "none",
		"txn tx-1":                                   "Ongoing",
		"txn tx-1 partitions":                        "orders/0,orders/1",
		"txn tx-2":                                   "CompleteCommit",
		"txn tx-2 partitions":                        "none",
		"side-effects worker":                        "1",
	}
	for name, v := range map[string]view.Cluster{"batch": withBatch, "lookup": withLookup} {
		els := focusElements(render(t, v))
		checkFocusable(t, name, els)
		w := map[string]string{"inspector " + name: "2"}
		for k, s := range want {
			w[k] = s
		}
		for form, state := range w {
			switch found := els[form]; {
			case len(found) != 1:
				t.Errorf("%s: %d elements for %q, want one", name, len(found), form)
			case found[0].State != state:
				t.Errorf("%s: %q has state %q, want %q", name, form, found[0].State, state)
			}
		}
	}
	// A down replica draws no offsets: pointing at them is a lesson's
	// mistake the play test reports, not an element with a made-up value.
	if els := focusElements(render(t, c)); len(els["partition orders/0 replica 1 hw"]) != 0 {
		t.Error("a down replica draws a high watermark")
	}
}
