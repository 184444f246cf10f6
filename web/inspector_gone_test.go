package web

import (
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// A lookup whose segment the engine marks gone says so, naming the file,
// the broker and the command to look again; one whose segment is there
// says nothing of the kind. The batch inspector likewise.
func TestInspectorSaysTheSegmentIsGone(t *testing.T) {
	c := failover()
	tr := view.LookupTrace{Partition: "orders/0", Target: 2, Segment: "00000000000000000000.log", Broker: 1,
		Index: []view.IndexEntry{{Offset: 0, Position: 0}}, Scanned: []view.ScannedBatch{{Position: 0, BaseOffset: 0, LastOffset: 3, Size: 90}}, Found: true}
	b := view.BatchDetail{Partition: "orders/0", File: "00000000000000000000.log", Broker: 1, Size: 90, Valid: true}
	c.Inspector = view.Inspector{Lookup: &tr, Batch: &b}
	html := render(t, c)
	if strings.Contains(html, "segment-gone") || strings.Contains(html, "is gone from broker") {
		t.Error("an inspector whose segment exists says it is gone")
	}
	tr.Gone, b.Gone = true, true
	html = render(t, c)
	element(t, html, `<article class="inspector lookup segment-gone" id="lookup-inspector"`)
	element(t, html, `<article class="inspector batch segment-gone" id="batch-inspector"`)
	for _, want := range []string{
		"Segment 00000000000000000000.log is gone from broker 1: retention (or a truncation) deleted it after this lookup",
		"Look again: show lookup orders/0 offset=2",
		"segment 00000000000000000000.log 已不在 broker 1 上",
		"Segment 00000000000000000000.log is gone from broker 1: retention (or a truncation) deleted it after this batch was opened.",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the inspector lacks %q", want)
		}
	}
	// Its focus is still the lookup's target: a lesson pointing at it
	// finds it, and reads the note.
	if !strings.Contains(html, `data-focus="inspector lookup" data-focus-state="2"`) {
		t.Error("the gone lookup lost its focus element")
	}
}
