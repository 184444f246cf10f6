package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/loglab/loglab/server"
)

// HostileConfig sizes the hostile-room check (`loglab chaos`): issue 26's
// attacks, bounded, against a server this process starts on a loopback
// port and a temporary data directory of its own.
type HostileConfig struct {
	// FloodAddresses × FloodPerAddress websockets that never read, from
	// 127.0.8.1 on: past 64 per address the server answers 429, past
	// 1,024 in all 503.
	FloodAddresses, FloodPerAddress int
	// SlowReaders websockets, one per address, connect and never read.
	SlowReaders int
	// ReconnectLoops loops reconnect with ?since=0 (a snapshot each).
	ReconnectLoops int
	// Fillers participants each open a cluster and create 64 × 3 topics
	// until the replica cap or the descriptor budget refuses one.
	Fillers int
	// PageLoadLoops loops, one address each from 127.0.6.1, reload the
	// instructor's page (GET /live) as fast as they are answered.
	PageLoadLoops int
	// DiskFull adds a phase after the flood: the disk of the broker
	// leading the victim's partition fills (ENOSPC) while the victim
	// types; then it is freed and the broker restarted.
	DiskFull bool
	// CrashProduces > 0 adds the crash phase: a server in a process of its
	// own takes that many acks=all produces, is killed with SIGKILL with a
	// produce and a participant's new cluster in flight, and is started
	// again on its data directory (hostile_crash.go). The program must
	// call RunCrashChildIfAsked first thing.
	CrashProduces int
	// MaxSlowdown > 0 fails the run when a loaded phase's victim p50 is
	// more than this many times the unloaded phase's. 0: latency is
	// reported, never a failure (make test's short run: a loaded machine
	// is not the server's fault).
	MaxSlowdown float64
	// VictimCommands is how many acks=all produces the instructor types
	// in each phase (unloaded, churn, flood), one every VictimEvery.
	VictimCommands int
	VictimEvery    time.Duration
	// Timeout bounds each wait (goroutines going away, the server
	// closing): reaching it is a failure.
	Timeout  time.Duration
	Progress io.Writer
}

func (c HostileConfig) withDefaults() HostileConfig {
	if c.VictimEvery == 0 {
		c.VictimEvery = 150 * time.Millisecond // under the API's 10 commands a second per address
	}
	if c.Timeout == 0 {
		c.Timeout = 2 * time.Minute
	}
	return c
}

// Validate says what is wrong with c's sizes.
func (c HostileConfig) Validate() error {
	if c.FloodAddresses < 0 || c.FloodPerAddress < 0 || c.SlowReaders < 0 || c.ReconnectLoops < 0 || c.Fillers < 0 ||
		c.PageLoadLoops < 0 || c.CrashProduces < 0 || c.MaxSlowdown < 0 {
		return errors.New("a negative size")
	}
	if c.VictimCommands < 2 {
		return errors.New("the victim needs at least 2 commands a phase for a median")
	}
	if c.SlowReaders > 250 || c.ReconnectLoops > 250 || c.Fillers > 250 || c.PageLoadLoops > 250 {
		return errors.New("at most 250 slow readers, reconnect loops, page-load loops and fillers (one address each)")
	}
	return nil
}

