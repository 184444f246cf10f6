package e2e

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// The two screens the time controls must work on: a projector and a phone.
var timelineViewports = []playwright.Size{{Width: 1280, Height: 720}, {Width: 390, Height: 844}}

func sizeName(s playwright.Size) string { return fmt.Sprintf("%dx%d", s.Width, s.Height) }

// newLabPage opens the browser lab at a viewport, in a browser of its
// own, and waits for its timeline to be drawn.
func newLabPage(t *testing.T, size playwright.Size, path string) *watchedPage {
	t.Helper()
	return newLabPageAt(t, baseURL, size, path)
}

// newLabPageAt is newLabPage on the server at base.
func newLabPageAt(t *testing.T, base string, size playwright.Size, path string) *watchedPage {
	t.Helper()
	// Reduced motion turns the messages' animation off (static/animate.js):
	// its moving messages are no part of a view to compare.
	p := newPageAt(t, base, playwright.BrowserNewContextOptions{
		Locale: playwright.String("en-US"), Viewport: &size, AcceptDownloads: playwright.Bool(true),
		ReducedMotion: playwright.ReducedMotionReduce}, true)
	openLab(t, p, path)
	return p
}

// openLab opens path, a page of the browser lab, in p and waits for its
// timeline to be drawn.
func openLab(t *testing.T, p *watchedPage, path string) {
	t.Helper()
	p.open(t, path)
	if err := expect.Locator(p.Locator("#timeline")).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
	// Its chrome is drawn, not a template call printed as text.
	if err := expect.Locator(p.Locator("#tl-play")).ToHaveText(regexp.MustCompile(`^\W*play$`), visibleText); err != nil {
		t.Fatal(err)
	}
}

// waitTimeline waits until the slider stands at command at of length.
func waitTimeline(t *testing.T, p *watchedPage, at, length int) {
	t.Helper()
	// data-at is the engine's answer; the position's text already
	// follows the slider while it is dragged.
	if err := expect.Locator(p.Locator("#timeline")).ToHaveAttribute("data-at", strconv.Itoa(at)); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("#timeline")).ToHaveAttribute("data-length", strconv.Itoa(length)); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("#tl-position")).ToHaveText(fmt.Sprintf("%d/%d", at, length)); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("#tl-slider")).ToHaveValue(strconv.Itoa(at)); err != nil {
		t.Fatal(err)
	}
}

// drawing is what the page shows of the lab: the cluster view's DOM
// (see viewDrawn), the quorum panel included, and the transcript's,
// byte for byte.
type drawing struct{ view, transcript string }

func drawn(t *testing.T, p *watchedPage) drawing {
	t.Helper()
	v, err := p.Locator("#cluster-view").Evaluate(viewDrawn, nil)
	if err != nil {
		t.Fatal(err)
	}
	view := v.(string)
	transcript, err := p.Locator("#transcript").InnerHTML()
	if err != nil {
		t.Fatal(err)
	}
	return drawing{view, transcript}
}

// viewDrawn is the cluster view's HTML, every panel in it: the controller
// quorum runs in virtual time like the rest of the cluster (its epochs,
// offsets and roles are the commands'), so it is compared byte for byte
// too. Attributes are serialized in name order: the view is morphed into
// place (idiomorph, app.js), which keeps an element and updates its
// attributes, so their order in innerHTML is the element's history, while
// the DOM's attributes are a set.
const viewDrawn = `(el) => {
  const c = el.cloneNode(true);
  // The brief flash on what the learner's last command changed
  // (layout.js) is the page's, not the cluster's: a replay has none.
  for (const e of c.querySelectorAll(".just-changed")) {
    e.classList.remove("just-changed");
    if (!e.classList.length) e.removeAttribute("class");
  }
  for (const e of c.querySelectorAll("*")) {
    const attrs = [...e.attributes].map((a) => [a.name, a.value]).sort((x, y) => (x[0] < y[0] ? -1 : 1));
    for (const [n] of attrs) e.removeAttribute(n);
    for (const [n, v] of attrs) e.setAttribute(n, v);
  }
  return c.innerHTML;
}`

func sameDrawing(t *testing.T, what string, got, want drawing) {
	t.Helper()
	if got.view != want.view {
		t.Errorf("%s: #cluster-view differs\n got: %.600s…\nwant: %.600s…", what, firstDiff(got.view, want.view), firstDiff(want.view, got.view))
	}
	if got.transcript != want.transcript {
		t.Errorf("%s: #transcript differs\n got: %.600s…\nwant: %.600s…", what, firstDiff(got.transcript, want.transcript), firstDiff(want.transcript, got.transcript))
	}
}

// firstDiff is a from a little before where it first differs from b.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(0, i-80):]
}

// shareLink is /lab#s=… for a script, made here (Go's deflate, raw) rather
// than by the page, so that the page's decoding is checked on its own.
func shareLink(t *testing.T, script string) string {
	t.Helper()
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(script))
	w.Close()
	return "/lab#s=" + base64.RawURLEncoding.EncodeToString(b.Bytes())
}

