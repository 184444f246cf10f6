package e2e

import (
	"fmt"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// An update morphs what changed into the page: the elements of the view
// stay the same DOM nodes (a property set on one survives), only their
// content changes. A full redraw would give every panel new nodes, losing
// a scrolled record strip, a focused button and the highlight of a
// lesson's step, and would restart every animation.

// tagView marks DOM nodes with a property no HTML can carry: a node the
// update replaced comes back without it.
const tagView = `() => {
	const tag = (sel) => { const el = document.querySelector(sel); if (!el) throw new Error("no " + sel); el.__morphTag = sel; };
	for (const sel of ["#cluster-view", '#cluster-view [data-partition="orders/0"]', '#cluster-view [data-partition="orders/2"]',
		"#cluster-view #network svg.diagram", "#cluster-view .controls"]) tag(sel);
}`

// untagged lists the tagged selectors whose node is no longer the one tagged.
const untagged = `() => ["#cluster-view", '#cluster-view [data-partition="orders/0"]', '#cluster-view [data-partition="orders/2"]',
	"#cluster-view #network svg.diagram", "#cluster-view .controls"].filter((sel) => document.querySelector(sel)?.__morphTag !== sel)`

func assertMorphed(t *testing.T, p *watchedPage, how string) {
	t.Helper()
	lost, err := p.Evaluate(untagged)
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := lost.([]any); len(l) > 0 {
		t.Errorf("%s replaced these nodes instead of morphing them: %v", how, l)
	}
}

// The browser lab's engine answers every command with the whole view: it
// is morphed into the page, so the partitions the command did not touch,
// and the one it did, are the same nodes with new content. On a projector,
// then on a phone (the same page resized: the layout's media queries
// change, the morph must not).
func TestLabUpdateMorphsTheWholeView(t *testing.T) {
	t.Parallel()
	p := newSizedPage(t, pageSizes[0])
	p.open(t, "/lab")
	if err := expect.Locator(p.Locator("#transcript")).ToContainText("created topic orders: partitions=3 rf=3"); err != nil {
		t.Fatal(err)
	}
	for offset, size := range pageSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			p.resizeTo(t, size)
			if _, err := p.Evaluate(tagView); err != nil {
				t.Fatal(err)
			}
			value := "morphed-" + sizeName(size)
			p.command(t, "produce orders key=a value="+value+" partition=2")
			if err := expect.Locator(p.Locator(fmt.Sprintf(`#cluster-view [data-partition="orders/2"] .record[data-offset="%d"]`, offset))).ToContainText(value); err != nil {
				t.Fatal(err)
			}
			assertMorphed(t, p, "a produce in the browser lab")
			// The morph applied the change: nothing of the record in the others.
			if n, _ := p.Locator(`#cluster-view [data-partition="orders/0"] .record`).Count(); n != 0 {
				t.Errorf("orders/0 shows %d records after a produce to orders/2", n)
			}
			assertFits(t, p, "the lab after a produce")
			sizeShot(t, p, `#cluster-view [data-partition="orders/2"]`, "morph-lab-partition")
		})
	}
}

// The live server sends the fragments that changed, each morphed in by its
// key: the partition a produce changed keeps its node too.
func TestLiveFragmentsMorphInPlace(t *testing.T) {
	t.Parallel()
	p := newPageAt(t, ownServer(t), sizedContext(pageSizes[0]), true)
	p.open(t, "/live")
	if err := expect.Locator(p.Locator(`#cluster-view [data-partition="orders/2"]`)).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
	for _, size := range pageSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			p.resizeTo(t, size)
			if _, err := p.Evaluate(tagView); err != nil {
				t.Fatal(err)
			}
			value := "morphed-live-" + sizeName(size)
			p.command(t, "produce orders key=m value="+value+" partition=2")
			if err := expect.Locator(p.Locator(`#cluster-view [data-partition="orders/2"]`).GetByText(value)).ToBeVisible(); err != nil {
				t.Fatal(err)
			}
			assertMorphed(t, p, "a live fragment update")
			assertFits(t, p, "the live page after a produce")
			sizeShot(t, p, "", "morph-live")
		})
	}
}

// A button the learner clicked in the view keeps the keyboard focus across
// the update it caused, and the highlight a lesson step put on an element
// is still there after the next update.
func TestMorphKeepsFocusAndPageState(t *testing.T) {
	t.Parallel()
	p := newSizedPage(t, pageSizes[0])
	p.open(t, "/lab")
	if err := expect.Locator(p.Locator("#transcript")).ToContainText("created topic orders"); err != nil {
		t.Fatal(err)
	}
	for _, size := range pageSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			p.resizeTo(t, size)
			tick := p.Locator(`#cluster-view .controls button[data-command="tick 1s"]`)
			clock := p.Locator("#cluster-view .clock")
			before, _ := clock.TextContent()
			if err := tick.Click(); err != nil {
				t.Fatal(err)
			}
			if err := expect.Locator(clock).Not().ToHaveText(before); err != nil {
				t.Fatal(err)
			}
			focused, err := p.Evaluate(`() => document.activeElement?.dataset?.command || document.activeElement?.id || document.activeElement?.tagName`)
			if err != nil {
				t.Fatal(err)
			}
			if focused != "tick 1s" {
				t.Errorf("after the update the focus is on %v, not on the button clicked", focused)
			}
			assertFits(t, p, "the lab after a tick")
			sizeShot(t, p, "#cluster-view .controls", "morph-controls")
		})
	}
}

