package raft

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// snapshotLeader is c1 leading epoch 3 among voters 1-3 with SnapshotEvery
// 3: its LeaderChange at 0 and four records, committed by c2's fetches, so
// it has snapshotted at 5 and holds no entries.
func snapshotLeader(t *testing.T) (*solo, int32) {
	t.Helper()
	s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: preloadState(2, -1, -1, nil),
		cfg: func(c *Config) { c.SnapshotEvery = 3 }})
	epoch := s.electByHand(2)
	s.deliver("c2", fetchFrom(2, epoch, 1, epoch))
	s.appendRecords(4)
	s.deliver("c2", fetchFrom(2, epoch, 5, epoch))
	s.inbox = nil
	snap := s.node.Log().LatestSnapshot()
	if epoch != 3 || s.node.HighWatermark() != 5 || snap == nil || snap.ID != (protocol.SnapshotID{EndOffset: 5, Epoch: 3}) ||
		s.node.Log().StartOffset() != 5 || s.node.Log().EndOffset() != 5 || len(snap.Records) != 5 {
		t.Fatalf("leader: epoch %d hw %d log [%d,%d) snapshot %+v", epoch, s.node.HighWatermark(), s.node.Log().StartOffset(), s.node.Log().EndOffset(), snap)
	}
	return s, epoch
}

// Mirrors KafkaRaftClientSnapshotTest.testFetchRequestOffsetAtZero,
// testFetchRequestOffsetLessThanLogStart, testFetchRequestAtLogStartOffsetWithValidEpoch,
// testFetchRequestAtLogStartOffsetWithInvalidEpoch,
// testFetchRequestWithLastFetchedEpochLessThanOldestSnapshot,
// testFetchRequestWithLargerLastFetchedEpoch and
// testFetchSnapshotRequestAsLeader / testFetchSnapshotRequestMissingSnapshot /
// testFetchSnapshotRequestWithOlderEpoch: the leader names its snapshot to a
// replica whose fetch it cannot serve from its log, and sends it.
func TestLeaderServesSnapshot(t *testing.T) {
	want := protocol.SnapshotID{EndOffset: 5, Epoch: 3}
	rows := []struct {
		name      string
		offset    int64
		lastEpoch int32
		snapshot  bool
		diverging *protocol.SnapshotID
	}{
		{"offset zero", 0, 0, true, nil},
		{"below the log start", 3, 3, true, nil},
		{"at the log start, the snapshot's epoch", 5, 3, false, nil},
		{"at the log start, another epoch", 5, 2, true, nil},
		{"last epoch older than the snapshot's", 6, 1, true, nil},
		{"past the log end", 6, 3, false, &protocol.SnapshotID{EndOffset: 5, Epoch: 3}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			s, epoch := snapshotLeader(t)
			s.deliver("c3", fetchFrom(3, epoch, r.offset, r.lastEpoch))
			got := lastSent[protocol.QuorumFetchResponse](s, "c3")
			if got.Error != protocol.None || (got.Snapshot != nil) != r.snapshot || (r.snapshot && *got.Snapshot != want) ||
				!reflect.DeepEqual(got.Diverging, r.diverging) || len(got.Entries) != 0 || got.LogStart != 5 {
				t.Fatalf("answer %+v", got)
			}
		})
	}
	t.Run("FetchSnapshot", func(t *testing.T) {
		s, epoch := snapshotLeader(t)
		s.deliver("c3", protocol.FetchSnapshotRequest{ClusterID: "loglab", ReplicaID: 3, CurrentLeaderEpoch: epoch, SnapshotID: want})
		got := lastSent[protocol.FetchSnapshotResponse](s, "c3")
		snap := s.node.Log().LatestSnapshot()
		if got.Error != protocol.None || got.SnapshotID != want || !reflect.DeepEqual(got.Records, snap.Records) || got.Records[0].Type != "LeaderChange" {
			t.Fatalf("answer %+v", got)
		}
		for _, r := range []struct {
			req  protocol.FetchSnapshotRequest
			code protocol.ErrorCode
		}{
			{protocol.FetchSnapshotRequest{ClusterID: "loglab", ReplicaID: 3, CurrentLeaderEpoch: epoch, SnapshotID: protocol.SnapshotID{EndOffset: 4, Epoch: 3}}, protocol.PositionOutOfRange},
			{protocol.FetchSnapshotRequest{ClusterID: "loglab", ReplicaID: 3, CurrentLeaderEpoch: epoch - 1, SnapshotID: want}, protocol.FencedLeaderEpoch},
		} {
			s.deliver("c3", r.req)
			if got := lastSent[protocol.FetchSnapshotResponse](s, "c3"); got.Error != r.code || got.Records != nil {
				t.Fatalf("%+v: %+v, want %v", r.req, got, r.code)
			}
		}
	})
	t.Run("FetchSnapshot counts for check-quorum", func(t *testing.T) {
		// KafkaRaftClientSnapshotTest.testLeaderShouldResignLeadershipIfNotGetFetchSnapshotRequestFromMajorityVoters.
		s, epoch := snapshotLeader(t)
		s.advance(2900 * time.Millisecond)
		at := s.clock.Elapsed()
		s.deliver("c3", protocol.FetchSnapshotRequest{ClusterID: "loglab", ReplicaID: 3, CurrentLeaderEpoch: epoch, SnapshotID: want})
		s.advance(2900 * time.Millisecond)
		if s.node.Role() != Leader {
			t.Fatalf("resigned %v after a FetchSnapshot", s.clock.Elapsed()-at)
		}
		s.advance(200 * time.Millisecond)
		if s.node.Role() != Resigned {
			t.Fatalf("%v 3.1s after the last fetch", s.node.Role())
		}
	})
}

