package lab

import "testing"

// A lookup (or a batch) opened on a segment that retention deletes later
// is marked Gone in the view, rather than describing a file that is not
// there; one on a segment still there is not; the lab keeps what it
// opened as it was.
func TestInspectorSaysItsSegmentIsGone(t *testing.T) {
	l := New()
	t.Cleanup(func() { l.Close() })
	runAll(t, l, "cluster brokers=1 seed=21 log.retention.check.interval.ms=1000",
		"topic create clicks segment.bytes=200 retention.ms=20000",
		"produce clicks value=click-0", "produce clicks value=click-1", "produce clicks value=click-2",
		"produce clicks value=click-3", "produce clicks value=click-4",
		"show lookup clicks/0 offset=0")
	tr := l.View().Inspector.Lookup
	if tr == nil || tr.Gone || tr.Broker != 1 {
		t.Fatalf("the lookup just opened: %+v, want one on broker 1, not gone", tr)
	}
	runAll(t, l, "tick 30s", "produce clicks value=later")
	tr = l.View().Inspector.Lookup
	if tr == nil || !tr.Gone {
		t.Fatalf("after retention deleted %s the lookup is %+v, want Gone", "segment 0", tr)
	}
	if l.inspector.Lookup.Gone {
		t.Error("the lab's own copy of the lookup was changed")
	}
	runAll(t, l, "show lookup clicks/0 offset=5")
	if tr := l.View().Inspector.Lookup; tr == nil || tr.Gone {
		t.Errorf("a lookup in a segment that exists: %+v", tr)
	}
	// The batch inspector, the same way.
	runAll(t, l, "show batch clicks/0 offset=5", "produce clicks value=x1", "produce clicks value=x2", "produce clicks value=x3", "tick 30s", "produce clicks value=y")
	if b := l.View().Inspector.Batch; b == nil || !b.Gone {
		t.Errorf("after retention the batch is %+v, want Gone", b)
	}
}
