package e2e

import "testing"

// The live page sends commands to the server's cluster; the websocket pushes
// the new view to this page and to every other page watching.
func TestLivePushesUpdatesToEveryPage(t *testing.T) {
	t.Parallel()
	base := ownServer(t)
	sender, watcher := newPageOn(t, base), newPageOn(t, base)
	sender.open(t, "/live")
	watcher.open(t, "/live")

	sender.command(t, "produce orders key=order-7 value=pushed-live")
	for _, page := range []struct {
		name string
		p    *watchedPage
	}{{"sender", sender}, {"watcher", watcher}} {
		name, p := page.name, page.p
		if err := expect.Locator(p.Locator("#cluster-view").GetByText("pushed-live")).ToBeVisible(); err != nil {
			t.Fatalf("%s never showed the new record: %v", name, err)
		}
		if err := expect.Locator(p.Locator("#transcript .entry").Last()).ToContainText("produce orders key=order-7 value=pushed-live"); err != nil {
			t.Fatalf("%s's transcript lacks the command: %v", name, err)
		}
	}
}

// The live page draws the same cluster diagram, rendered by the server, and
// its buttons drive the server's cluster over the websocket.
func TestLiveShowsTheClusterDiagram(t *testing.T) {
	t.Parallel()
	p := newPageOn(t, ownServer(t))
	p.open(t, "/live")
	network := p.Locator("#cluster-view #network")
	if err := expect.Locator(network.Locator("svg.diagram")).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(network.Locator(".node.broker")).ToHaveCount(3); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(network.Locator(`.node.controller[data-alias="ctl"]`)).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(network.Locator(`button[data-command^="broker crash "]`)).ToHaveCount(3); err != nil {
		t.Fatal(err)
	}
	// The starter topic: three partitions, each with three replica rows.
	if err := expect.Locator(p.Locator(`#cluster-view [data-partition^="orders/"] .replica[data-replica]`)).ToHaveCount(9); err != nil {
		t.Fatal(err)
	}

	// A control button is a lab command sent to the server; a tick always
	// leaves replication fetches in the trace, drawn as arrows.
	clock := p.Locator("#cluster-view .clock")
	before, _ := clock.TextContent()
	if err := p.Locator(`.controls button[data-command="tick 1s"]`).Click(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(clock).Not().ToHaveText(before); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("#transcript .entry").Last()).ToContainText("tick 1s"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(network.Locator(`.link[data-kind="Fetch"]`).First()).ToBeAttached(); err != nil {
		t.Fatal(err)
	}
}
