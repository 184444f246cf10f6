package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// nativeCommands move a participant's cluster (on the server's data
// directory) somewhere its starter script is not.
var nativeCommands = []string{"produce orders key=a value=first partition=1", "tick 500ms", "broker crash 3", "produce orders key=b value=second partition=2"}

// ownNativeCluster opens a participant's browser at a viewport and their
// own cluster on the server at base; the cluster is removed when the test
// ends (a client address opens few).
func ownNativeCluster(t *testing.T, base string, size playwright.Size, name string) (*watchedPage, func()) {
	t.Helper()
	p := newPageAt(t, base, playwright.BrowserNewContextOptions{Locale: playwright.String("en-US"), Viewport: &size,
		AcceptDownloads: playwright.Bool(true), ReducedMotion: playwright.ReducedMotionReduce}, false)
	p.open(t, "/live")
	if err := p.Locator(`#open-own-cluster input[name="name"]`).Fill(name); err != nil {
		t.Fatal(err)
	}
	if err := p.Locator(`#open-own-cluster button`).Click(); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitForURL(regexp.MustCompile(`/clusters/p-[0-9a-f]{8}$`)); err != nil {
		t.Fatal(err)
	}
	id := p.URL()[strings.LastIndex(p.URL(), "/")+1:]
	var once sync.Once
	drop := func() { once.Do(func() { dropCluster(t, p, id) }) }
	t.Cleanup(drop)
	if err := expect.Locator(p.Locator("body")).ToHaveAttribute("data-ready", "true"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("#timeline")).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
	waitNative(t, p, 2)
	return p, drop
}

// waitNative waits until the bar stands at the session's last command,
// the length-th, and the transcript shows length entries.
func waitNative(t *testing.T, p *watchedPage, length int) {
	t.Helper()
	for _, attr := range []string{"data-at", "data-length"} {
		if err := expect.Locator(p.Locator("#timeline")).ToHaveAttribute(attr, strconv.Itoa(length)); err != nil {
			t.Fatal(err)
		}
	}
	if err := expect.Locator(p.Locator("#tl-slider")).ToHaveValue(strconv.Itoa(length)); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("#transcript .entry")).ToHaveCount(length); err != nil {
		t.Fatal(err)
	}
}

// runNative types commands, each awaited in the transcript and the bar.
func runNative(t *testing.T, p *watchedPage, at int, lines []string) {
	t.Helper()
	for i, line := range lines {
		p.command(t, line)
		waitNative(t, p, at+i+1)
		lastEntry(t, p, line)
	}
}

// freshNative is what a new cluster that ran the starter script and lines
// shows: a fresh replay, on the server, of the same commands.
func freshNative(t *testing.T, base string, size playwright.Size, lines []string) drawing {
	t.Helper()
	p, drop := ownNativeCluster(t, base, size, "Fresh")
	runNative(t, p, 2, lines)
	d := drawn(t, p)
	drop()
	if err := p.Context().Close(); err != nil {
		t.Fatal(err)
	}
	return d
}

// dropCluster removes a participant's cluster with their cookie, the
// page first taken off it (a page left on a removed cluster would try
// its websocket again and be refused).
func dropCluster(t *testing.T, p *watchedPage, id string) {
	if _, err := p.Goto("about:blank"); err != nil {
		t.Log(err)
	}
	resp, err := p.Context().Request().Delete(p.base+"/api/v1/clusters/"+id, playwright.APIRequestContextDeleteOptions{
		Headers: map[string]string{"Content-Type": "application/json"}})
	if err != nil || resp.Status() != 204 {
		t.Errorf("removing the test's cluster %s: %v %v", id, resp, err)
	}
}

// forgive drops the problems the page recorded that say what: a refusal
// the test asked for on purpose (the watched page counts every answer
// of 400 or more as one).
func forgive(p *watchedPage, what ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := p.problems[:0]
	for _, problem := range p.problems {
		expected := false
		for _, w := range what {
			expected = expected || strings.Contains(problem, w)
		}
		if !expected {
			kept = append(kept, problem)
		}
	}
	p.problems = kept
}

// dialogAnswers answers the page's dialogs (the bar's confirm before it
// drops commands) as told, and hands over what each asked.
type dialogAnswers struct {
	mu  sync.Mutex
	yes bool
	got chan string
}

