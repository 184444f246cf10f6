package web

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// twoGroups is one event seen by two groups side by side: at 10s consumer
// c3 joins both. "billing" is a classic group with the eager range
// assignor: c1 and c2 revoke everything and consume nothing for 3012 ms
// (group.initial.rebalance.delay.ms does not apply to a non-empty group:
// the wait is the JoinGroup round). "audit" is a KIP-848 group: c4 keeps
// orders/0 while it revokes orders/1, which c5 will get once c4 gives it
// up; nobody pauses. The orders topic's partitions carry both groups'
// owner badges; __consumer_offsets has 50 partitions of which the two
// coordinators' partitions hold data.
func twoGroups() view.Cluster {
	c := failover()
	c.NowMs = 16000
	orders := c.Topics[0]
	orders.Partitions = nil
	for i := range 3 {
		orders.Partitions = append(orders.Partitions, view.Partition{Topic: "orders", Index: i, Leader: 1, LeaderEpoch: 0, LogEndOffset: int64(10 * (i + 1)), HighWatermark: int64(10 * (i + 1)), ISR: []int{1}})
	}
	offsets := view.Topic{Name: "__consumer_offsets", Internal: true, ReplicationFactor: 3}
	for i := range 50 {
		p := view.Partition{Topic: "__consumer_offsets", Index: i, Leader: 1 + i%3, ISR: []int{1, 2, 3}}
		if i == 12 || i == 31 {
			p.LogEndOffset, p.HighWatermark = 7, 7
		}
		offsets.Partitions = append(offsets.Partitions, p)
	}
	c.Topics = []view.Topic{offsets, orders}
	c.Groups = []view.Group{
		{
			ID: "billing", Protocol: "classic", State: "Stable", Assignor: "range", Epoch: 3,
			Coordinator: 1, OffsetsPartition: 12,
			Members: []view.GroupMember{
				{MemberID: "c1-5b3e1f0c-9d2a-4c4e-8f00-1a2b3c4d5e6f", Client: "c1", Epoch: 3, Assigned: []string{"orders/0"}, Phase: "stable", Colour: 0,
					Metrics: []view.Metric{{Name: "rebalance-latency-avg", Value: "3012.0"}, {Name: "rebalance-total", Value: "2"}, {Name: "commit-rate", Value: "0.2"}}},
				{MemberID: "c2-77aa01bc-0000-4000-8000-000000000002", Client: "c2", InstanceID: "billing-2", Epoch: 3, Assigned: []string{"orders/1"}, Phase: "stable", Colour: 1},
				{MemberID: "c3-0c0ffee0-0000-4000-8000-000000000003", Client: "c3", Epoch: 3, Assigned: []string{"orders/2"}, Phase: "stable", Colour: 2},
			},
			Partitions: []view.GroupPartition{
				{TP: "orders/0", Owner: "c1", Colour: 0, Committed: 8, LogEnd: 10, Lag: 2},
				{TP: "orders/1", Owner: "c2", Colour: 1, Committed: 20, LogEnd: 20, Lag: 0},
				// The view's Colour disagrees with c3's: the member's wins.
				{TP: "orders/2", Owner: "c3", Colour: 5, Committed: -1, LogEnd: 30, Lag: -1},
			},
			Rebalances: []view.Rebalance{
				{Client: "c1", Protocol: "eager", Start: 10000, End: 13012, PausedFrom: 10000, PausedTo: 13012, Revoked: []string{"orders/0", "orders/1"}, Assigned: []string{"orders/0"}, Reason: "member c3 joined"},
				{Client: "c2", Protocol: "eager", Start: 10000, End: 13012, PausedFrom: 10000, PausedTo: 13012, Revoked: []string{"orders/2"}, Assigned: []string{"orders/1"}, Reason: "member c3 joined"},
				{Client: "c3", Protocol: "eager", Start: 10000, End: 13012, PausedFrom: -1, PausedTo: -1, Assigned: []string{"orders/2"}, Reason: "joined"},
			},
		},
		{
			ID: "audit", Protocol: "consumer", State: "Reconciling", Assignor: "uniform", Epoch: 5, AssignmentEpoch: 5,
			Coordinator: 3, OffsetsPartition: 31,
			Members: []view.GroupMember{
				{MemberID: "Xw3vQ9hZT1GJk0pQm2y8Aa", Client: "c4", Epoch: 5, Assigned: []string{"orders/0"}, Revoking: []string{"orders/1"}, Phase: "reconciling", Colour: 3},
				{MemberID: "p0Lk8s7dR2eHq1aZb9c4Dw", Client: "c5", Epoch: 5, Phase: "reconciling", Colour: 4},
			},
			Partitions: []view.GroupPartition{
				{TP: "orders/0", Owner: "c4", Colour: 3, Committed: 10, LogEnd: 10, Lag: 0},
				{TP: "orders/1", Owner: "c4", Colour: 3, Committed: 4, LogEnd: 20, Lag: 16},
				{TP: "orders/2", Colour: -1, Committed: -1, LogEnd: 30, Lag: -1},
			},
			Rebalances: []view.Rebalance{
				{Client: "c4", Protocol: "consumer", Start: 10000, End: -1, PausedFrom: -1, PausedTo: -1, Revoked: []string{"orders/1"}, Reason: "member c5 joined"},
				{Client: "c5", Protocol: "consumer", Start: 10000, End: -1, PausedFrom: -1, PausedTo: -1},
			},
		},
	}
	return c
}

