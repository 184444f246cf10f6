package main

import (
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/lab"
)

func TestSessionRunsCommandsAndRendersTheView(t *testing.T) {
	s := newSession()
	for _, line := range strings.Split(lab.StarterScript, "\n") {
		if r := s.run(line); !r.OK {
			t.Fatalf("starter command %q failed: %s", line, r.Output)
		}
	}
	r := s.run("produce orders key=a value=hello partition=2")
	if !r.OK || r.Output != "produced to orders/2 at offset 0 (acks=all)" {
		t.Fatalf("produce gave ok=%v %q", r.OK, r.Output)
	}
	if !strings.Contains(r.View, `data-partition="orders/2"`) || !strings.Contains(r.View, "hello") {
		t.Fatalf("the rendered view does not show the new record:\n%s", r.View)
	}
	if !strings.Contains(r.Entry, "produce orders key=a value=hello partition=2") || !strings.Contains(r.Entry, "offset 0") {
		t.Fatalf("the transcript entry does not show the command and its output:\n%s", r.Entry)
	}
}

func TestSessionReportsErrorsAndStillRenders(t *testing.T) {
	r := newSession().run("produce orders value=1")
	if r.OK || !strings.HasPrefix(r.Output, "error: produce: there is no cluster yet") {
		t.Fatalf("got ok=%v %q, want the no-cluster error", r.OK, r.Output)
	}
	if !strings.Contains(r.View, `id="cluster-view"`) {
		t.Fatalf("a failed command left no view to show:\n%s", r.View)
	}
}
