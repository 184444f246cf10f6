package raft

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// logOf builds a Log from an optional snapshot and the epochs of the
// entries that follow it.
func logOf(snap *protocol.SnapshotID, es ...int32) Log {
	var l Log
	if snap != nil {
		l.InstallSnapshot(Snapshot{ID: *snap})
	}
	var entries []protocol.MetadataEntry
	for _, e := range es {
		entries = append(entries, protocol.MetadataEntry{Epoch: e, Record: protocol.MetadataRecord{Type: "Topic"}})
	}
	if len(entries) > 0 {
		l.Append(entries)
	}
	return l
}

// Mirrors MockLogTest.testEndOffsetForEpoch and LeaderEpochFileCacheTest's
// endOffsetFor cases: the largest epoch at most the one asked for, and the
// offset where it ends. Difference from Kafka: an epoch older than
// anything held answers (-1, -1) where MockLog answers the log start with
// epoch 0; the leader turns either into a DivergingEpoch at offset 0 or
// its snapshot.
func TestLogEndOffsetForEpoch(t *testing.T) {
	// MockLogTest's log: 5+10 records in epoch 1, 5 in epoch 3, 10 in epoch 4.
	kafka := epochs(1, 15, 3, 5, 4, 10)
	snap15 := &protocol.SnapshotID{EndOffset: 15, Epoch: 1}
	snap10 := &protocol.SnapshotID{EndOffset: 10, Epoch: 1}
	snap5e2 := &protocol.SnapshotID{EndOffset: 5, Epoch: 2}
	rows := []struct {
		name      string
		log       Log
		epoch     int32
		wantEpoch int32
		wantEnd   int64
	}{
		{"before the first epoch", logOf(nil, kafka...), 0, -1, -1},
		{"first epoch", logOf(nil, kafka...), 1, 1, 15},
		{"a gap: the epoch before it", logOf(nil, kafka...), 2, 1, 15},
		{"middle epoch", logOf(nil, kafka...), 3, 3, 20},
		{"last epoch", logOf(nil, kafka...), 4, 4, 30},
		{"past the last epoch", logOf(nil, kafka...), 5, 4, 30},
		{"empty log", logOf(nil), 0, -1, -1},
		{"empty log, any epoch", logOf(nil), 3, -1, -1},
		{"snapshot in the first epoch", logOf(snap10, epochs(1, 5, 3, 5, 4, 10)...), 1, 1, 15},
		{"snapshot in the first epoch, older epoch", logOf(snap10, epochs(1, 5, 3, 5, 4, 10)...), 0, -1, -1},
		{"snapshot ends an epoch", logOf(snap15, epochs(3, 5, 4, 10)...), 1, 1, 15},
		{"snapshot ends an epoch, gap", logOf(snap15, epochs(3, 5, 4, 10)...), 2, 1, 15},
		{"snapshot ends an epoch, next", logOf(snap15, epochs(3, 5, 4, 10)...), 3, 3, 20},
		{"snapshot only", logOf(snap5e2), 2, 2, 5},
		{"snapshot only, later epoch", logOf(snap5e2), 7, 2, 5},
		{"snapshot only, older epoch", logOf(snap5e2), 1, -1, -1},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			e, end := r.log.EndOffsetForEpoch(r.epoch)
			if e != r.wantEpoch || end != r.wantEnd {
				t.Fatalf("EndOffsetForEpoch(%d) = (%d, %d), want (%d, %d)", r.epoch, e, end, r.wantEpoch, r.wantEnd)
			}
		})
	}
}

