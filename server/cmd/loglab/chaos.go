package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/loglab/loglab/server/loadtest"
)

// chaos runs the hostile-room check (server/loadtest.RunHostile) and
// prints its report. It exits 1 on a hard failure (the server stopped
// answering, a refusal without its reason, the victim refused, an
// acknowledged record lost, a goroutine leak), never because of a latency.
func chaos(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := loadtest.HostileConfig{}
	fs.IntVar(&cfg.FloodAddresses, "flood-addresses", 40, "loopback addresses the flood comes from (127.0.8.1 …)")
	fs.IntVar(&cfg.FloodPerAddress, "flood-per-address", 80, "websockets each flood address opens and never reads")
	fs.IntVar(&cfg.SlowReaders, "slow-readers", 32, "websockets that connect and never read, one address each")
	fs.IntVar(&cfg.ReconnectLoops, "reconnect-loops", 16, "loops reconnecting with ?since=0, one address each")
	fs.IntVar(&cfg.Fillers, "fillers", 4, "participants each filling a cluster with 64x3 topics until refused")
	fs.IntVar(&cfg.PageLoadLoops, "page-load-loops", 16, "loops reloading the instructor's page (GET /live), one address each")
	fs.BoolVar(&cfg.DiskFull, "disk-full", true, "a phase with the disk of the broker leading the victim's partition full")
	fs.IntVar(&cfg.CrashProduces, "crash-produces", 50, "acks=all produces before a server process is killed with SIGKILL and restarted (0: no crash phase)")
	fs.Float64Var(&cfg.MaxSlowdown, "max-slowdown", 5, "fail when a loaded phase's victim p50 passes this many times the unloaded one (0: report only)")
	fs.IntVar(&cfg.VictimCommands, "victim-commands", 100, "acks=all produces the instructor types in each phase")
	fs.DurationVar(&cfg.Timeout, "timeout", 2*time.Minute, "bound on each wait (goroutines going away, the server closing)")
	quiet := fs.Bool("q", false, "print only the report")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run (server, attackers and victim: one process) to this file")
	if code, done := parseFlags(fs, args, false); done {
		return code
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "loglab chaos: %v\n\n%s", err, usage)
		return 2
	}
	if *cpuProfile != "" {
		stopProfile, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "loglab chaos: %v\n", err)
			return 1
		}
		defer stopProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !*quiet {
		cfg.Progress = stderr
	}
	r, err := loadtest.RunHostile(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "loglab chaos: %v\n", err)
		return 1
	}
	r.Print(stdout)
	if len(r.Failures()) > 0 {
		return 1
	}
	return 0
}
