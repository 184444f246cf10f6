package web

import (
	"context"
	"regexp"
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
		{ID: 3, Up: true, Role: "follower", Leader: 2, Term: 4, LastIndex: 15, CommitIndex: 14, AppliedIndex: 14, SnapshotIndex: 8, MetadataEnd: 15},
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
	for _, want := range []string{`data-role="follower"`, `data-active="false"`, `data-up="true"`, `data-epoch="4"`, `data-high-watermark="14"`, `data-log-end-offset="15"`} {
		if !strings.Contains(alone, want) {
			t.Errorf("controller 3 lacks %s: %s", want, alone)
		}
	}
	for _, want := range []string{
		`data-command="controller restart 1"`, `data-command="controller restart 2"`, `data-command="controller crash 3"`,
		"Follower; its leader 2 is down", "snapshot end offset 8",
		`epoch <b class="c-epoch">4</b>`, `log end offset <b class="c-log-end">15</b> · high watermark <b class="c-high-watermark">14</b>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the quorum panel lacks %q", want)
		}
	}
	for _, unwanted := range []string{`data-command="controller crash 1"`, `data-command="controller restart 3"`, `data-role="leader"`, "active controller</span>",
		// The simulated quorum's metadata end is its log end offset: shown once.
		"c-metadata-end"} {
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
	for _, want := range []string{`<strong class="active-label">controller 3</strong>`, "Leader · active controller</span>", "1 of 3 controllers up"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(html, "no-active-controller") {
		t.Error("an active controller and the no-majority alert at once")
	}
}

// Every KRaft state under Kafka's name, in both languages (Kafka's words
// stay English in the Chinese), and no word of raft's: terms, commit
// indexes, a leadership handed back.
func TestQuorumPanelNamesKRaftStates(t *testing.T) {
	c := failover()
	c.ActiveController = 2
	c.Quorum = []view.Controller{
		{ID: 1, Up: true, Role: "resigned", Leader: 1, Term: 3},
		{ID: 2, Up: true, Role: "leader", Leader: 2, Term: 4},
		{ID: 3, Up: true, Role: "follower", Leader: 2, Term: 4},
		{ID: 4, Up: true, Role: "prospective", Term: 3},
		{ID: 5, Up: true, Role: "unattached", Term: 4},
		{ID: 6, Up: true, Role: "candidate", Term: 5},
		{ID: 7, Up: true, Role: "leader", Leader: 7, Term: 2},
	}
	html := render(t, c)
	for _, want := range []string{
		"Resigned: gave up its epoch, waits for the next election", "Resigned：已放弃它的 epoch，等待下一次选举",
		"Leader · active controller", "Follower of 2", "2 的 Follower",
		"Prospective: asking for pre-votes before it stands", "Prospective：参选前先请求 pre-vote",
		"Unattached: no leader known in its epoch", "Candidate: asking for votes", "Candidate：正在拉票",
		"Leader, but controller 2 is the active controller", "Leader，但 active controller 是 controller 2",
		`data-role="resigned"`, `data-role="prospective"`, `data-role="unattached"`, `data-epoch="5"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	panel := element(t, html, `<article class="quorum"[^>]*>`)
	quorum := html[strings.Index(html, panel):]
	quorum = quorum[:strings.Index(quorum, `<section class="metadata-log"`)]
	if m := raftWords.FindAllString(quorum, -1); m != nil {
		t.Errorf("the quorum panel speaks raft: %q", m)
	}
}

// The active controller crashed and two of three run: KRaft elects only
// after the fetch timeout, so for a while nobody is active with a majority
// up. The panel says the quorum is electing, not that it lacks a
// majority; a partition that leaves every controller on a side without a
// majority is no majority, however many run.
func TestQuorumPanelWhileTheQuorumElects(t *testing.T) {
	c := failover()
	c.ActiveController = 0
	c.Quorum = []view.Controller{
		{ID: 1, Up: true, Role: "prospective", Leader: 3, Term: 1},
		{ID: 2, Up: true, Role: "follower", Leader: 3, Term: 1},
		{ID: 3, Role: "down"},
	}
	html := render(t, c)
	element(t, html, `<article class="quorum electing"[^>]*data-active="0"[^>]*>`)
	alert := element(t, html, `<p class="quorum-alert electing" id="no-active-controller"[^>]*>`)
	if !strings.Contains(alert, `data-reason="electing"`) {
		t.Errorf("the notice: %s", alert)
	}
	for _, want := range []string{"No active controller — the quorum is electing a leader.", "2 of 3 controllers run, a majority",
		"controller.quorum.fetch.timeout.ms", "3 个 controller 中有 2 个在运行", "Follower; its leader 3 is down"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(html, "no majority") {
		t.Error("a majority runs, and the panel says there is none")
	}

	for i := range c.Quorum {
		c.Quorum[i].Up, c.Quorum[i].Isolated = true, true
	}
	html = render(t, c)
	element(t, html, `<article class="quorum no-majority"[^>]*>`)
	for _, want := range []string{`data-reason="no-majority"`, "No active controller — no majority.", "a network partition leaves none of them with a majority (2) on its side"} {
		if !strings.Contains(html, want) {
			t.Errorf("every controller cut off: the page lacks %q", want)
		}
	}
}

// raftWords are hashicorp/raft's words, which KRaft does not use (its
// Raft is in KRaft's name only), and the old panel's notice of raft
// electing on its own.
var raftWords = regexp.MustCompile(`\b([Rr]aft|terms?|commit index|applied|drift|handing back|taking the)\b|任期|已应用|c-term|c-commit|data-term|data-commit`)

// Controllers in their own processes count their log apart from the
// metadata offsets: their cards show the metadata end too.
func TestQuorumPanelShowsARemoteControllersMetadataEnd(t *testing.T) {
	c := failover()
	c.ActiveController = 1
	c.Quorum = []view.Controller{{ID: 1, Up: true, Role: "leader", Leader: 1, Term: 2, LastIndex: 40, CommitIndex: 40, MetadataEnd: 12}}
	if html := render(t, c); !strings.Contains(html, `<b class="c-metadata-end">12</b>`) {
		t.Error("a remote controller's card lacks its metadata end")
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
	for _, want := range []string{"Candidate: cut off from a majority, asking for votes in vain",
		`<span class="state cut isolated" data-cut-from="2,3"`, "cut off from 2,3", `data-cut-from="1"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(render(t, failover()), "cut off from") {
		t.Error("a cut shows without a partition")
	}
}

// The replication rows: every voter and observer with its fetch position,
// a lagging one marked and barred.
func TestQuorumPanelDrawsTheReplication(t *testing.T) {
	c := view.Cluster{Exists: true, ActiveController: 1, Quorum: []view.Controller{{ID: 1, Up: true, Role: "leader", Leader: 1}},
		QuorumReplication: []view.QuorumReplica{{ID: 1, Status: "Leader", LogEndOffset: 12}, {ID: 2, Status: "Follower", LogEndOffset: 12},
			{ID: 1, Status: "Observer", LogEndOffset: 5, Lag: 7}}}
	html := render(t, c)
	for _, want := range []string{`data-node="c1" data-status="Leader"`, `data-node="c2" data-status="Follower"`,
		`data-node="b1" data-status="Observer" data-log-end-offset="5" data-lag="7"`, `class="lag-bar"`, "describe --replication"} {
		if !strings.Contains(html, want) {
			t.Errorf("the panel lacks %s:\n%.3000s", want, html)
		}
	}
	if strings.Count(html, `class="lag-bar"`) != 1 {
		t.Errorf("a bar for a replica that does not lag")
	}
}