// startTags returns every start tag matching re.
func startTags(html, re string) []string {
	return regexp.MustCompile(re).FindAllString(html, -1)
}

func attrOf(tag, name string) string {
	m := regexp.MustCompile(`\s` + regexp.QuoteMeta(name) + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	return m[1]
}

// focusStates maps every data-focus on the page to its data-focus-state,
// failing on a form drawn twice.
func focusStates(t *testing.T, html string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tag := range startTags(html, `<[a-z][a-z0-9]*\s[^>]*data-focus="[^"]*"[^>]*>`) {
		form := attrOf(tag, "data-focus")
		if _, dup := out[form]; dup {
			t.Errorf("two elements carry data-focus=%q", form)
		}
		out[form] = attrOf(tag, "data-focus-state")
	}
	return out
}

func TestGroupPanelsShowWhatTheCoordinatorHolds(t *testing.T) {
	html := render(t, twoGroups())
	focus := focusStates(t, html)
	for form, state := range map[string]string{
		"group billing":                    "Stable",
		"group billing epoch":              "3",
		"group billing member c1":          "orders/0",
		"group billing member c3":          "orders/2",
		"group billing partition orders/2": "c3",
		"group billing committed orders/0": "8",
		"group billing committed orders/2": "none",
		"group billing timeline":           "3",
		"group audit":                      "Reconciling",
		"group audit epoch":                "5",
		// c4 keeps orders/0 and is giving orders/1 up: only what it keeps.
		"group audit member c4":          "orders/0",
		"group audit member c5":          "none",
		"group audit partition orders/1": "c4",
		"group audit partition orders/2": "none",
		"group audit committed orders/1": "4",
		"group audit timeline":           "2",
	} {
		got, ok := focus[form]
		switch {
		case !ok:
			t.Errorf("no element carries data-focus=%q", form)
		case got != state:
			t.Errorf("%q has state %q, want %q", form, got, state)
		}
	}

	billing := element(t, html, `<article class="group protocol-classic"[^>]*>`)
	audit := element(t, html, `<article class="group protocol-consumer"[^>]*>`)
	for tag, want := range map[string]string{billing: `data-group="billing"`, audit: `data-state="Reconciling"`} {
		if !strings.Contains(tag, want) {
			t.Errorf("%s lacks %s", tag, want)
		}
	}
	for _, want := range []string{
		// The header: the generation for classic, the group and
		// assignment epochs for consumer, the coordinator and its partition.
		"generation", "group epoch", `<b class="group-assignment-epoch">5</b>`,
		"coordinator broker 1 · __consumer_offsets/12", "coordinator broker 3 · __consumer_offsets/31",
		`<b class="group-assignor">range</b>`, `<b class="group-assignor">uniform</b>`,
		// Members: the id cut, whole in its title; the static one's instance id.
		`<code class="member-id" title="c1-5b3e1f0c-9d2a-4c4e-8f00-1a2b3c4d5e6f">c1-5b3e1f0c-…</code>`,
		`<code class="member-id" title="Xw3vQ9hZT1GJk0pQm2y8Aa">Xw3vQ9hZT1GJ…</code>`,
		`<code>billing-2</code>`, "member epoch 5", "generation 3",
		// Metrics by Kafka's names, the four always, "-" where none.
		`<div class="metric" data-metric="rebalance-total"><dt>rebalance-total</dt><dd>2</dd></div>`,
		`<div class="metric" data-metric="rebalance-latency-avg"><dt>rebalance-latency-avg</dt><dd>3012.0</dd></div>`,
		`<div class="metric" data-metric="last-rebalance-seconds-ago"><dt>last-rebalance-seconds-ago</dt><dd>-</dd></div>`,
		`<div class="metric" data-metric="records-lag-max"><dt>records-lag-max</dt><dd>-</dd></div>`,
		`<div class="metric" data-metric="commit-rate">`,
		// Revoking is drawn apart, labelled, struck through.
		`<li class="tp-chip revoking mc3" data-tp="orders/1"`, en("revoking"),
		// The describe table: "-" for what is unknown.
		`<td class="gp-committed" data-focus="group billing committed orders/2" data-focus-state="none">-</td>`,
		`<td class="gp-lag">-</td>`, `<td class="gp-lag">16</td>`,
		// Chinese labels.
		`<span lang="zh-CN" data-l="zh">消费者组（consumer group）</span>`, `<span lang="zh-CN" data-l="zh">静态成员</span>`,
		`<span lang="zh-CN" data-l="zh">正在撤销</span>`, `<span lang="zh-CN" data-l="zh">正在调和分配</span>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the group panels lack %q", want)
		}
	}
	// Metrics keep Kafka's order, whatever order the client reports them in.
	if strings.Index(html, `data-metric="rebalance-total"`) > strings.Index(html, `data-metric="rebalance-latency-avg"`) {
		t.Error("rebalance-total is not the first metric")
	}
	// c4's orders/1 is drawn once, as revoking, not also as owned.
	if n := len(startTags(html, `<li class="tp-chip mc3" data-tp="orders/1"`)); n != 0 {
		t.Errorf("c4's revoking orders/1 also drawn as owned (%d)", n)
	}
}

// A member's colour is the same on its card, its chips, its rows of the
// describe table, its timeline row and the badges on the partition
// strips, whatever colour the table's row carries in the view.
func TestMemberColoursAgreeEverywhere(t *testing.T) {
	c := twoGroups()
	html := render(t, c)
	for _, g := range c.Groups {
		colourOf := map[string]string{}
		for _, m := range g.Members {
			want := colourClass(m.Colour)
			colourOf[m.Client] = want
			card := element(t, html, `<div class="member [^"]*"[^>]*data-client="`+m.Client+`"[^>]*>`)
			if got := attrOf(card, "data-colour"); got != want {
				t.Errorf("%s's card is %s, want %s", m.Client, got, want)
			}
			for _, tp := range ownedPartitions(m) {
				element(t, html, `<li class="tp-chip `+want+`" data-tp="`+tp+`">`)
				badge := element(t, html, `<div class="partition"[^>]*data-partition="`+tp+`"[^>]*>[\s\S]*?<span class="owner-badge [^"]*"[^>]*data-group="`+g.ID+`"[^>]*>`)
				badge = badge[strings.LastIndex(badge, "<span"):]
				if got := attrOf(badge, "data-colour"); got != want || attrOf(badge, "data-owner") != m.Client {
					t.Errorf("%s's badge on %s: %s, want %s in %s", g.ID, tp, badge, m.Client, want)
				}
			}
			row := element(t, html, `<g class="gtl-row [^"]*" data-client="`+m.Client+`"[^>]*>`)
			if got := attrOf(row, "data-colour"); got != want {
				t.Errorf("%s's timeline row is %s, want %s", m.Client, got, want)
			}
		}
		for _, p := range g.Partitions {
			if p.Owner == "" {
				continue
			}
			cell := element(t, html, `<tr data-tp="`+p.TP+`" data-focus="group `+g.ID+` partition `+p.TP+`"[^>]*>\s*<td class="gp-tp">[^<]*</td>\s*<td class="gp-owner"><span [^>]*>`)
			cell = cell[strings.LastIndex(cell, "<span"):]
			if got, want := attrOf(cell, "data-colour"), colourOf[p.Owner]; got != want {
				t.Errorf("%s %s owner cell is %s, want its member's %s", g.ID, p.TP, got, want)
			}
		}
	}
	// orders/2: c3 owns it in billing (colour 2, though the view's row
	// says 5); nobody in audit, so one badge.
	strip := element(t, html, `<div class="partition"[^>]*data-partition="orders/2"[^>]*>[\s\S]*?<span class="isr"`)
	if n := strings.Count(strip, `class="owner-badge`); n != 1 || !strings.Contains(strip, `class="owner-badge mc2"`) {
		t.Errorf("orders/2's strip: %d badges: %s", n, strip)
	}
	// orders/0: one badge per group.
	strip = element(t, html, `<div class="partition"[^>]*data-partition="orders/0"[^>]*>[\s\S]*?<span class="isr"`)
	if !strings.Contains(strip, `data-group="billing" data-owner="c1"`) || !strings.Contains(strip, `data-group="audit" data-owner="c4"`) {
		t.Errorf("orders/0's strip lacks a group's badge: %s", strip)
	}
}

