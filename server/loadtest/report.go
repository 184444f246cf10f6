package loadtest

import (
	"bytes"
	"fmt"
	"io"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"time"
)

// Report is what a run measured, and what went wrong.
type Report struct {
	Config              Config
	ParticipantClusters int
	Window              time.Duration
	Realtime            string
	// LatencyFrom says what latencies are measured from: each update's
	// "at", or (a server without it) the instructor's commands.
	LatencyFrom     string
	LatencyFromAt   bool
	SpreadAddresses bool

	// Live is what the pages on the instructor's cluster received,
	// Participant what the pages on participants' clusters received.
	Live, Participant Pages

	Heap struct {
		Baseline, WithClusters, AtEnd uint64
		PerCluster                    int64 // heap in use per participant cluster, at creation
	}
	Goroutines struct {
		Baseline       int // before the server started
		InstructorOnly int // the server up, its cluster in real time, no participant yet
		WithClusters   int // every cluster up, no page yet
		Peak           int // sampled during the window
		AfterClients   int // after every page closed
		AfterRemoval   int // after the participant clusters were removed
		AfterServer    int // after the server and its clusters closed
		// How long each count took to come back.
		ClientsGoneIn, RemovalGoneIn, ServerGoneIn time.Duration
	}
	Instructor, ParticipantCommands Commands
	// Server is what the server counted of its updates in the window.
	Server serverUpdates

	// Machine is what the run had to work with: the server and its pages
	// share this process, and the machine may be busy with more.
	Machine struct {
		CPUs                  int
		ProcessCPU            time.Duration // this process's CPU time during the window
		LoadBefore, LoadAfter string        // 1-minute load averages ("" unknown)
	}

	ServerErrors, ServerWarnings int
	ServerLog                    []string

	mu       sync.Mutex
	failures []string
}

// Pages is what a group of pages received during the window.
type Pages struct {
	Count             int
	Messages, Updates int64
	Wire, Decoded     int64 // bytes
	P50, P99, Max     float64
	Samples           int
	Skipped           int64 // update ids never received: coalesced or lost
	Drops, Reconnects int
	NoUpdate          int // pages that never received an update
	// NoAt and NoID count the updates without an "at", without an id:
	// all of them on a server that sends neither, none on one that keeps
	// the contract (item 5); in between, a path that publishes the old
	// way.
	NoAt, NoID int64
	sawID      bool
}

// Commands summarises one driver's commands.
type Commands struct {
	OK, Failed, Throttled, Refused, Errors int
	P50, P99                               float64 // round trip, ms
	Notes                                  []string
}

func (r *Report) sawID() bool { return r.Live.sawID || r.Participant.sawID }

func (r *Report) fail(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

// Failures are the hard bounds the run broke; none: it passed.
func (r *Report) Failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.failures...)
}

// collect adds up the pages, after they closed.
func (r *Report) collect(watchers []*watcher, start, end counts, clock *commandClock) {
	var live, part []float64
	sawAt := false
	for i, w := range watchers {
		g, lat := &r.Live, &live
		if w.cluster != instructorCluster {
			g, lat = &r.Participant, &part
		}
		g.Count++
		g.Messages += end.messages[i] - start.messages[i]
		g.Updates += end.updates[i] - start.updates[i]
		g.Wire += end.wire[i] - start.wire[i]
		g.Decoded += end.decoded[i] - start.decoded[i]
		g.Skipped += w.skipped
		g.Drops += w.drops
		g.Reconnects += w.reconnects
		g.sawID = g.sawID || w.sawID
		g.NoAt += w.noAt
		g.NoID += w.noID
		*lat = append(*lat, w.latencies...)
		sawAt = sawAt || w.sawAt
		if w.updates.Load() == 0 {
			g.NoUpdate++
		}
		for _, f := range w.failures {
			r.fail("%s", f)
		}
	}
	r.LatencyFromAt = sawAt
	if sawAt {
		r.LatencyFrom = `each update's "at" (server publish time) to its arrival, every page`
	} else {
		clock.mu.Lock()
		live = append([]float64(nil), clock.samples...)
		clock.mu.Unlock()
		r.LatencyFrom = `the instructor's command POST to the first page receiving the next update (updates carry no "at")`
	}
	r.Live.P50, r.Live.P99, r.Live.Max, r.Live.Samples = percentiles(live)
	r.Participant.P50, r.Participant.P99, r.Participant.Max, r.Participant.Samples = percentiles(part)
}

