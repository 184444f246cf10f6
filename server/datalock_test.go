//go:build unix

package server

import (
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A data directory has one server at a time (Kafka's LogManager locks
// each log directory's .lock): a second lock is refused at once, naming
// the holder's pid, and taken once the first is released.
func TestLockDataDirRefusesASecondServer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	release, err := LockDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, lockFile))
	if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Fatalf("the lock file holds %q (%v), want this pid %d", b, err, os.Getpid())
	}
	_, err = LockDataDir(dir)
	if err == nil || !strings.Contains(err.Error(), "in use by the loglab server with pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("a second lock on a held directory: %v", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	again, err := LockDataDir(dir)
	if err != nil {
		t.Fatalf("after the release: %v", err)
	}
	again()
}

// The lock is loglab's own file: a data directory holding it and nothing
// else is still an empty one, and a rewind leaves it where it is.
func TestLockFileIsNotTheClustersFile(t *testing.T) {
	dir := t.TempDir()
	release, err := LockDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	l, _, err := openFiles(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("a data directory holding only the lock: %v", err)
	}
	l.Close()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || clusterEntry(entries[0]) {
		t.Errorf("a rewind would move the server's lock aside: %v %v", entries, err)
	}
}