// freshReplay opens the commands as a shared link in a new page beside
// from (another tab of its browser, at its size, which has the engine
// compiled already): a lab that ran exactly them, and nothing else.
func freshReplay(t *testing.T, from *watchedPage, commands []string) drawing {
	t.Helper()
	p := from.sibling(t)
	openLab(t, p, shareLink(t, strings.Join(commands, "\n")))
	waitTimeline(t, p, len(commands), len(commands))
	if err := expect.Locator(p.Locator("#status")).ToHaveText("shared session opened"); err != nil {
		t.Fatal(err)
	}
	d := drawn(t, p)
	// Closed now: every open page runs an engine, on a shared machine.
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return d
}

func lastEntry(t *testing.T, p *watchedPage, text string) {
	t.Helper()
	if err := expect.Locator(p.Locator("#transcript .entry .cmd").Last()).ToHaveText(text); err != nil {
		t.Fatal(err)
	}
}

func press(t *testing.T, p *watchedPage, key string) {
	t.Helper()
	if err := p.Keyboard().Press(key); err != nil {
		t.Fatal(err)
	}
}

func click(t *testing.T, p *watchedPage, selector string) {
	t.Helper()
	if err := p.Locator(selector).Click(); err != nil {
		t.Fatal(err)
	}
}

// Each control of the timeline, on a projector and on a phone: step and
// tick run their lab commands; dragging the slider back, undo and ← give
// what the page showed when it was first at that point, and what a new
// page that replays the same commands shows; forward again gives back
// the later state; play runs ticks at the chosen speed until paused.
func TestTimelineControls(t *testing.T) {
	t.Parallel()
	for _, size := range timelineViewports {
		t.Run(sizeName(size), func(t *testing.T) {
			t.Parallel()
			p := newLabPage(t, size, "/lab")
			commands := []string{"cluster brokers=3 controllers=3 seed=42", "topic create orders partitions=3 rf=3"}
			waitTimeline(t, p, 2, 2)
			at := map[int]drawing{2: drawn(t, p)}

			click(t, p, "#tl-step")
			lastEntry(t, p, "step")
			commands = append(commands, "step")
			waitTimeline(t, p, 3, 3)
			at[3] = drawn(t, p)

			click(t, p, "#tl-tick")
			lastEntry(t, p, "tick 100ms")
			commands = append(commands, "tick 100ms")
			waitTimeline(t, p, 4, 4)
			at[4] = drawn(t, p)

			for _, line := range []string{"produce orders key=a value=one partition=0", "broker crash 2", "produce orders key=b value=two partition=1"} {
				p.command(t, line)
				commands = append(commands, line)
				waitTimeline(t, p, len(commands), len(commands))
				lastEntry(t, p, line)
				at[len(commands)] = drawn(t, p)
			}

			// The slider back to 4: the lab replays its first 4 commands.
			if err := p.Locator("#tl-slider").Fill("4"); err != nil {
				t.Fatal(err)
			}
			waitTimeline(t, p, 4, 7)
			sameDrawing(t, "slider back to 4 vs the page when it first got there", drawn(t, p), at[4])
			if n, _ := p.Locator(`#cluster-view .record`).Count(); n != 0 {
				t.Errorf("back before the first produce, the view shows %d records", n)
			}
			sameDrawing(t, "slider back to 4 vs a fresh page replaying 4 commands", drawn(t, p), freshReplay(t, p, commands[:4]))

			// Forward again: the commands ahead were kept.
			if err := p.Locator("#tl-slider").Fill("7"); err != nil {
				t.Fatal(err)
			}
			waitTimeline(t, p, 7, 7)
			sameDrawing(t, "slider forward to 7 vs the page when it first got there", drawn(t, p), at[7])

			// Undo takes back the last command.
			click(t, p, "#tl-undo")
			waitTimeline(t, p, 6, 7)
			sameDrawing(t, "undo vs the page when it first got there", drawn(t, p), at[6])

			// ← goes back one command; the keys act on the page, not in
			// the console.
			if err := p.Locator("#cluster-view").Click(playwright.LocatorClickOptions{Position: &playwright.Position{X: 2, Y: 2}}); err != nil {
				t.Fatal(err)
			}
			press(t, p, "ArrowLeft")
			waitTimeline(t, p, 5, 7)
			sameDrawing(t, "← vs the page when it first got there", drawn(t, p), at[5])
			sameDrawing(t, "← vs a fresh page replaying 5 commands", drawn(t, p), freshReplay(t, p, commands[:5]))

			// → steps one event: a new command, which drops the two ahead.
			press(t, p, "ArrowRight")
			waitTimeline(t, p, 6, 6)
			lastEntry(t, p, "step")

			// ? opens the help, Escape closes it; typed in the console, ?
			// is a character.
			press(t, p, "?")
			if err := expect.Locator(p.Locator("#tl-help-overlay")).ToBeVisible(); err != nil {
				t.Fatal(err)
			}
			shotAs(t, p, "help")
			press(t, p, "Escape")
			if err := expect.Locator(p.Locator("#tl-help-overlay")).ToBeHidden(); err != nil {
				t.Fatal(err)
			}
			if err := p.Locator("#command").Focus(); err != nil {
				t.Fatal(err)
			}
			press(t, p, "?")
			press(t, p, "Space")
			press(t, p, "ArrowLeft")
			if v, _ := p.Locator("#command").InputValue(); v != "? " {
				t.Errorf("typing ? and space in the console gave %q", v)
			}
			if hidden, _ := p.Locator("#tl-help-overlay").IsHidden(); !hidden {
				t.Error("? typed in the console opened the help")
			}
			if err := expect.Locator(p.Locator("#timeline")).ToHaveAttribute("data-state", "paused"); err != nil {
				t.Fatal(err)
			}
			waitTimeline(t, p, 6, 6)
			if err := p.Locator("#command").Fill(""); err != nil {
				t.Fatal(err)
			}
			// On a list (the speed) ← picks an option: the lab stays where
			// it is, so the next command is the 7th of 7.
			if err := p.Locator("#tl-speed").Focus(); err != nil {
				t.Fatal(err)
			}
			press(t, p, "ArrowLeft")
			p.command(t, "tick 100ms")
			lastEntry(t, p, "tick 100ms")
			waitTimeline(t, p, 7, 7)

			// Play at ×10 runs 2 s ticks (frames of 200 ms); space pauses.
			if _, err := p.Locator("#tl-speed").SelectOption(playwright.SelectOptionValues{Values: &[]string{"10"}}); err != nil {
				t.Fatal(err)
			}
			if err := p.Locator("#cluster-view").Click(playwright.LocatorClickOptions{Position: &playwright.Position{X: 2, Y: 2}}); err != nil {
				t.Fatal(err)
			}
			press(t, p, "Space")
			if err := expect.Locator(p.Locator("#timeline")).ToHaveAttribute("data-state", "playing"); err != nil {
				t.Fatal(err)
			}
			ticks := p.Locator("#transcript .entry .cmd", playwright.PageLocatorOptions{HasText: "tick 2000ms"})
			if err := expect.Locator(ticks.Nth(1)).ToBeAttached(); err != nil {
				t.Fatal(err)
			}
			press(t, p, "Space")
			if err := expect.Locator(p.Locator("#timeline")).ToHaveAttribute("data-state", "paused"); err != nil {
				t.Fatal(err)
			}
			// Paused, the ticks stop: a command typed now is the last entry
			// and stays so once it is drawn.
			p.command(t, "show isr orders/0")
			lastEntry(t, p, "show isr orders/0")
			n, _ := p.Locator("#transcript .entry").Count()
			waitTimeline(t, p, n, n)

			// The play button at ×0.1: 20 ms ticks.
			if _, err := p.Locator("#tl-speed").SelectOption(playwright.SelectOptionValues{Values: &[]string{"0.1"}}); err != nil {
				t.Fatal(err)
			}
			click(t, p, "#tl-play")
			slow := p.Locator("#transcript .entry .cmd", playwright.PageLocatorOptions{HasText: "tick 20ms"})
			if err := expect.Locator(slow.First()).ToBeAttached(); err != nil {
				t.Fatal(err)
			}
			shotAs(t, p, "playing")
			click(t, p, "#tl-play")
			if err := expect.Locator(p.Locator("#timeline")).ToHaveAttribute("data-state", "paused"); err != nil {
				t.Fatal(err)
			}
			// Every tick play ran is a command of the session: the slider
			// spans them all.
			p.command(t, "show isr orders/1")
			lastEntry(t, p, "show isr orders/1")
			n, _ = p.Locator("#transcript .entry").Count()
			waitTimeline(t, p, n, n)
			assertNoHorizontalOverflow(t, p)
		})
	}
}

// shotAs saves what the viewport shows under e2e/out, named by the test
// and what it shows (the test's own screenshot at its end is full-page).
func shotAs(t *testing.T, p *watchedPage, what string) {
	t.Helper()
	if err := os.MkdirAll("out", 0o755); err != nil {
		t.Fatal(err)
	}
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + "_" + what + ".png"
	if _, err := p.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join("out", name)), Animations: playwright.ScreenshotAnimationsDisabled}); err != nil {
		t.Fatal(err)
	}
}

func assertNoHorizontalOverflow(t *testing.T, p *watchedPage) {
	t.Helper()
	over, err := p.Evaluate(`() => { const b = document.getElementById("timeline"); return [document.documentElement.scrollWidth, document.documentElement.clientWidth, b.scrollWidth, b.clientWidth]; }`)
	if err != nil {
		t.Fatal(err)
	}
	v := over.([]any)
	num := func(x any) float64 { f, _ := strconv.ParseFloat(fmt.Sprint(x), 64); return f }
	if tl, tc := num(v[2]), num(v[3]); tl > tc {
		t.Errorf("the timeline bar overflows: scrollWidth %v > clientWidth %v", tl, tc)
	}
}
