package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// expect waits up to 60 s: the first load compiles a few MB of WASM, and
// on a loaded machine (make test beside CPU hogs) a command in the page's
// engine can take a while (a /lab first load was seen to pass 30 s at a
// load average of 20 on two cores). A bound that turns a lost update into a failure, not a timing
// assertion.
var expect = playwright.NewPlaywrightAssertions(expectTimeout)

// expectTimeout is that bound in milliseconds; a page's actions (a click
// waiting for its target, a navigation) have it too.
const expectTimeout = 60000

// visibleText compares what a reader sees (innerText), not textContent:
// chrome is in the page in English and Chinese (web.T) and CSS hides the
// language not chosen, which textContent would still include. The pages
// open in English (the browser context's locale).
var visibleText = playwright.LocatorAssertionsToHaveTextOptions{UseInnerText: playwright.Bool(true)}

// watchedPage is a page that records every console error, uncaught
// exception, failed request and HTTP error status, and fails the test with
// them at the end: a page that "works" while logging errors is broken.
type watchedPage struct {
	playwright.Page
	base     string // the server the page opens paths on (open)
	mu       sync.Mutex
	problems []string
}

// instructorToken is every e2e server's instructor token: newPage's browser
// holds it (as the instructor's would after opening the URL loglab serve
// prints), newParticipantPage's does not.
const instructorToken = "e2e-instructor-token"

// newPage is a page in a browser of its own (a new context) on the
// package's server, where the browser lab is: a /lab page runs its own
// engine, so tests of the lab share that server and run beside each other.
func newPage(t *testing.T) *watchedPage {
	t.Helper()
	return newPageOn(t, baseURL)
}

// newPageOn is newPage on another server (ownServer's), as the instructor.
func newPageOn(t *testing.T, base string) *watchedPage {
	t.Helper()
	// English, whatever the machine's locale: lang.js follows the
	// browser's preference, and the assertions read the English chrome.
	return newPageAt(t, base, playwright.BrowserNewContextOptions{Locale: playwright.String("en-US")}, true)
}

// newPageWith is newPage in a context with options (a locale, say).
func newPageWith(t *testing.T, opts playwright.BrowserNewContextOptions) *watchedPage {
	t.Helper()
	return newPageAt(t, baseURL, opts, true)
}

// newParticipantPage is a participant's browser on a server: no
// instructor token.
func newParticipantPage(t *testing.T, base string) *watchedPage {
	t.Helper()
	return newPageAt(t, base, playwright.BrowserNewContextOptions{Locale: playwright.String("en-US")}, false)
}

// newPageAt opens a page in a new browser context with opts, whose paths
// are on the server at base; the instructor's browser holds the token.
func newPageAt(t *testing.T, base string, opts playwright.BrowserNewContextOptions, instructor bool) *watchedPage {
	t.Helper()
	ctx, err := browser.NewContext(opts)
	if err != nil {
		t.Fatal(err)
	}
	// Actions wait as long as assertions do: tests run beside each other,
	// and a loaded machine (make test beside CPU hogs) slows every page.
	ctx.SetDefaultTimeout(expectTimeout)
	if instructor {
		err := ctx.AddCookies([]playwright.OptionalCookie{{Name: "loglab_instructor", Value: instructorToken, URL: playwright.String(base),
			HttpOnly: playwright.Bool(true), SameSite: playwright.SameSiteAttributeLax}})
		if err != nil {
			ctx.Close()
			t.Fatal(err)
		}
	}
	page, err := ctx.NewPage()
	if err != nil {
		ctx.Close()
		t.Fatal(err)
	}
	return watch(t, base, page, func() { ctx.Close() })
}

// sibling is another page in w's browser context (another tab of the same
// browser): it shares w's cookies, storage and HTTP cache, so a second
// /lab page there reuses the engine the browser already compiled. It
// closes with w's context.
func (w *watchedPage) sibling(t *testing.T) *watchedPage {
	t.Helper()
	page, err := w.Context().NewPage()
	if err != nil {
		t.Fatal(err)
	}
	return watch(t, w.base, page, func() { page.Close() })
}

// watch records page's problems and, when the test ends, saves its
// screenshot, calls done (closing the page or its context) and fails the
// test with what it recorded.
func watch(t *testing.T, base string, page playwright.Page, done func()) *watchedPage {
	t.Helper()
	w := &watchedPage{Page: page, base: base}
	page.OnConsole(func(m playwright.ConsoleMessage) {
		if m.Type() == "error" {
			w.problem("console error: " + m.Text())
		}
	})
	page.OnPageError(func(err error) { w.problem("uncaught: " + err.Error()) })
	page.OnRequestFailed(func(r playwright.Request) {
		// A websocket or fetch cut short because the test closed the page
		// is not the page's fault.
		if f := r.Failure(); f != nil && !strings.Contains(f.Error(), "ERR_ABORTED") {
			w.problem("request failed: " + r.URL() + ": " + f.Error())
		}
	})
	page.OnResponse(func(r playwright.Response) {
		if r.Status() >= 400 {
			w.problem(fmt.Sprintf("HTTP %d for %s", r.Status(), r.URL()))
		}
	})
	t.Cleanup(func() {
		screenshot(t, page)
		done()
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, p := range w.problems {
			t.Error(p)
		}
	})
	return w
}

func (w *watchedPage) problem(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.problems = append(w.problems, s)
}

// open loads a page and waits until its console accepts commands.
func (w *watchedPage) open(t *testing.T, path string) {
	t.Helper()
	if _, err := w.Goto(w.base + path); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(w.Locator("body")).ToHaveAttribute("data-ready", "true"); err != nil {
		status, _ := w.Locator("#status").TextContent()
		t.Fatalf("%s never became ready (status: %q): %v", path, status, err)
	}
}

