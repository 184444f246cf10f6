package raft

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// Mirrors KafkaRaftClientTest.testLeaderImmediatelySendsDivergingEpoch and
// KafkaRaftClientFetchTest's validation of a fetch's (offset, last epoch):
// the leader answers a fetch whose last epoch does not end where the
// follower says with the epoch both have and where it ends on the leader.
func TestLeaderAnswersDivergingEpoch(t *testing.T) {
	// The leader c1: offsets 0-2 in epoch 1, 3-4 in epoch 2, and its
	// LeaderChange of epoch 3 at 5 (end 6).
	rows := []struct {
		name      string
		offset    int64
		lastEpoch int32
		diverging *protocol.SnapshotID
		entries   int
	}{
		{"inside epoch 1", 3, 1, nil, 3},
		{"past epoch 1's end", 4, 1, &protocol.SnapshotID{Epoch: 1, EndOffset: 3}, 0},
		{"end of epoch 2", 5, 2, nil, 1},
		{"inside epoch 2", 4, 2, nil, 2},
		{"past epoch 2's end", 7, 2, &protocol.SnapshotID{Epoch: 2, EndOffset: 5}, 0},
		{"an epoch the leader never had", 9, 4, &protocol.SnapshotID{Epoch: 3, EndOffset: 6}, 0},
		{"caught up", 6, 3, nil, 0},
		{"past the log end", 8, 3, &protocol.SnapshotID{Epoch: 3, EndOffset: 6}, 0},
		{"empty log", 0, 0, nil, 6},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: preloadState(2, -1, -1, preloadLog(epochs(1, 3, 2, 2)...))})
			epoch := s.electByHand(2)
			if epoch != 3 || s.node.Log().EndOffset() != 6 {
				t.Fatalf("leader epoch %d end %d", epoch, s.node.Log().EndOffset())
			}
			s.deliver("c2", fetchFrom(2, epoch, r.offset, r.lastEpoch))
			got := lastSent[protocol.QuorumFetchResponse](s, "c2")
			if got.Error != protocol.None || !reflect.DeepEqual(got.Diverging, r.diverging) || len(got.Entries) != r.entries || got.Snapshot != nil {
				t.Fatalf("answer: diverging %+v, %d entries, error %v; want diverging %+v, %d entries", got.Diverging, len(got.Entries), got.Error, r.diverging, r.entries)
			}
			if r.entries > 0 && got.Entries[0].Record.Offset != r.offset {
				t.Fatalf("entries from %d, want %d", got.Entries[0].Record.Offset, r.offset)
			}
			// A diverging fetch says nothing of where the replica is.
			if rs := s.node.replica(2, true); r.diverging != nil && rs.endOffset != -1 {
				t.Fatalf("a diverging fetch set c2's end offset to %d", rs.endOffset)
			}
		})
	}
	t.Run("no epoch in common", func(t *testing.T) {
		// MockLogTest.testEndOffsetForEpoch's epoch 0: the leader's log
		// starts in epoch 2; a follower whose last epoch is 1 shares none of
		// it and is told epoch 0 at offset 0 (truncate everything).
		s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: preloadState(2, -1, -1, preloadLog(2, 2))})
		epoch := s.electByHand(2)
		s.deliver("c2", fetchFrom(2, epoch, 2, 1))
		got := lastSent[protocol.QuorumFetchResponse](s, "c2")
		if got.Diverging == nil || *got.Diverging != (protocol.SnapshotID{Epoch: 0, EndOffset: 0}) || len(got.Entries) != 0 {
			t.Fatalf("answer %+v (diverging %+v), want diverging epoch 0 at 0", got, got.Diverging)
		}
	})
	t.Run("errors", func(t *testing.T) {
		// testInvalidFetchRequest, testFetchRequestClusterIdValidation.
		s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: preloadState(2, -1, -1, nil)})
		epoch := s.electByHand(2)
		for _, r := range []struct {
			req  protocol.QuorumFetchRequest
			code protocol.ErrorCode
		}{
			{fetchFrom(2, epoch-1, 0, 0), protocol.FencedLeaderEpoch},
			{fetchFrom(2, epoch+1, 0, 0), protocol.UnknownLeaderEpoch},
			{protocol.QuorumFetchRequest{ClusterID: "x", ReplicaID: 2, CurrentLeaderEpoch: epoch}, protocol.InconsistentClusterID},
		} {
			s.deliver("c2", r.req)
			if got := lastSent[protocol.QuorumFetchResponse](s, "c2"); got.Error != r.code || got.LeaderID != 1 || got.LeaderEpoch != epoch || len(got.Entries) != 0 {
				t.Fatalf("%+v: answer %+v, want %v", r.req, got, r.code)
			}
		}
		if s.node.Role() != Leader || s.node.HighWatermark() != 0 {
			t.Fatalf("%v hw %d", s.node.Role(), s.node.HighWatermark())
		}
	})
}