// The eager group's pause is a gap labelled with its length; the
// KIP-848 group, after the same event, has none: both on one axis.
func TestRebalanceTimelineShowsTheStopTheWorldPause(t *testing.T) {
	html := render(t, twoGroups())
	if n := strings.Count(html, `<svg class="timeline"`); n != 1 {
		t.Fatalf("%d timelines, want one shared axis", n)
	}
	svg := html[strings.Index(html, `<svg class="timeline"`):]
	svg = svg[:strings.Index(svg, "</svg>")]
	paused := startTags(svg, `<g class="gtl-bar protocol-eager paused"[^>]*>`)
	if len(paused) != 2 {
		t.Fatalf("%d paused eager bars, want c1's and c2's", len(paused))
	}
	for _, tag := range paused {
		if attrOf(tag, "data-paused-ms") != "3012" {
			t.Errorf("paused bar %s, want 3012 ms", tag)
		}
	}
	for _, want := range []string{
		`<tspan lang="en" data-l="en">paused 3012 ms</tspan><tspan lang="zh-CN" data-l="zh">暂停 3012 ms</tspan>`,
		`<rect class="gtl-gap"`,
		// c3 joined: a bar, not paused.
		`<g class="gtl-bar protocol-eager" data-protocol="eager">`,
		// audit: still in progress at now, kept consuming.
		`<g class="gtl-bar protocol-consumer in-progress" data-protocol="consumer">`,
		`<tspan lang="en" data-l="en">kept consuming · gave up orders/1</tspan>`,
		`<tspan lang="en" data-l="en">joined</tspan>`,
		// Text alternatives, in both languages.
		"<title>c1 · eager rebalance from 10s · consuming its new assignment after 3012 ms · paused 3012 ms from 10s: consumed nothing · revoked orders/0,orders/1 · assigned orders/0 · reason: member c3 joined\n",
		"从 10s 起暂停 3012 ms：什么也没有消费",
		"<title>c4 · consumer rebalance from 10s · still in progress after 6000 ms · the member kept consuming the partitions it kept; those it revoked had no owner until a rebalance assigned them again",
		`data-l="en">billing · classic · range · eager · 3 member rebalances</tspan>`,
		`data-l="en">audit · consumer · uniform · consumer · 2 member rebalances</tspan>`,
		`data-l="en">now 16s</tspan>`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("the timeline lacks %q", want)
		}
	}
	if n := strings.Count(svg, "<title>"); n != 5 {
		t.Errorf("%d bars with a <title>, want 5", n)
	}
	if strings.Contains(svg, `protocol-consumer paused`) {
		t.Error("a KIP-848 member drawn paused")
	}
	// Both groups' bars start at the same x: one axis.
	xs := regexp.MustCompile(`<rect class="gtl-(?:solid|gap)" x="([0-9.]+)"`).FindAllStringSubmatch(svg, -1)
	if len(xs) != 5 {
		t.Fatalf("%d bars drawn, want 5", len(xs))
	}
	for _, x := range xs {
		if x[1] != xs[0][1] {
			t.Errorf("bars of one event start at %s and %s", xs[0][1], x[1])
		}
	}
}

