package web

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// ownershipGroup is a cooperative group in which c1 gave orders/1 up at
// 20s and c3 got it 3.096 s later, while orders/0 stayed with c1, and
// an eager handover of orders/2 took 8 ms.
func ownershipGroup() view.Cluster {
	c := twoGroups()
	c.NowMs = 30000
	g := &c.Groups[0]
	g.Rebalances = []view.Rebalance{
		{Client: "c1", Protocol: "cooperative", Start: 1000, End: 2000, PausedFrom: -1, PausedTo: -1, Assigned: []string{"orders/0", "orders/1", "orders/2"}},
		{Client: "c1", Protocol: "cooperative", Start: 19990, End: 20000, PausedFrom: -1, PausedTo: -1, Revoked: []string{"orders/1"}},
		{Client: "c3", Protocol: "cooperative", Start: 18000, End: 23096, PausedFrom: -1, PausedTo: -1, Assigned: []string{"orders/1"}},
	}
	g.Ownership = []view.PartitionOwnership{
		{TP: "orders/0", Spans: []view.OwnershipSpan{{Owner: "c1", From: 2000, To: -1}}},
		{TP: "orders/1", Spans: []view.OwnershipSpan{{Owner: "c1", From: 2000, To: 20000}, {Colour: -1, From: 20000, To: 23096}, {Owner: "c3", Colour: 2, From: 23096, To: -1}}},
		{TP: "orders/2", Spans: []view.OwnershipSpan{{Owner: "c1", From: 2000, To: 25000}, {Colour: -1, From: 25000, To: 25008}, {Owner: "c2", Colour: 1, From: 25008, To: -1}}},
		{TP: "orders/3"}, // never assigned: no row
	}
	return c
}

// The partition rows hold what a member's row cannot: how long a revoked
// partition had no owner, labelled with its length, its row's focus
// state that length in whole seconds.
func TestOwnershipRowsLabelTheOwnerlessGap(t *testing.T) {
	html := render(t, ownershipGroup())
	row := element(t, html, `<g class="gow-row" data-tp="orders/1"[^>]*>`)
	if got := attrOf(row, "data-focus"); got != "group billing partition orders/1 ownership" {
		t.Errorf("orders/1's row has data-focus %q", got)
	}
	if attrOf(row, "data-focus-state") != "3" || attrOf(row, "data-longest-gap-ms") != "3096" {
		t.Errorf("orders/1's row: %s, want state 3 and 3096 ms", row)
	}
	body := html[strings.Index(html, row):]
	body = body[:strings.Index(body, `<g class="gow-row" data-tp="orders/2"`)]
	for _, want := range []string{
		`<g class="gow-span mc-none gow-nobody" data-gap-ms="3096">`,
		`<tspan lang="en" data-l="en">no owner for 3.1 s</tspan><tspan lang="zh-CN" data-l="zh">3.1 s 没有属主</tspan>`,
		`data-owner="c1"`, `data-owner="c3"`, `class="gow-owner"`, ">c1</text>", ">c3</text>",
		"orders/1 · revoked at 20s: owned by no member, so consumed by nobody, for 3096 ms, until a rebalance assigned it again",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("orders/1's row lacks %q:\n%s", want, body)
		}
	}
	// An eager-like handover of a few ms is written in ms, rounds to 0 s.
	row2 := element(t, html, `<g class="gow-row" data-tp="orders/2"[^>]*>`)
	if attrOf(row2, "data-focus-state") != "0" || !strings.Contains(html, "no owner for 8 ms") {
		t.Errorf("orders/2's 8 ms gap: %s", row2)
	}
	// A partition that never changed hands says so; one never assigned
	// draws no row.
	if row0 := element(t, html, `<g class="gow-row" data-tp="orders/0"[^>]*>`); attrOf(row0, "data-focus-state") != "none" {
		t.Errorf("orders/0, never without an owner: %s", row0)
	}
	if regexp.MustCompile(`gow-row" data-tp="orders/3"`).MatchString(html) {
		t.Error("a partition never assigned draws an ownership row")
	}
	// The member who gave a partition up is not said to have had "no
	// pause": its bar says it kept consuming and what it gave up.
	if strings.Contains(html, "no pause") || strings.Contains(html, "没有暂停") {
		t.Error(`the timeline still says "no pause"`)
	}
	if !strings.Contains(html, `<tspan lang="en" data-l="en">kept consuming · gave up orders/1</tspan>`) {
		t.Error("c1's bar does not say it kept consuming and gave orders/1 up")
	}
	if !strings.Contains(html, `<tspan lang="en" data-l="en">joined</tspan>`) {
		t.Error("c3's first rebalance is not labelled as its join")
	}
}

