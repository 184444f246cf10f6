package raft

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// fetchFrom is a voter's (or observer's) fetch in epoch, at offset with
// lastEpoch, answered at once (MaxWaitMs 0).
func fetchFrom(id, epoch int32, offset int64, lastEpoch int32) protocol.QuorumFetchRequest {
	return protocol.QuorumFetchRequest{ClusterID: "loglab", ReplicaID: id, CurrentLeaderEpoch: epoch, FetchOffset: offset, LastFetchedEpoch: lastEpoch, HighWatermark: -1}
}

// Mirrors LeaderStateTest.testUpdateHighWatermarkMetadata / the Raft paper's
// figure 8 and KafkaRaftClientTest.testHandleLeaderChangeFiresAfterListenerReachesEpochStartOffset:
// a new leader whose log holds uncommitted entries of an earlier epoch does
// not count them committed, even once a majority holds them, until its own
// LeaderChange record (the epoch's start) is on a majority; and it may not
// Append until then.
func TestHighWatermarkHeldUntilEpochCommits(t *testing.T) {
	t.Run("one node, fetches by hand", func(t *testing.T) {
		// c1 holds offsets 0-3 of epoch 1, none committed.
		s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: preloadState(1, -1, -1, preloadLog(1, 1, 1, 1))})
		epoch := s.electByHand(2)
		if epoch != 2 || s.node.leader.epochStart != 4 || s.node.Log().EndOffset() != 5 || s.node.HighWatermark() != 0 {
			t.Fatalf("leader: epoch %d start %d end %d hw %d", epoch, s.node.leader.epochStart, s.node.Log().EndOffset(), s.node.HighWatermark())
		}
		// c2 has the old entries too (a majority has offsets 0-3), but not
		// the LeaderChange: nothing is committed.
		s.deliver("c2", fetchFrom(2, 2, 4, 1))
		r := lastSent[protocol.QuorumFetchResponse](s, "c2")
		if r.Error != protocol.None || r.HighWatermark != 0 || len(r.Entries) != 1 || r.Entries[0].Epoch != 2 || r.Entries[0].Record.Type != "LeaderChange" || r.Diverging != nil {
			t.Fatalf("fetch at 4: %+v", r)
		}
		if s.node.HighWatermark() != 0 || len(s.l.runCommit) != 0 || s.node.Ready() {
			t.Fatalf("hw %d commits %d ready %v before the LeaderChange is on a majority", s.node.HighWatermark(), len(s.l.runCommit), s.node.Ready())
		}
		if _, err := s.node.Append(records(1, "early")); err != ErrNotLeader {
			t.Fatalf("append before the epoch's start is committed: %v", err)
		}
		if slices.Contains(s.l.leaders, [2]int32{1, 2}) {
			t.Fatalf("listener told of its leadership too early: %v", s.l.leaders)
		}
		// c2 acknowledges the LeaderChange: everything up to 5 is committed.
		s.deliver("c2", fetchFrom(2, 2, 5, 2))
		r = lastSent[protocol.QuorumFetchResponse](s, "c2")
		if s.node.HighWatermark() != 5 || r.HighWatermark != 5 || len(s.l.runCommit) != 5 || !s.node.Ready() {
			t.Fatalf("after the ack: hw %d (answer %d) commits %d ready %v", s.node.HighWatermark(), r.HighWatermark, len(s.l.runCommit), s.node.Ready())
		}
		if !slices.Contains(s.l.leaders, [2]int32{1, 2}) {
			t.Fatalf("listener not told of its leadership: %v", s.l.leaders)
		}
		// HW never decreases: a lagging voter's fetch and c2's fetch of an
		// earlier offset (testNonMonotonicHighWatermarkUpdate,
		// testHighWatermarkDoesNotDecreaseFromNewVoter).
		s.deliver("c3", fetchFrom(3, 2, 1, 1))
		s.deliver("c2", fetchFrom(2, 2, 4, 1))
		if s.node.HighWatermark() != 5 {
			t.Fatalf("hw went back to %d", s.node.HighWatermark())
		}
	})
	t.Run("quorum sizes", func(t *testing.T) {
		// LeaderStateTest.testUpdateHighWatermarkQuorumSizeOne/Two/Three and
		// testNonFollowerAcknowledgement: an empty log, so the epoch starts at
		// offset 0 and the leader's log ends at 1 after its LeaderChange; it
		// appends 3 records (ends at 4) once ready.
		type ack struct {
			id     int32
			offset int64
		}
		rows := []struct {
			voters []int32
			acks   []ack
			want   []int64 // the HW after each ack
		}{
			{[]int32{1, 2}, []ack{{2, 0}, {2, 1}, {2, 3}, {2, 4}}, []int64{0, 1, 3, 4}},
			{[]int32{1, 2, 3}, []ack{{2, 0}, {3, 1}, {2, 2}, {3, 4}, {2, 4}}, []int64{0, 1, 2, 4, 4}},
			{[]int32{1, 2, 3, 4, 5}, []ack{{2, 1}, {3, 1}, {2, 4}, {4, 3}, {5, 2}, {3, 4}}, []int64{0, 1, 1, 3, 3, 4}},
			// An observer's fetch never moves the high watermark.
			{[]int32{1, 2}, []ack{{101, 1}, {2, 1}, {101, 4}, {2, 2}}, []int64{0, 1, 1, 2}},
		}
		for _, r := range rows {
			t.Run(fmt.Sprintf("voters=%v acks=%v", r.voters, r.acks), func(t *testing.T) {
				s := newSolo(t, soloOpts{id: 1, voters: r.voters, observers: 1, seed: 1, preload: preloadState(0, -1, -1, nil)})
				var grantors []int32
				for _, v := range r.voters[1:] {
					grantors = append(grantors, v)
				}
				epoch := s.electByHand(grantors[:len(r.voters)/2]...)
				got := []int64{}
				for _, a := range r.acks {
					from := voterNode(a.id)
					if a.id > 100 {
						from = "b1"
					}
					last := int32(0)
					if a.offset > 0 {
						last = epoch
					}
					s.deliver(from, fetchFrom(a.id, epoch, a.offset, last))
					got = append(got, s.node.HighWatermark())
					if s.node.Ready() && s.node.Log().EndOffset() == 1 {
						s.appendRecords(3)
					}
				}
				if !slices.Equal(got, r.want) {
					t.Fatalf("hw after each ack %v, want %v", got, r.want)
				}
			})
		}
	})
	t.Run("cluster: figure 8", func(t *testing.T) {
		// The leader L writes offsets past 0 while both followers are down
		// (uncommitted), crashes, and comes back with one of them: only L
		// can win (the longer log); its high watermark must jump from 0
		// straight past its new LeaderChange, never stopping on the old
		// epoch's entries.
		c := newCluster(t, clusterOpts{voters: 3, seed: 17})
		l := c.waitLeader(10 * time.Second)
		c.must(2*time.Second, "converged", c.converged)
		var fs []*member
		for _, m := range c.ms {
			if m != l {
				fs = append(fs, m)
			}
		}
		c.crash(fs[0].addr)
		c.crash(fs[1].addr)
		c.appendOn(l, 3, "old-epoch")
		if l.node.HighWatermark() != 1 {
			t.Fatalf("hw %d with both followers down", l.node.HighWatermark())
		}
		c.run(500 * time.Millisecond)
		c.crash(l.addr)
		c.start(l.addr)
		c.start(fs[0].addr)
		var hws []int64
		c.must(20*time.Second, "L leads again", func() bool {
			if l.node.Role() == Leader {
				if len(hws) == 0 || hws[len(hws)-1] != l.node.HighWatermark() {
					hws = append(hws, l.node.HighWatermark())
				}
			}
			return l.node.Ready()
		})
		epochStart := l.node.leader.epochStart
		if epochStart != 4 || l.node.Epoch() < 2 {
			t.Fatalf("L leads epoch %d from %d, want from 4", l.node.Epoch(), epochStart)
		}
		if !slices.Equal(hws, []int64{0, 5}) {
			t.Fatalf("L's high watermarks while leading: %v, want [0 5]", hws)
		}
		c.must(5*time.Second, "converged", c.converged)
		c.checkInvariants()
	})
}