// check turns what was collected into failures.
func (r *Report) check() {
	for _, g := range []*Pages{&r.Live, &r.Participant} {
		if g.NoUpdate > 0 {
			r.fail("%d page(s) never received an update", g.NoUpdate)
		}
	}
	if noAt, noID := r.Live.NoAt+r.Participant.NoAt, r.Live.NoID+r.Participant.NoID; r.LatencyFromAt && noAt > 0 || r.sawID() && noID > 0 {
		r.fail("some updates carry an \"at\" and an id and others do not (%d without \"at\", %d without id): a path publishes updates the old way; their latency and gaps are not measured", noAt, noID)
	}
	if r.ParticipantClusters < r.Config.Participants {
		r.fail("%d participant clusters open, %d asked for", r.ParticipantClusters, r.Config.Participants)
	}
	if r.ServerErrors > 0 {
		r.fail("the server logged %d error(s): %s", r.ServerErrors, strings.Join(r.ServerLog, "; "))
	}
	for _, c := range []struct {
		who string
		c   Commands
	}{{"instructor", r.Instructor}, {"participants", r.ParticipantCommands}} {
		if c.c.Errors > 0 {
			r.fail("%d of the %s' commands met a server error: %s", c.c.Errors, c.who, strings.Join(c.c.Notes, "; "))
		}
		if c.c.Refused > 0 {
			r.fail("%d of the %s' commands were refused (403) on their own cluster: %s", c.c.Refused, c.who, strings.Join(c.c.Notes, "; "))
		}
	}
}

func (s *commandStats) summary() Commands {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := Commands{OK: s.ok, Failed: s.failed, Throttled: s.throttled, Refused: s.refused, Errors: s.errors, Notes: append([]string(nil), s.notes...)}
	c.P50, c.P99, _, _ = percentiles(s.roundTrips)
	return c
}