// Mirrors KafkaRaftClientTest.testFollowerLogReconciliation: a follower
// told its log diverges truncates to where the diverging epoch ends on the
// leader or on itself, whichever is sooner, then fetches from there.
func TestFollowerTruncatesDivergingSuffix(t *testing.T) {
	rows := []struct {
		name    string
		log     []int32
		div     protocol.SnapshotID
		wantEnd int64
	}{
		{"to the leader's end of a shared epoch", epochs(1, 3, 2, 3), protocol.SnapshotID{Epoch: 1, EndOffset: 3}, 3},
		{"inside the last epoch", epochs(1, 3, 2, 3), protocol.SnapshotID{Epoch: 2, EndOffset: 4}, 4},
		{"its own epoch ends sooner", epochs(1, 3, 2, 3), protocol.SnapshotID{Epoch: 1, EndOffset: 5}, 3},
		{"an epoch it never had", epochs(1, 2, 3, 2), protocol.SnapshotID{Epoch: 2, EndOffset: 5}, 2},
		{"no epoch at most the leader's", epochs(3, 3), protocol.SnapshotID{Epoch: 1, EndOffset: 2}, 0},
		{"nothing in common (epoch 0)", epochs(1, 2), protocol.SnapshotID{Epoch: 0, EndOffset: 0}, 0},
		{"epoch 0 past its own end", epochs(1, 2), protocol.SnapshotID{Epoch: 0, EndOffset: 5}, 2},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: preloadState(4, 2, -1, preloadLog(r.log...))})
			if s.node.Role() != Follower || s.node.LeaderID() != 2 {
				t.Fatalf("%v leader %d", s.node.Role(), s.node.LeaderID())
			}
			if f := lastSent[protocol.QuorumFetchRequest](s, "c2"); f.FetchOffset != int64(len(r.log)) || f.LastFetchedEpoch != r.log[len(r.log)-1] || f.CurrentLeaderEpoch != 4 {
				t.Fatalf("first fetch %+v", f)
			}
			d := r.div
			s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 4, HighWatermark: 0, Diverging: &d})
			if s.node.Log().EndOffset() != r.wantEnd {
				t.Fatalf("log ends at %d, want %d", s.node.Log().EndOffset(), r.wantEnd)
			}
			for _, e := range s.events {
				if strings.Contains(e, "INVARIANT") {
					t.Fatalf("event %q: nothing committed was truncated", e)
				}
			}
			if _, _, stored, _ := s.store.Load(); len(stored) != int(r.wantEnd) {
				t.Fatalf("store holds %d entries, want %d", len(stored), r.wantEnd)
			}
			f := lastSent[protocol.QuorumFetchRequest](s, "c2")
			wantLast := int32(0)
			if r.wantEnd > 0 {
				wantLast = r.log[r.wantEnd-1]
			}
			if f.FetchOffset != r.wantEnd || f.LastFetchedEpoch != wantLast {
				t.Fatalf("next fetch %+v, want offset %d epoch %d", f, r.wantEnd, wantLast)
			}
		})
	}
	t.Run("never below the high watermark", func(t *testing.T) {
		s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: preloadState(4, 2, -1, preloadLog(epochs(1, 3, 2, 3)...))})
		s.inbox = nil
		s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 4, HighWatermark: 4})
		if s.node.HighWatermark() != 4 || len(s.l.runCommit) != 4 {
			t.Fatalf("hw %d", s.node.HighWatermark())
		}
		s.inbox = nil
		s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 4, HighWatermark: 4, Diverging: &protocol.SnapshotID{Epoch: 1, EndOffset: 3}})
		if s.node.Log().EndOffset() != 4 {
			t.Fatalf("truncated to %d, below its high watermark 4", s.node.Log().EndOffset())
		}
	})
}