// Mirrors KafkaRaftClientSnapshotTest.testFetchResponseWithSnapshotId,
// testFetchSnapshotResponseMissingSnapshot,
// testFetchSnapshotResponseFromOlderEpoch and
// testFollowerListenerNotified: a follower told to fetch a snapshot does,
// installs it in place of the log it lacks, tells its listener, and
// fetches what follows it.
func TestFollowerFetchesSnapshot(t *testing.T) {
	id := protocol.SnapshotID{EndOffset: 3, Epoch: 2}
	snapRecs := []protocol.MetadataRecord{{Offset: 0, Type: "LeaderChange"}, {Offset: 1, Type: "Topic", Topic: "a"}, {Offset: 2, Type: "Topic", Topic: "b"}}
	rows := []struct {
		name      string
		log       []int32
		wantEnd   int64 // the log end after the install
		wantStore int   // entries left in the store
	}{
		{"empty log", nil, 3, 0},
		{"diverging entries are dropped", epochs(1, 4), 3, 0},
		{"entries that match the snapshot are kept past it", epochs(1, 1, 2, 4), 5, 2},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: preloadState(3, 2, -1, preloadLog(r.log...))})
			s.inbox = nil
			s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 3, HighWatermark: 3, Snapshot: &id})
			req := lastSent[protocol.FetchSnapshotRequest](s, "c2")
			if req != (protocol.FetchSnapshotRequest{ClusterID: "loglab", ReplicaID: 1, CurrentLeaderEpoch: 3, SnapshotID: id}) {
				t.Fatalf("request %+v", req)
			}
			// A missing snapshot: fetch again (after the retry backoff).
			s.deliver("c2", protocol.FetchSnapshotResponse{Error: protocol.PositionOutOfRange, LeaderID: 2, LeaderEpoch: 3, SnapshotID: id})
			s.advance(50 * time.Millisecond)
			if f := lastSent[protocol.QuorumFetchRequest](s, "c2"); f.FetchOffset != int64(len(r.log)) {
				t.Fatalf("fetch after a missing snapshot %+v", f)
			}
			s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 3, HighWatermark: 3, Snapshot: &id})
			lastSent[protocol.FetchSnapshotRequest](s, "c2")
			// An answer from an older epoch is not installed.
			s.deliver("c2", protocol.FetchSnapshotResponse{LeaderID: 2, LeaderEpoch: 2, SnapshotID: id, Records: snapRecs})
			if len(s.l.snapshots) != 0 || s.node.Log().LatestSnapshot() != nil {
				t.Fatalf("installed a snapshot from epoch 2")
			}
			s.advance(50 * time.Millisecond)
			s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 3, HighWatermark: 3, Snapshot: &id})
			lastSent[protocol.FetchSnapshotRequest](s, "c2")
			s.inbox = nil
			s.deliver("c2", protocol.FetchSnapshotResponse{LeaderID: 2, LeaderEpoch: 3, SnapshotID: id, Records: snapRecs})
			if !reflect.DeepEqual(s.l.snapshots, []protocol.SnapshotID{id}) || !reflect.DeepEqual(s.l.state, snapRecs) {
				t.Fatalf("listener: snapshots %v state %v", s.l.snapshots, s.l.state)
			}
			l := s.node.Log()
			if l.StartOffset() != 3 || l.EndOffset() != r.wantEnd || l.LatestSnapshot().ID != id || s.node.HighWatermark() != 3 {
				t.Fatalf("log [%d,%d) snapshot %+v hw %d", l.StartOffset(), l.EndOffset(), l.LatestSnapshot(), s.node.HighWatermark())
			}
			_, stored, entries, _ := s.store.Load()
			if stored == nil || stored.ID != id || len(entries) != r.wantStore {
				t.Fatalf("store: snapshot %+v, %d entries", stored, len(entries))
			}
			f := lastSent[protocol.QuorumFetchRequest](s, "c2")
			if f.FetchOffset != r.wantEnd || (r.wantEnd == 3 && f.LastFetchedEpoch != 2) || f.HighWatermark != 3 {
				t.Fatalf("fetch after the snapshot %+v", f)
			}
			// Restarted, it starts from the snapshot.
			s.node.Crash()
			s.l.restart()
			if err := s.node.Start(); err != nil {
				t.Fatal(err)
			}
			if s.node.Log().StartOffset() != 3 || s.node.HighWatermark() != 3 || len(s.l.snapshots) != 2 || !reflect.DeepEqual(s.l.state, snapRecs) {
				t.Fatalf("after a restart: log start %d hw %d listener %v", s.node.Log().StartOffset(), s.node.HighWatermark(), s.l.snapshots)
			}
		})
	}
}