// percentiles are the nearest-rank p50 and p99 and the max of xs.
func percentiles(xs []float64) (p50, p99, top float64, n int) {
	if len(xs) == 0 {
		return 0, 0, 0, 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	rank := func(p float64) float64 {
		i := int(p*float64(len(s))+0.999999) - 1
		return s[min(max(i, 0), len(s)-1)]
	}
	return rank(0.50), rank(0.99), s[len(s)-1], len(s)
}

// goroutineDump is the goroutines grouped by stack, for a leak's failure.
func goroutineDump() string {
	var b bytes.Buffer
	pprof.Lookup("goroutine").WriteTo(&b, 1)
	lines := strings.Split(b.String(), "\n")
	if len(lines) > 80 {
		lines = append(lines[:80], "…")
	}
	return "\n    " + strings.Join(lines, "\n    ")
}

func bytesString(n int64) string {
	f := float64(n)
	switch {
	case n < 0:
		return "-" + bytesString(-n)
	case f >= 1e9:
		return fmt.Sprintf("%.2f GB", f/1e9)
	case f >= 1e6:
		return fmt.Sprintf("%.1f MB", f/1e6)
	case f >= 1e3:
		return fmt.Sprintf("%.1f KB", f/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

func per(total, n int64) int64 {
	if n == 0 {
		return 0
	}
	return total / n
}

// Print writes the report as a table, the baseline beside it.
func (r *Report) Print(w io.Writer) {
	c := r.Config
	mode := fmt.Sprintf("%s window", r.Window.Round(time.Millisecond))
	if c.Duration == 0 {
		mode = fmt.Sprintf("until each page got %d updates (%s)", c.MinUpdates, r.Window.Round(time.Millisecond))
	}
	fmt.Fprintf(w, "loglab load check: %d pages (%d on the instructor's cluster, %d on participants'), %d participant clusters, %s\n",
		c.Clients, r.Live.Count, r.Participant.Count, r.ParticipantClusters, mode)
	fmt.Fprintf(w, "  real time: %s\n  latency: from %s\n", r.Realtime, r.LatencyFrom)
	if !r.SpreadAddresses {
		fmt.Fprintf(w, "  every client connects from 127.0.0.1 (no other loopback address here)\n")
	}
	all := Pages{Messages: r.Live.Messages + r.Participant.Messages, Updates: r.Live.Updates + r.Participant.Updates,
		Wire: r.Live.Wire + r.Participant.Wire, Decoded: r.Live.Decoded + r.Participant.Decoded}
	secs := r.Window.Seconds()
	row := func(name, this, base string) { fmt.Fprintf(w, "  %-50s %-26s %s\n", name, this, base) }
	ms := func(x float64) string { return fmt.Sprintf("%.1f ms", x) }
	fmt.Fprintln(w)
	row("", "this run", "baseline (issue 14: one shared cluster, full views)")
	row("update latency p50 (instructor's pages)", ms(r.Live.P50), "92 ms")
	row("update latency p99 (instructor's pages)", ms(r.Live.P99), "387 ms")
	row("update latency max (instructor's pages)", ms(r.Live.Max), "")
	row("update latency p50 / p99 (participants' pages)", ms(r.Participant.P50)+" / "+ms(r.Participant.P99), "")
	row("latency samples (instructor's / participants')", fmt.Sprintf("%d / %d", r.Live.Samples, r.Participant.Samples), "")
	row("bytes per message, wire (deflated)", bytesString(per(all.Wire, all.Messages)), "~64 KB per update")
	row("bytes per message, decoded (inflated)", bytesString(per(all.Decoded, all.Messages)), "")
	row("sent to pages in the window (wire)", bytesString(all.Wire), "1.54 GB in 60 s")
	if secs > 0 {
		row("  per 60 s", bytesString(int64(float64(all.Wire)*60/secs)), "1.54 GB")
	}
	row("messages received (updates)", fmt.Sprintf("%d (%d)", all.Messages, all.Updates), "")
	if secs > 0 && r.Live.Count > 0 {
		row("updates per instructor's page per second", fmt.Sprintf("%.1f", float64(r.Live.Updates)/float64(r.Live.Count)/secs), "")
	}
	row("updates without \"at\" / without id", fmt.Sprintf("%d / %d", r.Live.NoAt+r.Participant.NoAt, r.Live.NoID+r.Participant.NoID), "")
	skipped := "n/a (updates carry no id)"
	if r.sawID() {
		skipped = fmt.Sprint(r.Live.Skipped + r.Participant.Skipped)
	}
	row("update ids skipped (coalesced or lost)", skipped, "")
	sv := r.Server
	row("server: updates published (whole views / fragments)", fmt.Sprintf("%d (%d / %d)", sv.Published, sv.FullViews, sv.Fragmented), "")
	row("server: quiet ticks' updates without the charts", fmt.Sprint(sv.Paced), "")
	row("server: updates coalesced / dropped", fmt.Sprintf("%d / %d", sv.Coalesced, sv.Dropped), "")
	row("server: pages cut for lag / for no pong", fmt.Sprintf("%d / %d", sv.SlowPages, sv.DeadPages), "")
	row("server: bytes per message sent, uncompressed", bytesString(int64(per(int64(sv.SentBytes), int64(sv.Sent)))), "")
	row("pages dropped by the server / reconnects", fmt.Sprintf("%d / %d", r.Live.Drops+r.Participant.Drops, r.Live.Reconnects+r.Participant.Reconnects), "")
	row("pages that never got an update", fmt.Sprint(r.Live.NoUpdate+r.Participant.NoUpdate), "")
	row("heap per participant cluster (at creation)", bytesString(r.Heap.PerCluster), "")
	row("heap in use: before / with clusters / end", fmt.Sprintf("%s / %s / %s", bytesString(int64(r.Heap.Baseline)), bytesString(int64(r.Heap.WithClusters)), bytesString(int64(r.Heap.AtEnd))), "")
	g := r.Goroutines
	row("goroutines: before server / instructor's / all clusters", fmt.Sprintf("%d / %d / %d", g.Baseline, g.InstructorOnly, g.WithClusters), "")
	row("goroutines: peak with pages", fmt.Sprint(g.Peak), "")
	row("goroutines: pages closed / clusters removed / server closed", fmt.Sprintf("%d / %d / %d", g.AfterClients, g.AfterRemoval, g.AfterServer), "")
	row("  back to their counts in", fmt.Sprintf("%s / %s / %s", g.ClientsGoneIn.Round(time.Millisecond), g.RemovalGoneIn.Round(time.Millisecond), g.ServerGoneIn.Round(time.Millisecond)), "")
	for _, x := range []struct {
		who string
		c   Commands
	}{{"instructor's commands", r.Instructor}, {"participants' commands", r.ParticipantCommands}} {
		row(x.who+": ok / failed / 429 / errors", fmt.Sprintf("%d / %d / %d / %d", x.c.OK, x.c.Failed, x.c.Throttled, x.c.Errors), "")
		row("  round trip p50 / p99", ms(x.c.P50)+" / "+ms(x.c.P99), "")
	}
	m := r.Machine
	if m.ProcessCPU > 0 && secs > 0 {
		row("process CPU in the window (server + pages)", fmt.Sprintf("%.1f s = %.2f of %d cores", m.ProcessCPU.Seconds(), m.ProcessCPU.Seconds()/secs, m.CPUs), "")
	}
	if m.LoadBefore != "" {
		row("machine load average, start / end of window", m.LoadBefore+" / "+m.LoadAfter, "")
	}
	row("server log: errors / warnings", fmt.Sprintf("%d / %d", r.ServerErrors, r.ServerWarnings), "")
	notes := append(append([]string(nil), r.Instructor.Notes...), r.ParticipantCommands.Notes...)
	if len(notes) > 0 {
		fmt.Fprintf(w, "\n  commands that failed (first few):\n")
		for _, n := range notes {
			fmt.Fprintf(w, "    %s\n", n)
		}
	}
	if len(r.ServerLog) > 0 {
		fmt.Fprintf(w, "\n  server log (first few):\n")
		for _, l := range r.ServerLog {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	if f := r.Failures(); len(f) > 0 {
		fmt.Fprintf(w, "\nFAILED:\n")
		for _, x := range f {
			fmt.Fprintf(w, "  - %s\n", x)
		}
	} else {
		fmt.Fprintf(w, "\nok: every page got updates, no server error, goroutines back to their counts\n")
	}
}
