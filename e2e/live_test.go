package e2e

import "testing"

// The live page sends commands to the server's cluster; the websocket pushes
// the new view to this page and to every other page watching.
func TestLivePushesUpdatesToEveryPage(t *testing.T) {
	sender, watcher := newPage(t), newPage(t)
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
