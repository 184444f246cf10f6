package web

import (
	"context"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// noMajority is the failover cluster after controllers 1 and 2 crashed:
// controller 3 runs alone, still naming 2 as its leader, and no metadata
// can be committed. Broker 2 crashed earlier and missed records 9 and 10.
func noMajority() view.Cluster {
	c := failover()
	c.Quorum = []view.Controller{
		{ID: 1, Role: "down"},
		{ID: 2, Role: "down"},
		{ID: 3, Up: true, Role: "follower", Leader: 2, Term: 4, LastIndex: 14, CommitIndex: 14, AppliedIndex: 14, SnapshotIndex: 8, MetadataEnd: 11},
	}
	c.ActiveController = 0
	c.MetadataRecords = []string{
		"9 FenceBroker brokerId=2 brokerEpoch=2",
		"10 PartitionChange orders/0 leader=3 leaderEpoch=1 partitionEpoch=1 isr=3,1",
	}
	return c
}

func TestQuorumPanelWithoutAMajority(t *testing.T) {
	html := render(t, noMajority())
	panel := element(t, html, `<article class="quorum no-majority"[^>]*>`)
	for _, want := range []string{`id="quorum"`, `data-active="0"`, `data-metadata-offset="10"`} {
		if !strings.Contains(panel, want) {
			t.Errorf("the panel lacks %s: %s", want, panel)
		}
	}
	for _, want := range []string{
		`id="no-active-controller"`, "No active controller — no majority.",
		"1 of 3 controllers run and 2 are needed",
		// The diagram's controller node says nobody leads.
		`<strong class="active-label">` + en("no controller"),
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	element(t, html, `<div class="node controller none"[^>]*data-active="0"[^>]*>`)

	down := element(t, html, `<div class="node controller-card role-down down"[^>]*data-controller="2"[^>]*>`)
	for _, want := range []string{`data-role="down"`, `data-up="false"`} {
		if !strings.Contains(down, want) {
			t.Errorf("controller 2 lacks %s: %s", want, down)
		}
	}
	alone := element(t, html, `<div class="node controller-card role-follower"[^>]*data-controller="3"[^>]*>`)
	for _, want := range []string{`data-role="follower"`, `data-active="false"`, `data-up="true"`, `data-term="4"`, `data-commit-index="14"`} {
		if !strings.Contains(alone, want) {
			t.Errorf("controller 3 lacks %s: %s", want, alone)
		}
	}
	for _, want := range []string{
		`data-command="controller restart 1"`, `data-command="controller restart 2"`, `data-command="controller crash 3"`,
		"follower; its leader 2 is down", "snapshot at index 8", `<b class="c-metadata-end">11</b>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the quorum panel lacks %q", want)
		}
	}
	for _, unwanted := range []string{`data-command="controller crash 1"`, `data-command="controller restart 3"`, `data-role="leader"`, "active controller</span>"} {
		if strings.Contains(html, unwanted) {
			t.Errorf("the quorum panel shows %q", unwanted)
		}
	}

	// The metadata log, oldest first, offsets in their own column, the
	// records before the ones carried counted.
	for _, want := range []string{
		`<li class="meta-hidden">` + en("… 9 older records"),
		`<li class="meta-record" data-offset="9" data-type="FenceBroker"><span class="meta-offset">9</span>`,
		`<li class="meta-record newest" data-offset="10" data-type="PartitionChange">`,
		`<span class="meta-detail">orders/0 leader=3 leaderEpoch=1 partitionEpoch=1 isr=3,1</span>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the metadata log lacks %q", want)
		}
	}
	if strings.Index(html, `data-offset="9" data-type`) > strings.Index(html, `data-offset="10" data-type`) {
		t.Error("the metadata log is not oldest first")
	}
}

func TestQuorumPanelNamesTheActiveController(t *testing.T) {
	c := noMajority()
	c.ActiveController = 3
	c.Quorum[2].Role, c.Quorum[2].Leader = "leader", 3
	html := render(t, c)
	element(t, html, `<article class="quorum"[^>]*data-active="3"[^>]*>`)
	element(t, html, `<div class="node controller-card role-leader active"[^>]*data-controller="3"[^>]*data-role="leader"[^>]*data-active="true"[^>]*>`)
	for _, want := range []string{`<strong class="active-label">controller 3</strong>`, "active controller</span>", "1 of 3 controllers up"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(html, "no-active-controller") {
		t.Error("an active controller and the no-majority alert at once")
	}
}

// The cluster hands the controller job over only when a controller crashes
// or restarts; should raft elect a leader on its own between the view
// taking the leadership back and reading the quorum, the panel says
// plainly what happened and that the leadership goes back, rather than
// showing "active controller, raft follower" beside "raft leader, not
// active yet" without a word.
func TestQuorumPanelWhenRaftAndTheClusterDisagree(t *testing.T) {
	c := noMajority()
	c.ActiveController = 1
	c.Quorum[0] = view.Controller{ID: 1, Up: true, Role: "follower", Leader: 3, Term: 5}
	c.Quorum[2].Role, c.Quorum[2].Leader, c.Quorum[2].Term = "leader", 3, 5
	html := render(t, c)
	element(t, html, `<div class="node controller-card role-follower active"[^>]*data-controller="1"[^>]*data-active="true"[^>]*>`)
	element(t, html, `<div class="node controller-card role-leader"[^>]*data-controller="3"[^>]*data-active="false"[^>]*>`)
	for _, want := range []string{"active controller, taking the raft leadership back from 3", "raft leader on its own, handing back to 1",
		`<strong class="active-label">controller 1</strong>`, `id="raft-drift"`, `data-raft-leader="3"`,
		"Raft elected controller 3 on its own.", "controller 1 stays the active controller and gets the raft leadership back"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, unwanted := range []string{"raft leader, not active yet", "active controller, raft follower"} {
		if strings.Contains(html, unwanted) {
			t.Errorf("the page shows %q", unwanted)
		}
	}
	if html := render(t, failover()); strings.Contains(html, "raft-drift") {
		t.Error("the drift notice shows while raft and the cluster agree")
	}
}

// A broker that has not replayed every committed metadata record says so
// on its card; one that has does not.
func TestBrokerCardsShowTheirMetadataOffset(t *testing.T) {
	html := render(t, noMajority()) // cluster offset 10; broker 2 at 8
	behind := element(t, html, `<div class="node-line metadata behind"[^>]*>`)
	for _, want := range []string{`data-metadata-offset="8"`, `data-metadata-behind="true"`} {
		if !strings.Contains(behind, want) {
			t.Errorf("broker 2's metadata line lacks %s: %s", want, behind)
		}
	}
	for _, want := range []string{"metadata 8/10", `>−2</span>`, "2 committed metadata records not replayed yet", "metadata 10/10"} {
		if !strings.Contains(html, want) {
			t.Errorf("the broker cards lack %q", want)
		}
	}
	if n := strings.Count(html, `data-metadata-behind="false"`); n != 2 {
		t.Errorf("%d brokers up to date on metadata, want 2", n)
	}
}

func TestEmptyMetadataLog(t *testing.T) {
	html, err := RenderString(context.Background(), MetadataLog(view.Cluster{MetadataOffset: -1}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html, "no metadata committed yet") || strings.Contains(html, "meta-hidden") {
		t.Errorf("empty metadata log: %s", html)
	}
}

func TestParseMetadataRecord(t *testing.T) {
	for in, want := range map[string]metadataRecord{
		"12 PartitionChange orders/1 leader=3": {"12", "PartitionChange", "orders/1 leader=3"},
		"0 Topic name=orders partitions=3":     {"0", "Topic", "name=orders partitions=3"},
		"Snapshot":                             {"", "Snapshot", ""},
	} {
		if got := parseMetadataRecord(in); got != want {
			t.Errorf("parseMetadataRecord(%q) = %+v, want %+v", in, got, want)
		}
	}
}

// A controller cut off by a network partition says from whom, and that it
// asks for votes in vain when it reaches no majority.
func TestQuorumPanelShowsAControllerCutOff(t *testing.T) {
	c := failover()
	c.ActiveController = 2
	c.Quorum = []view.Controller{
		{ID: 1, Up: true, Role: "candidate", Term: 2, CutFrom: []int{2, 3}, Isolated: true},
		{ID: 2, Up: true, Role: "leader", Leader: 2, Term: 3, CutFrom: []int{1}},
		{ID: 3, Up: true, Role: "follower", Leader: 2, Term: 3, CutFrom: []int{1}},
	}
	html := render(t, c)
	card := element(t, html, `<div class="node controller-card role-candidate"[^>]*data-controller="1"[^>]*>`)
	if !strings.Contains(card, `data-role="candidate"`) {
		t.Errorf("controller 1: %s", card)
	}
	for _, want := range []string{"candidate: cut off from a majority, asking for votes in vain",
		`<span class="state cut isolated" data-cut-from="2,3"`, "cut off from 2,3", `data-cut-from="1"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(render(t, failover()), "cut off from") {
		t.Error("a cut shows without a partition")
	}
}