// RunHostile runs the check. It returns an error only when the run could
// not start; what went wrong is in the report's Failures.
func RunHostile(ctx context.Context, cfg HostileConfig) (*HostileReport, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !newLoopbackPlan().spread {
		return nil, errors.New("the hostile check needs all of 127.0.0.0/8 on loopback (Linux): its attackers come from many addresses")
	}
	progress := func(format string, args ...any) {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "chaos: "+format+"\n", args...)
		}
	}
	r := &HostileReport{Config: cfg, DescriptorLimit: descriptorLimit()}
	r.Goroutines.Baseline = settledGoroutines(cfg.Timeout)

	dir, err := os.MkdirTemp("", "loglab-chaos-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	opts := server.Options{StaticDir: dir, DataDir: filepath.Join(dir, "data")}
	p, err := startServer(opts)
	if err != nil {
		return nil, err
	}
	base, ws := "http://"+p.addr(), "ws://"+p.addr()
	progress("server on %s, data in %s", base, dir)
	instructor := &apiClient{base: base, token: p.srv.InstructorToken(), http: newHTTPClient(nil, nil)}
	v := &victim{c: instructor, every: cfg.VictimEvery}
	if err := v.setup(ctx); err != nil {
		p.stop(cfg.Timeout)
		return nil, fmt.Errorf("the victim's producer: %w", err)
	}

	// The instructor's page, connected before the room arrives.
	page := newWatcher(0, instructorCluster, ws, nil, nil)
	conn, err := page.dial(ctx)
	if err != nil {
		p.stop(cfg.Timeout)
		return nil, fmt.Errorf("the instructor's page: %w", err)
	}
	go page.read(ctx, conn)

	runCtx, stop := context.WithCancel(ctx)
	var background sync.WaitGroup
	pr := &prober{}
	background.Add(2)
	go func() { defer background.Done(); pr.run(runCtx, base, 250*time.Millisecond) }()
	go func() { defer background.Done(); r.sample(runCtx, p.srv) }()

	phase := func(name string) {
		before := page.updates.Load()
		rts := v.run(ctx, cfg.VictimCommands)
		// The page's updates for the phase's commands may still be on
		// their way when the last command is answered (a loaded machine):
		// wait for the first, bounded by the timeout, rather than count
		// only those that beat the phase's end.
		waitFor(func() int {
			if page.updates.Load() > before {
				return 0
			}
			return 1
		}, 0, cfg.Timeout)
		r.Phases = append(r.Phases, phaseFigures(name, rts, page.updates.Load()-before))
		progress("%s: victim p50 %.1f ms, p99 %.1f ms", name, r.Phases[len(r.Phases)-1].P50, r.Phases[len(r.Phases)-1].P99)
	}
	phase("unloaded")

	// Churn: slow readers stay, snapshot loops spin, participants fill
	// their budgets while the victim types.
	slow, loops, floodT := &tally{}, &tally{}, &tally{}
	slowReaders(slow, p.addr(), instructorCluster, cfg.SlowReaders)
	var loopWG sync.WaitGroup
	var loopCount int64
	var loopMu sync.Mutex
	for i := range cfg.ReconnectLoops {
		loopWG.Add(1)
		go func() {
			defer loopWG.Done()
			n := reconnectLoop(runCtx, loops, p.addr(), instructorCluster, loopbackIP(5, i))
			loopMu.Lock()
			loopCount += int64(n)
			loopMu.Unlock()
		}()
	}
	for i := range cfg.PageLoadLoops {
		loopWG.Add(1)
		go func() {
			defer loopWG.Done()
			pageLoadLoop(runCtx, &r.PageLoads, base, "/live", loopbackIP(6, i))
		}()
	}
	var fillWG sync.WaitGroup
	r.Fills = make([]filled, cfg.Fillers)
	fillErrs := make([]error, cfg.Fillers)
	for i := range cfg.Fillers {
		fillWG.Add(1)
		go func() {
			defer fillWG.Done()
			c := &apiClient{base: base, http: newHTTPClient(tcpAddr(loopbackIP(3, i)), nil)}
			r.Fills[i], fillErrs[i] = fillBudgets(ctx, c, fmt.Sprintf("filler %d", i+1))
			c.http.CloseIdleConnections()
		}()
	}
	phase("churn")
	fillWG.Wait()
	for i, err := range fillErrs {
		if err != nil {
			r.fail("filler %d: %v", i+1, err)
		}
	}
	progress("churn done: %d fillers, %d slow readers, %d reconnect loops", cfg.Fillers, cfg.SlowReaders, cfg.ReconnectLoops)

	// The flood, on top of the churn.
	floodDone := make(chan struct{})
	go func() {
		defer close(floodDone)
		flood(runCtx, floodT, p.addr(), instructorCluster, cfg.FloodAddresses, cfg.FloodPerAddress)
	}()
	phase("flood")
	<-floodDone
	progress("flood done")

	// A full disk under the victim's partition, the room still there.
	if cfg.DiskFull {
		if err := r.diskFull(ctx, instructor, func() { phase("disk-full") }); err != nil {
			r.fail("disk-full phase: %v", err)
		}
	}

	stop()
	loopWG.Wait()
	background.Wait()
	r.Loops = loopCount
	r.Probes.OK, r.Probes.Failed, r.Probes.First = pr.get()
	r.Flood.counts, r.Flood.first = floodT.get()
	r.Slow.counts, r.Slow.first = slow.get()
	r.Reconnects.counts, r.Reconnects.first = loops.get()
	r.Server = updatesBetween(server.UpdateStats{}, p.srv.UpdateStats())
	r.Acked = len(v.acked)
	r.VictimFailures = v.failed
	if lost, err := v.lost(ctx); err != nil {
		r.fail("reading orders/0 back: %v", err)
	} else {
		r.Lost = lost
	}

	// Everyone leaves; the server closes.
	page.close()
	r.PageFailures = page.failures
	floodT.closeAll()
	slow.closeAll()
	instructor.http.CloseIdleConnections()
	if err := p.stop(cfg.Timeout); err != nil {
		r.fail("stopping the server: %v", err)
	}
	r.ServerErrors, r.ServerWarnings, r.ServerLog = p.logs.counts()

	// A restart on the same data directory still holds every
	// acknowledged record.
	r.lostAfterRestart(ctx, opts, v, cfg.Timeout)
	if cfg.CrashProduces > 0 {
		progress("crash: a server process killed with SIGKILL mid-produce, then started again")
		r.crash(ctx, dir, cfg.CrashProduces, cfg.VictimEvery, cfg.Timeout)
	}

	var gone bool
	r.Goroutines.After, r.Goroutines.GoneIn, gone = waitGoroutines(r.Goroutines.Baseline+goroutineSlack, cfg.Timeout)
	if !gone {
		r.fail("goroutine leak: %d goroutines %s after everything closed, %d before the server started%s",
			r.Goroutines.After, cfg.Timeout, r.Goroutines.Baseline, goroutineDump())
	}
	r.check()
	return r, nil
}

