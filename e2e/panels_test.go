package e2e

import (
	"fmt"
	"testing"
)

// The panels that open on demand or fold away, on a projector and then on
// a phone (the same page, resized): the batch inspector a click on a
// record opens, the offset lookup's trace, and the fold buttons of the
// network, quorum, groups and transactions panels. Each opens where the
// reader sees it, whole, and never widens the page.
func TestPanelsOpenAndFoldAtBothSizes(t *testing.T) {
	t.Parallel()
	p := newSizedPage(t, pageSizes[0])
	p.open(t, "/lab")
	p.runAll(t, []string{
		// batch.size=0 and linger.ms=0: a batch per record, and small
		// segments that roll, so a lookup has an index to walk.
		"topic create events segment.bytes=300 index.interval.bytes=100",
		"producer create one batch.size=0 linger.ms=0",
		"produce events key=k{i} value=v{i} count=9 producer=one",
		"producer create tx1 transactional.id=checkout-tx",
		"txn begin tx1",
		"produce events key=t value=in-txn producer=tx1",
		"consumer create c1 group=g1 topics=events",
		"poll c1",
	})
	for i, size := range pageSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			p.resizeTo(t, size)
			// A click on a record opens its batch (a record of its own,
			// so its base offset is the record's), scrolled into sight.
			offset := 3 + i
			p.click(t, fmt.Sprintf(`#cluster-view [data-partition="events/0"] .record[data-offset="%d"]`, offset))
			inspector := p.Locator("#batch-inspector")
			if err := expect.Locator(inspector.Locator(`tr[data-field="baseOffset"] td.value`)).ToHaveText(fmt.Sprint(offset)); err != nil {
				t.Fatal(err)
			}
			assertInViewport(t, p, "#batch-inspector")
			assertFits(t, p, "the batch inspector")
			sizeShot(t, p, "#batch-inspector", "panels-batch-inspector")

			// An offset lookup's trace ends at the batch holding it.
			lookup := 7 - i
			p.runAll(t, []string{fmt.Sprintf("show lookup events/0 offset=%d", lookup)})
			if err := expect.Locator(p.Locator("#lookup-inspector .step.hit")).ToContainText(fmt.Sprintf("holds offset %d", lookup)); err != nil {
				t.Fatal(err)
			}
			assertInViewport(t, p, "#lookup-inspector")
			assertFits(t, p, "the lookup trace")
			sizeShot(t, p, "#lookup-inspector", "panels-lookup-inspector")

			// The group and the open transaction are drawn, then each panel
			// folds to its heading and opens again.
			if err := expect.Locator(p.Locator("#cluster-view #groups")).ToContainText("g1"); err != nil {
				t.Fatal(err)
			}
			if err := expect.Locator(p.Locator("#cluster-view #transactions")).ToContainText("checkout-tx"); err != nil {
				t.Fatal(err)
			}
			sizeShot(t, p, "#cluster-view #groups", "panels-groups")
			sizeShot(t, p, "#cluster-view #transactions", "panels-transactions")
			for _, panel := range []string{"network", "quorum", "groups", "transactions"} {
				toggle := p.Locator(fmt.Sprintf(`#cluster-view #%s [data-panel-toggle="%s"]`, panel, panel))
				body := p.Locator(fmt.Sprintf(`#cluster-view #%s > :not(h2)`, panel)).First()
				if err := expect.Locator(body).ToBeVisible(); err != nil {
					t.Fatalf("%s: %v", panel, err)
				}
				if box, err := toggle.BoundingBox(); err != nil || box == nil {
					t.Fatalf("%s's fold button has no box: %v", panel, err)
				} else if box.Width < minTarget || box.Height < minTarget {
					t.Errorf("%s's fold button is %.0fx%.0f px, want at least %d", panel, box.Width, box.Height, minTarget)
				}
				if err := toggle.Click(); err != nil {
					t.Fatal(err)
				}
				if err := expect.Locator(body).ToBeHidden(); err != nil {
					t.Fatalf("%s did not fold: %v", panel, err)
				}
				if err := expect.Locator(toggle).ToHaveAttribute("aria-expanded", "false"); err != nil {
					t.Fatal(err)
				}
			}
			assertFits(t, p, "every panel folded")
			sizeShot(t, p, "#cluster-view #network", "panels-folded")
			for _, panel := range []string{"network", "quorum", "groups", "transactions"} {
				if err := p.Locator(fmt.Sprintf(`#cluster-view #%s [data-panel-toggle="%s"]`, panel, panel)).Click(); err != nil {
					t.Fatal(err)
				}
				if err := expect.Locator(p.Locator(fmt.Sprintf(`#cluster-view #%s > :not(h2)`, panel)).First()).ToBeVisible(); err != nil {
					t.Fatalf("%s did not open again: %v", panel, err)
				}
			}
		})
	}
}
