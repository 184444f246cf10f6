package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/loglab/loglab/server"
)

func serve(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	defaultAddr := ":8080"
	if port := os.Getenv("PORT"); port != "" {
		defaultAddr = ":" + port
	}
	addr := fs.String("addr", defaultAddr, "address to listen on (the PORT environment variable sets the default port)")
	static := fs.String("static", "static", "directory with app.js, style.css, loglab.wasm and wasm_exec.js")
	controllers := fs.String("controllers", "", "API addresses of controllers running as `loglab controller` processes, comma-separated, controller 1's first (default: the quorum runs inside the server)")
	dataDir := fs.String("data-dir", defaultDataDir(), "keep every cluster's segment files and metadata log here (the participants' under participants/); a restart, even after kill -9, resumes them")
	inMemory := fs.Bool("in-memory", false, "keep the clusters in memory only (nothing written, nothing resumed): overrides -data-dir")
	participantIdle := fs.Duration("participant-idle", server.DefaultParticipantIdle, "remove a participant's cluster, with its files, after this long without a command or a page watching it")
	maxParticipants := fs.Int("max-participants", server.DefaultMaxParticipants, "at most this many participant clusters (each is a whole cluster: brokers and a controller quorum)")
	maxPerAddress := fs.Int("max-clusters-per-address", server.DefaultMaxClustersPerAddress, "at most this many participant clusters opened from one client address")
	maxPagesPerAddress := fs.Int("max-pages-per-address", server.DefaultMaxPagesPerAddress, "at most this many live pages (websockets) open from one client address")
	maxPages := fs.Int("max-pages", server.DefaultMaxPages, "at most this many live pages (websockets) open on the server")
	if code, done := parseFlags(fs, args, false); done {
		return code
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	if _, err := os.Stat(*static + "/app.js"); err != nil {
		fmt.Fprintf(stderr, "loglab serve: %s does not look like loglab's static folder (no app.js); pass -static\n", *static)
		return 1
	}
	if _, err := os.Stat(*static + "/loglab.wasm"); err != nil {
		logger.Warn("the browser lab needs the WASM module; run `make wasm`", "missing", *static+"/loglab.wasm")
	}
	if *inMemory {
		*dataDir = ""
	}
	if *dataDir == "" && !*inMemory {
		logger.Warn("no data directory (no user cache directory and no -data-dir): the clusters live in memory and a restart starts afresh")
	}
	clusterWords := "in memory: a restart starts afresh"
	if *dataDir != "" {
		clusterWords = "new: started from the starter script"
		if server.HoldsCluster(*dataDir) {
			clusterWords = "resumed from the data directory"
		}
		release, err := server.LockDataDir(*dataDir)
		if err != nil {
			fmt.Fprintf(stderr, "loglab serve: %v\n", err)
			return 1
		}
		defer release()
	}
	soft, hard, err := server.RaiseDescriptorLimit()
	if err != nil {
		logger.Warn("could not read the open-file limit (RLIMIT_NOFILE): no descriptor budget", "error", err)
	} else if *dataDir != "" {
		logger.Info("open-file limit (RLIMIT_NOFILE, soft raised to hard)", "soft", soft, "hard", hard,
			"budget", server.DescriptorBudget(soft), "note", "commands that open files and new participant clusters are refused past the budget")
	}
	token, err := server.InstructorTokenIn(*dataDir)
	if err != nil {
		fmt.Fprintf(stderr, "loglab serve: %v\n", err)
		return 1
	}
	srv, err := server.New(server.Options{StaticDir: *static, Logger: logger, DataDir: *dataDir, Controllers: splitList(*controllers),
		InstructorToken: token, ParticipantIdle: *participantIdle, MaxParticipants: *maxParticipants, MaxClustersPerAddress: *maxPerAddress, DescriptorLimit: soft,
		MaxPagesPerAddress: *maxPagesPerAddress, MaxPages: *maxPages})
	if err != nil {
		fmt.Fprintf(stderr, "loglab serve: %v\n", err)
		return 1
	}
	raw, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "loglab serve: %v\n", err)
		return 1
	}
	perAddress, total := server.ConnectionLimits(soft)
	ln := server.LimitConnections(raw, perAddress, total)
	httpServer := newHTTPServer(srv.Handler(), logger)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	closed := make(chan struct{})
	go func() {
		<-ctx.Done()
		// The listener first, so no page reconnects and no command
		// arrives while the clusters close; then every cluster, its logs
		// flushed and closed (websockets are hijacked: Shutdown leaves them
		// to srv.Close).
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = httpServer.Shutdown(shutdown)
		if err := srv.Close(); err != nil {
			logger.Error("closing the clusters", "error", err)
		}
		close(closed)
	}()
	base := "http://" + displayAddr(ln.Addr())
	logger.Info("loglab is serving", "lab", base+"/lab", "live", base+"/live", "dataDir", *dataDir, "cluster", clusterWords)
	// The one line the instructor needs, apart from the log's: open the
	// first URL yourself, share the second with the room.
	fmt.Fprintf(stderr, "\n  instructor (keep this one to yourself): %s/live?token=%s\n  participants (share this one):          %s/live\n\n", base, srv.InstructorToken(), base)
	if err := httpServer.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "loglab serve: %v\n", err)
		return 1
	}
	<-closed // Serve returns as Shutdown begins: wait for the clusters to close
	logger.Info("every cluster closed cleanly")
	return 0
}

// defaultDataDir is where a workshop's files go when no -data-dir is
// given: under the user's cache directory, so `make run` on a fresh
// machine keeps them across restarts. Empty when there is no such
// directory (then the clusters live in memory).
func defaultDataDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "loglab", "data")
}

// displayAddr turns a wildcard listen address into one a browser can open.
func displayAddr(a net.Addr) string {
	if tcp, ok := a.(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		return fmt.Sprintf("localhost:%d", tcp.Port)
	}
	return a.String()
}

// parseFlags parses a subcommand's flags; only commands that take
// arguments pass allowArgs. done reports that the command should stop with
// code: 0 after -h, 2 after a bad flag or argument (the flag package has
// already printed what was wrong).
func parseFlags(fs *flag.FlagSet, args []string, allowArgs bool) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, true
		}
		fmt.Fprint(fs.Output(), "\n"+usage)
		return 2, true
	}
	if fs.NArg() > 0 && !allowArgs {
		fmt.Fprintf(fs.Output(), "loglab %s: unexpected argument %q\n\n%s", fs.Name(), fs.Arg(0), usage)
		return 2, true
	}
	return 0, false
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
