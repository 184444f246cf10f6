package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// A workshop: the instructor drives /live, two participants watch it live
// and are refused when they type into it; each opens a cluster of their
// own, apart from the other's; the instructor's overview lists them.
func TestWorkshopRolesAndParticipantClusters(t *testing.T) {
	t.Parallel()
	base := ownServer(t)
	instructor := newPageOn(t, base)
	ana, bo := newParticipantPage(t, base), newParticipantPage(t, base)
	for _, p := range []*watchedPage{instructor, ana, bo} {
		p.open(t, "/live")
	}
	if err := expect.Locator(ana.Locator(".workshop-bar .chip.watches")).ToContainText("only the instructor runs commands here"); err != nil {
		t.Fatalf("a participant's page does not say they watch: %v", err)
	}
	if err := expect.Locator(instructor.Locator(".workshop-bar .chip.drives")).ToBeVisible(); err != nil {
		t.Fatalf("the instructor's page does not say they drive: %v", err)
	}

	// Both participants see the instructor's command arrive.
	instructor.command(t, "topic create workshop-demo")
	for name, p := range map[string]*watchedPage{"ana": ana, "bo": bo} {
		if err := expect.Locator(p.Locator(`#cluster-view .topic[data-topic="workshop-demo"]`)).ToBeVisible(); err != nil {
			t.Fatalf("%s never saw the instructor's topic: %v", name, err)
		}
	}

	// A participant's console on the instructor's cluster is disabled
	// (e2e/watch_test.go); a command sent all the same, with their cookie,
	// is refused and changes nothing.
	if err := expect.Locator(ana.Locator("#command")).ToBeDisabled(); err != nil {
		t.Fatalf("ana's console on the instructor's cluster is usable: %v", err)
	}
	resp, err := ana.Request().Post(base+"/api/v1/clusters/live/commands", playwright.APIRequestContextPostOptions{
		Headers: map[string]string{"Content-Type": "application/json", "Origin": base},
		Data:    map[string]string{"line": "topic create ana-was-here"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := resp.Text(); resp.Status() != 403 || !strings.Contains(body, "CLUSTER_AUTHORIZATION_FAILED") {
		t.Fatalf("ana's command was not refused: HTTP %d %s", resp.Status(), body)
	}
	instructor.command(t, "tick 1s")
	if err := expect.Locator(bo.Locator("#transcript .entry").Last()).ToContainText("tick 1s"); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*watchedPage{"instructor": instructor, "bo": bo} {
		if n, _ := p.Locator("#transcript").GetByText("ana-was-here").Count(); n != 0 {
			t.Errorf("%s's transcript shows ana's refused command", name)
		}
		if n, _ := p.Locator(`#cluster-view .topic[data-topic="ana-was-here"]`).Count(); n != 0 {
			t.Errorf("%s's view has ana's topic", name)
		}
	}

	// Each opens a cluster of their own and drives it.
	own := func(p *watchedPage, name string) string {
		t.Helper()
		if err := p.Locator(`#open-own-cluster input[name="name"]`).Fill(name); err != nil {
			t.Fatal(err)
		}
		if err := p.Locator(`#open-own-cluster button`).Click(); err != nil {
			t.Fatal(err)
		}
		if err := p.WaitForURL(regexp.MustCompile(`/clusters/p-[0-9a-f]{8}$`)); err != nil {
			t.Fatalf("%s's own cluster never opened: %v", name, err)
		}
		if err := expect.Locator(p.Locator("body")).ToHaveAttribute("data-ready", "true"); err != nil {
			t.Fatal(err)
		}
		if err := expect.Locator(p.Locator(".workshop-bar .chip.drives")).ToBeVisible(); err != nil {
			t.Fatalf("%s does not drive their own cluster: %v", name, err)
		}
		return p.URL()[strings.LastIndex(p.URL(), "/")+1:]
	}
	anaID, boID := own(ana, "Ana"), own(bo, "Bo")
	ana.command(t, "topic create ana-only")
	if err := expect.Locator(ana.Locator(`#cluster-view .topic[data-topic="ana-only"]`)).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
	bo.command(t, "topic create bo-only")
	if err := expect.Locator(bo.Locator(`#cluster-view .topic[data-topic="bo-only"]`)).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
	if n, _ := bo.Locator(`#cluster-view .topic[data-topic="ana-only"]`).Count(); n != 0 {
		t.Errorf("bo's cluster shows ana's topic")
	}
	if n, _ := ana.Locator(`#cluster-view .topic[data-topic="workshop-demo"]`).Count(); n != 0 {
		t.Errorf("ana's cluster shows the instructor's topic")
	}

	// The overview lists both, with their last commands.
	if _, err := instructor.Goto(base + "/instructor"); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{anaID: "topic create ana-only", boID: "topic create bo-only"} {
		row := instructor.Locator(`#clusters-overview tr[data-cluster="` + id + `"]`)
		if err := expect.Locator(row.Locator(".last-command")).ToHaveText(want); err != nil {
			t.Fatalf("the overview's row for %s: %v", id, err)
		}
	}
	if err := expect.Locator(instructor.Locator(`#clusters-overview tr[data-cluster="` + anaID + `"] .owner`)).ToHaveText("Ana"); err != nil {
		t.Fatal(err)
	}
}

// The record endpoint's bytes, fetched by the browser and saved as a
// segment file, are what `loglab dump-log` decodes: real RecordBatch v2.
func TestRecordEndpointBytesAreASegmentDumpLogReads(t *testing.T) {
	t.Parallel()
	base := ownServer(t)
	p := newPageOn(t, base)
	p.open(t, "/live")
	p.command(t, "produce orders key=dump-key value=dump-me partition=1")
	if err := expect.Locator(p.Locator("#transcript .entry").Last()).ToContainText("produced"); err != nil {
		t.Fatal(err)
	}
	p.command(t, "tick 1s") // past the high watermark's advance
	if err := expect.Locator(p.Locator("#transcript .entry").Last()).ToContainText("tick 1s"); err != nil {
		t.Fatal(err)
	}
	resp, err := p.Request().Get(base + "/api/v1/clusters/live/topics/orders/partitions/1/records?offset=0")
	if err != nil {
		t.Fatal(err)
	}
	body, err := resp.Body()
	if err != nil || resp.Status() != 200 || len(body) == 0 {
		t.Fatalf("the record fetch: %d, %d bytes, %v", resp.Status(), len(body), err)
	}
	segment := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(segment, body, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "run", "../server/cmd/loglab", "dump-log", "-print-data-log", segment).CombinedOutput()
	if err != nil {
		t.Fatalf("loglab dump-log: %v\n%s", err, out)
	}
	for _, want := range []string{"baseOffset: 0", "magic: 2", "crc", "payload: dump-me"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("dump-log's output lacks %q:\n%s", want, out)
		}
	}
}
