package server

import (
	"fmt"
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

// damagedDataDir starts a server on a fresh data directory, runs enough to
// take controller snapshots, stops it and applies damage.
func damagedDataDir(t *testing.T, damage func(dir string)) (Options, error) {
	t.Helper()
	dir := t.TempDir()
	opts := Options{StaticDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DataDir: dir}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if e := s.live.run("topic create t" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + " partitions=1 rf=1"); !e.OK && !strings.Contains(e.Output, "exists") {
			t.Fatalf("%s", e.Output)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	damage(dir)
	s2, err := New(opts)
	if err == nil {
		s2.Close()
	}
	return opts, err
}

// Damaged metadata is refused at startup with an error naming the file and
// what to do, never a panic.
func TestServerRefusesDamagedMetadata(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(dir string)
		want   []string
	}{
		{"empty cluster command", func(dir string) {
			os.WriteFile(filepath.Join(dir, clusterFile), nil, 0o644)
		}, []string{clusterFile, "cluster brokers="}},
		{"garbage cluster command", func(dir string) {
			os.WriteFile(filepath.Join(dir, clusterFile), []byte("tick 1s\n"), 0o644)
		}, []string{clusterFile, "cluster brokers="}},
		{"snapshots missing", func(dir string) {
			// The log starts at the snapshot's end offset: without the
			// snapshot, the records below it are nowhere.
			snaps, _ := filepath.Glob(filepath.Join(dir, "controller-2", "__cluster_metadata-0", "*.checkpoint"))
			if len(snaps) == 0 {
				t.Fatal("controller 2 took no snapshot: the damage would prove nothing")
			}
			for _, f := range snaps {
				os.Remove(f)
			}
		}, []string{filepath.Join("controller-2", "__cluster_metadata-0"), "restore"}},
		{"quorum-state garbage", func(dir string) {
			os.WriteFile(filepath.Join(dir, "controller-1", "quorum-state"), []byte("garbage"), 0o644)
		}, []string{filepath.Join("controller-1", "quorum-state"), "restore"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("startup panicked: %v", p)
					}
				}()
				_, err = damagedDataDir(t, tc.damage)
			}()
			if err == nil {
				t.Fatal("the damaged data directory was accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// The reproduction through the server: acknowledged records on a
// three-replica partition, the server stops, a byte flips in the middle of
// the log of the replica the controller will elect first (the last left in
// the ISR as the old sessions expire), the server starts again. The
// start-up says what recovery cut, in Kafka's words, and the server logs
// it; the damaged replica does not win, and the checker, whose record of
// acknowledged data survived the restart, finds nothing lost.
func TestServerRestartOnADamagedReplicaTellsAndLosesNothing(t *testing.T) {
	dir := t.TempDir()
	var logged strings.Builder
	opts := Options{StaticDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&logged, nil)), DataDir: dir}
	writePayments(t, opts, 2000)
	victim := filepath.Join(dir, "broker-3", "payments-0", "00000000000000000000.log")
	raw, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0xff
	if err := os.WriteFile(victim, raw, 0o644); err != nil {
		t.Fatal(err)
	}

	s2, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	start := s2.live.history[0].Output
	if !strings.Contains(start, "b3: Found invalid messages in log segment broker-3/payments-0/00000000000000000000.log at byte offset ") {
		t.Errorf("the start-up did not tell the truncation:\n%s", start)
	}
	logStorageAlarms(opts.Logger, dir, start)
	if !strings.Contains(logged.String(), "level=WARN msg=\"b3: Found invalid messages in log segment") || !strings.Contains(logged.String(), "file="+victim) {
		t.Errorf("the server log lacks the truncation:\n%s", logged.String())
	}
	if e := s2.live.run("tick 30s"); !e.OK {
		t.Fatal(e.Output)
	}
	if e := s2.live.run("check invariants"); !e.OK || !strings.Contains(e.Output, "all invariants hold") {
		t.Fatalf("check invariants after the restart: %s\n(start-up: %s)", e.Output, start)
	}
	if e := s2.live.run("topic describe payments"); !strings.Contains(e.Output, "Leader: 1") && !strings.Contains(e.Output, "Leader: 2") {
		t.Errorf("the damaged replica leads: %s", e.Output)
	}
}

// A replica that cannot be opened is reported offline by the start-up
// itself (not after a later tick), and its broker leads none of it.
func TestServerRestartWithAGarbageCheckpointReportsTheReplicaOfflineAtOnce(t *testing.T) {
	dir := t.TempDir()
	opts := Options{StaticDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DataDir: dir}
	writePayments(t, opts, 20)
	if err := os.WriteFile(filepath.Join(dir, "broker-3", "payments-0", "leader-epoch-checkpoint"), []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	start := s2.live.history[0].Output
	if !strings.Contains(start, "b3: cannot open payments/0, so it is offline on this broker: KafkaStorageException: error while reading checkpoint file broker-3/payments-0/leader-epoch-checkpoint") ||
		!strings.Contains(start, "controller: broker 3 reports payments/0 offline") {
		t.Errorf("the start-up did not report the replica offline:\n%s", start)
	}
	if d := s2.live.run("topic describe payments").Output; strings.Contains(d, "Leader: 3") {
		t.Errorf("broker 3 leads a partition it cannot open:\n%s", d)
	}
}

// writePayments starts a server on opts.DataDir, writes count acks=all
// records to payments/0 (three replicas), and shuts it down cleanly.
func writePayments(t *testing.T, opts Options, count int) {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"topic create payments partitions=1 rf=3", fmt.Sprintf("produce payments value=v count=%d partition=0", count), "tick 2s"} {
		if e := s.live.run(line); !e.OK {
			t.Fatalf("%s: %s", line, e.Output)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