// command types a lab command into the console and presses Enter.
func (w *watchedPage) command(t *testing.T, line string) {
	t.Helper()
	if err := w.Locator("#command").Fill(line); err != nil {
		t.Fatal(err)
	}
	if err := w.Locator("#command").Press("Enter"); err != nil {
		t.Fatal(err)
	}
}

func screenshot(t *testing.T, page playwright.Page) {
	dir := "out"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Log(err)
		return
	}
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + ".png"
	// From the top, so sticky parts sit where a reader first sees them, and
	// with finite animations (the lookup's steps fading in) run to their end.
	if _, err := page.Evaluate("window.scrollTo(0, 0)"); err != nil {
		t.Log("screenshot:", err)
	}
	if _, err := page.Screenshot(playwright.PageScreenshotOptions{
		Path: playwright.String(filepath.Join(dir, name)), FullPage: playwright.Bool(true), Animations: playwright.ScreenshotAnimationsDisabled,
	}); err != nil {
		t.Log("screenshot:", err)
	}
}

// pageSizes are the two screens issue 15 exercises every control and
// panel at: a projector (1280×720) and a phone (390×844).
var pageSizes = []playwright.Size{{Width: 1280, Height: 720}, {Width: 390, Height: 844}}

// newSizedPage is newPage at a viewport. The tests that walk both sizes
// open one page and resize it between their subtests (resizeTo), as a
// phone turned or a window narrowed would: one WASM compile and one
// cluster serve both, instead of twice the suite's time.
func newSizedPage(t *testing.T, size playwright.Size) *watchedPage {
	t.Helper()
	return newPageWith(t, sizedContext(size))
}

// sizedContext is newSizedPage's browser: English, at a viewport.
func sizedContext(size playwright.Size) playwright.BrowserNewContextOptions {
	return playwright.BrowserNewContextOptions{Locale: playwright.String("en-US"), Viewport: &size}
}

// resizeTo sets the page's viewport and waits until the page has laid
// itself out at that width.
func (w *watchedPage) resizeTo(t *testing.T, size playwright.Size) {
	t.Helper()
	if err := w.SetViewportSize(size.Width, size.Height); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WaitForFunction(`(width) => window.innerWidth === width`, size.Width); err != nil {
		t.Fatal(err)
	}
}

// chromeLabels are the labelled elements outside the cluster view: the
// console, the time controls, the page's own buttons and headings.
var chromeLabels = strings.Join([]string{
	"button", "label", "summary", "select", "h1", "h2", "h3", "th",
	".chip", ".badge", "#status", "#usage", "#completions li", "#tl-position", ".metric-name", ".metric-value",
}, ", ")

// pageTruncatedLabels lists, anywhere on the page, the visible labelled
// elements (the cluster view's labelSelectors and chromeLabels) whose
// content is wider than their box: cut by an ellipsis or a clipped
// overflow, or spilling over what is beside them. A box made to scroll
// (overflow-x auto or scroll) is not cut: its reader scrolls it.
var pageTruncatedLabels = `() => {
	const out = [];
	for (const el of document.querySelectorAll(` + "`" + `:is(` + labelSelectors + `, ` + chromeLabels + `)` + "`" + `)) {
		if (!el.getClientRects().length || el.clientWidth === 0) continue;
		if (el.closest('[hidden]') || getComputedStyle(el).visibility === 'hidden') continue;
		if (el.closest('svg') && el.tagName !== 'foreignObject' && !el.closest('foreignObject')) continue;
		const ox = getComputedStyle(el).overflowX;
		if (ox === 'auto' || ox === 'scroll') continue;
		const tall = el.classList.contains('node') && el.scrollHeight > el.clientHeight + 1;
		if (el.scrollWidth > el.clientWidth + 1 || tall) {
			const name = el.id ? '#' + el.id : el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '');
			out.push(name + ' "' + el.innerText.replace(/\s+/g, ' ').slice(0, 60) + '" ' +
				el.scrollWidth + 'x' + el.scrollHeight + ' in ' + el.clientWidth + 'x' + el.clientHeight);
		}
	}
	return out;
}`

// assertFits checks what must hold at any size: the page never scrolls
// sideways, and no labelled text anywhere on it is cut.
func assertFits(t *testing.T, p *watchedPage, what string) {
	t.Helper()
	v, err := p.Evaluate(`() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]`)
	if err != nil {
		t.Fatal(err)
	}
	w := v.([]interface{})
	if toF(w[0]) > toF(w[1]) {
		wide, _ := p.Evaluate(widestElements)
		t.Errorf("%s: the page is %v px wide in a %v px viewport; widest: %v", what, w[0], w[1], wide)
	}
	cut, err := p.Evaluate(pageTruncatedLabels)
	if err != nil {
		t.Fatal(err)
	}
	if list := cut.([]interface{}); len(list) > 0 {
		t.Errorf("%s: %d labels are cut: %v", what, len(list), list)
	}
}

// sizeShot saves the viewport, scrolled to selector's top (the page's top
// for ""), under e2e/out as NAME-WxH.png: one per panel and size, to look at.
func sizeShot(t *testing.T, p *watchedPage, selector, name string) {
	t.Helper()
	if selector != "" {
		if _, err := p.Evaluate(`(s) => document.querySelector(s).scrollIntoView({block: "start"})`, selector); err != nil {
			t.Log("screenshot:", err)
		}
	}
	if err := os.MkdirAll("out", 0o755); err != nil {
		t.Log(err)
	}
	size := p.ViewportSize()
	file := fmt.Sprintf("%s-%dx%d.png", name, size.Width, size.Height)
	if _, err := p.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join("out", file)), Animations: playwright.ScreenshotAnimationsDisabled}); err != nil {
		t.Log("screenshot:", err)
	}
}
