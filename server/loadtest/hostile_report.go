package loadtest

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"
)

// HostileReport is what the hostile-room check saw. Latencies are
// figures (a ratio to the unloaded phase), never a failure: what fails a
// run is in Failures.
type HostileReport struct {
	Config          HostileConfig
	DescriptorLimit uint64

	mu              sync.Mutex
	PeakPages       int // websockets the server held at once (Server.OpenPages)
	PeakDescriptors int // /proc/self/fd: server and clients, one process

	Phases                  []Phase
	Flood, Slow, Reconnects Upgrades
	Loops                   int64 // ?since=0 snapshots read
	PageLoads               pageLoads
	Disk                    DiskFigures
	Crash                   CrashFigures
	Fills                   []filled
	Probes                  struct {
		OK, Failed int
		First      string
	}
	Server serverUpdates

	Acked            int      // acks=all produces the victim was acknowledged
	VictimFailures   []string // its commands refused or failed
	Lost             []string // acknowledged values not read back
	Restarted        bool
	LostAfterRestart []string
	PageFailures     []string

	ServerErrors, ServerWarnings int
	ServerLog                    []string

	Goroutines struct {
		Baseline, Peak, After int
		GoneIn                time.Duration
	}
	failures []string
}

// Phase is the victim's commands in one phase of the attack.
type Phase struct {
	Name          string
	Commands      int
	P50, P99, Max float64 // ms
	PageUpdates   int64   // updates the instructor's page received meanwhile
}

func phaseFigures(name string, rts []float64, updates int64) Phase {
	p50, p99, top, n := percentiles(rts)
	return Phase{Name: name, Commands: n, P50: p50, P99: p99, Max: top, PageUpdates: updates}
}

// Upgrades counts one attack's websocket upgrades by the server's answer.
type Upgrades struct {
	counts [noAnswer + 1]int
	first  [noAnswer + 1]string
}

func (u Upgrades) Held() int       { return u.counts[held] }
func (u Upgrades) PerAddress() int { return u.counts[perAddress] }
func (u Upgrades) InTotal() int    { return u.counts[inTotal] }
func (u Upgrades) NoReason() int   { return u.counts[noReason] }
func (u Upgrades) NoAnswer() int   { return u.counts[noAnswer] }

func (u Upgrades) String() string {
	return fmt.Sprintf("%d held, %d refused 429 (per address), %d refused 503 (in total), %d refused without a reason, %d unanswered",
		u.counts[held], u.counts[perAddress], u.counts[inTotal], u.counts[noReason], u.counts[noAnswer])
}

func (r *HostileReport) fail(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

// Failures are the hard failures: each fails `loglab chaos` and the test.
func (r *HostileReport) Failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.failures...)
}

// check turns what the run saw into hard failures: the server stopped
// answering, a refusal without its reason, the victim refused, an
// acknowledged record lost, a page that stopped hearing, a server error.
func (r *HostileReport) check() {
	if r.Probes.Failed > 0 {
		r.fail("the server did not answer %d of %d probes: %s", r.Probes.Failed, r.Probes.OK+r.Probes.Failed, r.Probes.First)
	}
	for name, u := range map[string]Upgrades{"flood": r.Flood, "slow readers": r.Slow, "reconnect loops": r.Reconnects} {
		if u.NoReason() > 0 {
			r.fail("%s: %d upgrades refused without PAGE_LIMIT_REACHED: %s", name, u.NoReason(), u.first[noReason])
		}
		if u.NoAnswer() > 0 {
			r.fail("%s: %d upgrades unanswered: %s", name, u.NoAnswer(), u.first[noAnswer])
		}
	}
	if len(r.VictimFailures) > 0 {
		r.fail("the victim's commands failed %d times: %s", len(r.VictimFailures), strings.Join(r.VictimFailures[:min(3, len(r.VictimFailures))], "; "))
	}
	if len(r.Lost) > 0 {
		r.fail("%d acknowledged records lost: %s", len(r.Lost), strings.Join(r.Lost[:min(5, len(r.Lost))], ", "))
	}
	if len(r.LostAfterRestart) > 0 {
		r.fail("%d acknowledged records lost after a restart: %s", len(r.LostAfterRestart), strings.Join(r.LostAfterRestart[:min(5, len(r.LostAfterRestart))], ", "))
	}
	for _, ph := range r.Phases {
		if ph.PageUpdates == 0 {
			r.fail("the instructor's page received no update in the %s phase (%s)", ph.Name, strings.Join(r.PageFailures, "; "))
		}
	}
	if r.ServerErrors > 0 {
		r.fail("the server logged %d errors: %s", r.ServerErrors, strings.Join(r.ServerLog, "; "))
	}
	if r.PageLoads.other > 0 {
		r.fail("page loads: %d answered neither the page nor the page-load limit: %s", r.PageLoads.other, r.PageLoads.firstOther)
	}
	if max := r.Config.MaxSlowdown; max > 0 && len(r.Phases) > 1 && r.Phases[0].P50 > 0 {
		for _, ph := range r.Phases[1:] {
			if ratio := ph.P50 / r.Phases[0].P50; ratio > max {
				r.fail("the victim's p50 in the %s phase is %.1f× its unloaded p50 (%.1f ms vs %.1f ms), past %.1f×", ph.Name, ratio, ph.P50, r.Phases[0].P50, max)
			}
		}
	}
}