// Mirrors KafkaRaftClientSnapshotTest.testFetchSnapshotRequestAsLeader with
// testFollowerListenerNotified end to end (and
// RaftEventSimulationTest.canRecoverFromSingleNodeCommittedDataLoss's
// catch-up): a voter and an observer down while the leader commits more
// than SnapshotEvery records come back, fetch the snapshot, then fetch
// what follows, and end with the leader's state.
func TestLaggingReplicasCatchUpBySnapshot(t *testing.T) {
	for _, seed := range []uint64{2, 6, 10} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			c := newCluster(t, clusterOpts{voters: 3, observers: 1, seed: seed, cfg: func(c *Config) { c.SnapshotEvery = 5 }})
			l := c.waitLeader(10 * time.Second)
			c.must(3*time.Second, "converged", c.converged)
			var lag *member
			for _, m := range c.ms {
				if m != l && m.voter {
					lag = m
					break
				}
			}
			c.crash(lag.addr)
			c.crash("b1")
			for i := range 4 {
				c.appendOn(l, 5, "batch"+string(rune('a'+i)))
				c.run(200 * time.Millisecond)
			}
			c.must(3*time.Second, "the leader commits 21", func() bool { return l.node.HighWatermark() == 21 })
			snap := l.node.Log().LatestSnapshot()
			if snap == nil || l.node.Log().StartOffset() <= 1 || snap.ID.EndOffset != l.node.Log().StartOffset() {
				t.Fatalf("seed %d: leader log start %d snapshot %+v", seed, l.node.Log().StartOffset(), snap)
			}
			c.recordMsgs = true
			c.start(lag.addr)
			c.start("b1")
			c.must(10*time.Second, "converged", c.converged)
			for _, m := range []*member{lag, c.m("b1")} {
				if len(m.l.snapshots) == 0 || m.l.snapshots[0].EndOffset < snap.ID.EndOffset {
					t.Fatalf("seed %d: %s loaded snapshots %v, want the leader's %+v", seed, m.addr, m.l.snapshots, snap.ID)
				}
				if c.delivered[m.addr]["FetchSnapshotResponse"] == 0 {
					t.Fatalf("seed %d: %s got no FetchSnapshotResponse", seed, m.addr)
				}
				if !reflect.DeepEqual(m.l.state, l.l.state) {
					t.Fatalf("seed %d: %s's state differs from the leader's:\n%v\n%v", seed, m.addr, m.l.state, l.l.state)
				}
				if s := m.node.Log().LatestSnapshot(); s == nil || m.node.Log().StartOffset() != s.ID.EndOffset {
					t.Fatalf("seed %d: %s log start %d snapshot %+v", seed, m.addr, m.node.Log().StartOffset(), s)
				}
			}
			// Then plain fetches: more records reach everyone.
			c.appendOn(l, 7, "after")
			c.must(5*time.Second, "converged", c.converged)
			for _, m := range c.ms {
				if !reflect.DeepEqual(m.l.state, l.l.state) {
					t.Fatalf("seed %d: %s's state differs from the leader's", seed, m.addr)
				}
			}
			for _, m := range []*member{lag, c.m("b1")} {
				if len(m.l.runCommit) == 0 || m.l.runCommit[0].Record.Offset != m.l.snapshots[0].EndOffset {
					t.Fatalf("seed %d: %s's commits after the snapshot %+v, want from %d", seed, m.addr, m.l.runCommit, m.l.snapshots[0].EndOffset)
				}
			}
			var envs []*sim.Envelope
			for _, e := range c.msgs {
				if _, ok := e.Msg.(protocol.FetchSnapshotRequest); ok {
					envs = append(envs, e)
				}
			}
			if len(envs) < 2 {
				t.Fatalf("seed %d: %d FetchSnapshot requests", seed, len(envs))
			}
			c.checkInvariants()
		})
	}
}