// Mirrors FollowerStateTest.testMonotonicHighWatermark and
// KafkaRaftClientFetchTest.testFetchMaxBytesAlwaysReturnsAtLeastOneBatch /
// testUpdatedHighWatermarkCompleted: a follower's high watermark is the
// leader's, but never past its own log end (a fetch brings at most
// MaxFetchEntries records), and never goes back.
func TestFollowerHighWatermark(t *testing.T) {
	t.Run("capped by the log end, never back", func(t *testing.T) {
		s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: preloadState(2, 2, -1, nil)})
		s.inbox = nil
		entry := func(off int64) protocol.MetadataEntry {
			return protocol.MetadataEntry{Epoch: 2, Record: protocol.MetadataRecord{Offset: off, Type: "Topic", Topic: fmt.Sprint("t", off)}}
		}
		steps := []struct {
			entries []protocol.MetadataEntry
			hw      int64
			wantEnd int64
			wantHW  int64
		}{
			{[]protocol.MetadataEntry{entry(0), entry(1)}, 10, 2, 2},
			{[]protocol.MetadataEntry{entry(2), entry(3)}, 3, 4, 3},
			{nil, 1, 4, 3}, // a leader that knows less (a new one): not back
			{[]protocol.MetadataEntry{entry(4)}, 10, 5, 5},
		}
		for i, st := range steps {
			s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 2, HighWatermark: st.hw, Entries: st.entries})
			if s.node.Log().EndOffset() != st.wantEnd || s.node.HighWatermark() != st.wantHW || int64(len(s.l.state)) != st.wantHW {
				t.Fatalf("step %d: log end %d hw %d committed %d, want %d, %d", i, s.node.Log().EndOffset(), s.node.HighWatermark(), len(s.l.state), st.wantEnd, st.wantHW)
			}
			f := sentOf[protocol.QuorumFetchRequest](s, "c2")
			if len(f) != 1 || f[0].FetchOffset != st.wantEnd || f[0].HighWatermark != st.wantHW {
				t.Fatalf("step %d: next fetch %+v", i, f)
			}
		}
	})
	t.Run("cluster: catching up a few records per fetch", func(t *testing.T) {
		c := newCluster(t, clusterOpts{voters: 3, observers: 1, seed: 3, cfg: func(c *Config) { c.MaxFetchEntries = 2 }})
		l := c.waitLeader(10 * time.Second)
		c.crash("b1")
		var f *member
		for _, m := range c.ms {
			if m != l && m.voter {
				f = m
				break
			}
		}
		c.crash(f.addr)
		c.appendOn(l, 15, "many")
		c.must(3*time.Second, "committed by two", func() bool { return l.node.HighWatermark() == 16 })
		c.start(f.addr)
		c.start("b1")
		c.must(5*time.Second, "converged", c.converged)
		c.checkInvariants() // no high watermark past a log end on the way
	})
}

