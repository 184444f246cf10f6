package server

import (
	"fmt"
	"strings"
	"testing"
)

// A `bench fetch` on a cluster: three paths, the endpoint's fetches all
// sent with sendfile, and refusals that say what is missing.
func TestBenchFetchCommand(t *testing.T) {
	s, _ := newDiskTestServer(t)
	// payments holds nothing yet: nothing worth measuring.
	if e := s.live.run("bench fetch 1"); e.OK || !strings.Contains(e.Output, "produce more records first") {
		t.Fatalf("bench fetch on an empty partition: %s", e.Output)
	}
	value := strings.Repeat("v", 1000)
	for _, line := range []string{"produce payments partition=0 count=300 value=" + value, "tick 1s"} {
		if e := s.live.run(line); !e.OK {
			t.Fatalf("%s: %s", line[:40], e.Output)
		}
	}
	e := s.live.run("bench fetch 2")
	if !e.OK {
		t.Fatalf("bench fetch 2: %s", e.Output)
	}
	t.Logf("%s", e.Output)
	for _, want := range []string{"payments/0 from offset 0", "endpoint (sendfile)", "bare sendfile", "user-space copy", "endpoint/bare throughput: "} {
		if !strings.Contains(e.Output, want) {
			t.Errorf("the output lacks %q:\n%s", want, e.Output)
		}
	}
	// Every fetch of the endpoint's path went through answerRaw's
	// ReadFrom (sendfile), none through a copy.
	var sent, of int
	for _, l := range strings.Split(e.Output, "\n") {
		if rest, ok := strings.CutPrefix(l, "endpoint fetches handed to sendfile: "); ok {
			fmt.Sscanf(rest, "%d of %d", &sent, &of)
		}
	}
	if of == 0 || sent != of {
		t.Errorf("endpoint fetches handed to sendfile: %d of %d, want all of at least one:\n%s", sent, of, e.Output)
	}
	for _, bad := range []string{"bench fetch 0", "bench fetch 2000", "bench fetch x", "bench", "bench sort"} {
		if e := s.live.run(bad); e.OK {
			t.Errorf("%s succeeded: %s", bad, e.Output)
		}
	}
	// In memory, there is no segment file to send.
	mem, _ := newTestServer(t)
	if e := mem.live.run("bench fetch"); e.OK || !strings.Contains(e.Output, "-data-dir") {
		t.Errorf("bench fetch in memory: %s", e.Output)
	}
}
