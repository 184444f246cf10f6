// Package loadtest is the workshop server's load check (`loglab loadtest`,
// `make loadtest`): it starts the server in this process on a loopback
// listener, opens participant clusters through the HTTP API, keeps the
// instructor's cluster busy in real time with a producer and a consumer
// group and each participant's cluster with a small script, watches them
// with many websocket clients negotiating compression as a browser does,
// and reports what a workshop would feel: update latency, bytes per update
// on the wire and inflated, updates coalesced or dropped, memory per
// cluster, and whether every goroutine went away with the clients and the
// clusters.
//
// Latencies are reported, never asserted: a loaded laptop is slower than a
// quiet one, and the same server is not wrong on it. What fails a run is
// what is wrong on any machine: a page that never received an update, a
// server error, a goroutine that outlived its client or its cluster.
package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/loglab/loglab/server"
)

// Config sizes a run.
type Config struct {
	// Clients is how many websocket clients (pages) watch: one on each
	// participant's cluster (its owner's page), the rest on the
	// instructor's.
	Clients int
	// Participants is how many participant clusters are opened, each
	// driven by its own script.
	Participants int
	// Duration is the measured window. Zero runs until every page has
	// received MinUpdates updates instead (the short test's bound: a
	// count, not a time).
	Duration   time.Duration
	MinUpdates int
	// Timeout bounds every wait on a condition: connecting, the updates
	// of a count-bounded run, goroutines going away. Generous: reaching it
	// is a failure, not a slow machine.
	Timeout time.Duration
	// InstructorEvery and ParticipantEvery are how often each driver
	// types its next command.
	InstructorEvery  time.Duration
	ParticipantEvery time.Duration
	// Progress, when not nil, hears what the run is doing.
	Progress io.Writer
}

func (c Config) withDefaults() Config {
	if c.Timeout == 0 {
		c.Timeout = 2 * time.Minute
	}
	if c.InstructorEvery == 0 {
		c.InstructorEvery = 300 * time.Millisecond
	}
	if c.ParticipantEvery == 0 {
		c.ParticipantEvery = 2 * time.Second
	}
	if c.Duration == 0 && c.MinUpdates == 0 {
		c.MinUpdates = 5
	}
	return c
}

// Validate says what is wrong with c's sizes, nil when nothing is.
func (c Config) Validate() error {
	switch {
	case c.Clients < 1:
		return errors.New("at least one client")
	case c.Participants < 0:
		return errors.New("a negative number of participants")
	case c.Clients < c.Participants:
		return fmt.Errorf("%d clients cannot watch %d participant clusters and the instructor's: one page per participant's cluster, the rest on the instructor's", c.Clients, c.Participants)
	case c.Duration < 0 || c.MinUpdates < 0:
		return errors.New("a negative duration or update count")
	}
	return nil
}

// fallbackTick is how the run keeps the instructor's cluster in real time
// on a server without the native `realtime` command: a tick of the
// period's length every period, typed by the instructor.
const fallbackTick = 200 * time.Millisecond

// goroutineSlack is how many goroutines above the count before the pages
// (or before the server) still count as gone: a runtime or net/http
// goroutine finishing its last step. A leak per page or per cluster is
// far above it on a full run.
const goroutineSlack = 3

