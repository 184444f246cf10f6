package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// sessionCommands move the starter cluster somewhere a new lab is not.
var sessionCommands = []string{"produce orders key=k value=shared partition=1", "broker crash 3", "tick 1s", "step"}

func playSession(t *testing.T, p *watchedPage) {
	t.Helper()
	waitTimeline(t, p, 2, 2)
	for i, line := range sessionCommands {
		p.command(t, line)
		waitTimeline(t, p, 3+i, 3+i)
		lastEntry(t, p, line)
	}
}

// A session shared as a link opens, in a new browser, as the same
// session: the same cluster view and transcript, byte for byte.
func TestSessionShareLinkRestoresTheSession(t *testing.T) {
	t.Parallel()
	for _, size := range timelineViewports {
		t.Run(sizeName(size), func(t *testing.T) {
			t.Parallel()
			p := newLabPage(t, size, "/lab")
			playSession(t, p)
			want := drawn(t, p)
			click(t, p, "#tl-share")
			url := p.Locator("#tl-share-url")
			if err := expect.Locator(url).ToBeVisible(); err != nil {
				t.Fatal(err)
			}
			link, err := url.InputValue()
			if err != nil || !strings.Contains(link, "/lab#s=") {
				t.Fatalf("share link %q (%v)", link, err)
			}
			assertFits(t, p, "the share link shown")
			shotAs(t, p, "shared")

			opened := newLabPage(t, size, strings.TrimPrefix(link, baseURL))
			n := 2 + len(sessionCommands)
			waitTimeline(t, opened, n, n)
			if err := expect.Locator(opened.Locator("#status")).ToHaveText("shared session opened"); err != nil {
				t.Fatal(err)
			}
			sameDrawing(t, "the shared link opened in a new page", drawn(t, opened), want)
			if err := expect.Locator(opened.Locator(`#cluster-view [data-partition="orders/1"] .record`).First()).ToContainText("shared"); err != nil {
				t.Fatal(err)
			}
			assertFits(t, opened, "the shared session opened")
		})
	}
}

// The session downloads as a lab script, and that script uploaded into
// another lab (a new page of the same browser) opens the same session; a
// script with a failing line is refused naming the line, and the session
// on screen stays.
func TestSessionDownloadAndUpload(t *testing.T) {
	t.Parallel()
	for _, size := range timelineViewports {
		t.Run(sizeName(size), func(t *testing.T) {
			t.Parallel()
			p := newLabPage(t, size, "/lab")
			playSession(t, p)
			want := drawn(t, p)
			dl, err := p.ExpectDownload(func() error { return p.Locator("#tl-download").Click() })
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), dl.SuggestedFilename())
			if err := dl.SaveAs(path); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			script := string(b)
			wantScript := "cluster brokers=3 controllers=3 seed=42\ntopic create orders partitions=3 rf=3\n" + strings.Join(sessionCommands, "\n") + "\n"
			if dl.SuggestedFilename() != "loglab-session.txt" || !strings.HasPrefix(script, "# ") || !strings.HasSuffix(script, wantScript) {
				t.Fatalf("downloaded %s:\n%s\nwant a comment line, then\n%s", dl.SuggestedFilename(), script, wantScript)
			}

			other := p.sibling(t)
			openLab(t, other, "/lab")
			waitTimeline(t, other, 2, 2)
			if err := other.Locator("#tl-upload").SetInputFiles(path); err != nil {
				t.Fatal(err)
			}
			n := 2 + len(sessionCommands)
			waitTimeline(t, other, n, n)
			if err := expect.Locator(other.Locator("#tl-message")).ToHaveText("Opened loglab-session.txt.", visibleText); err != nil {
				t.Fatal(err)
			}
			sameDrawing(t, "the uploaded script", drawn(t, other), want)
			assertFits(t, other, "the uploaded session opened")

			// A script whose third line fails: refused, naming it.
			bad := filepath.Join(t.TempDir(), "bad.txt")
			if err := os.WriteFile(bad, []byte("cluster brokers=1 seed=3\n# one broker\nbroker crash 5\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := other.Locator("#tl-upload").SetInputFiles(bad); err != nil {
				t.Fatal(err)
			}
			msg := other.Locator("#tl-message")
			if err := expect.Locator(msg).ToContainText("line 3: broker crash 5"); err != nil {
				t.Fatal(err)
			}
			if err := expect.Locator(msg).ToContainText("The script bad.txt was not opened", playwright.LocatorAssertionsToContainTextOptions{UseInnerText: playwright.Bool(true)}); err != nil {
				t.Fatal(err)
			}
			waitTimeline(t, other, n, n)
			sameDrawing(t, "after a refused script", drawn(t, other), want)
			assertFits(t, other, "a refused script's message")
			shotAs(t, other, "refused")
		})
	}
}

// A link whose data is damaged, or whose script fails, says so and leaves
// the new session the lab starts with.
func TestSessionBadLinkSaysSoAndKeepsTheStarter(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, path, mention string }{
		{"corrupt", "/lab#s=bm90LWRlZmxhdGU", "The shared link is damaged"},
		{"not base64", "/lab#s=%%%", "The shared link is damaged"},
		{"failing line", shareLink(t, "cluster brokers=3 seed=1\ntopic create t\nfrobnicate now"), `line 3: frobnicate now: unknown command "frobnicate"`},
	}
	for _, size := range timelineViewports {
		t.Run(sizeName(size), func(t *testing.T) {
			t.Parallel()
			// One page per size, loading each link in turn: a page loaded
			// afresh (not only its fragment changed) keeps nothing of the one
			// before (the lab keeps no session in storage), and the browser's
			// cache spares compiling the module again.
			p := newPageWith(t, playwright.BrowserNewContextOptions{Locale: playwright.String("en-US"), Viewport: &size, ReducedMotion: playwright.ReducedMotionReduce})
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					if _, err := p.Goto("about:blank"); err != nil {
						t.Fatal(err)
					}
					p.open(t, c.path)
					msg := p.Locator("#tl-message")
					if err := expect.Locator(msg).ToContainText(c.mention, playwright.LocatorAssertionsToContainTextOptions{UseInnerText: playwright.Bool(true)}); err != nil {
						t.Fatal(err)
					}
					if err := expect.Locator(msg).ToHaveAttribute("data-kind", "error"); err != nil {
						t.Fatal(err)
					}
					waitTimeline(t, p, 2, 2)
					if err := expect.Locator(p.Locator("#transcript")).ToContainText("created topic orders: partitions=3 rf=3"); err != nil {
						t.Fatal(err)
					}
					// The starter session still takes commands.
					p.command(t, "produce orders key=a value=after partition=0")
					waitTimeline(t, p, 3, 3)
					assertFits(t, p, "a bad link's message")
					if c.name == "failing line" {
						shotAs(t, p, "error")
					}
				})
			}
		})
	}
}
