package e2e

import (
	"regexp"
	"testing"
)

// A participant watching the instructor's cluster sees no usable command:
// the console is disabled and says who runs commands there and how to get
// a cluster of one's own, and the view's command buttons are hidden, also
// after the instructor's commands morph the view; the instructor's page
// keeps them all (issue 28, item 2).
func TestAViewerSeesNoUsableCommand(t *testing.T) {
	t.Parallel()
	base := ownServer(t)
	instructor := newPageOn(t, base)
	ana := newParticipantPage(t, base)
	instructor.open(t, "/live")
	ana.open(t, "/live")

	buttons := "#cluster-view button[data-command]:visible"
	check := func(when string) {
		t.Helper()
		if err := expect.Locator(ana.Locator("#command")).ToBeDisabled(); err != nil {
			t.Fatalf("%s: the participant's console is usable: %v", when, err)
		}
		if err := expect.Locator(ana.Locator(buttons)).ToHaveCount(0); err != nil {
			t.Fatalf("%s: the participant sees command buttons: %v", when, err)
		}
		if err := expect.Locator(instructor.Locator("#command")).ToBeEnabled(); err != nil {
			t.Fatalf("%s: the instructor's console is disabled: %v", when, err)
		}
		if n, err := instructor.Locator(buttons).Count(); err != nil || n < 5 {
			t.Fatalf("%s: the instructor sees %d command buttons (%v)", when, n, err)
		}
	}
	check("on opening")
	if err := expect.Locator(ana.Locator("#watch-note")).ToContainText("Only the instructor runs commands here"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(ana.Locator("#watch-note")).ToContainText("Open my own cluster"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(ana.Locator("#command")).ToHaveAttribute("placeholder", "watching: only the instructor runs commands here"); err != nil {
		t.Fatal(err)
	}
	if n, _ := instructor.Locator("#watch-note").Count(); n != 0 {
		t.Error("the instructor's console has a watcher's note")
	}

	// The instructor's commands redraw the view the participant watches.
	instructor.command(t, "topic create watched partitions=1")
	instructor.command(t, "produce watched key=a value=1")
	instructor.command(t, "tick 1s")
	if err := expect.Locator(ana.Locator(`#cluster-view .topic[data-topic="watched"]`)).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
	check("after the instructor's commands")

	// A click on a record does nothing for the participant: the server
	// would refuse its show batch.
	if err := ana.Locator(`#cluster-view .topic[data-topic="watched"] [data-command^="show batch"]`).First().Click(); err != nil {
		t.Fatal(err)
	}
	instructor.command(t, "tick 100ms")
	if err := expect.Locator(ana.Locator("#transcript .entry").Last()).ToContainText("tick 100ms"); err != nil {
		t.Fatal(err)
	}
	if n, _ := ana.Locator("#transcript").GetByText("CLUSTER_AUTHORIZATION_FAILED").Count(); n != 0 {
		t.Error("the participant's click sent a command the server refused")
	}
}

// Tooltips, placeholders and status lines follow the language switch,
// also on what the server morphs in after the switch (issue 28, item 4).
func TestTooltipsFollowTheLanguageSwitch(t *testing.T) {
	t.Parallel()
	base := ownServer(t)
	p := newPageOn(t, base)
	p.open(t, "/live")
	tick := p.Locator(`#cluster-view .controls button[data-command="tick 100ms"]`)
	input := p.Locator("#command")
	status := p.Locator("#status")
	if err := expect.Locator(tick).ToHaveAttribute("title", "advance virtual time by 100 ms"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(status).ToHaveText("connected to the live cluster"); err != nil {
		t.Fatal(err)
	}

	if err := p.Locator(`[data-set-lang="zh"]`).Click(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(tick).ToHaveAttribute("title", "将虚拟时间推进 100 ms"); err != nil {
		t.Fatalf("the button's title in Chinese: %v", err)
	}
	if err := expect.Locator(input).ToHaveAttribute("placeholder", "试试：produce orders key=a value=1   （Tab 补全；help 列出全部命令）"); err != nil {
		t.Fatalf("the console's placeholder in Chinese: %v", err)
	}
	if err := expect.Locator(status).ToHaveText("已连接到共享集群"); err != nil {
		t.Fatalf("the status line in Chinese: %v", err)
	}
	// What a command morphs in arrives in English and is put in Chinese.
	p.command(t, "topic create tips partitions=1")
	p.command(t, "produce tips key=a value=1")
	record := p.Locator(`#cluster-view .topic[data-topic="tips"] [data-command^="show batch"]`).First()
	if err := expect.Locator(record).ToHaveAttribute("title", regexp.MustCompile(`点击打开它的 batch。$`)); err != nil {
		t.Fatalf("a record morphed in keeps its English title: %v", err)
	}
	// An SVG <title> is text, swapped alike.
	if err := expect.Locator(p.Locator(`#cluster-view path.link-hit title`).First()).ToHaveText(regexp.MustCompile(`^(切断链路|修复被切断的链路)`)); err != nil {
		t.Fatalf("a link's tooltip in Chinese: %v", err)
	}
	if err := expect.Locator(p.Locator(`#cluster-view [data-title-zh]:not([data-title-en])`)).ToHaveCount(0); err != nil {
		t.Fatalf("a tooltip morphed in stayed English: %v", err)
	}

	if err := p.Locator(`[data-set-lang="en"]`).Click(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(tick).ToHaveAttribute("title", "advance virtual time by 100 ms"); err != nil {
		t.Fatalf("the button's title back in English: %v", err)
	}
	if err := expect.Locator(input).ToHaveAttribute("placeholder", "try: produce orders key=a value=1   (Tab completes; help lists the commands)"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(status).ToHaveText("connected to the live cluster"); err != nil {
		t.Fatal(err)
	}
}