// Run runs the load check. It returns an error only when the run could not
// start; what went wrong during the run is in the report's Failures.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	progress := func(format string, args ...any) {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "loadtest: "+format+"\n", args...)
		}
	}
	r := &Report{Config: cfg}
	plan := newLoopbackPlan()
	r.SpreadAddresses = plan.spread

	runtime.GC()
	r.Goroutines.Baseline = runtime.NumGoroutine()
	r.Heap.Baseline = heapInUse()

	dir, err := os.MkdirTemp("", "loglab-loadtest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	logs := &serverLog{}
	opts := server.Options{StaticDir: dir, DataDir: filepath.Join(dir, "data"), Logger: slog.New(logs),
		MaxParticipants: max(cfg.Participants, server.DefaultMaxParticipants)}
	if !plan.spread {
		// Every participant shares 127.0.0.1: the per-address bound on
		// clusters would stop the run at a few.
		opts.MaxClustersPerAddress = max(cfg.Participants, server.DefaultMaxClustersPerAddress)
	}
	srv, err := server.New(opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		return nil, err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			r.fail("the HTTP server stopped: %v", err)
		}
	}()
	var closeOnce sync.Once
	closeServer := func() {
		closeOnce.Do(func() {
			if err := srv.Close(); err != nil {
				r.fail("closing the server's clusters: %v", err)
			}
			shutdown, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
			defer cancel()
			if err := hs.Shutdown(shutdown); err != nil {
				r.fail("shutting the HTTP server down: %v", err)
			}
			<-served
		})
	}
	defer closeServer()
	base := "http://" + ln.Addr().String()
	progress("server on %s, data in %s", base, dir)

	instructor := &apiClient{base: base, token: srv.InstructorToken(), http: newHTTPClient(plan.instructor(), nil)}
	instructorCmds, participantCmds := &commandStats{}, &commandStats{}

	// The instructor's cluster: its producer and group, then real time.
	isc := instructorScript(cfg.InstructorEvery)
	if !instructorCmds.setup(ctx, instructor, instructorCluster, isc) {
		r.fail("the instructor's setup failed: %s", strings.Join(instructorCmds.summary().Notes, "; "))
	}
	fallback := false
	if res, err := instructor.command(ctx, instructorCluster, "realtime on"); err != nil || !res.OK {
		fallback = true
		why := firstLine(res.Output)
		if err != nil {
			why = err.Error()
		}
		r.Realtime = fmt.Sprintf("fallback: the instructor types `tick %s` every %s (`realtime on`: %s)", fallbackTick, fallbackTick, why)
	} else {
		r.Realtime = "native `realtime on`"
	}
	progress("instructor's cluster in real time: %s", r.Realtime)
	instructor.http.CloseIdleConnections()
	r.Goroutines.InstructorOnly = settledGoroutines(cfg.Timeout)

	// Participant clusters, and what one costs in memory.
	runtime.GC()
	heapBefore := heapInUse()
	participants := make([]*apiClient, 0, cfg.Participants)
	clusters := make([]string, 0, cfg.Participants)
	for i := range cfg.Participants {
		c := &apiClient{base: base, http: newHTTPClient(plan.participant(i), nil)}
		created, err := c.createCluster(ctx, fmt.Sprintf("load participant %d", i+1))
		if err != nil {
			r.fail("opening participant cluster %d: POST /api/v1/clusters: %v", i+1, err)
			break
		}
		c.token = created.Token
		participants = append(participants, c)
		clusters = append(clusters, created.ID)
	}
	runtime.GC()
	r.Heap.WithClusters = heapInUse()
	if n := len(clusters); n > 0 {
		r.Heap.PerCluster = (int64(r.Heap.WithClusters) - int64(heapBefore)) / int64(n)
	}
	r.ParticipantClusters = len(clusters)
	progress("%d participant clusters open, %s of heap each", len(clusters), bytesString(r.Heap.PerCluster))
	psc := participantScript(cfg.ParticipantEvery)
	for i, c := range participants {
		if !participantCmds.setup(ctx, c, clusters[i], psc) {
			r.fail("participant %d's setup failed: %s", i+1, strings.Join(participantCmds.summary().Notes, "; "))
		}
	}

	// The goroutines with every cluster up, before any page connects.
	instructor.http.CloseIdleConnections()
	for _, c := range participants {
		c.http.CloseIdleConnections()
	}
	r.Goroutines.WithClusters = settledGoroutines(cfg.Timeout)

	// The pages.
	clock := &commandClock{}
	ws := "ws://" + ln.Addr().String()
	watchers := make([]*watcher, cfg.Clients)
	for i := range watchers {
		cluster := instructorCluster
		if i < len(clusters) {
			cluster = clusters[i]
		}
		watchers[i] = newWatcher(i, cluster, ws, plan.watcher(i), clock)
	}
	watchCtx, stopWatching := context.WithCancel(context.Background())
	defer stopWatching()
	connectAll(watchCtx, watchers, r)
	progress("%d pages connected", cfg.Clients)

	// The measured window: drivers type, real time runs, pages read.
	runCtx, stopDrivers := context.WithCancel(ctx)
	var drivers sync.WaitGroup
	start := snapshot(watchers)
	serverStart := srv.UpdateStats()
	cpuStart := processCPU()
	r.Machine.CPUs, r.Machine.LoadBefore = runtime.NumCPU(), loadAverage()
	r.Goroutines.Peak = runtime.NumGoroutine()
	drivers.Add(1)
	go func() {
		defer drivers.Done()
		instructorCmds.loop(runCtx, instructor, instructorCluster, isc, 0, clock)
	}()
	if fallback {
		tick := script{loop: []string{fmt.Sprintf("tick %dms", fallbackTick.Milliseconds())}, period: fallbackTick}
		drivers.Add(1)
		go func() {
			defer drivers.Done()
			instructorCmds.loop(runCtx, instructor, instructorCluster, tick, fallbackTick/2, clock)
		}()
	}
	for i, c := range participants {
		offset := cfg.ParticipantEvery * time.Duration(i) / time.Duration(len(participants))
		drivers.Add(1)
		go func() {
			defer drivers.Done()
			participantCmds.loop(runCtx, c, clusters[i], psc, offset, nil)
		}()
	}
	r.Window = waitWindow(ctx, cfg, watchers, start, r)
	stopDrivers()
	drivers.Wait()
	end := snapshot(watchers)
	r.Server = updatesBetween(serverStart, srv.UpdateStats())
	r.Machine.ProcessCPU, r.Machine.LoadAfter = processCPU()-cpuStart, loadAverage()
	runtime.GC()
	r.Heap.AtEnd = heapInUse()
	progress("window over after %s; closing the pages", r.Window.Round(time.Millisecond))

	// The pages leave: their goroutines, and the server's for them, go.
	closeAll(watchers, cfg.Timeout, r)
	stopWatching()
	instructor.http.CloseIdleConnections()
	for _, c := range participants {
		c.http.CloseIdleConnections()
	}
	var gone bool
	r.Goroutines.AfterClients, r.Goroutines.ClientsGoneIn, gone = waitGoroutines(r.Goroutines.WithClusters+goroutineSlack, cfg.Timeout)
	if !gone {
		r.fail("goroutine leak: %d goroutines %s after the pages closed, %d before they connected%s",
			r.Goroutines.AfterClients, cfg.Timeout, r.Goroutines.WithClusters, goroutineDump())
	}

	// Each participant removes their cluster (DELETE, as the page's
	// button does): its goroutines go.
	for i, c := range participants {
		if err := c.deleteCluster(ctx, clusters[i]); err != nil {
			r.fail("removing participant cluster %s: DELETE: %v", clusters[i], err)
		}
		c.http.CloseIdleConnections()
	}
	r.Goroutines.AfterRemoval, r.Goroutines.RemovalGoneIn, gone = waitGoroutines(r.Goroutines.InstructorOnly+goroutineSlack, cfg.Timeout)
	if !gone {
		r.fail("goroutine leak: %d goroutines %s after the participant clusters were removed, %d before they were opened%s",
			r.Goroutines.AfterRemoval, cfg.Timeout, r.Goroutines.InstructorOnly, goroutineDump())
	}

	// The instructor's cluster goes with the server.
	closeServer()
	r.Goroutines.AfterServer, r.Goroutines.ServerGoneIn, gone = waitGoroutines(r.Goroutines.Baseline+goroutineSlack, cfg.Timeout)
	if !gone {
		r.fail("goroutine leak: %d goroutines %s after the server and its clusters closed, %d before it started%s",
			r.Goroutines.AfterServer, cfg.Timeout, r.Goroutines.Baseline, goroutineDump())
	}

	r.collect(watchers, start, end, clock)
	r.Instructor = instructorCmds.summary()
	r.ParticipantCommands = participantCmds.summary()
	r.ServerErrors, r.ServerWarnings, r.ServerLog = logs.counts()
	r.check()
	return r, nil
}