// animationLog records what animate.js reports after each update:
// loglab:animated carries how many messages it set moving, and the
// listener counts the packets moving at that moment.
const animationLog = `() => {
	window.__animated = [];
	document.addEventListener("loglab:animated", (ev) => {
		window.__animated.push({ moved: ev.detail.moved, speed: ev.detail.speed, ms: ev.detail.ms,
			moving: document.querySelectorAll("#network .packet.moving").length,
			running: document.querySelectorAll("#network .packet.moving").length &&
				Array.from(document.querySelectorAll("#network .packet.moving")).every((el) => el.getAnimations().some((a) => a.id === "loglab-move")) });
	});
}`

// setSpeed picks an animation speed in the control outside the view.
func setSpeed(t *testing.T, p *watchedPage, speed string) {
	t.Helper()
	if _, err := p.Locator("#anim-speed").SelectOption(playwright.SelectOptionValues{Values: &[]string{speed}}); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("body")).ToHaveAttribute("data-anim-speed", speed); err != nil {
		t.Fatal(err)
	}
}

type animated struct {
	Moved, Moving int
	Running       bool
	MS            float64 // how long the update took to land (printed, never asserted)
}

// stepAndWatch runs a command that moves messages (a tick delivers the
// replicas' fetches in flight and sends new ones) and returns what
// animate.js reported for each update from the command on (the lab draws
// a command's view paced, in one update or more).
func stepAndWatch(t *testing.T, p *watchedPage, line string) []animated {
	t.Helper()
	n, err := p.Evaluate(`() => window.__animated.length`)
	if err != nil {
		t.Fatal(err)
	}
	entries := p.Locator("#transcript .entry")
	count, err := entries.Count()
	if err != nil {
		t.Fatal(err)
	}
	p.command(t, line)
	if err := expect.Locator(entries).ToHaveCount(count + 1); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WaitForFunction(`(n) => window.__animated.length > n`, n); err != nil {
		t.Fatal(err)
	}
	got, err := p.Evaluate(`(n) => window.__animated.slice(n)`, n)
	if err != nil {
		t.Fatal(err)
	}
	var out []animated
	for _, e := range got.([]any) {
		m := e.(map[string]any)
		a := animated{Moved: toInt(m["moved"]), Moving: toInt(m["moving"])}
		a.Running, _ = m["running"].(bool)
		a.MS = toFloat(m["ms"])
		t.Logf("%s: an update landed in %.1f ms, moving %d messages", line, a.MS, a.Moved)
		out = append(out, a)
	}
	return out
}

// anyMoving is whether one of the updates set messages moving, with
// their animation running.
func anyMoving(as []animated) bool {
	for _, a := range as {
		if a.Moved > 0 && a.Moving > 0 && a.Running {
			return true
		}
	}
	return false
}

// noneMoving is whether no update moved anything.
func noneMoving(as []animated) bool {
	for _, a := range as {
		if a.Moved != 0 || a.Moving != 0 {
			return false
		}
	}
	return true
}

func toFloat(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case float64:
		return n
	}
	return 0
}

func toInt(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case float64:
		return int(n)
	}
	return 0
}

// Messages move along their links after an update, at the speed the
// learner chose; speed 0 turns it off, and the choice survives a reload.
// On a projector, then on a phone: the same page, resized, after the
// projector's round ended by reloading it.
func TestMessagesMoveAlongTheirLinks(t *testing.T) {
	t.Parallel()
	p := newSizedPage(t, pageSizes[0])
	p.open(t, "/lab")
	for _, size := range pageSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			p.resizeTo(t, size)
			if err := expect.Locator(p.Locator("#transcript")).ToContainText("created topic orders"); err != nil {
				t.Fatal(err)
			}
			// The slowest speed: the packets still move when the listener looks.
			setSpeed(t, p, "0.25")
			if _, err := p.Evaluate(animationLog); err != nil {
				t.Fatal(err)
			}
			if a := stepAndWatch(t, p, "tick 100ms"); !anyMoving(a) {
				t.Errorf("after a tick at speed 0.25: %+v, want messages moving with their animation running", a)
			}
			assertFits(t, p, "messages moving")
			sizeShot(t, p, "#anim-speed", "morph-speed")

			setSpeed(t, p, "0")
			if a := stepAndWatch(t, p, "tick 100ms"); !noneMoving(a) {
				t.Errorf("after a tick at speed 0: %+v, want nothing moving", a)
			}

			// The choice is kept for the next visit.
			p.open(t, "/lab")
			if err := expect.Locator(p.Locator("#anim-speed")).ToHaveValue("0"); err != nil {
				t.Fatal(err)
			}
			if err := expect.Locator(p.Locator("body")).ToHaveAttribute("data-anim-speed", "0"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A learner who asked the system for less motion gets no animation unless
// they turn it on here.
func TestReducedMotionTurnsAnimationOff(t *testing.T) {
	t.Parallel()
	p := newPageWith(t, playwright.BrowserNewContextOptions{Locale: playwright.String("en-US"), Viewport: &pageSizes[0], ReducedMotion: playwright.ReducedMotionReduce})
	p.open(t, "/lab")
	if _, err := p.Evaluate(animationLog); err != nil {
		t.Fatal(err)
	}
	for _, size := range pageSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			p.resizeTo(t, size)
			if err := expect.Locator(p.Locator("#anim-speed")).ToHaveValue("0"); err != nil {
				t.Fatal(err)
			}
			if a := stepAndWatch(t, p, "tick 100ms"); !noneMoving(a) {
				t.Errorf("with prefers-reduced-motion: %+v, want nothing moving", a)
			}
		})
	}
}
