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

// loadtest runs the workshop load check (server/loadtest) and prints its
// report. It exits 1 when a hard bound failed (a page without updates, a
// server error, a goroutine leak), never because of a latency.
func loadTest(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	clients := fs.Int("clients", 200, "websocket clients (pages): one per participant's cluster, the rest on the instructor's")
	participants := fs.Int("participants", 20, "participant clusters, each driven by a small script")
	duration := fs.Duration("duration", 60*time.Second, "the measured window")
	timeout := fs.Duration("timeout", 2*time.Minute, "bound on each wait for a condition (connecting, goroutines going away)")
	quiet := fs.Bool("q", false, "print only the report")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run (server and clients: one process) to this file")
	if code, done := parseFlags(fs, args, false); done {
		return code
	}
	cfg := loadtest.Config{Clients: *clients, Participants: *participants, Duration: *duration, Timeout: *timeout}
	if err := cfg.Validate(); err != nil || *duration <= 0 {
		if err == nil {
			err = fmt.Errorf("-duration must be positive")
		}
		fmt.Fprintf(stderr, "loglab loadtest: %v\n\n%s", err, usage)
		return 2
	}
	if *cpuProfile != "" {
		stopProfile, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "loglab loadtest: %v\n", err)
			return 1
		}
		defer stopProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !*quiet {
		cfg.Progress = stderr
	}
	r, err := loadtest.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "loglab loadtest: %v\n", err)
		return 1
	}
	r.Print(stdout)
	if len(r.Failures()) > 0 {
		return 1
	}
	return 0
}