// Print writes the report for a person.
func (r *HostileReport) Print(w io.Writer) {
	c := r.Config
	fmt.Fprintf(w, "hostile room: flood %d addresses × %d websockets, %d slow readers, %d ?since=0 loops, %d participants filling budgets; the victim types %d acks=all produces a phase, one every %s\n",
		c.FloodAddresses, c.FloodPerAddress, c.SlowReaders, c.ReconnectLoops, c.Fillers, c.VictimCommands, c.VictimEvery)
	fmt.Fprintf(w, "connections held at the peak: %d websockets (the server's count)\n", r.PeakPages)
	fmt.Fprintf(w, "descriptors at the peak:      %d of a limit of %d (/proc/self/fd of the one process: server ends and client ends)\n", r.PeakDescriptors, r.DescriptorLimit)
	fmt.Fprintf(w, "flood:            %s\n", r.Flood)
	fmt.Fprintf(w, "slow readers:     %s\n", r.Slow)
	fmt.Fprintf(w, "?since=0 loops:   %s; %d snapshots read\n", r.Reconnects, r.Loops)
	for i, f := range r.Fills {
		fmt.Fprintf(w, "filler %d:         %d topics of 64×3, then %s: %s\n", i+1, f.Topics, f.Reason, f.Refusal)
	}
	fmt.Fprintf(w, "server:           %d slow pages and %d dead pages closed, %d snapshots, %d updates coalesced, %d dropped\n",
		r.Server.SlowPages, r.Server.DeadPages, r.Server.Snapshots, r.Server.Coalesced, r.Server.Dropped)
	fmt.Fprintf(w, "probes:           %d answered, %d not\n", r.Probes.OK, r.Probes.Failed)
	if r.Config.PageLoadLoops > 0 {
		fmt.Fprintf(w, "page-load loops:  %s\n", &r.PageLoads)
	}
	if r.Disk.Broker > 0 {
		fmt.Fprintf(w, "disk-full:        broker %d (leading orders/0) filled, then freed and restarted; orders/0 led by broker %d meanwhile\n", r.Disk.Broker, r.Disk.LeaderDuring)
	}
	if r.Crash.Ran {
		fmt.Fprintf(w, "crash (SIGKILL):  %d acknowledged before the kill, the produce in flight %s, a participant cluster being created; after the restart %d lost, no participant folder without its record: %v\n",
			r.Crash.Acked, r.Crash.InFlight, len(r.Crash.Lost), r.Crash.OrphansRemoved)
	}
	fmt.Fprintln(w, "victim's command latency (POST …/commands, produce acks=all):")
	var unloaded float64
	for i, ph := range r.Phases {
		if i == 0 {
			unloaded = ph.P50
		}
		ratio := ""
		if unloaded > 0 {
			ratio = fmt.Sprintf("  p50 %.1f×, p99 %.1f× the unloaded p50", ph.P50/unloaded, ph.P99/unloaded)
		}
		fmt.Fprintf(w, "  %-9s %3d commands  p50 %7.1f ms  p99 %7.1f ms  max %7.1f ms  page updates %d%s\n",
			ph.Name, ph.Commands, ph.P50, ph.P99, ph.Max, ph.PageUpdates, ratio)
	}
	fmt.Fprintf(w, "acknowledged:     %d records, %d lost; after a restart on the data directory %d lost (restarted: %v)\n",
		r.Acked, len(r.Lost), len(r.LostAfterRestart), r.Restarted)
	fmt.Fprintf(w, "goroutines:       %d before, %d at the peak, %d after everything closed (in %s)\n",
		r.Goroutines.Baseline, r.Goroutines.Peak, r.Goroutines.After, r.Goroutines.GoneIn.Round(time.Millisecond))
	fmt.Fprintf(w, "server log:       %d errors, %d warnings\n", r.ServerErrors, r.ServerWarnings)
	for _, l := range r.ServerLog {
		fmt.Fprintf(w, "  %s\n", l)
	}
	if f := r.Failures(); len(f) > 0 {
		fmt.Fprintf(w, "FAILED:\n  %s\n", strings.Join(f, "\n  "))
	} else {
		fmt.Fprintln(w, "ok: the server answered throughout, every refusal named its limit, the victim's commands ran and nothing acknowledged was lost")
	}
}

func tcpAddr(ip net.IP) net.Addr { return &net.TCPAddr{IP: ip} }