// Mirrors KafkaRaftClientTest.testFetchResponseIgnoredAfterBecomingCandidate,
// testFollowerLogReconciliation and RaftEventSimulationTest
// .canElectNewLeaderAfterOldLeaderPartitionedAway: the old leader writes
// while cut off (uncommitted), the majority elects a new leader who
// writes; after the heal the old leader, now a follower, truncates its
// suffix (DivergingEpoch) and ends with the new leader's log.
func TestOldLeaderTruncatesUncommittedSuffix(t *testing.T) {
	for _, seed := range []uint64{3, 5, 8, 13} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			c := newCluster(t, clusterOpts{voters: 3, seed: seed})
			old := c.waitLeader(10 * time.Second)
			c.appendOn(old, 2, "committed")
			c.must(2*time.Second, "converged", c.converged)
			oldEpoch := old.node.Epoch()
			c.isolate(old.addr)
			lost := c.appendOn(old, 3, "lost")
			if lost[0].Offset != 3 || old.node.HighWatermark() != 3 {
				t.Fatalf("seed %d: lost records at %d, hw %d", seed, lost[0].Offset, old.node.HighWatermark())
			}
			c.must(15*time.Second, "a new leader in the majority", func() bool { nl := c.leader(); return nl != nil && nl != old })
			nl := c.leader()
			if nl.node.Epoch() <= oldEpoch {
				t.Fatalf("seed %d: new leader in epoch %d, old %d", seed, nl.node.Epoch(), oldEpoch)
			}
			c.appendOn(nl, 2, "new")
			c.run(time.Second)
			if e, _ := old.node.Log().Entry(3); e.Epoch != oldEpoch || !strings.HasPrefix(e.Record.Topic, "lost") {
				t.Fatalf("seed %d: old leader's offset 3: %+v", seed, e)
			}
			if e, _ := nl.node.Log().Entry(3); e.Epoch != nl.node.Epoch() || e.Record.Type != "LeaderChange" {
				t.Fatalf("seed %d: new leader's offset 3: %+v", seed, e)
			}
			c.recordMsgs = true
			c.heal()
			c.must(10*time.Second, "converged after heal", c.converged)
			if old.node.Role() != Follower || old.node.LeaderID() != nl.id || old.node.Epoch() != nl.node.Epoch() {
				t.Fatalf("seed %d: old leader %v leader %d epoch %d\n%s", seed, old.node.Role(), old.node.LeaderID(), old.node.Epoch(), c.describe())
			}
			if diff := sameLogs(old.node, nl.node); diff != "" {
				t.Fatalf("seed %d: logs differ: %s", seed, diff)
			}
			diverged := false
			for _, env := range c.msgs {
				if r, ok := env.Msg.(protocol.QuorumFetchResponse); ok && env.To == old.addr && r.Diverging != nil {
					diverged = true
					if r.Diverging.EndOffset != 3 || r.Diverging.Epoch != oldEpoch {
						t.Fatalf("seed %d: diverging %+v, want epoch %d ending at 3", seed, r.Diverging, oldEpoch)
					}
				}
			}
			if !diverged {
				t.Fatalf("seed %d: no DivergingEpoch sent to the old leader", seed)
			}
			for off, e := range c.committed {
				if strings.HasPrefix(e.Record.Topic, "lost") {
					t.Fatalf("seed %d: the uncommitted record at %d was committed", seed, off)
				}
			}
			for _, m := range c.ms {
				if !reflect.DeepEqual(m.l.state, nl.l.state) {
					t.Fatalf("seed %d: %s's state differs from the leader's", seed, m.addr)
				}
			}
			c.checkInvariants()
		})
	}
}

