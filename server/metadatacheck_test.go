package server

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clusterOnDisk starts the starter cluster on a fresh data directory and
// closes it, as a server stopped between two workshop days leaves it.
func clusterOnDisk(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s, err := New(Options{StaticDir: t.TempDir(), DataDir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func reopen(t *testing.T, dir string, logs io.Writer) (*Server, error) {
	return New(Options{StaticDir: t.TempDir(), DataDir: dir, Logger: slog.New(slog.NewTextHandler(logs, nil))})
}

func controllerLog(dir string, id string) string {
	return filepath.Join(dir, "controller-"+id, metadataPartitionDir, "00000000000000000000.log")
}

// Every controller's metadata log truncated to 0 bytes (issue 26): the
// controllers elected a leader over nothing and the cluster came up
// without its topics, or waited a minute for "no controller was
// elected", naming no file. The server must refuse to start, naming each
// emptied log, the epoch its quorum-state still records, the topics the
// brokers hold, and what to do; and change nothing.
func TestStartRefusesControllersWhoseMetadataLogsWereEmptied(t *testing.T) {
	dir := clusterOnDisk(t)
	for _, id := range []string{"1", "2", "3"} {
		if err := os.Truncate(controllerLog(dir, id), 0); err != nil {
			t.Fatal(err)
		}
	}
	s, err := reopen(t, dir, io.Discard)
	if err == nil {
		s.Close()
		t.Fatal("the server started on a data directory whose every controller lost its metadata log")
	}
	msg := err.Error()
	for _, want := range []string{
		controllerLog(dir, "1") + ": 0 bytes (quorum-state records epoch",
		controllerLog(dir, "2") + ": 0 bytes",
		controllerLog(dir, "3") + ": 0 bytes",
		"orders (3 partitions)",
		"restore the controller-N/ folders from a backup",
		"move " + dir + " aside",
		"Nothing was changed",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, msg)
		}
	}
	if info, err := os.Stat(controllerLog(dir, "1")); err != nil || info.Size() != 0 {
		t.Errorf("the refused start changed controller 1's log: %v %v", info, err)
	}
}

// A quorum-state that is not JSON on every controller: the start-up said
// only the first, under a `cluster` usage line. Each is named by its
// path, with what to do.
func TestStartNamesEveryDamagedQuorumState(t *testing.T) {
	dir := clusterOnDisk(t)
	for _, id := range []string{"1", "2", "3"} {
		if err := os.WriteFile(filepath.Join(dir, "controller-"+id, "quorum-state"), []byte("garbage{\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := reopen(t, dir, io.Discard)
	if err == nil {
		s.Close()
		t.Fatal("the server started on garbage quorum-state files")
	}
	msg := err.Error()
	for _, id := range []string{"1", "2", "3"} {
		if want := filepath.Join(dir, "controller-"+id, "quorum-state") + " is not JSON"; !strings.Contains(msg, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, msg)
		}
	}
	if !strings.Contains(msg, "delete it") || strings.Contains(msg, "usage: cluster") {
		t.Errorf("the refusal should say what to do, without the cluster command's usage:\n%s", msg)
	}
}

// One controller of three emptied: the other two hold the metadata and
// bring it back, as Kafka's quorum does; the start goes on, and the
// server's log names the emptied one.
func TestStartWarnsOfOneEmptiedControllerLog(t *testing.T) {
	dir := clusterOnDisk(t)
	if err := os.Truncate(controllerLog(dir, "2"), 0); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s, err := reopen(t, dir, &logs)
	if err != nil {
		t.Fatalf("one emptied controller of three stopped the start: %v", err)
	}
	defer s.Close()
	if !strings.Contains(logs.String(), "metadata log is empty while a majority's are not") ||
		!strings.Contains(logs.String(), filepath.Join(dir, "controller-2", metadataPartitionDir)) {
		t.Errorf("the server's log does not name the emptied controller:\n%s", logs.String())
	}
	if e := s.live.run("produce orders value=v"); !e.OK {
		t.Errorf("the resumed cluster: %s", e.Output)
	}
}

// Two controllers of three emptied: the start-up only warned, and the two
// could elect one of their own over an empty log (each votes for a log at
// least as long as its own), after which the third truncates its metadata
// to that leader's. A majority emptied is refused as every one is, naming
// the emptied logs; nothing is changed.
func TestStartRefusesAMajorityOfEmptiedControllerLogs(t *testing.T) {
	dir := clusterOnDisk(t)
	for _, id := range []string{"1", "3"} {
		if err := os.Truncate(controllerLog(dir, id), 0); err != nil {
			t.Fatal(err)
		}
	}
	s, err := reopen(t, dir, io.Discard)
	if err == nil {
		s.Close()
		t.Fatal("the server started with two of three controllers' metadata logs emptied")
	}
	msg := err.Error()
	for _, want := range []string{
		"2 of the 3 controllers' metadata logs are empty, a majority",
		controllerLog(dir, "1") + ": 0 bytes",
		controllerLog(dir, "3") + ": 0 bytes",
		"restore the controller-N/ folders from a backup",
		"Nothing was changed",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, controllerLog(dir, "2")) {
		t.Errorf("the refusal names controller 2, whose log is whole:\n%s", msg)
	}
	if info, err := os.Stat(controllerLog(dir, "2")); err != nil || info.Size() == 0 {
		t.Errorf("the refused start changed controller 2's log: %v %v", info, err)
	}
}