// The gap's x and width are those of the member bars' axis: the ownerless
// stretch starts where c1's revoking rebalance ends and ends where c3's
// assigning one does.
func TestOwnershipRowsShareTheTimelineAxis(t *testing.T) {
	tl := layoutTimeline(ownershipGroup())
	g := tl.Groups[0]
	if len(g.Owners) != 3 {
		t.Fatalf("%d partition rows, want 3 (orders/3 was never assigned)", len(g.Owners))
	}
	// The axis' own scale, as the member bars use it.
	x := func(ms int64) float64 {
		return tl.PlotLeft() + float64(ms-tl.Lo)*(tl.PlotRight()-tl.PlotLeft())/float64(tl.Hi-tl.Lo)
	}
	gap := g.Owners[1].Spans[1]
	if !gap.Gap || !near(gap.X, x(20000)) || !near(gap.X+gap.W, x(23096)) {
		t.Errorf("orders/1's gap spans %.1f..%.1f, want c1's revocation %.1f to c3's assignment %.1f", gap.X, gap.X+gap.W, x(20000), x(23096))
	}
	c1 := g.Rows[0].Bars[1].Solid[0]
	if !near(c1.X, x(19990)) {
		t.Errorf("c1's revoking rebalance starts at %.1f, want %.1f: another axis", c1.X, x(19990))
	}
	// Rows stack under the members and inside the group's frame.
	last := g.Owners[len(g.Owners)-1]
	if g.OwnersY < g.Rows[len(g.Rows)-1].Y+tlRowH || last.Y+owRowH > g.Y+g.H+0.01 {
		t.Errorf("partition rows from %.1f to %.1f, members end at %.1f, frame %.1f..%.1f", g.OwnersY, last.Y+owRowH, g.Rows[len(g.Rows)-1].Y+tlRowH, g.Y, g.Y+g.H)
	}
	// The longest gap's label is always written, whatever it would overlap.
	for _, r := range g.Owners {
		for _, s := range r.Spans {
			if s.Gap && s.Ms == r.Longest && !s.ShowLabel {
				t.Errorf("%s: its longest gap is not labelled", r.TP)
			}
		}
	}
}

func near(a, b float64) bool { return a-b < 0.01 && b-a < 0.01 }

// Gap labels placed on one row never overlap, the longest gap's first.
func TestOwnershipLabelsDoNotOverlap(t *testing.T) {
	spans := []owSpan{
		{X: 200, Owner: "c1"},
		{X: 205, Gap: true, Ms: 40, Label: gapWords(40, false)},
		{X: 210, Owner: "consumer-with-a-long-name"},
		{X: 215, Gap: true, Ms: 3096, Label: gapWords(3096, false)},
		{X: 400, Gap: true, Ms: 9, Label: gapWords(9, false)},
	}
	for i := range spans {
		spans[i].LabelX = spans[i].X
	}
	placeOwnershipLabels(spans, tlLabelW, tlWidth-tlRight)
	if !spans[3].ShowLabel || spans[1].ShowLabel {
		t.Error("the longest gap's label did not win the place")
	}
	if !spans[4].ShowLabel {
		t.Error("a gap label with room of its own was dropped")
	}
	for i, a := range spans {
		for _, b := range spans[i+1:] {
			if a.ShowLabel && b.ShowLabel && a.LabelX < b.LabelX+labelWidth(b.Label) && b.LabelX < a.LabelX+labelWidth(a.Label) {
				t.Errorf("labels %q and %q overlap", a.Label.en, b.Label.en)
			}
		}
	}
}

// A group of many partitions draws the first OwnershipRowsShown rows and
// says how many it left out (the partitions table lists every owner).
func TestOwnershipRowsAreBounded(t *testing.T) {
	c := ownershipGroup()
	g := &c.Groups[0]
	g.Ownership = nil
	for i := range OwnershipRowsShown + 4 {
		g.Ownership = append(g.Ownership, view.PartitionOwnership{TP: "orders/" + strconv.Itoa(i), Spans: []view.OwnershipSpan{{Owner: "c1", From: 2000, To: -1}}})
	}
	html := render(t, c)
	if n := strings.Count(html, `<g class="gow-row"`); n != OwnershipRowsShown {
		t.Errorf("%d partition rows drawn, want %d", n, OwnershipRowsShown)
	}
	if !strings.Contains(html, "partitions: who owned each, hatched while nobody did (4 more not drawn)") {
		t.Error("the rows' heading does not count the 4 left out")
	}
}