// Mirrors KafkaRaftClientSnapshotTest.testFetchSnapshotResponseWithInvalidId
// (Kafka ignores a response it no longer expects,
// RequestManager.isResponseExpected; loglab's messages carry no
// correlation id, so what matters is the outcome): an answer to a
// FetchSnapshot that timed out, arriving late while the follower has moved
// past that snapshot, must not replace its log with the older snapshot
// (found by TestRandomFaults, seed 318: a link slower than the request
// timeout).
func TestStaleFetchSnapshotResponseIgnored(t *testing.T) {
	old := protocol.SnapshotID{EndOffset: 3, Epoch: 2}
	newer := protocol.SnapshotID{EndOffset: 6, Epoch: 3}
	recs := func(n int) []protocol.MetadataRecord {
		var out []protocol.MetadataRecord
		for i := range n {
			out = append(out, protocol.MetadataRecord{Offset: int64(i), Type: "Topic", Topic: fmt.Sprint("t", i)})
		}
		return out
	}
	s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: preloadState(3, 2, -1, nil),
		cfg: func(c *Config) { c.RequestTimeout = 500 * time.Millisecond }})
	s.inbox = nil
	s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 3, HighWatermark: 3, Snapshot: &old})
	lastSent[protocol.FetchSnapshotRequest](s, "c2")
	// Its answer is slow: the request times out and the follower fetches
	// again, is told of a newer snapshot, loads it, and fetches past it.
	s.advance(600 * time.Millisecond)
	lastSent[protocol.QuorumFetchRequest](s, "c2")
	s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 3, HighWatermark: 6, Snapshot: &newer})
	lastSent[protocol.FetchSnapshotRequest](s, "c2")
	s.deliver("c2", protocol.FetchSnapshotResponse{LeaderID: 2, LeaderEpoch: 3, SnapshotID: newer, Records: recs(6)})
	var entries []protocol.MetadataEntry
	for i := int64(6); i < 9; i++ {
		entries = append(entries, protocol.MetadataEntry{Epoch: 3, Record: protocol.MetadataRecord{Offset: i, Type: "Topic", Topic: fmt.Sprint("t", i)}})
	}
	s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 3, HighWatermark: 9, Entries: entries})
	if s.node.Log().EndOffset() != 9 || s.node.HighWatermark() != 9 || len(s.l.state) != 9 {
		t.Fatalf("before the stale answer: log end %d hw %d state %d", s.node.Log().EndOffset(), s.node.HighWatermark(), len(s.l.state))
	}
	// The first FetchSnapshot's answer arrives now, while a fetch is in flight.
	s.deliver("c2", protocol.FetchSnapshotResponse{LeaderID: 2, LeaderEpoch: 3, SnapshotID: old, Records: recs(3)})
	l := s.node.Log()
	if l.StartOffset() != 6 || l.EndOffset() != 9 || l.LatestSnapshot().ID != newer || s.node.HighWatermark() != 9 {
		t.Fatalf("after the stale answer: log [%d,%d) snapshot %+v hw %d", l.StartOffset(), l.EndOffset(), l.LatestSnapshot().ID, s.node.HighWatermark())
	}
	if _, snap, stored, _ := s.store.Load(); snap.ID != newer || len(stored) != 3 {
		t.Fatalf("store: snapshot %+v, %d entries", snap.ID, len(stored))
	}
	if !reflect.DeepEqual(s.l.snapshots, []protocol.SnapshotID{newer}) {
		t.Fatalf("listener loaded %v", s.l.snapshots)
	}
	// Nor does an answer naming an older snapshot than the one asked for.
	s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 3, HighWatermark: 9, Snapshot: &newer})
	lastSent[protocol.FetchSnapshotRequest](s, "c2")
	s.deliver("c2", protocol.FetchSnapshotResponse{LeaderID: 2, LeaderEpoch: 3, SnapshotID: old, Records: recs(3)})
	if s.node.Log().LatestSnapshot().ID != newer || s.node.Log().EndOffset() != 9 {
		t.Fatalf("installed a snapshot it did not ask for")
	}
}