// lostAfterRestart opens a server on the run's data directory again and
// reads the victim's acknowledged records back from it.
func (r *HostileReport) lostAfterRestart(ctx context.Context, opts server.Options, v *victim, timeout time.Duration) {
	p, err := startServer(opts)
	if err != nil {
		r.fail("restarting the server on its data directory: %v", err)
		return
	}
	c := &apiClient{base: "http://" + p.addr(), token: p.srv.InstructorToken(), http: newHTTPClient(nil, nil)}
	again := &victim{c: c, acked: v.acked}
	lost, err := again.lost(ctx)
	if err != nil {
		r.fail("reading orders/0 back after a restart: %v", err)
	}
	r.LostAfterRestart = lost
	r.Restarted = err == nil
	c.http.CloseIdleConnections()
	if err := p.stop(timeout); err != nil {
		r.fail("stopping the restarted server: %v", err)
	}
}

// sample keeps the peaks of the server's open pages, the process's
// descriptors and its goroutines until ctx ends.
func (r *HostileReport) sample(ctx context.Context, srv *server.Server) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		pages, fds, g := srv.OpenPages(), openDescriptors(), runtime.NumGoroutine()
		r.mu.Lock()
		r.PeakPages, r.PeakDescriptors, r.Goroutines.Peak = max(r.PeakPages, pages), max(r.PeakDescriptors, fds), max(r.Goroutines.Peak, g)
		r.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