func answerDialogs(t *testing.T, p *watchedPage) *dialogAnswers {
	d := &dialogAnswers{yes: true, got: make(chan string, 16)}
	p.OnDialog(func(dialog playwright.Dialog) {
		d.mu.Lock()
		yes := d.yes
		d.mu.Unlock()
		if yes {
			dialog.Accept()
		} else {
			dialog.Dismiss()
		}
		d.got <- dialog.Message()
	})
	return d
}

func (d *dialogAnswers) accept(yes bool) {
	d.mu.Lock()
	d.yes = yes
	d.mu.Unlock()
}

// next waits for the next dialog (as long as expect waits) and returns
// what it asked.
func (d *dialogAnswers) next(t *testing.T) string {
	t.Helper()
	select {
	case msg := <-d.got:
		return msg
	case <-time.After(60 * time.Second):
		t.Fatal("no dialog came")
		return ""
	}
}

// none checks that no dialog came that the test did not wait for.
func (d *dialogAnswers) none(t *testing.T) {
	t.Helper()
	select {
	case msg := <-d.got:
		t.Errorf("an unexpected dialog asked %q", msg)
	default:
	}
}

// entryTexts is the transcript as text: each entry's command and output.
func entryTexts(t *testing.T, p *watchedPage) string {
	t.Helper()
	v, err := p.Locator("#transcript").Evaluate(`(el) => [...el.querySelectorAll(".entry")].map((e) =>
	  (e.querySelector(".cmd")?.textContent || "") + "\n" + (e.querySelector(".out")?.textContent || "")).join("\n---\n")`, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v.(string)
}

// The time bar on a participant's cluster on the server, on a projector
// and on a phone: undo and the slider going back rebuild the cluster by
// replay, and the page then shows what a fresh cluster that ran the same
// commands shows (every panel and the transcript); an uploaded script
// replaces the session, and a bad one is refused naming its line; the
// share link opens the session in the browser lab with the same
// transcript. The lab's play, speed, step and tick are not offered: the
// real-time bar runs the server's clock.
func TestNativeTimeline(t *testing.T) {
	t.Parallel()
	for _, size := range timelineViewports {
		t.Run(sizeName(size), func(t *testing.T) {
			t.Parallel()
			// A server per size: each opens three clusters from one
			// address, the most a server allows it.
			base := ownServer(t)
			p, _ := ownNativeCluster(t, base, size, "Ana")
			for _, id := range []string{"#tl-play", "#tl-step", "#tl-tick", "#tl-speed"} {
				if err := expect.Locator(p.Locator(id)).ToBeHidden(); err != nil {
					t.Errorf("%s is offered natively: %v", id, err)
				}
			}
			runNative(t, p, 2, nativeCommands)

			click(t, p, "#tl-undo")
			waitNative(t, p, 5)
			lastEntry(t, p, nativeCommands[2])
			if err := expect.Locator(p.Locator("#tl-message")).ToContainText("went back to command 5 of 6"); err != nil {
				t.Fatal(err)
			}
			sameDrawing(t, "undo vs a fresh cluster that ran the same commands", drawn(t, p), freshNative(t, base, size, nativeCommands[:3]))
			shotAs(t, p, "native-undo")

			// The slider back more than one command asks first: it drops
			// them for everyone watching, for good. Declined, nothing moves.
			dialogs := answerDialogs(t, p)
			dialogs.accept(false)
			if err := p.Locator("#tl-slider").Fill("3"); err != nil {
				t.Fatal(err)
			}
			if asked := dialogs.next(t); !strings.Contains(asked, "Go back to command 3 of 5? The last 2 commands are dropped") {
				t.Errorf("the slider asked %q", asked)
			}
			if err := expect.Locator(p.Locator("#tl-slider")).ToHaveValue("5"); err != nil {
				t.Fatal(err)
			}
			waitNative(t, p, 5)
			dialogs.accept(true)
			if err := p.Locator("#tl-slider").Fill("3"); err != nil {
				t.Fatal(err)
			}
			dialogs.next(t)
			waitNative(t, p, 3)
			lastEntry(t, p, nativeCommands[0])
			sameDrawing(t, "the slider back to 3 vs a fresh cluster", drawn(t, p), freshNative(t, base, size, nativeCommands[:1]))

			// ← rebuilds the room's cluster: not from a list (its arrows
			// pick an option) nor from a control outside the bar, so the
			// next command is the 4th.
			if err := p.Locator("#anim-speed").Focus(); err != nil {
				t.Fatal(err)
			}
			press(t, p, "ArrowLeft")
			if err := p.Locator("#realtime button:visible").First().Focus(); err != nil {
				t.Fatal(err)
			}
			press(t, p, "ArrowLeft")
			runNative(t, p, 3, []string{"tick 100ms"})
			// On the page or in the bar ← goes back one command, without
			// asking.
			if err := p.Locator("#tl-help").Focus(); err != nil {
				t.Fatal(err)
			}
			press(t, p, "ArrowLeft")
			waitNative(t, p, 3)
			lastEntry(t, p, nativeCommands[0])
			if _, err := p.Locator("#tl-help").Evaluate("(el) => el.blur()", nil); err != nil {
				t.Fatal(err)
			}
			press(t, p, "ArrowLeft")
			waitNative(t, p, 2)
			lastEntry(t, p, "topic create orders partitions=3 rf=3")
			dialogs.none(t)

			// A script: one with a bad line is refused naming it, and the
			// session stays; a good one replaces it.
			before := drawn(t, p)
			bad := filepath.Join(t.TempDir(), "bad.lab")
			os.WriteFile(bad, []byte("cluster brokers=3 seed=9\ntopic create t partitions=1 rf=1\nconsumer poll nobody\n"), 0o644)
			if err := p.Locator("#tl-upload").SetInputFiles(bad); err != nil {
				t.Fatal(err)
			}
			if err := expect.Locator(p.Locator("#tl-message")).ToContainText("line 3: consumer poll nobody"); err != nil {
				t.Fatal(err)
			}
			forgive(p, "HTTP 409 for "+base+"/api/v1/clusters/", "status of 409 (Conflict)")
			sameDrawing(t, "after a refused script", drawn(t, p), before)
			script := "# saved\ncluster brokers=3 controllers=3 seed=42\ntopic create orders partitions=3 rf=3\n" + strings.Join(nativeCommands, "\n") + "\n"
			good := filepath.Join(t.TempDir(), "good.lab")
			os.WriteFile(good, []byte(script), 0o644)
			if err := p.Locator("#tl-upload").SetInputFiles(good); err != nil {
				t.Fatal(err)
			}
			waitNative(t, p, 6)
			lastEntry(t, p, nativeCommands[3])

			// Share: the link opens the session in the browser lab.
			click(t, p, "#tl-share")
			url := p.Locator("#tl-share-url")
			if err := expect.Locator(url).ToBeVisible(); err != nil {
				t.Fatal(err)
			}
			link, err := url.InputValue()
			if err != nil || !strings.HasPrefix(link, base+"/lab#s=") {
				t.Fatalf("share link %q (%v)", link, err)
			}
			shotAs(t, p, "native-shared")
			nativeTranscript := entryTexts(t, p)
			opened := newLabPageAt(t, base, size, strings.TrimPrefix(link, base))
			waitTimeline(t, opened, 6, 6)
			if err := expect.Locator(opened.Locator("#status")).ToHaveText("shared session opened"); err != nil {
				t.Fatal(err)
			}
			if got := entryTexts(t, opened); got != nativeTranscript {
				t.Errorf("the shared session's transcript in the browser lab:\n%s\nthe server's:\n%s", firstDiff(got, nativeTranscript), firstDiff(nativeTranscript, got))
			}
			if err := expect.Locator(opened.Locator(`#cluster-view [data-partition="orders/2"] .record`).First()).ToContainText("second"); err != nil {
				t.Fatal(err)
			}
			assertNoHorizontalOverflow(t, p)

			// Download gives the session as a script that opens again: the
			// lines that ran, a typo left out (it would fail as misuse).
			runNative(t, p, 6, []string{"produse typo"})
			dl, err := p.ExpectDownload(func() error { return p.Locator("#tl-download").Click() })
			if err != nil {
				t.Fatal(err)
			}
			saved, err := dl.Path()
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(saved)
			want := "# loglab session: open it with \"open script…\" in the browser lab\ncluster brokers=3 controllers=3 seed=42\ntopic create orders partitions=3 rf=3\n" + strings.Join(nativeCommands, "\n") + "\n"
			if string(got) != want {
				t.Errorf("the downloaded script:\n%s\nwant\n%s", got, want)
			}
			if err := p.Locator("#tl-upload").SetInputFiles(saved); err != nil {
				t.Fatal(err)
			}
			waitNative(t, p, 6)
			lastEntry(t, p, nativeCommands[3])
			dialogs.none(t)
		})
	}
}