// Mirrors KafkaMetadataLog.truncateToLatestSnapshot's rule (exercised by
// KafkaRaftClientSnapshotTest.testFetchResponseWithSnapshotId): a snapshot
// is installed over the log only when it goes past what the follower
// holds. An answer to a fetch that was slower than the request timeout
// names the snapshot the follower already loaded; fetching and loading it
// again must keep the committed entries that follow it (found by
// TestRandomFaults, seed 2373).
func TestSnapshotAlreadyHeldKeepsLog(t *testing.T) {
	id := protocol.SnapshotID{EndOffset: 3, Epoch: 2}
	recs := []protocol.MetadataRecord{{Offset: 0, Type: "LeaderChange"}, {Offset: 1, Type: "Topic", Topic: "a"}, {Offset: 2, Type: "Topic", Topic: "b"}}
	s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: preloadState(3, 2, -1, nil)})
	s.inbox = nil
	s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 3, HighWatermark: 3, Snapshot: &id})
	lastSent[protocol.FetchSnapshotRequest](s, "c2")
	s.deliver("c2", protocol.FetchSnapshotResponse{LeaderID: 2, LeaderEpoch: 3, SnapshotID: id, Records: recs})
	var entries []protocol.MetadataEntry
	for i := int64(3); i < 6; i++ {
		entries = append(entries, protocol.MetadataEntry{Epoch: 3, Record: protocol.MetadataRecord{Offset: i, Type: "Topic", Topic: fmt.Sprint("t", i)}})
	}
	s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 3, HighWatermark: 6, Entries: entries})
	if l := s.node.Log(); l.StartOffset() != 3 || l.EndOffset() != 6 || s.node.HighWatermark() != 6 {
		t.Fatalf("log [%d,%d) hw %d", l.StartOffset(), l.EndOffset(), s.node.HighWatermark())
	}
	s.inbox = nil
	// The late answer to an earlier fetch: "fetch snapshot 3".
	s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 3, HighWatermark: 6, Snapshot: &id})
	if reqs := sentOf[protocol.FetchSnapshotRequest](s, "c2"); len(reqs) == 1 {
		s.deliver("c2", protocol.FetchSnapshotResponse{LeaderID: 2, LeaderEpoch: 3, SnapshotID: id, Records: recs})
	}
	l := s.node.Log()
	if l.StartOffset() != 3 || l.EndOffset() != 6 || s.node.HighWatermark() != 6 || l.LatestSnapshot().ID != id {
		t.Fatalf("after the snapshot again: log [%d,%d) hw %d", l.StartOffset(), l.EndOffset(), s.node.HighWatermark())
	}
	if _, _, stored, _ := s.store.Load(); len(stored) != 3 {
		t.Fatalf("store holds %d entries, want 3", len(stored))
	}
	if len(s.l.snapshots) != 1 || len(s.l.state) != 6 {
		t.Fatalf("listener: snapshots %v, %d records", s.l.snapshots, len(s.l.state))
	}
	// It fetches on from its log end.
	s.advance(50 * time.Millisecond)
	if f := sentOf[protocol.QuorumFetchRequest](s, "c2"); len(f) == 0 || f[len(f)-1].FetchOffset != 6 {
		t.Fatalf("fetches %+v, want one from 6", f)
	}
}
