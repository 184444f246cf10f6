package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"
)

// The console completes the engine's command and option names on Tab,
// shows the usage line of the command being typed, and keeps the tab's
// history across a reload (↑ recalls a command typed before it). On a
// projector, then on a phone: the same page, resized.
func TestConsoleCompletesExplainsAndRemembers(t *testing.T) {
	t.Parallel()
	p := newSizedPage(t, pageSizes[0])
	p.open(t, "/lab")
	for _, size := range pageSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			p.resizeTo(t, size)
			completeExplainAndRemember(t, p)
		})
	}
}

func completeExplainAndRemember(t *testing.T, p *watchedPage) {
	in := p.Locator("#command")
	if err := in.Fill(""); err != nil {
		t.Fatal(err)
	}

	// One candidate: the word is completed, with the space after it.
	typeAndTab(t, in, "top")
	if err := expect.Locator(in).ToHaveValue("topic "); err != nil {
		t.Fatal(err)
	}
	// The second word of a grouped command: "topic c" → "topic create ".
	typeAndTab(t, in, "c")
	if err := expect.Locator(in).ToHaveValue("topic create "); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("#usage")).ToContainText("topic create NAME [partitions=1] [rf=1]"); err != nil {
		t.Fatal(err)
	}

	// An option name: "ke" → "key=", and the usage line says the command's usage.
	if err := in.Fill(""); err != nil {
		t.Fatal(err)
	}
	typeAndTab(t, in, "produce orders ke")
	if err := expect.Locator(in).ToHaveValue("produce orders key="); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("#usage")).ToContainText("produce TOPIC value=V|tombstone=true [key=K]"); err != nil {
		t.Fatal(err)
	}

	// Several candidates: the common prefix, a list, then Tab cycles.
	if err := in.Fill(""); err != nil {
		t.Fatal(err)
	}
	typeAndTab(t, in, "produce orders p")
	if err := expect.Locator(in).ToHaveValue("produce orders p"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("#completions li")).ToHaveText([]string{"partition=", "producer="}); err != nil {
		t.Fatal(err)
	}
	// The usage line and the candidates, whole, at this width.
	assertFits(t, p, "the console completing")
	sizeShot(t, p, "#command", "console-completions")
	if err := in.Press("Tab"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(in).ToHaveValue("produce orders partition="); err != nil {
		t.Fatal(err)
	}
	if err := in.Press("Tab"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(in).ToHaveValue("produce orders producer="); err != nil {
		t.Fatal(err)
	}

	// "did you mean" comes from the engine for a typo.
	p.command(t, "prodcue orders value=1")
	if err := expect.Locator(p.Locator("#transcript .entry.error").Last()).ToContainText(`did you mean "produce"?`); err != nil {
		t.Fatal(err)
	}
	p.command(t, "produce orders key=h value=remembered")
	if err := expect.Locator(p.Locator("#transcript .entry").Last()).ToContainText("produced to orders/"); err != nil {
		t.Fatal(err)
	}

	// A reload of the same tab keeps the history: ↑ recalls the last
	// command, ↑ again the one before.
	if _, err := p.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("body")).ToHaveAttribute("data-ready", "true"); err != nil {
		t.Fatal(err)
	}
	in = p.Locator("#command")
	if err := in.Press("ArrowUp"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(in).ToHaveValue("produce orders key=h value=remembered"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("#usage")).ToContainText("produce TOPIC"); err != nil {
		t.Fatal(err)
	}
	if err := in.Press("ArrowUp"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(in).ToHaveValue("prodcue orders value=1"); err != nil {
		t.Fatal(err)
	}
}

// The live page completes the server's own commands too.
func TestConsoleCompletesNativeCommandsOnLive(t *testing.T) {
	t.Parallel()
	p := newPageAt(t, ownServer(t), sizedContext(pageSizes[0]), true)
	p.open(t, "/live")
	for _, size := range pageSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			p.resizeTo(t, size)
			in := p.Locator("#command")
			if err := in.Fill(""); err != nil {
				t.Fatal(err)
			}
			typeAndTab(t, in, "realt")
			if err := expect.Locator(in).ToHaveValue("realtime "); err != nil {
				t.Fatal(err)
			}
			if err := expect.Locator(p.Locator("#usage")).ToContainText("realtime [on [speed=X]"); err != nil {
				t.Fatal(err)
			}
			assertFits(t, p, "the live console completing")
			sizeShot(t, p, "#command", "console-live")
		})
	}
}

// typeAndTab types text at the end of the input, as a learner would, and
// presses Tab.
func typeAndTab(t *testing.T, in playwright.Locator, text string) {
	t.Helper()
	if err := in.PressSequentially(text); err != nil {
		t.Fatal(err)
	}
	if err := in.Press("Tab"); err != nil {
		t.Fatal(err)
	}
}