// Mirrors MockLogTest.testAppendAsLeader, testTruncateTo,
// testCreateSnapshot, testTruncateFullyToLatestSnapshot and
// testDoesntTruncateFully: offsets, truncation and snapshots of the log.
func TestLogOperations(t *testing.T) {
	l := logOf(nil, 1, 1, 2)
	if l.StartOffset() != 0 || l.EndOffset() != 3 || l.LastEpoch() != 2 {
		t.Fatalf("log [%d,%d) last epoch %d", l.StartOffset(), l.EndOffset(), l.LastEpoch())
	}
	out := l.Append([]protocol.MetadataEntry{{Epoch: 2}, {Epoch: 3}})
	if out[0].Record.Offset != 3 || out[1].Record.Offset != 4 || l.EndOffset() != 5 {
		t.Fatalf("appended at %d, %d", out[0].Record.Offset, out[1].Record.Offset)
	}
	if es := l.Entries(1, 2); len(es) != 2 || es[0].Record.Offset != 1 || es[1].Record.Offset != 2 {
		t.Fatalf("Entries(1, 2) = %+v", es)
	}
	if es := l.Entries(4, 10); len(es) != 1 {
		t.Fatalf("Entries(4, 10) = %+v", es)
	}
	if es := l.Entries(5, 10); es != nil {
		t.Fatalf("Entries at the end = %+v", es)
	}
	l.TruncateTo(3)
	if l.EndOffset() != 3 || l.LastEpoch() != 2 {
		t.Fatalf("truncated: end %d last epoch %d", l.EndOffset(), l.LastEpoch())
	}
	l.TruncateTo(7) // past the end: nothing
	if l.EndOffset() != 3 {
		t.Fatalf("end %d", l.EndOffset())
	}
	// A snapshot of the log's own prefix keeps what follows it.
	l.InstallSnapshot(Snapshot{ID: protocol.SnapshotID{EndOffset: 2, Epoch: 1}})
	if l.StartOffset() != 2 || l.EndOffset() != 3 || l.LastEpoch() != 2 {
		t.Fatalf("after a snapshot at 2: [%d,%d) last epoch %d", l.StartOffset(), l.EndOffset(), l.LastEpoch())
	}
	if _, ok := l.Entry(1); ok {
		t.Fatalf("entry 1 is still held below the snapshot")
	}
	// Below the snapshot: an error, and the log as it was (it panicked,
	// and took the server down with it).
	if err := l.TruncateTo(1); err == nil || !strings.Contains(err.Error(), "below the snapshot at 2") {
		t.Fatalf("truncating below the snapshot: %v", err)
	}
	if l.StartOffset() != 2 || l.EndOffset() != 3 {
		t.Fatalf("a refused truncation changed the log: [%d,%d)", l.StartOffset(), l.EndOffset())
	}
	// A snapshot the log does not match (another epoch at its last
	// offset) replaces the whole log.
	l.InstallSnapshot(Snapshot{ID: protocol.SnapshotID{EndOffset: 3, Epoch: 5}})
	if l.StartOffset() != 3 || l.EndOffset() != 3 || l.LastEpoch() != 5 {
		t.Fatalf("after a foreign snapshot: [%d,%d) last epoch %d", l.StartOffset(), l.EndOffset(), l.LastEpoch())
	}
	// And one past the log end too.
	l = logOf(nil, 1, 1)
	l.InstallSnapshot(Snapshot{ID: protocol.SnapshotID{EndOffset: 9, Epoch: 1}})
	if l.StartOffset() != 9 || l.EndOffset() != 9 {
		t.Fatalf("after a snapshot past the end: [%d,%d)", l.StartOffset(), l.EndOffset())
	}
}

// Mirrors KafkaRaftClientTest.testHandleEndQuorumRequest and
// testHandleEndQuorumRequestWithLowerPriorityToBecomeLeader (KafkaRaftClient
// .strictExponentialElectionBackoffMs): the first preferred successor
// stands at once, the others after exponentially longer waits, a voter
// the resigning leader did not list after the maximum.
func TestEndEpochBackoff(t *testing.T) {
	max := time.Second
	rows := []struct {
		successors []int32
		id         int32
		want       time.Duration
	}{
		{nil, 1, 0},
		{[]int32{2}, 2, 0},
		{[]int32{2}, 3, max},
		{[]int32{2, 3}, 2, 0},
		{[]int32{2, 3}, 3, 500 * time.Millisecond},
		{[]int32{2, 3}, 4, max},
		{[]int32{2, 3, 4}, 3, 250 * time.Millisecond},
		{[]int32{2, 3, 4}, 4, 500 * time.Millisecond},
		{[]int32{2, 3, 4, 5}, 3, 125 * time.Millisecond},
		{[]int32{2, 3, 4, 5}, 4, 250 * time.Millisecond},
		{[]int32{2, 3, 4, 5}, 5, 500 * time.Millisecond},
		{[]int32{2, 3, 4, 5}, 9, max},
	}
	for _, r := range rows {
		t.Run(fmt.Sprintf("%v/%d", r.successors, r.id), func(t *testing.T) {
			if got := endEpochBackoff(r.successors, r.id, max); got != r.want {
				t.Fatalf("endEpochBackoff(%v, %d) = %v, want %v", r.successors, r.id, got, r.want)
			}
		})
	}
	t.Run("a follower of the resigned leader stands after its backoff", func(t *testing.T) {
		// KafkaRaftClientTest.testHandleEndQuorumRequest.
		for _, r := range []struct {
			successors []int32
			wait       time.Duration
		}{
			{[]int32{1, 3}, 0},
			{[]int32{3, 1}, 500 * time.Millisecond},
			{[]int32{3}, time.Second},
		} {
			s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: preloadState(4, 2, -1, nil)})
			s.inbox = nil
			at := s.clock.Elapsed()
			s.node.Handle(&sim.Envelope{From: "c2", To: "c1", Msg: protocol.EndQuorumEpochRequest{ClusterID: "loglab", LeaderID: 2, LeaderEpoch: 4, PreferredSuccessors: r.successors}})
			if r.wait > 0 && s.node.Role() != Follower {
				t.Fatalf("%v: %v at once", r.successors, s.node.Role())
			}
			s.advanceUntil(2*time.Second, "prospective", func() bool { return s.node.Role() == Prospective })
			if d := s.clock.Elapsed() - at; d != r.wait {
				t.Fatalf("%v: prospective after %v, want %v", r.successors, d, r.wait)
			}
			s.flush()
			if resp := lastSent[protocol.EndQuorumEpochResponse](s, "c2"); resp.Error != protocol.None || resp.LeaderEpoch != 4 || resp.LeaderID != 2 {
				t.Fatalf("answer %+v", resp)
			}
			if s.node.Epoch() != 4 {
				t.Fatalf("epoch %d", s.node.Epoch())
			}
		}
	})
}
