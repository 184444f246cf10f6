package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// A live page whose connection drops reconnects on its own with the id of
// the last update it applied, and is sent what it missed: the commands run
// while it was away appear in its view and transcript, after what it
// already showed, without a reload.
func TestLivePageResumesAfterItsConnectionDrops(t *testing.T) {
	t.Parallel()
	base := ownServer(t)
	watcher, sender := newPageOn(t, base), newPageOn(t, base)
	// Each connection the watcher opens goes through the test, which can
	// cut it and hold the next one back from the server.
	conns := make(chan playwright.WebSocketRoute, 4)
	if err := watcher.RouteWebSocket(regexp.MustCompile(`/ws\?`), func(ws playwright.WebSocketRoute) { conns <- ws }); err != nil {
		t.Fatal(err)
	}
	next := func() playwright.WebSocketRoute {
		t.Helper()
		select {
		case ws := <-conns:
			return ws
		case <-time.After(time.Minute):
			t.Fatal("the watcher opened no websocket")
			return nil
		}
	}
	if _, err := watcher.Goto(base + "/live"); err != nil {
		t.Fatal(err)
	}
	first := next()
	if !strings.Contains(first.URL(), "since=0") {
		t.Fatalf("a page just loaded asks for %s, want since=0 (a snapshot)", first.URL())
	}
	if _, err := first.ConnectToServer(); err != nil {
		t.Fatal(err)
	}
	sender.open(t, "/live")
	sender.command(t, "produce orders key=r value=before-the-drop")
	if err := expect.Locator(watcher.Locator("#cluster-view").GetByText("before-the-drop")).ToBeVisible(); err != nil {
		t.Fatalf("the watcher never showed the first record: %v", err)
	}
	if _, err := watcher.Evaluate(`() => { window.notReloaded = true; }`); err != nil {
		t.Fatal(err)
	}

	first.Close(playwright.WebSocketRouteCloseOptions{Code: playwright.Int(1001), Reason: playwright.String("test: the network went away")})
	// The page's next connection waits until the room has moved on.
	second := next()
	sender.command(t, "produce orders key=r value=while-away")
	if err := expect.Locator(sender.Locator("#transcript .entry").Last()).ToContainText("while-away"); err != nil {
		t.Fatal(err)
	}
	if since := regexp.MustCompile(`since=(\d+)`).FindStringSubmatch(second.URL()); since == nil || since[1] == "0" {
		t.Fatalf("the reconnecting page asks for %s, want since=<the last id it applied>", second.URL())
	}
	if _, err := second.ConnectToServer(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(watcher.Locator("#cluster-view").GetByText("while-away")).ToBeVisible(); err != nil {
		t.Fatalf("the watcher never showed the record produced while it was away: %v", err)
	}
	entries := watcher.Locator("#transcript .entry")
	if err := expect.Locator(entries.Last()).ToContainText("while-away"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(entries.Filter(playwright.LocatorFilterOptions{HasText: "before-the-drop"})).ToHaveCount(1); err != nil {
		t.Fatalf("the transcript before the drop is gone or doubled: %v", err)
	}
	if kept, err := watcher.Evaluate(`() => window.notReloaded === true`); err != nil || kept != true {
		t.Fatalf("the page reloaded to catch up (%v)", err)
	}
	if err := expect.Locator(watcher.Locator("body")).ToHaveAttribute("data-ready", "true"); err != nil {
		t.Fatal(err)
	}
}
