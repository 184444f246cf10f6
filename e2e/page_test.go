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

// expect waits up to 30 s: the first load compiles a few MB of WASM, and
// on a loaded machine (make test beside CPU hogs) a command in the page's
// engine, or raft's real-time election it waits for, can take a while. A
// bound that turns a lost update into a failure, not a timing assertion.
var expect = playwright.NewPlaywrightAssertions(30000)

// visibleText compares what a reader sees (innerText), not textContent:
// chrome is in the page in English and Chinese (web.T) and CSS hides the
// language not chosen, which textContent would still include. The pages
// open in English (the browser context's locale).
var visibleText = playwright.LocatorAssertionsToHaveTextOptions{UseInnerText: playwright.Bool(true)}

// watchedPage is a page in its own browser context that records every
// console error, uncaught exception, failed request and HTTP error status,
// and fails the test with them at the end: a page that "works" while
// logging errors is broken.
type watchedPage struct {
	playwright.Page
	mu       sync.Mutex
	problems []string
}

// instructorToken is the e2e server's instructor token: newPage's browser
// holds it (as the instructor's would after opening the URL loglab serve
// prints), newParticipantPage's does not.
const instructorToken = "e2e-instructor-token"

func newPage(t *testing.T) *watchedPage {
	t.Helper()
	// English, whatever the machine's locale: lang.js follows the
	// browser's preference, and the assertions read the English chrome.
	return newPageWith(t, playwright.BrowserNewContextOptions{Locale: playwright.String("en-US")})
}

// newPageWith is newPage in a context with options (a locale, say).
func newPageWith(t *testing.T, opts playwright.BrowserNewContextOptions) *watchedPage {
	t.Helper()
	return newPageAs(t, opts, true)
}

// newParticipantPage is a participant's browser: no instructor token.
func newParticipantPage(t *testing.T) *watchedPage {
	t.Helper()
	return newPageAs(t, playwright.BrowserNewContextOptions{Locale: playwright.String("en-US")}, false)
}

func newPageAs(t *testing.T, opts playwright.BrowserNewContextOptions, instructor bool) *watchedPage {
	t.Helper()
	ctx, err := browser.NewContext(opts)
	if err != nil {
		t.Fatal(err)
	}
	if instructor {
		err := ctx.AddCookies([]playwright.OptionalCookie{{Name: "loglab_instructor", Value: instructorToken, URL: playwright.String(baseURL),
			HttpOnly: playwright.Bool(true), SameSite: playwright.SameSiteAttributeLax}})
		if err != nil {
			t.Fatal(err)
		}
	}
	page, err := ctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	w := &watchedPage{Page: page}
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
		ctx.Close()
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
	if _, err := w.Goto(baseURL + path); err != nil {
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
