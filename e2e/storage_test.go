package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// Clicking a record opens its batch: the decoded header fields beside the
// bytes, checked against what the engine wrote.
func TestLabOpensABatchFromTheLog(t *testing.T) {
	t.Parallel()
	script := []string{
		"topic create events segment.bytes=300 index.interval.bytes=100",
		// batch.size=0 and linger.ms=0: every record is its own batch, so
		// the small segments roll after a few records.
		"producer create one batch.size=0 linger.ms=0",
		"produce events key=k{i} value=v{i} count=9 producer=one",
	}
	const target = 5
	engine := engineView(t, append(script, fmt.Sprintf("show batch events/0 offset=%d", target))...)
	want := partitionOf(t, engine, "events/0")
	batch := engine.Inspector.Batch
	if len(want.Segments) < 3 || batch == nil {
		t.Fatalf("the engine did not roll events/0 into several segments (%d) or open the batch", len(want.Segments))
	}
	// One record per batch, as the producer was told.
	if got := fieldValue(t, batch, "recordCount"); got != "1" {
		t.Fatalf("engine: batch at offset %d holds %s records, want 1", target, got)
	}

	p := newPage(t)
	p.open(t, "/lab")
	for _, line := range script {
		p.command(t, line)
	}

	// The log rolled into segment files, drawn as a strip, the same ones
	// the engine holds.
	segments := p.Locator(`#cluster-view [data-partition="events/0"] .segment`)
	if err := expect.Locator(segments).ToHaveCount(len(want.Segments)); err != nil {
		t.Fatal(err)
	}
	for i, s := range want.Segments {
		if err := expect.Locator(segments.Nth(i)).ToHaveAttribute("data-segment", s.File); err != nil {
			t.Fatal(err)
		}
	}
	if err := expect.Locator(segments.Last()).ToHaveClass(regexp.MustCompile(`\bactive\b`)); err != nil {
		t.Fatal(err)
	}

	if err := p.Locator(fmt.Sprintf(`#cluster-view [data-partition="events/0"] .record[data-offset="%d"]`, target)).Click(); err != nil {
		t.Fatal(err)
	}
	panel := p.Locator("#batch-inspector")
	if err := expect.Locator(panel).ToContainText(fmt.Sprintf("Batch at %s position %d", batch.File, batch.Position)); err != nil {
		t.Fatal(err)
	}
	if batch.File == want.Segments[0].File {
		t.Errorf("offset %d is in the first segment: the test no longer crosses a roll", target)
	}
	for _, field := range []string{"baseOffset", "batchLength", "magic", "recordCount", "producerId", "lastOffsetDelta", "crc"} {
		cell := panel.Locator(`tr[data-field="` + field + `"] td.value`)
		if err := expect.Locator(cell).ToHaveText(fieldValue(t, batch, field)); err != nil {
			t.Errorf("field %s: %v", field, err)
		}
	}
	// Kafka's format, whatever the engine says: magic 2, and the base
	// offset is the record's own.
	if fieldValue(t, batch, "magic") != "2" || fieldValue(t, batch, "baseOffset") != fmt.Sprint(target) {
		t.Errorf("engine batch: magic %s baseOffset %s", fieldValue(t, batch, "magic"), fieldValue(t, batch, "baseOffset"))
	}
	if err := expect.Locator(panel.Locator(".batch-records")).ToContainText(fmt.Sprintf("k%d", target)); err != nil {
		t.Fatal(err)
	}
	// The first hex row is the engine's; it starts with the base offset,
	// 8 bytes big-endian: 00 .. 00 05.
	var row []string
	for _, c := range batch.Hex[0].Cells {
		row = append(row, c.Hex)
	}
	if !strings.HasPrefix(strings.Join(row, " "), "00 00 00 00 00 00 00 05") {
		t.Errorf("engine hex row 0: %v", row)
	}
	if err := expect.Locator(panel.Locator(".hex-row").First()).ToHaveText(regexp.MustCompile(`^0000\s*` + strings.Join(row, `\s*`) + `$`)); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(panel).ToContainText("CRC valid"); err != nil {
		t.Fatal(err)
	}

	// An offset lookup, traced step by step, ends at the batch the engine
	// finds.
	const lookup = 7
	trace := engineView(t, append(script, fmt.Sprintf("show lookup events/0 offset=%d", lookup))...).Inspector.Lookup
	if trace == nil || !trace.Found {
		t.Fatal("the engine's lookup found nothing")
	}
	p.command(t, fmt.Sprintf("show lookup events/0 offset=%d", lookup))
	lookupPanel := p.Locator("#lookup-inspector")
	if err := expect.Locator(lookupPanel.Locator(".step.hit")).ToContainText(fmt.Sprintf("holds offset %d", lookup)); err != nil {
		t.Fatal(err)
	}
	hit := trace.Scanned[len(trace.Scanned)-1]
	if err := expect.Locator(lookupPanel.Locator(".step.hit")).ToContainText(fmt.Sprintf("at position %d", hit.Position)); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(lookupPanel.Locator(".step.probe")).ToHaveCount(len(trace.Probes)); err != nil {
		t.Fatal(err)
	}
}
