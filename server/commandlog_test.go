package server

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On a data directory the log is the file commands.log, written as each
// command runs: it holds what the memory copy holds (here, the whole
// session), and replaying it on a fresh lab gives the session's cluster.
// A server restarted on the directory says so in the file and writes the
// `cluster` command it resumed with as a comment, so that a replay goes on
// with the cluster the earlier lines built instead of starting afresh.
func TestCommandLogFileOnTheDataDirectory(t *testing.T) {
	dir := t.TempDir()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := newLiveSession(dir, nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	fc := newFakeWallClock()
	s.realtime = &realtimeDriver{clock: fc.clock()}
	mustRun(t, s, "produce orders key=k value=v")
	mustRun(t, s, "realtime on speed=3")
	wake(s, 200)
	wake(s, 400)
	mustRun(t, s, "realtime off")
	mustRun(t, s, "tick 1s")
	replayMatches(t, s, "show log orders/0", "topic describe orders")
	memory, _ := s.commandLogText()
	file, err := os.ReadFile(filepath.Join(dir, commandLogFile))
	if err != nil {
		t.Fatal(err)
	}
	if string(file) != memory {
		t.Errorf("the file differs from the memory log:\nfile:\n%s\nmemory:\n%s", file, memory)
	}
	if !strings.Contains(memory, "\ntick 600ms\ntick 600ms\n# realtime off\ntick 1s\n") {
		t.Errorf("the log:\n%s", memory)
	}
	s.closeAll()
	s.mu.Lock()
	s.lab.Close()
	s.mu.Unlock()

	s2, err := newLiveSession(dir, nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.closeAll(); s2.lab.Close() })
	mustRun(t, s2, "produce orders key=k value=after")
	file, err = os.ReadFile(filepath.Join(dir, commandLogFile))
	if err != nil {
		t.Fatal(err)
	}
	rest, found := strings.CutPrefix(string(file), memory)
	if !found {
		t.Fatalf("the restart rewrote the log:\n%s", file)
	}
	lines := strings.Split(strings.TrimSuffix(rest, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "# the server restarted") ||
		lines[1] != "# resumed from the data directory: cluster brokers=3 controllers=3 seed=42" || lines[2] != "produce orders key=k value=after" {
		t.Errorf("after the restart the log goes on with:\n%s", rest)
	}
	if text, whole := s2.commandLogText(); whole || !strings.HasPrefix(text, "# the server restarted and resumed this cluster") {
		t.Errorf("the memory log after a restart claims to be whole (%v):\n%s", whole, text)
	}
}

// The memory copy keeps the newest commands within its bound and says it
// is no longer whole; a new cluster starts it afresh, whole again.
func TestCommandLogMemoryIsBounded(t *testing.T) {
	s, _ := realtimeSession(t)
	s.mu.Lock()
	for range commandLogMemory / len("tick 200ms\n") {
		s.logCommand("tick 200ms", false, true, false)
	}
	s.mu.Unlock()
	text, whole := s.commandLogText()
	if whole || len(text) > commandLogMemory+200 || !strings.HasPrefix(text, "# ") || !strings.Contains(text, "older commands were dropped") {
		t.Errorf("past the bound: whole %v, %d bytes, starting %.120q", whole, len(text), text)
	}
	mustRun(t, s, "cluster brokers=1 seed=7")
	if text, whole := s.commandLogText(); !whole || text != "cluster brokers=1 seed=7\n" {
		t.Errorf("after a new cluster: whole %v:\n%.300s", whole, text)
	}
}

// A log past its bound is rotated, not stopped: the newest commands are
// always in commands.log, the ones before in commands.log.1.
func TestCommandLogRotatesAtItsBound(t *testing.T) {
	defer func(max int64) { commandLogFileMax = max }(commandLogFileMax)
	commandLogFileMax = 300
	dir := t.TempDir()
	s, err := newLiveSession(dir, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.shutdown()
	for i := range 20 {
		mustRun(t, s, "produce orders key=k value=rotation-"+strings.Repeat("x", i))
	}
	current, err := os.ReadFile(filepath.Join(dir, commandLogFile))
	if err != nil {
		t.Fatal(err)
	}
	older, err := os.ReadFile(filepath.Join(dir, commandLogFile+".1"))
	if err != nil {
		t.Fatalf("no rotated log: %v", err)
	}
	if !strings.HasPrefix(string(current), "# the command log reached") || !strings.Contains(string(current), "value=rotation-"+strings.Repeat("x", 19)) {
		t.Errorf("commands.log after a rotation:\n%s", current)
	}
	if len(current) > 600 || len(older) > 600 || !strings.Contains(string(older), "produce orders") {
		t.Errorf("sizes %d and %d, want each near the 300-byte bound; commands.log.1:\n%s", len(current), len(older), older)
	}
}
