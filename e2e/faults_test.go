package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// Every fault is a click in the browser lab, and every click is the lab
// command it stands for: the transcript shows the command, and the view
// shows what it did. A broker and a controller crash and restart from
// their cards, a link between two brokers is cut by clicking it (drawn
// cut) and healed by clicking the cut line, one message in flight is
// dropped by clicking its dot, a producer crashes and restarts from its
// card, and a consumer crashes from its card and restarts from its group.
// All of it on a projector and then, on the same cluster (every fault is
// undone), on a phone: the targets must be big enough to hit there too.
func TestFaultsAreClicks(t *testing.T) {
	t.Parallel()
	p := newSizedPage(t, pageSizes[0])
	p.open(t, "/lab")
	p.command(t, "cluster brokers=3 controllers=3 seed=7")
	p.command(t, "topic create orders rf=3")
	p.command(t, "producer create p1")
	p.command(t, "consumer create c1 topics=orders group=g1")
	for _, size := range pageSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			p.resizeTo(t, size)
			clickEveryFault(t, p)
		})
	}
}

// minTarget is the smallest a fault's click target may be on screen, in
// CSS px: WCAG 2.2's minimum target size (2.5.8) is 24; a link's stroke
// is long, so its thickness may be a little less.
const minTarget = 14

func clickEveryFault(t *testing.T, p *watchedPage) {
	size := sizeName(*p.ViewportSize())
	// Join, or rejoin after the restart that ended the previous round: a
	// minute outlasts session.timeout.ms (45 s), so the crashed instance's
	// member has left the group and the new one is its only member.
	p.command(t, "tick 1m")
	p.waitCommand(t, "tick 1m")
	member := p.Locator(`.groups .member[data-client="c1"]`)
	if err := expect.Locator(member).ToHaveCount(1); err != nil {
		t.Fatalf("the group does not have c1 as one member: %v", err)
	}
	if err := expect.Locator(member).ToHaveClass(regexp.MustCompile(`phase-stable`)); err != nil {
		t.Fatalf("the consumer did not join its group: %v", err)
	}
	assertFits(t, p, "the cluster at "+size)

	// Cut a link between two brokers by clicking its arrow, away from the
	// middle where its label and marks sit.
	const broker2broker = `#network g.link[data-from^="b"][data-to^="b"] path.link-hit[data-command^="net cut "]`
	if w := p.onScreenStroke(t, broker2broker); w < minTarget {
		t.Errorf("a link's click target is %.1f px thick on screen at %s, want at least %d", w, size, minTarget)
	}
	cut := p.clickOnPath(t, broker2broker, 0.3)
	ends := strings.Fields(strings.TrimPrefix(cut, "net cut "))
	p.waitCommand(t, cut)
	a, b := "b"+ends[0], "b"+ends[1]
	if a > b {
		a, b = b, a
	}
	if err := expect.Locator(p.lastOutput()).ToHaveText("cut " + a + "-" + b); err != nil {
		t.Fatal(err)
	}
	line := p.Locator(fmt.Sprintf(`#network .cut-link[data-a="%s"][data-b="%s"]`, a, b))
	if err := expect.Locator(line).ToBeVisible(); err != nil {
		t.Fatalf("the cut link %s-%s is not drawn: %v", a, b, err)
	}
	if err := expect.Locator(p.Locator(".controls .net-state")).ToHaveAttribute("data-network", "cut "+a+"-"+b); err != nil {
		t.Fatal(err)
	}
	assertFits(t, p, "a cut link at "+size)
	sizeShot(t, p, "#network", "faults-link-cut")
	// Heal it from the keyboard: the cut line is a button.
	heal := p.attr(t, line, "data-command")
	if err := line.Focus(); err != nil {
		t.Fatal(err)
	}
	if err := line.Press("Enter"); err != nil {
		t.Fatal(err)
	}
	p.waitCommand(t, heal)
	if !strings.HasPrefix(heal, "net heal ") {
		t.Fatalf("the cut line emits %q, want net heal", heal)
	}
	if err := expect.Locator(p.Locator("#network .cut-link")).ToHaveCount(0); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.lastOutput()).ToHaveText("network healthy"); err != nil {
		t.Fatal(err)
	}

	// Drop one message in flight: step until one is on the wire (each
	// step runs one event, so a message is soon in flight), click its dot.
	packets := p.Locator(`#network circle.packet[data-command]`)
	entries := p.count(t, p.Locator("#transcript .entry"), 1)
	for i := 1; i <= 30 && p.count(t, packets, 0) == 0; i++ {
		p.click(t, `.controls button[data-command="step"]`)
		p.waitEntries(t, entries+i)
	}
	packet := packets.First()
	id := p.attr(t, packet, "data-message-id")
	if err := packet.ScrollIntoViewIfNeeded(); err != nil {
		t.Fatal(err)
	}
	if d := p.onScreenDot(t, packet); d < minTarget {
		t.Errorf("message #%s's click target is %.1f px across on screen at %s, want at least %d", id, d, size, minTarget)
	}
	if err := packet.Click(); err != nil {
		t.Fatal(err)
	}
	p.waitCommand(t, "net drop id="+id)
	if err := expect.Locator(p.lastOutput()).ToContainText(regexp.MustCompile(`^dropped #` + id + ` \w+ `)); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator(`#network .message-log .msg[data-message-id="`+id+`"]`)).ToHaveAttribute("data-fate", "dropped"); err != nil {
		t.Fatal(err)
	}
	assertFits(t, p, "a dropped message at "+size)
	sizeShot(t, p, "#network", "faults-message-dropped")

	// A broker crashes and restarts from its card.
	node := p.Locator(`#network .node[data-broker="3"]`)
	p.click(t, `#network .node[data-broker="3"] button[data-command="broker crash 3"]`)
	p.waitCommand(t, "broker crash 3")
	if err := expect.Locator(node).ToHaveAttribute("data-state", "down"); err != nil {
		t.Fatal(err)
	}
	p.click(t, `#network .node[data-broker="3"] button[data-command="broker restart 3"]`)
	p.waitCommand(t, "broker restart 3")
	if err := expect.Locator(node).Not().ToHaveAttribute("data-state", "down"); err != nil {
		t.Fatal(err)
	}

	// A controller too, from the quorum panel.
	ctl := p.Locator(`.controller-card[data-controller="2"]`)
	p.click(t, `.controller-card[data-controller="2"] button[data-command="controller crash 2"]`)
	p.waitCommand(t, "controller crash 2")
	if err := expect.Locator(ctl).ToHaveAttribute("data-up", "false"); err != nil {
		t.Fatal(err)
	}
	assertFits(t, p, "a crashed controller at "+size)
	sizeShot(t, p, ".controller-card", "faults-controller-crashed")
	p.click(t, `.controller-card[data-controller="2"] button[data-command="controller restart 2"]`)
	p.waitCommand(t, "controller restart 2")
	if err := expect.Locator(ctl).ToHaveAttribute("data-up", "true"); err != nil {
		t.Fatal(err)
	}

	// A producer crashes from its card.
	producer := p.Locator(`#network .node.producer[data-node="p1"]`)
	p.click(t, `#network .node.producer[data-node="p1"] button[data-command="producer crash p1"]`)
	p.waitCommand(t, "producer crash p1")
	if err := expect.Locator(producer).ToHaveAttribute("data-down", "true"); err != nil {
		t.Fatal(err)
	}

	// The consumer crashes from its card; the member its process left in
	// the group (until session.timeout.ms) offers the restart.
	if err := expect.Locator(member.Locator(`button[data-command="consumer crash c1"]`)).ToBeVisible(); err != nil {
		t.Fatalf("the group member has no crash button: %v", err)
	}
	consumer := p.Locator(`#network .node.consumer[data-node="c1"]`)
	p.click(t, `#network .node.consumer[data-node="c1"] button[data-command="consumer crash c1"]`)
	p.waitCommand(t, "consumer crash c1")
	if err := expect.Locator(consumer).ToHaveAttribute("data-down", "true"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(member).ToHaveClass(regexp.MustCompile(`phase-crashed`)); err != nil {
		t.Fatal(err)
	}
	assertFits(t, p, "crashed clients at "+size)
	sizeShot(t, p, "#network", "faults-crashed-network")
	sizeShot(t, p, ".groups", "faults-crashed-group")
	p.click(t, `.groups .member[data-client="c1"] button[data-command="consumer restart c1"]`)
	p.waitCommand(t, "consumer restart c1")
	if err := expect.Locator(consumer).ToHaveAttribute("data-down", "false"); err != nil {
		t.Fatal(err)
	}
	// And the producer restarts from its card.
	p.click(t, `#network .node.producer[data-node="p1"] button[data-command="producer restart p1"]`)
	p.waitCommand(t, "producer restart p1")
	if err := expect.Locator(producer).ToHaveAttribute("data-down", "false"); err != nil {
		t.Fatal(err)
	}
}

