package e2e

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// The controller quorum in the browser lab: the learner crashes the active
// controller from its card; nobody is active while the two others wait
// out controller.quorum.fetch.timeout.ms (the panel says the quorum is
// electing), and a tick later one of them leads a new epoch as the active
// controller (the diagram's "ctl" node says which); the metadata log
// survives, and the old one comes back as a Follower. Losing a majority
// then shows loudly, and a restart and a tick bring an active controller
// back. The quorum runs in virtual time: it moves with the commands only,
// the same on every run.
func TestLabControllerFailover(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open(t, "/lab")
	quorum := p.Locator("#cluster-view #quorum")
	// The starter script's cluster: three controllers, one of them active.
	if err := expect.Locator(quorum.Locator(".controller-card")).ToHaveCount(3); err != nil {
		t.Fatal(err)
	}
	activeCard := quorum.Locator(`.controller-card[data-active="true"]`)
	if err := expect.Locator(activeCard).ToHaveCount(1); err != nil {
		t.Fatal(err)
	}
	old := p.attr(t, activeCard, "data-controller")
	if err := expect.Locator(quorum).ToHaveAttribute("data-active", old); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(activeCard).ToHaveAttribute("data-role", "leader"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(activeCard.Locator(".state.role")).ToHaveText("Leader · active controller", visibleText); err != nil {
		t.Fatal(err)
	}
	oldEpoch := p.attrInt(t, activeCard, "data-epoch")
	ctl := p.Locator(`#network .node.controller[data-alias="ctl"]`)
	if err := expect.Locator(ctl.Locator(".active-label")).ToHaveText("controller " + old); err != nil {
		t.Fatal(err)
	}
	records := quorum.Locator("#metadata-records .meta-record")
	recordsBefore := p.count(t, records, 1)
	// Every broker replayed the whole metadata log.
	if err := expect.Locator(p.Locator(`#network .node.broker .metadata[data-metadata-behind="false"]`)).ToHaveCount(3); err != nil {
		t.Fatal(err)
	}

	// Crash the active controller from its card: nobody is active until
	// the others have waited out the fetch timeout and elected.
	oldCard := quorum.Locator(fmt.Sprintf(`.controller-card[data-controller="%s"]`, old))
	p.click(t, fmt.Sprintf(`#quorum .controller-card[data-controller="%s"] button[data-command="controller crash %s"]`, old, old))
	if err := expect.Locator(oldCard).ToHaveAttribute("data-role", "down"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(oldCard).ToHaveClass(regexp.MustCompile(`\bdown\b`)); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(quorum).ToHaveAttribute("data-active", "0"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(quorum.Locator("#no-active-controller")).ToHaveAttribute("data-reason", "electing"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(quorum.Locator("#no-active-controller")).ToContainText("the quorum is electing a leader"); err != nil {
		t.Fatal(err)
	}
	p.command(t, "tick 5s")
	if err := expect.Locator(quorum).ToHaveAttribute("data-active", regexp.MustCompile(`^[^0`+old+`]$`)); err != nil {
		t.Fatalf("no controller took over from %s: %v", old, err)
	}
	next := p.attr(t, quorum, "data-active")
	t.Logf("controller %s took over from controller %s", next, old)
	nextCard := quorum.Locator(fmt.Sprintf(`.controller-card[data-controller="%s"]`, next))
	if err := expect.Locator(nextCard).ToHaveAttribute("data-role", "leader"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(nextCard.Locator(".state.role")).ToHaveText("Leader · active controller", visibleText); err != nil {
		t.Fatal(err)
	}
	if epoch := p.attrInt(t, nextCard, "data-epoch"); epoch <= oldEpoch {
		t.Errorf("the new leader's epoch is %d, the old one's was %d", epoch, oldEpoch)
	}
	if err := expect.Locator(ctl.Locator(".active-label")).ToHaveText("controller " + next); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(oldCard.Locator(`button[data-command="controller restart ` + old + `"]`)).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
	// The metadata log is the quorum's, not the old leader's: it survives
	// (the new leader's epoch adds its LeaderChange record).
	p.count(t, records, recordsBefore)
	if err := expect.Locator(quorum.Locator("#no-active-controller")).ToHaveCount(0); err != nil {
		t.Fatal(err)
	}

	// Restart it: it rejoins, and once it fetched from the new leader it
	// is its Follower, in its epoch, at its high watermark.
	p.click(t, fmt.Sprintf(`#quorum button[data-command="controller restart %s"]`, old))
	if err := expect.Locator(oldCard).ToHaveAttribute("data-up", "true"); err != nil {
		t.Fatal(err)
	}
	p.command(t, "tick 1s")
	if err := expect.Locator(oldCard).ToHaveAttribute("data-role", "follower"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(oldCard.Locator(".state.role")).ToHaveText("Follower of "+next, visibleText); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"data-epoch", "data-high-watermark"} {
		if err := expect.Locator(oldCard).ToHaveAttribute(a, p.attr(t, nextCard, a)); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	if err := expect.Locator(activeCard).ToHaveCount(1); err != nil {
		t.Fatal(err)
	}

	// Two of three down: no majority, no active controller, and the page
	// says so in the panel and on the diagram's controller node.
	for _, id := range []string{"1", "2", "3"} {
		if id == old {
			continue
		}
		p.click(t, fmt.Sprintf(`#quorum button[data-command="controller crash %s"]`, id))
		if err := expect.Locator(quorum.Locator(fmt.Sprintf(`.controller-card[data-controller="%s"]`, id))).ToHaveAttribute("data-role", "down"); err != nil {
			t.Fatal(err)
		}
	}
	if err := expect.Locator(quorum).ToHaveAttribute("data-active", "0"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(quorum.Locator("#no-active-controller")).ToContainText("No active controller — no majority"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(ctl.Locator(".active-label")).ToHaveText("no controller", visibleText); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(activeCard).ToHaveCount(0); err != nil {
		t.Fatal(err)
	}
	p.count(t, records, recordsBefore)

	// One restart is a majority again, which elects once the fetch
	// timeout passed.
	p.click(t, `#quorum .controller-card[data-up="false"] button[data-command^="controller restart "] >> nth=0`)
	if err := expect.Locator(quorum.Locator("#no-active-controller")).ToHaveAttribute("data-reason", "electing"); err != nil {
		t.Fatal(err)
	}
	p.command(t, "tick 5s")
	if err := expect.Locator(activeCard).ToHaveCount(1); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(quorum).Not().ToHaveAttribute("data-active", "0"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(quorum.Locator("#no-active-controller")).ToHaveCount(0); err != nil {
		t.Fatal(err)
	}
}

// The live page draws the same quorum panel, rendered by the server.
func TestLiveShowsTheControllerQuorum(t *testing.T) {
	t.Parallel()
	p := newPageOn(t, ownServer(t))
	p.open(t, "/live")
	quorum := p.Locator("#cluster-view #quorum")
	if err := expect.Locator(quorum.Locator(".controller-card")).ToHaveCount(3); err != nil {
		t.Fatal(err)
	}
	// The test's own server's cluster, as it starts: one controller is
	// active.
	active := quorum.Locator(`.controller-card[data-active="true"]`)
	if err := expect.Locator(active).ToHaveCount(1); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(quorum).ToHaveAttribute("data-active", p.attr(t, active, "data-controller")); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(active.Locator(".state.role")).ToHaveText("Leader · active controller", visibleText); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(active).ToHaveAttribute("data-epoch", regexp.MustCompile(`^[1-9][0-9]*$`)); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(quorum.Locator(`button[data-command^="controller crash "]`)).ToHaveCount(3); err != nil {
		t.Fatal(err)
	}
	p.count(t, quorum.Locator("#metadata-records .meta-record"), 1)
}

// count waits until a locator matches at least min elements and returns
// how many it matches.
func (w *watchedPage) count(t *testing.T, l playwright.Locator, min int) int {
	t.Helper()
	if min > 0 {
		if err := expect.Locator(l.Nth(min - 1)).ToBeAttached(); err != nil {
			t.Fatalf("fewer than %d elements: %v", min, err)
		}
	}
	n, err := l.Count()
	if err != nil {
		t.Fatal(err)
	}
	return n
}
