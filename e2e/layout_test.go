package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// The layout at the sizes the lab is used at: a projector (1280×720), a
// laptop (1440×900) and a phone (390×844). What a command changes must be
// in sight, nothing may be cut or overlap, and the page never scrolls
// sideways.
var layoutViewports = []struct {
	name          string
	width, height int
}{
	{"1280x720", 1280, 720},
	{"1440x900", 1440, 900},
	{"390x844", 390, 844},
}

// layoutScript builds a cluster with every panel drawn: topics, a
// producer with sequences, a transaction left open, a consumer group and
// a crashed broker. The lab's starter made the cluster and orders.
var layoutScript = []string{
	"topic create payments partitions=2 rf=3 min.insync.replicas=2",
	"producer create p1 acks=all",
	"produce orders key=k{i} value=v{i} count=40 partition=0 producer=p1",
	"produce payments key=pay{i} value=amount-{i} count=6 producer=p1",
	"producer create tx1 transactional.id=checkout-tx",
	"txn begin tx1",
	"produce payments key=t value=in-txn producer=tx1",
	"consumer create c1 group=g1 topics=orders",
	"poll c1",
	"broker crash 2",
	"tick 1s",
}

func newLayoutPage(t *testing.T, width, height int) *watchedPage {
	t.Helper()
	return newPageWith(t, layoutContext(width, height))
}

func layoutContext(width, height int) playwright.BrowserNewContextOptions {
	return playwright.BrowserNewContextOptions{
		Locale:   playwright.String("en-US"),
		Viewport: &playwright.Size{Width: width, Height: height},
	}
}

// runAll types each line and waits for its transcript entry, so the view
// the checks read is the one after the last command.
func (w *watchedPage) runAll(t *testing.T, lines []string) {
	t.Helper()
	for _, line := range lines {
		before, _ := w.Locator("#transcript .entry").Count()
		w.command(t, line)
		if err := expect.Locator(w.Locator("#transcript .entry")).ToHaveCount(before + 1); err != nil {
			t.Fatalf("%q never answered: %v", line, err)
		}
		if n, _ := w.Locator("#transcript .entry.error").Count(); n > 0 {
			out, _ := w.Locator("#transcript .entry.error").Last().TextContent()
			t.Fatalf("%q failed: %s", line, out)
		}
	}
}

func TestLayoutLab(t *testing.T) {
	t.Parallel()
	for _, vp := range layoutViewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			p := newLayoutPage(t, vp.width, vp.height)
			p.open(t, "/lab")
			p.runAll(t, layoutScript)
			checkLayout(t, p, vp.name)
			// The diagram, to look at: cards, wrapped lines, labels, in a
			// shot of the page scrolled to it.
			if _, err := p.Evaluate(`() => document.querySelector("#cluster-view #network").scrollIntoView()`); err != nil {
				t.Fatal(err)
			}
			shot(t, p, "layout-network-"+vp.name)

			// What a command changed is scrolled into sight.
			p.runAll(t, []string{"produce orders key=late value=late-one partition=2 producer=p1"})
			assertInViewport(t, p, `#cluster-view [data-partition="orders/2"] .record[data-offset="0"]`)
			// An opened batch comes into sight too.
			p.runAll(t, []string{"show batch orders/0 offset=3"})
			assertInViewport(t, p, "#batch-inspector")
			shot(t, p, "layout-lab-"+vp.name)
		})
	}
}

// The live page draws the same panels, rendered by the server: a
// participant's own cluster, on a server of the test's own.
func TestLayoutLive(t *testing.T) {
	t.Parallel()
	vp := layoutViewports[2]
	// A participant: the instructor drives the room's cluster, and only a
	// participant's page offers a cluster of their own.
	p := newPageAt(t, ownServer(t), layoutContext(vp.width, vp.height), false)
	p.open(t, "/live")
	if err := p.Locator(`#open-own-cluster input[name="name"]`).Fill("Layout"); err != nil {
		t.Fatal(err)
	}
	if err := p.Locator(`#open-own-cluster button`).Click(); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitForURL(regexp.MustCompile(`/clusters/p-[0-9a-f]{8}$`)); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("body")).ToHaveAttribute("data-ready", "true"); err != nil {
		t.Fatal(err)
	}
	p.runAll(t, layoutScript)
	checkLayout(t, p, "live-"+vp.name)
	p.runAll(t, []string{"produce orders key=late value=late-one partition=2 producer=p1"})
	assertInViewport(t, p, `#cluster-view [data-partition="orders/2"] .record[data-offset="0"]`)
	shot(t, p, "layout-live-"+vp.name)
}