// connectAll opens every page, a few at a time as a room's browsers
// arrive, and starts each one's reader.
func connectAll(ctx context.Context, watchers []*watcher, r *Report) {
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for _, w := range watchers {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			conn, err := w.dial(ctx)
			if err != nil {
				r.fail("page %d (%s) could not connect: %v", w.index, w.cluster, err)
				close(w.done)
				return
			}
			go w.read(ctx, conn)
		}()
	}
	wg.Wait()
}

// closeAll closes every page at once, as a room leaving does.
func closeAll(watchers []*watcher, timeout time.Duration, r *Report) {
	var wg sync.WaitGroup
	for _, w := range watchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.close()
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		r.fail("pages still open %s after they were closed", timeout)
	}
}

// waitWindow runs the measured window: cfg.Duration, or until every
// page received cfg.MinUpdates updates since start (failing after
// cfg.Timeout). It samples the peak goroutine count meanwhile.
func waitWindow(ctx context.Context, cfg Config, watchers []*watcher, start counts, r *Report) time.Duration {
	began := time.Now()
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	var deadline <-chan time.Time
	if cfg.Duration > 0 {
		deadline = time.After(cfg.Duration)
	} else {
		deadline = time.After(cfg.Timeout)
	}
	for {
		select {
		case <-ctx.Done():
			r.fail("interrupted after %s", time.Since(began).Round(time.Millisecond))
			return time.Since(began)
		case <-deadline:
			if cfg.Duration == 0 {
				r.fail("not every page received %d updates within %s: %s", cfg.MinUpdates, cfg.Timeout, behind(watchers, start, cfg.MinUpdates))
			}
			return time.Since(began)
		case <-t.C:
			if n := runtime.NumGoroutine(); n > r.Goroutines.Peak {
				r.Goroutines.Peak = n
			}
			if cfg.Duration == 0 && behind(watchers, start, cfg.MinUpdates) == "" {
				return time.Since(began)
			}
		}
	}
}