// __consumer_offsets draws only its partitions holding data or
// coordinating a group, says how many it hides, and leaves the page's
// PartitionsDrawn for the learner's topics.
func TestInternalTopicIsDrawnCollapsed(t *testing.T) {
	c := twoGroups()
	c.Groups[1].OffsetsPartition = 40 // coordinating, nothing written yet
	html := render(t, c)
	offsets := html[strings.Index(html, `data-topic="__consumer_offsets"`):strings.Index(html, `data-topic="orders"`)]
	drawn := regexp.MustCompile(`data-partition="(__consumer_offsets/\d+)"`).FindAllStringSubmatch(offsets, -1)
	var names []string
	for _, m := range drawn {
		names = append(names, m[1])
	}
	if got := strings.Join(names, ","); got != "__consumer_offsets/12,__consumer_offsets/31,__consumer_offsets/40" {
		t.Errorf("__consumer_offsets draws %s", got)
	}
	for _, want := range []string{`data-empty-hidden="47"`, en("47 empty partitions not drawn: an internal topic draws only the partitions holding data or coordinating a group."), "50 partitions · rf 3", en("internal")} {
		if !strings.Contains(offsets, want) {
			t.Errorf("__consumer_offsets lacks %q", want)
		}
	}
	if strings.Contains(html, "data-partitions-hidden") {
		t.Error("the internal topic's empty partitions took the learner's topics' place")
	}
	for i := range 3 {
		element(t, html, `data-partition="orders/`+strconv.Itoa(i)+`"`)
	}
}