// onScreenDot is how wide, in CSS px, a circle's click target is on
// screen: its disc and its stroke (pointer-events: all takes both), scaled
// as the diagram is.
func (w *watchedPage) onScreenDot(t *testing.T, dot playwright.Locator) float64 {
	t.Helper()
	v, err := dot.Evaluate(`(el) => {
		const style = getComputedStyle(el), m = el.getScreenCTM();
		const scale = Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
		const r = parseFloat(style.r) || el.r.baseVal.value, stroke = parseFloat(style.strokeWidth) || 0;
		return 2 * r * scale + (style.vectorEffect === "non-scaling-stroke" ? stroke : stroke * scale);
	}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a message's dot is %.1f px across at %s", number(t, v), sizeName(*w.ViewportSize()))
	return number(t, v)
}

// onScreenStroke is how thick, in CSS px, the first SVG path selector
// matches is drawn: its stroke width scaled as the diagram is.
func (w *watchedPage) onScreenStroke(t *testing.T, selector string) float64 {
	t.Helper()
	if err := expect.Locator(w.Locator(selector).First()).ToBeAttached(); err != nil {
		t.Fatal(err)
	}
	v, err := w.Evaluate(`(selector) => {
		const el = document.querySelector(selector), style = getComputedStyle(el);
		const width = parseFloat(style.strokeWidth);
		if (style.vectorEffect === "non-scaling-stroke") return width;
		const m = el.getScreenCTM();
		return width * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
	}`, selector)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a link's click target is %.1f px thick at %s", number(t, v), sizeName(*w.ViewportSize()))
	return number(t, v)
}

// waitCommand waits until the transcript's newest entry is line's.
func (w *watchedPage) waitCommand(t *testing.T, line string) {
	t.Helper()
	if err := expect.Locator(w.Locator("#transcript .entry .cmd").Last()).ToHaveText(line); err != nil {
		t.Fatalf("the transcript does not end with %q: %v", line, err)
	}
}

// waitEntries waits until the transcript holds n entries.
func (w *watchedPage) waitEntries(t *testing.T, n int) {
	t.Helper()
	if err := expect.Locator(w.Locator("#transcript .entry")).ToHaveCount(n); err != nil {
		t.Fatal(err)
	}
}

func (w *watchedPage) lastOutput() playwright.Locator {
	return w.Locator("#transcript .entry .out").Last()
}

// clickOnPath clicks the first SVG path selector matches with the mouse,
// at fraction f along it (the middle of a curved arrow's box, where a
// locator's click aims, is not on the arrow), and returns the command it
// carries. One evaluation finds, scrolls to and measures the path: the
// view may be swapped for an identical one at any moment.
func (w *watchedPage) clickOnPath(t *testing.T, selector string, f float64) string {
	t.Helper()
	if err := expect.Locator(w.Locator(selector).First()).ToBeAttached(); err != nil {
		t.Fatal(err)
	}
	v, err := w.Evaluate(`([selector, f]) => {
		const el = document.querySelector(selector);
		el.scrollIntoView({block: "center"});
		const p = el.getPointAtLength(el.getTotalLength() * f).matrixTransform(el.getScreenCTM());
		const at = document.elementFromPoint(p.x, p.y);
		return [p.x, p.y, at === el ? "" : (at ? at.outerHTML.slice(0, 200) : "nothing"), el.dataset.command];
	}`, []interface{}{selector, f})
	if err != nil {
		t.Fatal(err)
	}
	xy := v.([]interface{})
	if xy[2] != "" {
		t.Fatalf("the point %v,%v of %s is covered by %v", xy[0], xy[1], selector, xy[2])
	}
	if err := w.Mouse().Click(number(t, xy[0]), number(t, xy[1])); err != nil {
		t.Fatal(err)
	}
	return xy[3].(string)
}

func number(t *testing.T, x interface{}) float64 {
	t.Helper()
	switch n := x.(type) {
	case float64:
		return n
	case int:
		return float64(n)
	}
	t.Fatalf("not a number: %v", x)
	return 0
}