// appendRecords appends n records on the solo node, which must lead.
func (s *solo) appendRecords(n int) {
	s.t.Helper()
	if _, err := s.node.Append(records(n, "r")); err != nil {
		s.t.Fatal(err)
	}
	s.flush()
}

// Mirrors KafkaRaftClientTest.testLeaderShouldResignLeadershipIfNotGetFetchRequestFromMajorityVoters,
// LeaderStateTest.testCheckQuorum and
// KafkaRaftClientSnapshotTest.testLeaderShouldResignLeadershipIfNotGetFetchSnapshotRequestFromMajorityVoters:
// a leader no majority fetched from within 1.5 fetch timeouts resigns.
func TestCheckQuorum(t *testing.T) {
	t.Run("one node: resigns 3s after the last majority fetch", func(t *testing.T) {
		s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3, 4, 5}, seed: 1, preload: preloadState(0, -1, -1, nil)})
		epoch := s.electByHand(2, 3)
		start := s.clock.Elapsed()
		s.advance(2900 * time.Millisecond)
		// One follower's fetch is not a majority of five: the timer keeps going.
		s.deliver("c2", fetchFrom(2, epoch, 1, epoch))
		s.advance(80 * time.Millisecond)
		if s.node.Role() != Leader {
			t.Fatalf("resigned at %v, before 3s", s.clock.Elapsed()-start)
		}
		// A second voter fetching makes a majority (with itself): 3s more.
		restart := s.clock.Elapsed()
		s.deliver("c3", fetchFrom(3, epoch, 1, epoch))
		s.deliver("c2", fetchFrom(2, epoch, 1, epoch))
		s.advance(2990 * time.Millisecond)
		if s.node.Role() != Leader {
			t.Fatalf("resigned %v after a majority fetched", s.clock.Elapsed()-restart)
		}
		s.inbox = nil
		s.advanceUntil(100*time.Millisecond, "resigned", func() bool { return s.node.Role() != Leader })
		if d := s.clock.Elapsed() - restart; s.node.Role() != Resigned || d != 3*time.Second || s.node.Epoch() != epoch {
			t.Fatalf("%v epoch %d after %v, want resigned after 3s in epoch %d", s.node.Role(), s.node.Epoch(), d, epoch)
		}
		s.flush()
		// EndQuorumEpoch to every other voter, the most caught up first.
		for _, v := range []int32{2, 3, 4, 5} {
			e := lastSent[protocol.EndQuorumEpochRequest](s, voterNode(v))
			if e.LeaderID != 1 || e.LeaderEpoch != epoch || !slices.Equal(e.PreferredSuccessors, []int32{2, 3, 4, 5}) {
				t.Fatalf("EndQuorumEpoch to c%d: %+v", v, e)
			}
		}
		if _, err := s.node.Append(records(1, "late")); err != ErrNotLeader || s.node.Ready() {
			t.Fatalf("append on the resigned leader: %v", err)
		}
		if got := s.l.leaders[len(s.l.leaders)-1]; got != [2]int32{-1, epoch} {
			t.Fatalf("listener last heard %v, want no leader in %d", got, epoch)
		}
		// After an election timeout it is unattached in the next epoch.
		s.advanceUntil(3*time.Second, "unattached", func() bool { return s.node.Role() == Unattached })
		if s.node.Epoch() != epoch+1 {
			t.Fatalf("epoch %d after resigning %d", s.node.Epoch(), epoch)
		}
	})
	t.Run("cluster: a leader cut off from every voter resigns within 3s", func(t *testing.T) {
		for _, seed := range []uint64{1, 4, 9} {
			t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
				c := newCluster(t, clusterOpts{voters: 3, seed: seed})
				l := c.waitLeader(10 * time.Second)
				c.run(1234 * time.Millisecond)
				epoch := l.node.Epoch()
				cut := c.clock.Elapsed()
				for _, m := range c.ms {
					if m != l {
						c.net.CutLink(l.addr, m.addr)
					}
				}
				c.must(4*time.Second, "the old leader resigns", func() bool { return l.node.Role() != Leader })
				if d := c.clock.Elapsed() - cut; d > 3*time.Second || l.node.Role() != Resigned || l.node.Epoch() != epoch {
					t.Fatalf("seed %d: %v in epoch %d after %v, want Resigned in %d within 3s", seed, l.node.Role(), l.node.Epoch(), d, epoch)
				}
				if _, err := l.node.Append(records(1, "x")); err != ErrNotLeader {
					t.Fatalf("append on the resigned leader: %v", err)
				}
				c.must(10*time.Second, "a new leader", func() bool { nl := c.leader(); return nl != nil && nl != l })
				c.heal()
				c.must(10*time.Second, "converged", c.converged)
				c.checkInvariants()
			})
		}
	})
	t.Run("cluster: observers' fetches do not count", func(t *testing.T) {
		// LeaderStateTest.testCheckQuorum counts voters only: a leader cut
		// off from the other voters resigns though every observer (b1 and
		// b2 share ids with c1 and c2) still fetches from it.
		for _, shared := range []bool{false, true} {
			c := newCluster(t, clusterOpts{voters: 3, observers: 3, seed: 6, sharedIDs: shared})
			l := c.waitLeader(10 * time.Second)
			c.run(time.Second)
			cut := c.clock.Elapsed()
			for _, m := range c.ms {
				if m != l && m.voter {
					c.net.CutLink(l.addr, m.addr)
				}
			}
			c.must(4*time.Second, "the leader resigns", func() bool { return l.node.Role() != Leader })
			if d := c.clock.Elapsed() - cut; d > 3*time.Second || l.node.Role() != Resigned {
				t.Fatalf("shared ids %v: %v after %v", shared, l.node.Role(), d)
			}
			c.heal()
			c.must(15*time.Second, "converged", c.converged)
			c.checkInvariants()
		}
	})
	t.Run("cluster: a leader a majority fetches from leads for an hour", func(t *testing.T) {
		// RaftEventSimulationTest.canMakeProgressIfMajorityIsReachable.
		c := newCluster(t, clusterOpts{voters: 5, seed: 8})
		l := c.waitLeader(10 * time.Second)
		c.run(5 * time.Second)
		// Two of five voters cut off: the other two keep fetching.
		var out []sim.NodeID
		for _, m := range c.ms {
			if m != l && len(out) < 2 {
				out = append(out, m.addr)
			}
		}
		var in []sim.NodeID
		for _, m := range c.ms {
			if !slices.Contains(out, m.addr) {
				in = append(in, m.addr)
			}
		}
		c.partition(in, out)
		mark := len(c.transitions)
		for i := range 60 {
			c.run(time.Minute)
			c.appendOn(l, 1, fmt.Sprintf("minute-%d", i))
		}
		for _, tr := range c.transitions[mark:] {
			if tr.Node == l.addr || slices.Contains(in, tr.Node) {
				t.Fatalf("%s went %v in epoch %d at %v", tr.Node, tr.Role, tr.Epoch, tr.At)
			}
			if tr.Epoch != l.node.Epoch() {
				t.Fatalf("cut-off %s reached epoch %d", tr.Node, tr.Epoch)
			}
		}
		c.run(time.Second)
		if l.node.Role() != Leader || l.node.HighWatermark() != l.node.Log().EndOffset() {
			t.Fatalf("after an hour: %v hw %d end %d", l.node.Role(), l.node.HighWatermark(), l.node.Log().EndOffset())
		}
		c.heal()
		c.must(10*time.Second, "converged", c.converged)
		c.checkInvariants()
	})
}
