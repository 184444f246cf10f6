package server

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A workshop server restarted on its data directory resumes the live
// cluster: the topics, their leaders and leader epochs, and the records.
func TestServerRestartResumesTheLiveCluster(t *testing.T) {
	dir := t.TempDir()
	opts := Options{StaticDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DataDir: dir}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"topic create payments partitions=2 rf=3", "produce payments key=a value=kept partition=1",
		"broker crash 1", "tick 11s", "broker restart 1", "tick 5s"} {
		if e := s.live.run(line); !e.OK {
			t.Fatalf("%s: %s", line, e.Output)
		}
	}
	before := s.live.run("topic describe payments").Output
	if !strings.Contains(before, "LeaderEpoch: 1") {
		t.Fatalf("the crash moved no leadership, so the test proves little:\n%s", before)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{clusterFile, "broker-2/payments-1/00000000000000000000.log", "controller-1/__cluster_metadata-0"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("the data directory lacks %s: %v", name, err)
		}
	}

	s2, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	after := s2.live.run("topic describe payments")
	if !after.OK || !strings.Contains(after.Output, "PartitionCount: 2") {
		t.Fatalf("after the restart: %s", after.Output)
	}
	if !strings.Contains(s2.live.run("topic describe orders").Output, "PartitionCount: 3") {
		t.Fatal("the starter topic did not survive the restart")
	}
	if e := s2.live.run("tick 1s"); !e.OK {
		t.Fatal(e.Output)
	}
	if log := s2.live.run("show log payments/1").Output; !strings.Contains(log, "kept") {
		t.Fatalf("the record produced before the restart is gone:\n%s", log)
	}
}

// A directory that is not loglab's is refused rather than overwritten.
func TestServerRefusesAForeignDataDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := New(Options{StaticDir: t.TempDir(), DataDir: dir})
	if err == nil || !strings.Contains(err.Error(), "holds files") {
		t.Fatalf("New on a foreign directory: %v", err)
	}
}