// Projector mode is a switch the page remembers: larger type, and still
// no sideways scrolling at 1280×720.
func TestLayoutProjectorModePersists(t *testing.T) {
	t.Parallel()
	p := newLayoutPage(t, 1280, 720)
	p.open(t, "/lab")
	toggle := p.Locator(`[data-layout-toggle="projector"]`)
	if err := toggle.Click(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("html")).ToHaveAttribute("data-projector", "on"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("body")).ToHaveAttribute("data-ready", "true"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("html")).ToHaveAttribute("data-projector", "on"); err != nil {
		t.Fatal("projector mode was lost on reload:", err)
	}
	if err := expect.Locator(toggle).ToHaveAttribute("aria-pressed", "true"); err != nil {
		t.Fatal(err)
	}
	p.runAll(t, layoutScript)
	checkLayout(t, p, "projector-1280x720")
	shot(t, p, "layout-projector-1280x720")
}

// A collapsed panel stays collapsed when the view is redrawn and when the
// page is reloaded: its state is the page's, not the fragment's.
func TestLayoutPanelsCollapse(t *testing.T) {
	t.Parallel()
	p := newLayoutPage(t, 1440, 900)
	p.open(t, "/lab")
	network := p.Locator("#cluster-view #network")
	diagram := network.Locator("svg.diagram")
	if err := expect.Locator(diagram).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
	if err := network.Locator(`[data-panel-toggle="network"]`).Click(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(diagram).ToBeHidden(); err != nil {
		t.Fatal(err)
	}
	p.runAll(t, []string{"tick 1s"}) // redraws the network fragment
	if err := expect.Locator(diagram).ToBeHidden(); err != nil {
		t.Fatal("a redraw reopened the collapsed network panel:", err)
	}
	if _, err := p.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("body")).ToHaveAttribute("data-ready", "true"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(diagram).ToBeHidden(); err != nil {
		t.Fatal("a reload reopened the collapsed network panel:", err)
	}
	if err := expect.Locator(network.Locator(`[data-panel-toggle="network"]`)).ToHaveAttribute("aria-expanded", "false"); err != nil {
		t.Fatal(err)
	}
	if err := network.Locator(`[data-panel-toggle="network"]`).Click(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(diagram).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
}

// checkLayout asserts what must hold at any size once the cluster has all
// its panels.
func checkLayout(t *testing.T, p *watchedPage, name string) {
	t.Helper()
	// Page: no sideways scrolling.
	widths, err := p.Evaluate(`() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]`)
	if err != nil {
		t.Fatal(err)
	}
	w := widths.([]interface{})
	t.Logf("%s: page scrollWidth %v, clientWidth %v", name, w[0], w[1])
	if toF(w[0]) > toF(w[1]) {
		wide, _ := p.Evaluate(widestElements)
		t.Errorf("%s: the page is %v px wide in a %v px viewport; widest: %v", name, w[0], w[1], wide)
	}

	// Labels: nothing cut.
	cut, err := p.Evaluate(truncatedLabels)
	if err != nil {
		t.Fatal(err)
	}
	if list := cut.([]interface{}); len(list) > 0 {
		t.Errorf("%s: %d labels are cut: %v", name, len(list), list)
	}

	// The diagram's labels overlap neither each other nor a card.
	overlaps, err := p.Evaluate(overlappingDiagramLabels)
	if err != nil {
		t.Fatal(err)
	}
	if list := overlaps.([]interface{}); len(list) > 0 {
		t.Errorf("%s: diagram labels overlap: %v", name, list)
	}

	// The partitions come before the network.
	order, err := p.Evaluate(`() => {
		const topic = document.querySelector('#cluster-view [data-fragment^="topic/"]');
		const net = document.querySelector('#cluster-view #network');
		return [topic.getBoundingClientRect().top, net.getBoundingClientRect().top];
	}`)
	if err != nil {
		t.Fatal(err)
	}
	if o := order.([]interface{}); toF(o[0]) >= toF(o[1]) {
		t.Errorf("%s: the first topic starts at y=%v, below the network at y=%v", name, o[0], o[1])
	}

	// The record strip keeps its HW and newest record in sight, and the HW
	// stays in sight when the learner scrolls the strip to its oldest.
	strip := `#cluster-view [data-partition="orders/0"] .records`
	for _, where := range []string{"as drawn", "scrolled to the oldest"} {
		if where != "as drawn" {
			if _, err := p.Evaluate(`(s) => { document.querySelector(s).scrollLeft = 0; }`, strip); err != nil {
				t.Fatal(err)
			}
		}
		seen, err := p.Evaluate(`(s) => {
			const strip = document.querySelector(s), box = strip.getBoundingClientRect();
			const inside = (el) => { if (!el) return false; const r = el.getBoundingClientRect();
				return r.width > 0 && r.left >= box.left - 1 && r.right <= box.right + 1; };
			return [inside(strip.querySelector('.hw-divider')), inside(strip.querySelector('.record.newest')), strip.scrollWidth > strip.clientWidth];
		}`, strip)
		if err != nil {
			t.Fatal(err)
		}
		s := seen.([]interface{})
		if s[0] != true {
			t.Errorf("%s: the HW mark of orders/0 is out of sight %s (strip scrolls: %v)", name, where, s[2])
		}
		if where == "as drawn" && s[1] != true {
			t.Errorf("%s: the newest record of orders/0 is out of sight as drawn (strip scrolls: %v)", name, s[2])
		}
	}
}

// assertInViewport waits for sel to be drawn and checks it lies (at least
// its top part) in the browser's viewport and in its scrolling column.
func assertInViewport(t *testing.T, p *watchedPage, sel string) {
	t.Helper()
	if err := expect.Locator(p.Locator(sel)).ToBeAttached(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WaitForFunction(`(sel) => {
		const el = document.querySelector(sel);
		if (!el) return false;
		const r = el.getBoundingClientRect();
		return r.top >= 0 && r.top < window.innerHeight - 20 && r.bottom > 0;
	}`, sel, playwright.PageWaitForFunctionOptions{Timeout: playwright.Float(expectTimeout)}); err != nil {
		where, _ := p.Evaluate(`(sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight, JSON.stringify(globalThis.loglabLayout.lastChange())]; }`, sel)
		t.Errorf("%s is not in the viewport after the command that changed it (top, bottom, viewport height, last change: %v)", sel, where)
	}
}

func toF(v interface{}) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	panic(fmt.Sprintf("not a number: %#v", v))
}

// widestElements names the elements reaching past the viewport's right
// edge, outermost first, to say what makes a page too wide.
const widestElements = `() => {
	const vw = document.documentElement.clientWidth, out = [];
	for (const el of document.querySelectorAll('body *')) {
		const r = el.getBoundingClientRect();
		if (r.right > vw + 1 && r.width > 0 && !el.closest('svg *')) {
			out.push((el.id ? '#' + el.id : el.tagName.toLowerCase() + '.' + [...el.classList].join('.')) + ' right=' + Math.round(r.right));
			if (out.length >= 8) break;
		}
	}
	return out;
}`

// labelSelectors are the elements that carry a label a reader must read
// whole: badges, names, chips, states, card lines, buttons.
var labelSelectors = strings.Join([]string{
	".cluster-summary > span", ".controls button", ".net-state",
	".topic h2", ".partition-name strong", ".leader-badge", ".isr", ".partition-name .offsets",
	".chip", ".state", ".owner-badge", ".tp-chip", ".rep-name", ".rep-role", ".rep-nums",
	".record .offset", ".record .key", ".record .value", ".segment .seg-file", ".segment .seg-meta",
	".node", ".node-head strong", ".node-line", ".sequences td", ".sequences th",
	".msg > span", ".meta-record > span", ".member-head", ".group-head", ".txn-head",
	".hw-divider span", ".lso-divider span",
}, ", ")

// truncatedLabels lists the visible labelled elements whose content is
// wider (or, for a card, taller) than their box: cut by an ellipsis or a
// clipped overflow.
var truncatedLabels = `() => {
	const out = [];
	for (const el of document.querySelectorAll(` + "`" + `#cluster-view :is(` + labelSelectors + `)` + "`" + `)) {
		if (!el.getClientRects().length || el.clientWidth === 0) continue;
		if (el.closest('[hidden]') || getComputedStyle(el).visibility === 'hidden') continue;
		const tall = el.classList.contains('node') && el.scrollHeight > el.clientHeight + 1;
		if (el.scrollWidth > el.clientWidth + 1 || tall) {
			out.push(el.className + ' "' + el.innerText.replace(/\s+/g, ' ').slice(0, 60) + '" ' +
				el.scrollWidth + 'x' + el.scrollHeight + ' in ' + el.clientWidth + 'x' + el.clientHeight);
		}
	}
	return out;
}`

// overlappingDiagramLabels lists pairs of the network diagram's message
// labels that overlap each other or a card, as drawn on screen.
const overlappingDiagramLabels = `() => {
	const svg = document.querySelector('#cluster-view svg.diagram');
	if (!svg || !svg.getClientRects().length) return [];
	const labels = [...svg.querySelectorAll('text.label')].map((el) => [el.textContent, el.getBoundingClientRect()]);
	const cards = [...svg.querySelectorAll('foreignObject')].map((el) => [el.querySelector('[data-node]')?.dataset.node, el.getBoundingClientRect()]);
	const cross = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) *
		Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
	const out = [];
	for (let i = 0; i < labels.length; i++) {
		for (let j = i + 1; j < labels.length; j++) {
			if (cross(labels[i][1], labels[j][1]) > 1) out.push(labels[i][0] + ' / ' + labels[j][0]);
		}
		for (const [node, r] of cards) {
			if (cross(labels[i][1], r) > 1) out.push(labels[i][0] + ' over card ' + node);
		}
	}
	return out;
}`
