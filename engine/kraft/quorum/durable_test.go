//go:build !js

// Native mode writes real files; under WASM the quorum runs in memory only.

package quorum

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/log"
)

func durableConfig(dir string) Config {
	return Config{Dir: dir, SnapshotThreshold: 16, TrailingLogs: 4, SnapshotInterval: 10 * time.Millisecond, SegmentBytes: 2048}
}

// Metadata survives a restart of the whole quorum: close everything, open
// the same directory, and every controller has the same image.
func TestDurableQuorumSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	q, err := New(durableConfig(dir))
	if err != nil {
		t.Fatal(err)
	}
	want := appendAll(t, q, records(0, 90), 2)
	checkImages(t, q, want)
	// Let every controller take a snapshot, so the reopen restores one
	// and replays only the rest of the log.
	deadline := time.Now().Add(wait)
	for _, s := range q.Status() {
		for s.SnapshotIndex == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("controller %d took no snapshot: %+v", s.ID, s)
			}
			time.Sleep(5 * time.Millisecond)
			s = q.Status()[s.ID-1]
		}
	}
	images := map[int]any{}
	for id := 1; id <= 3; id++ {
		images[id] = q.Image(id)
	}
	// Raft may be between two leaders (one lost its lease on a loaded
	// machine): any leader will do, it appended entries of its term.
	leader, _ := awaitLeader(t, q, 0)
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}

	for _, name := range []string{"quorum-state", "log-start-offset-checkpoint", "snapshots"} {
		if _, err := os.Stat(filepath.Join(dir, "controller-2", name)); err != nil {
			t.Errorf("controller-2/%s: %v", name, err)
		}
	}
	// The leader appended entries of its term to its own log, so its log
	// has a leader-epoch-checkpoint. A follower may have none: on a loaded
	// machine controller 2 once fell behind, got the leader's snapshot
	// and no entry after it (engine/log writes the file at the first
	// epoch it records; Kafka creates it empty when it opens the log).
	if leader == 0 {
		t.Fatal("no active controller before Close")
	}
	if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("controller-%d", leader), "__cluster_metadata-0", "leader-epoch-checkpoint")); err != nil {
		t.Errorf("the active controller's leader-epoch-checkpoint: %v", err)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "controller-1", "__cluster_metadata-0", "*.log"))
	if len(segs) == 0 || strings.HasSuffix(segs[0], log.FileName(0, log.LogSuffix)) {
		t.Errorf("compaction deleted no segment: %v", segs)
	}

	start := time.Now()
	q = newQuorum(t, durableConfig(dir))
	t.Logf("reopened in %s, controller %d active", time.Since(start).Round(time.Millisecond), q.Leader())
	if q.End() != int64(len(want)) {
		t.Fatalf("End() = %d after reopen, want %d", q.End(), len(want))
	}
	checkImages(t, q, want)
	for id := 1; id <= 3; id++ {
		if got := q.Image(id); !reflect.DeepEqual(any(got), images[id]) {
			t.Fatalf("controller %d's image changed across the restart", id)
		}
	}
	recs, from, err := q.ReadLog(0)
	t.Logf("after reopen the active controller holds records from offset %d (%d records, %v)", from, len(recs), err)

	// And it goes on from there.
	want = append(want, appendAll(t, q, records(90, 6), 3)...)
	checkImages(t, q, want)
}

// A crashed controller reopens its files on restart and catches up.
func TestDurableControllerRestart(t *testing.T) {
	q := newQuorum(t, durableConfig(t.TempDir()))
	want := appendAll(t, q, records(0, 10), 2)
	if err := q.Crash(1); err != nil {
		t.Fatal(err)
	}
	leader, took := awaitLeader(t, q, 1)
	t.Logf("durable failover: controller %d after %s", leader, took.Round(time.Millisecond))
	want = append(want, appendAll(t, q, records(10, 50), 1)...)
	if err := q.Restart(1); err != nil {
		t.Fatal(err)
	}
	checkImages(t, q, want)
	checkLog(t, q, want)
}