// behind lists the pages that received fewer than min updates since
// start ("" when none).
func behind(watchers []*watcher, start counts, min int) string {
	var out string
	n := 0
	for i, w := range watchers {
		if got := w.updates.Load() - start.updates[i]; got < int64(min) {
			if n < 5 {
				out += fmt.Sprintf("page %d (%s) got %d; ", w.index, w.cluster, got)
			}
			n++
		}
	}
	if n > 5 {
		out += fmt.Sprintf("and %d more", n-5)
	}
	return out
}

// counts are the pages' counters at one instant.
type counts struct {
	at                      time.Time
	wire, decoded, messages []int64
	updates                 []int64
}

func snapshot(watchers []*watcher) counts {
	c := counts{at: time.Now()}
	for _, w := range watchers {
		c.wire = append(c.wire, w.wire.load())
		c.decoded = append(c.decoded, w.decoded.load())
		c.messages = append(c.messages, w.messages.Load())
		c.updates = append(c.updates, w.updates.Load())
	}
	return c
}

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// waitGoroutines waits until at most limit goroutines run, up to timeout;
// it returns the last count, how long it waited and whether it got there.
func waitGoroutines(limit int, timeout time.Duration) (int, time.Duration, bool) {
	return waitFor(runtime.NumGoroutine, limit, timeout)
}

// waitFor waits until count() is at most limit, up to timeout.
func waitFor(count func() int, limit int, timeout time.Duration) (int, time.Duration, bool) {
	start := time.Now()
	for {
		n := count()
		if n <= limit {
			return n, time.Since(start), true
		}
		if time.Since(start) > timeout {
			return n, time.Since(start), false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settledGoroutines is the goroutine count once connections just closed
// have finished going away: the count no longer falls over a few samples.
func settledGoroutines(timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	last, same := runtime.NumGoroutine(), 0
	for same < 5 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		n := runtime.NumGoroutine()
		if n < last {
			same = 0
		} else {
			same++
		}
		last = min(last, n)
	}
	return last
}
