package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The browser lab runs the engine inside the page: a command typed into the
// console changes the rendered log, and the server's cluster never hears of it.
func TestLabConsoleRunsTheEngineInThePage(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open(t, "/lab")

	// The starter script ran in the page and says so in the transcript.
	if err := expect.Locator(p.Locator("#transcript")).ToContainText("created topic orders: partitions=3 rf=3"); err != nil {
		t.Fatal(err)
	}
	p.command(t, "produce orders key=a value=lab-only-1 partition=2")
	record := p.Locator(`#cluster-view [data-partition="orders/2"] .record[data-offset="0"]`)
	if err := expect.Locator(record).ToContainText("lab-only-1"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("#transcript .entry").Last()).ToContainText("produced to orders/2 at offset 0"); err != nil {
		t.Fatal(err)
	}

	// A bad command is reported in the transcript and changes nothing.
	p.command(t, "produce orders value=x partition=7")
	last := p.Locator("#transcript .entry.error").Last()
	if err := expect.Locator(last).ToContainText("UNKNOWN_TOPIC_OR_PARTITION"); err != nil {
		t.Fatal(err)
	}
	if n, _ := p.Locator("#cluster-view .record").Count(); n != 1 {
		t.Fatalf("the view shows %d records after a failed command, want 1", n)
	}

	if live := fetchLive(t); strings.Contains(live, "lab-only-1") {
		t.Fatal("a browser-lab record reached the server's live cluster")
	}
}

func fetchLive(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(baseURL + "/live")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