// A client that crashed and came back is in the coordinator's list twice
// until its old member expires: `group G member C` names its live one.
func TestMemberFocusGoesToTheLiveMember(t *testing.T) {
	c := twoGroups()
	g := &c.Groups[0]
	old := g.Members[0]
	old.MemberID, old.Phase, old.Assigned = "c1-dead", "crashed", []string{"orders/9"}
	g.Members = append([]view.GroupMember{old}, g.Members...)
	html := render(t, c)
	focus := focusStates(t, html)
	if got := focus["group billing member c1"]; got != "orders/0" {
		t.Errorf("group billing member c1 = %q, want the live member's orders/0", got)
	}
	dead := element(t, html, `<div class="member [^"]*"[^>]*data-member-id="c1-dead"[^>]*>`)
	if strings.Contains(dead, "data-focus") || !strings.Contains(dead, "phase-crashed") {
		t.Errorf("the crashed member: %s", dead)
	}
}

func TestNoGroupsNoPanel(t *testing.T) {
	if html := render(t, failover()); strings.Contains(html, `id="groups"`) || strings.Contains(html, "timeline") {
		t.Error("a group panel drawn without groups")
	}
}

// Hundreds of members, partitions and rebalances draw a bounded panel
// that counts what it leaves out.
func TestGroupsStayBounded(t *testing.T) {
	c := twoGroups()
	g := &c.Groups[0]
	for i := range 500 {
		name := fmt.Sprintf("m%d", i)
		g.Members = append(g.Members, view.GroupMember{MemberID: name, Client: name, Colour: i})
		g.Partitions = append(g.Partitions, view.GroupPartition{TP: fmt.Sprintf("big/%d", i), Owner: name, Colour: i, LogEnd: 1})
		g.Rebalances = append(g.Rebalances, view.Rebalance{Client: name, Protocol: "eager", Start: int64(i), End: int64(i + 1), PausedFrom: int64(i), PausedTo: int64(i + 1)})
	}
	html := render(t, c)
	for _, want := range []string{`data-members-hidden="487"`, `data-partitions-hidden="439"`, `data-rebalances-hidden="463"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the panel does not count what it leaves out: no %s", want)
		}
	}
	if got := focusStates(t, html)["group billing timeline"]; got != strconv.Itoa(RebalancesShown) {
		t.Errorf("timeline state %s, want %d", got, RebalancesShown)
	}
	if len(html) > 400<<10 {
		t.Errorf("the panel drew %d bytes", len(html))
	}
}

func TestRenderedGroupChromeIsTranslated(t *testing.T) {
	html, err := RenderString(context.Background(), GroupsPanel(twoGroups()))
	if err != nil {
		t.Fatal(err)
	}
	for _, re := range []string{
		`<span lang="en" data-l="en">([^<]*)</span>(<span lang="zh-CN" data-l="zh">([^<]*)</span>)?`,
		`<tspan lang="en" data-l="en">([^<]*)</tspan>(<tspan lang="zh-CN" data-l="zh">([^<]*)</tspan>)?`,
	} {
		pairs := regexp.MustCompile(re).FindAllStringSubmatch(html, -1)
		if len(pairs) == 0 {
			t.Errorf("no chrome matches %s", re)
		}
		for _, m := range pairs {
			if m[2] == "" {
				t.Errorf("%q is drawn without its Chinese", m[1])
				continue
			}
			checkPair(t, "groups", m[1], m[3])
		}
	}
}

func TestAxisTicksAreRound(t *testing.T) {
	for _, c := range []struct {
		lo, hi int64
		want   string
	}{
		{0, 16000, "0,5000,10000,15000"},
		{9700, 16000, "10000,11000,12000,13000,14000,15000,16000"},
		{0, 1, "0,1"},
		{0, 45000, "0,10000,20000,30000,40000"},
	} {
		var s []string
		for _, ms := range axisTicks(c.lo, c.hi) {
			s = append(s, strconv.FormatInt(ms, 10))
		}
		if got := strings.Join(s, ","); got != c.want {
			t.Errorf("axisTicks(%d, %d) = %s, want %s", c.lo, c.hi, got, c.want)
		}
	}
}

// A member still paused at now: the gap runs to now, and says so.
func TestPauseInProgressRunsToNow(t *testing.T) {
	x := func(ms int64) float64 { return float64(ms) }
	b := layoutBar(view.Rebalance{Client: "c1", Protocol: "eager", Start: 100, End: -1, PausedFrom: 200, PausedTo: -1}, 1000, x)
	if !b.InProgress || b.Gap == nil || b.Gap.X != 200 || b.Gap.W != 800 || b.PausedMs != 800 {
		t.Fatalf("bar %+v gap %+v", b, b.Gap)
	}
	if len(b.Solid) != 1 || b.Solid[0].X != 100 || b.Solid[0].W != 100 {
		t.Errorf("solid %+v, want 100..200", b.Solid)
	}
	if b.Label.en != "paused 800 ms so far" {
		t.Errorf("label %q", b.Label.en)
	}
}

// A pause that began just before now is labelled inside the axis, not
// past its end where the SVG clips it.
func TestPauseLabelStaysInsideTheAxis(t *testing.T) {
	c := view.Cluster{NowMs: 60000, Groups: []view.Group{{ID: "g", Protocol: "classic", Rebalances: []view.Rebalance{
		{Client: "c1", Protocol: "eager", Start: 1000, End: 2000, PausedFrom: -1, PausedTo: -1},
		{Client: "c1", Protocol: "eager", Start: 59990, End: -1, PausedFrom: 59990, PausedTo: -1},
	}}}}
	tl := layoutTimeline(c)
	bars := tl.Groups[0].Rows[0].Bars
	if len(bars) != 2 || bars[1].Gap == nil {
		t.Fatalf("bars %+v", bars)
	}
	b := bars[1]
	if end := b.LabelX + labelWidth(b.Label); end > tl.PlotRight()+0.01 || b.LabelX >= b.Gap.X {
		t.Errorf("label %q at %.1f..%.1f, gap at %.1f, axis ends at %.1f", b.Label.en, b.LabelX, end, b.Gap.X, tl.PlotRight())
	}
	if !b.ShowLabel {
		t.Error("a pause's length left unwritten")
	}
}

// A cluster with a group but no rebalance yet still draws an axis of
// round ticks, and the group's empty rows.
func TestTimelineWithoutRebalances(t *testing.T) {
	c := view.Cluster{Groups: []view.Group{{ID: "g", Protocol: "consumer", Members: []view.GroupMember{{Client: "c1", Colour: 0}}}}}
	tl := layoutTimeline(c)
	if tl.Lo != 0 || tl.Hi != 1000 || len(tl.Ticks) != 6 || tl.Ticks[5].Label != "1s" {
		t.Errorf("axis %d..%d ticks %+v", tl.Lo, tl.Hi, tl.Ticks)
	}
	if len(tl.Groups[0].Rows) != 1 || tl.Groups[0].Drawn != 0 {
		t.Errorf("rows %+v", tl.Groups[0].Rows)
	}
}

// TestAGroupBeforeConsumerOffsetsExistsSaysSo: consumers created but not
// yet polled have looked for no coordinator, so __consumer_offsets does
// not exist; the card says that, rather than naming a partition -1.
func TestAGroupBeforeConsumerOffsetsExistsSaysSo(t *testing.T) {
	w := coordinatorWords(view.Group{ID: "g", OffsetsPartition: -1})
	if !strings.Contains(w.en, "__consumer_offsets does not exist yet") || strings.Contains(w.en, "-1") {
		t.Errorf("before __consumer_offsets exists the card says %q", w.en)
	}
	if w := coordinatorWords(view.Group{ID: "g", OffsetsPartition: 7}); !strings.Contains(w.en, "__consumer_offsets/7 has no leader") {
		t.Errorf("with no leader the card says %q", w.en)
	}
	if w := coordinatorWords(view.Group{ID: "g", OffsetsPartition: 7, Coordinator: 2}); w.en != "coordinator broker 2 · __consumer_offsets/7" {
		t.Errorf("with a coordinator the card says %q", w.en)
	}
}