// Mirrors KafkaRaftClientTest.testFollowerLogReconciliation with a leader
// whose LeaderChange never left it: elected, then cut off at once, it
// shares no epoch with the next leader, whose log starts at offset 0 in a
// later epoch. After the heal it truncates everything (diverging epoch 0)
// without taking that for a lost commit.
func TestLeaderCutOffRightAfterElection(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			c := newCluster(t, clusterOpts{voters: 3, seed: seed})
			var old *member
			c.must(10*time.Second, "a leader elected", func() bool {
				for _, m := range c.ms {
					if m.node.Role() == Leader {
						old = m
						return true
					}
				}
				return false
			})
			c.isolate(old.addr)
			if old.node.Log().EndOffset() != 1 || old.node.HighWatermark() != 0 {
				t.Fatalf("seed %d: old leader log end %d hw %d", seed, old.node.Log().EndOffset(), old.node.HighWatermark())
			}
			c.must(15*time.Second, "a new leader", func() bool { nl := c.leader(); return nl != nil && nl != old })
			nl := c.leader()
			if e, _ := nl.node.Log().Entry(0); e.Epoch != nl.node.Epoch() {
				t.Fatalf("seed %d: new leader's offset 0 in epoch %d", seed, e.Epoch)
			}
			c.recordMsgs = true
			c.heal()
			c.must(10*time.Second, "converged", c.converged)
			if diff := sameLogs(old.node, nl.node); diff != "" {
				t.Fatalf("seed %d: %s", seed, diff)
			}
			sawZero := false
			for _, env := range c.msgs {
				if r, ok := env.Msg.(protocol.QuorumFetchResponse); ok && r.Diverging != nil && env.To == old.addr {
					sawZero = sawZero || *r.Diverging == (protocol.SnapshotID{})
				}
			}
			if !sawZero {
				t.Fatalf("seed %d: the old leader was not told epoch 0 at 0", seed)
			}
			c.checkInvariants() // no INVARIANT event
		})
	}
}

// Mirrors KafkaRaftClientTest.testDescribeQuorumWithObserver and
// testObserverReplication with loglab's numbering, where broker b1 is node
// 1 like controller c1 (Kafka requires ids unique across the cluster): the
// leader keeps b1 apart from c1, in its high watermark, its check-quorum
// and its DescribeQuorum rows, and b1 follows c1 as any observer would.
func TestObserversSharingIDsWithVoters(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			c := newCluster(t, clusterOpts{voters: 3, observers: 3, seed: seed, sharedIDs: true})
			l := c.waitLeader(10 * time.Second)
			c.appendOn(l, 3, "a")
			c.must(3*time.Second, "converged", c.converged)
			twin := c.m(sim.NodeID(fmt.Sprintf("b%d", l.id))) // the observer with the leader's id
			if twin.id != l.id || twin.node.IsVoter() || twin.node.LeaderID() != l.id || twin.node.Role() != Follower {
				t.Fatalf("seed %d: %s id %d voter %v leader %d %v", seed, twin.addr, twin.id, twin.node.IsVoter(), twin.node.LeaderID(), twin.node.Role())
			}
			c.run(time.Second)
			c.isolate(twin.addr)
			c.appendOn(l, 4, "b")
			c.must(3*time.Second, "the voters commit", func() bool { return l.node.HighWatermark() == l.node.Log().EndOffset() })
			c.run(time.Second)
			var rows []ReplicaStatus
			for _, r := range l.node.Status().Replicas {
				if r.ID == l.id {
					rows = append(rows, r)
				}
			}
			now := c.clock.Elapsed()
			if len(rows) != 2 || !rows[0].Voter || rows[1].Voter {
				t.Fatalf("seed %d: rows with id %d: %+v", seed, l.id, rows)
			}
			if rows[0].LogEndOffset != 8 || rows[0].LastFetch != now {
				t.Fatalf("seed %d: the leader's own row %+v, want end 8 as of now", seed, rows[0])
			}
			if rows[1].LogEndOffset != 4 || rows[1].LastFetch >= now-time.Second {
				t.Fatalf("seed %d: cut-off observer %s's row %+v, want its last fetch at 4, over a second ago", seed, twin.addr, rows[1])
			}
			c.heal()
			c.must(5*time.Second, "converged", c.converged)
			c.crash(l.addr)
			nl := c.waitLeader(15 * time.Second)
			c.appendOn(nl, 2, "c")
			c.must(10*time.Second, "observers follow the new leader", c.converged)
			c.start(l.addr)
			c.must(10*time.Second, "converged", c.converged)
			c.checkInvariants()
		})
	}
}

