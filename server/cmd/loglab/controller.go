package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/loglab/loglab/engine/kraft/quorum"
)

// controller runs one KRaft controller of a quorum whose controllers are
// separate processes, over raft's TCP transport, until SIGINT or SIGTERM
// (docs/kraft-processes.md). Role changes go to stderr; stdout stays
// empty, as for serve.
func controller(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("controller", flag.ContinueOnError)
	fs.SetOutput(stderr)
	id := fs.Int("id", 0, "this controller's `ID`, one of the voters' (Kafka's node.id)")
	voters := fs.String("voters", "", "every controller's raft address, `ID=HOST:PORT,...` (Kafka's controller.quorum.voters)")
	dataDir := fs.String("data-dir", "", "`DIR` to keep this controller's files in, under DIR/controller-ID")
	api := fs.String("api", "", "`ADDR` to serve the HTTP API on (default: the raft host, port + 1000)")
	heartbeat := fs.Duration("heartbeat-timeout", 200*time.Millisecond, "raft's heartbeat timeout, the unit of every election timeout")
	raftLog := fs.String("raft-log", "off", "hashicorp/raft's own log `LEVEL`: off, error, warn, info, debug, trace")
	if code, done := parseFlags(fs, args, false); done {
		return code
	}
	usageError := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "loglab controller: %s\n\n%s", fmt.Sprintf(format, a...), usage)
		return 2
	}
	if *id == 0 {
		return usageError("-id is required")
	}
	addrs, err := quorum.ParseVoters(*voters)
	if err != nil {
		return usageError("-voters: %v", err)
	}
	if *id < 1 || *id > len(addrs) {
		return usageError("-id %d is not among the voters (1 to %d)", *id, len(addrs))
	}
	if *dataDir == "" {
		return usageError("-data-dir is required")
	}
	if *heartbeat < 5*time.Millisecond {
		return usageError("-heartbeat-timeout %s: raft needs at least 5ms", *heartbeat)
	}
	level := hclog.Off
	if *raftLog != "off" {
		if level = hclog.LevelFromString(*raftLog); level == hclog.NoLevel {
			return usageError("-raft-log %q: want off, error, warn, info, debug or trace", *raftLog)
		}
	}

	// The events and raft's log come from several goroutines: one line at
	// a time.
	out := &lockedWriter{w: stderr}
	logf := func(format string, a ...any) {
		fmt.Fprintf(out, "%s %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, a...))
	}
	apis := make([]string, len(addrs))
	apis[*id-1] = *api
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	p, err := quorum.NewProcess(quorum.ProcessConfig{
		Config: quorum.Config{
			Dir:              *dataDir,
			HeartbeatTimeout: *heartbeat,
			Logger:           hclog.New(&hclog.LoggerOptions{Level: level, Output: out, TimeFormat: "15:04:05.000"}),
		},
		ID: *id, Voters: addrs, APIs: apis,
		Events: func(line string) { logf("%s", line) },
	})
	if err != nil {
		fmt.Fprintf(stderr, "loglab controller: %v\n", err)
		return 1
	}
	logf("controller %d: raft on %s, API on http://%s, files in %s; Ctrl-C stops it",
		*id, p.Addr(), p.API(), filepath.Join(*dataDir, "controller-"+strconv.Itoa(*id)))
	<-ctx.Done()
	logf("controller %d: stopping", *id)
	if err := p.Close(); err != nil {
		fmt.Fprintf(stderr, "loglab controller: %v\n", err)
		return 1
	}
	return 0
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
