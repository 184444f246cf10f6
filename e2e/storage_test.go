package e2e

import (
	"regexp"
	"testing"
)

// Clicking a record opens its batch: the decoded header fields beside the
// bytes, checked against what the engine wrote.
func TestLabOpensABatchFromTheLog(t *testing.T) {
	p := newPage(t)
	p.open(t, "/lab")
	p.command(t, "topic create events segment.bytes=300 index.interval.bytes=100")
	p.command(t, "produce events key=k{i} value=v{i} count=9 batch.size=0")

	// The log rolled into several segment files, drawn as a strip: each
	// one-record batch is 72 bytes, so four fit in segment.bytes=300.
	segments := p.Locator(`#cluster-view [data-partition="events/0"] .segment`)
	if err := expect.Locator(segments).ToHaveCount(3); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(segments.Nth(1)).ToHaveAttribute("data-segment", "00000000000000000004.log"); err != nil {
		t.Fatal(err)
	}

	if err := p.Locator(`#cluster-view [data-partition="events/0"] .record[data-offset="5"]`).Click(); err != nil {
		t.Fatal(err)
	}
	panel := p.Locator("#batch-inspector")
	if err := expect.Locator(panel).ToContainText("Batch at 00000000000000000004.log position 72"); err != nil {
		t.Fatal(err)
	}
	for field, value := range map[string]string{
		"baseOffset": "5", "batchLength": "60", "magic": "2", "recordCount": "1", "producerId": "-1", "lastOffsetDelta": "0",
	} {
		cell := panel.Locator(`tr[data-field="` + field + `"] td.value`)
		if err := expect.Locator(cell).ToHaveText(value); err != nil {
			t.Errorf("field %s: %v", field, err)
		}
	}
	if err := expect.Locator(panel.Locator(".batch-records")).ToContainText("k5"); err != nil {
		t.Fatal(err)
	}
	// The first 8 bytes are the base offset, big-endian: 00 .. 00 05.
	if err := expect.Locator(panel.Locator(".hex-row").First()).ToHaveText(regexp.MustCompile(`^0000\s*00\s*00\s*00\s*00\s*00\s*00\s*00\s*05`)); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(panel).ToContainText("CRC valid"); err != nil {
		t.Fatal(err)
	}

	// An offset lookup, traced step by step.
	p.command(t, "show lookup events/0 offset=7")
	if err := expect.Locator(p.Locator("#lookup-inspector .step.hit")).ToContainText("holds offset 7"); err != nil {
		t.Fatal(err)
	}
}