// Mirrors KafkaRaftClientTest.testObserverReplication,
// testObserverFollowerSendFetchToBestNode, testHandleVoteRequestAsObserver's
// counterpart (an observer is never asked) and
// testDescribeQuorumWithObserver: observers never vote or stand, follow the
// leader, fall behind when cut off and catch up when healed.
func TestObservers(t *testing.T) {
	c := newCluster(t, clusterOpts{voters: 3, observers: 2, seed: 4})
	l := c.waitLeader(10 * time.Second)
	c.appendOn(l, 5, "a")
	c.must(3*time.Second, "converged", c.converged)
	for _, b := range []sim.NodeID{"b1", "b2"} {
		n := c.node(b)
		if n.Role() != Follower || n.LeaderID() != l.id || n.Epoch() != l.node.Epoch() || n.HighWatermark() != l.node.HighWatermark() {
			t.Fatalf("%s: %v leader %d epoch %d hw %d", b, n.Role(), n.LeaderID(), n.Epoch(), n.HighWatermark())
		}
		if c.delivered[b]["Vote"] != 0 || c.delivered[b]["BeginQuorumEpoch"] != 0 {
			t.Fatalf("%s was asked to vote or told of the epoch: %v", b, c.delivered[b])
		}
		if len(c.m(b).l.runCommit) != 6 {
			t.Fatalf("%s committed %d", b, len(c.m(b).l.runCommit))
		}
	}
	// DescribeQuorum: voters then observers, as of their last fetch.
	c.run(time.Second)
	var ids []int32
	for _, r := range l.node.Status().Replicas {
		ids = append(ids, r.ID)
		if r.Voter != (r.ID < 100) || r.LogEndOffset != 6 {
			t.Fatalf("replica %+v", r)
		}
	}
	if !slices.Equal(ids, []int32{1, 2, 3, 101, 102}) {
		t.Fatalf("leader's replicas %v", ids)
	}
	// b1 cut off: it falls behind, never stands, and HW stays put.
	c.isolate("b1")
	c.appendOn(l, 4, "b")
	c.run(10 * time.Second)
	b1 := c.node("b1")
	if b1.HighWatermark() != 6 || b1.Log().EndOffset() != 6 || l.node.HighWatermark() != 10 || c.node("b2").HighWatermark() != 10 {
		t.Fatalf("cut off b1 hw %d end %d; leader hw %d b2 %d", b1.HighWatermark(), b1.Log().EndOffset(), l.node.HighWatermark(), c.node("b2").HighWatermark())
	}
	if b1.Epoch() != l.node.Epoch() || !b1.fetching.lost {
		t.Fatalf("cut off b1: epoch %d lost %v", b1.Epoch(), b1.fetching.lost)
	}
	c.heal()
	c.must(5*time.Second, "b1 catches up", c.converged)
	if b1.fetching.lost || b1.LeaderID() != l.id {
		t.Fatalf("b1 after heal: lost %v leader %d", b1.fetching.lost, b1.LeaderID())
	}
	// The leader crashes: observers follow the next one.
	c.crash(l.addr)
	nl := c.waitLeader(15 * time.Second)
	c.appendOn(nl, 2, "c")
	c.must(10*time.Second, "observers follow the new leader", c.converged)
	for _, b := range []sim.NodeID{"b1", "b2"} {
		if n := c.node(b); n.LeaderID() != nl.id || n.Epoch() != nl.node.Epoch() || !reflect.DeepEqual(c.m(b).l.state, nl.l.state) {
			t.Fatalf("%s follows %d in %d", b, n.LeaderID(), n.Epoch())
		}
		if c.delivered[b]["Vote"] != 0 {
			t.Fatalf("%s was asked to vote", b)
		}
	}
	// A restarted observer finds the leader again.
	c.crash("b2")
	c.appendOn(nl, 3, "d")
	c.start("b2")
	c.must(10*time.Second, "b2 catches up after a restart", c.converged)
	c.checkInvariants()
}
