package e2e

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// The metrics panel and the charts in the browser lab, as a learner breaks
// the cluster: a crashed follower falls out of the ISR (the leader shrinks
// it after replica.lag.time.max.ms, set under the 9 s session timeout so
// the leader's check comes before the controller fences the broker), an
// acks=all write under min.insync.replicas is refused, and the HW line of
// the partition has points once records were produced.
func TestMetricsPanel(t *testing.T) {
	t.Parallel()
	for _, size := range []playwright.Size{{Width: 1280, Height: 720}, {Width: 390, Height: 844}} {
		t.Run(strconv.Itoa(size.Width), func(t *testing.T) {
			t.Parallel()
			p := newPageWith(t, playwright.BrowserNewContextOptions{Locale: playwright.String("en-US"), Viewport: &size})
			p.open(t, "/lab")
			p.command(t, "cluster brokers=3 controllers=3 seed=7 replica.lag.time.max.ms=4000")
			p.command(t, "topic create t rf=3 min.insync.replicas=2")
			p.command(t, "producer create p acks=1")
			p.command(t, "produce t value=v{i} count=20 producer=p")
			waitEntry(t, p, "produced 20 records to t/0")

			metric := func(name string) playwright.Locator {
				return p.Locator(`#cluster-view [data-fragment="metrics"] .metric[data-metric="` + name + `"]`)
			}
			if err := expect.Locator(metric("UnderReplicatedPartitions")).ToHaveAttribute("data-value", "0"); err != nil {
				t.Fatal(err)
			}
			// The leader of t/0 is broker 2 (replicas 2,3,1); broker 3 follows.
			part := p.Locator(`#cluster-view [data-partition="t/0"]`)
			if err := expect.Locator(part).ToHaveAttribute("data-leader", "2"); err != nil {
				t.Fatal(err)
			}
			p.command(t, "broker crash 3")
			p.command(t, "produce t value=w producer=p")
			waitEntry(t, p, "produced to t/0")
			p.command(t, "tick 7s")
			waitEntry(t, p, "shrinking the ISR to 2,1")
			for name, want := range map[string]string{"UnderReplicatedPartitions": "1", "IsrShrinksPerSec": "1"} {
				if err := expect.Locator(metric(name)).ToHaveAttribute("data-value", want); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := expect.Locator(metric(name)).ToHaveAttribute("data-delta", "+1"); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := expect.Locator(metric(name).Locator(".delta")).ToHaveText("Δ +1"); err != nil {
					t.Fatalf("%s's delta is not shown: %v", name, err)
				}
			}
			if err := expect.Locator(metric("UnderReplicatedPartitions").Locator(".metric-mbean")).ToHaveText("kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions"); err != nil {
				t.Fatal(err)
			}

			// Broker 1 goes too: the ISR falls to the leader alone, under
			// min.insync.replicas=2, and an acks=all write is refused
			// (NOT_ENOUGH_REPLICAS), once: its retry would come after
			// delivery.timeout.ms.
			p.command(t, "broker crash 1")
			p.command(t, "tick 10s")
			waitEntry(t, p, "fencing it")
			if err := expect.Locator(metric("UnderMinIsrPartitionCount")).ToHaveAttribute("data-value", "1"); err != nil {
				t.Fatal(err)
			}
			p.command(t, "producer create safe acks=all enable.idempotence=false delivery.timeout.ms=1000 request.timeout.ms=500 retry.backoff.ms=1000 retry.backoff.max.ms=1000")
			p.command(t, "produce t value=refused producer=safe")
			waitEntry(t, p, "NOT_ENOUGH_REPLICAS")
			if err := expect.Locator(metric("FailedProduceRequestsPerSec")).ToHaveAttribute("data-delta", "+1"); err != nil {
				t.Fatal(err)
			}

			// The HW line of t/0 has points, and the chart scales to its box.
			hw := p.Locator(`#cluster-view [data-fragment="charts"] [data-chart="hw-leo/t/0"] polyline[data-series="HW"]`).First()
			points := p.attr(t, hw, "points")
			if len(strings.Fields(points)) < 3 {
				t.Fatalf("the HW polyline has points %q", points)
			}
			for _, sel := range []string{`[data-fragment="metrics"]`, `[data-fragment="charts"]`} {
				over, err := p.Locator("#cluster-view "+sel).Evaluate(`el => el.scrollWidth - el.clientWidth`, nil)
				if err != nil {
					t.Fatal(err)
				}
				if n, _ := over.(int); n > 0 {
					t.Errorf("%s overflows its box by %d px at %d px wide", sel, n, size.Width)
				}
			}
			for _, sel := range []string{"metrics", "charts"} {
				l := p.Locator(`#cluster-view [data-fragment="` + sel + `"]`)
				if _, err := l.Screenshot(playwright.LocatorScreenshotOptions{
					Path: playwright.String(filepath.Join("out", "metrics-"+sel+"-"+strconv.Itoa(size.Width)+".png")),
					// The sticky controls bar would cover the panel's top.
					Style: playwright.String(`[data-fragment="controls"] { visibility: hidden !important; }`),
				}); err != nil {
					t.Log("screenshot:", err)
				}
			}
		})
	}
}

// waitEntry waits until a transcript entry shows text.
func waitEntry(t *testing.T, p *watchedPage, text string) {
	t.Helper()
	if err := expect.Locator(p.Locator("#transcript .entry").Filter(playwright.LocatorFilterOptions{HasText: text}).First()).ToBeVisible(); err != nil {
		t.Fatalf("no transcript entry shows %q: %v", text, err)
	}
}
