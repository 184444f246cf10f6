package raft

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// Mirrors KafkaRaftClientTest.testInitializeAsUnattachedAndBecomeLeader and
// testInitializeAsCandidateAndBecomeLeaderQuorumOfThree (and
// RaftEventSimulationTest.canElectInitialLeader): three voters elect one
// leader in epoch 1, whose first entry is its LeaderChange record at offset
// 0; the high watermark passes it and every voter commits it.
func TestElectionThreeVotersElectOneLeader(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 7, 11, 42} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			c := newCluster(t, clusterOpts{voters: 3, seed: seed})
			l := c.waitLeader(10 * time.Second)
			var leaders []sim.NodeID
			for _, m := range c.ms {
				if m.node.Role() == Leader {
					leaders = append(leaders, m.addr)
				}
			}
			if len(leaders) != 1 || l.node.Epoch() != 1 {
				t.Fatalf("leaders %v, epoch %d; want one leader in epoch 1\n%s", leaders, l.node.Epoch(), c.describe())
			}
			first, ok := l.node.Log().Entry(0)
			want := protocol.MetadataEntry{Epoch: 1, Record: protocol.MetadataRecord{Offset: 0, Type: "LeaderChange", BrokerID: l.id, Replicas: []int32{1, 2, 3}}}
			if !ok || !reflect.DeepEqual(first, want) || l.node.Log().EndOffset() != 1 {
				t.Fatalf("leader's log: first %+v (end %d), want %+v alone", first, l.node.Log().EndOffset(), want)
			}
			if l.node.HighWatermark() != 1 {
				t.Fatalf("leader HW %d, want 1 (past the LeaderChange record)", l.node.HighWatermark())
			}
			if st := l.node.Status(); st.VotedID != l.id || st.LeaderID != l.id {
				t.Fatalf("leader voted %d leader %d, want itself", st.VotedID, st.LeaderID)
			}
			c.must(3*time.Second, "every voter commits the LeaderChange", func() bool {
				for _, m := range c.ms {
					if len(m.l.runCommit) != 1 || m.node.HighWatermark() != 1 {
						return false
					}
				}
				return true
			})
			votes := 0
			for _, m := range c.ms {
				if !reflect.DeepEqual(m.l.runCommit[0], want) {
					t.Fatalf("%s committed %+v, want %+v", m.addr, m.l.runCommit[0], want)
				}
				if !slices.Contains(m.l.leaders, [2]int32{l.id, 1}) {
					t.Fatalf("%s's listener heard of leaders %v, not of %d in epoch 1", m.addr, m.l.leaders, l.id)
				}
				if m == l {
					continue
				}
				st := m.node.Status()
				if st.Role != Follower || st.Epoch != 1 || st.LeaderID != l.id {
					t.Fatalf("%s is %v epoch %d leader %d, want a follower of %d in epoch 1", m.addr, st.Role, st.Epoch, st.LeaderID, l.id)
				}
				if st.VotedID == l.id {
					votes++
				} else if st.VotedID != -1 && st.VotedID != m.id {
					t.Fatalf("%s voted for %d in epoch 1, leader is %d", m.addr, st.VotedID, l.id)
				}
				if c.delivered[m.addr]["BeginQuorumEpoch"] == 0 {
					t.Fatalf("%s got no BeginQuorumEpoch", m.addr)
				}
			}
			if votes == 0 {
				t.Fatalf("no other voter voted for the leader")
			}
			c.checkInvariants()
		})
	}
}

// Mirrors KafkaRaftClientTest.testInitializeAsOnlyVoterWithEmptyElectionState
// and testLeaderAppendSingleMemberQuorum: a quorum of one elects itself at
// Start, with no timer, and commits its appends at once.
func TestElectionSingleVoterLeadsAtStart(t *testing.T) {
	c := newCluster(t, clusterOpts{voters: 1, seed: 5})
	n := c.node("c1")
	if n.Role() != Leader || n.Epoch() != 1 || !n.Ready() || n.HighWatermark() != 1 || c.clock.Elapsed() != 0 {
		t.Fatalf("after Start: %v epoch %d ready %v hw %d at %v; want the ready leader of epoch 1, hw 1, at 0", n.Role(), n.Epoch(), n.Ready(), n.HighWatermark(), c.clock.Elapsed())
	}
	l := c.m("c1").l
	if len(l.runCommit) != 1 || l.runCommit[0].Record.Type != "LeaderChange" || !slices.Equal(l.leaders, [][2]int32{{-1, 0}, {-1, 1}, {1, 1}}) {
		t.Fatalf("listener: commits %+v leaders %v", l.runCommit, l.leaders)
	}
	recs := c.appendOn(c.m("c1"), 3, "solo")
	if recs[0].Offset != 1 || recs[2].Offset != 3 || n.HighWatermark() != 4 || len(l.runCommit) != 4 {
		t.Fatalf("append: offsets %d..%d hw %d commits %d; want 1..3, hw 4, 4 commits", recs[0].Offset, recs[2].Offset, n.HighWatermark(), len(l.runCommit))
	}
	// KafkaRaftClientTest.testLeaderShouldNotResignLeadershipIfOnlyOneVoters.
	c.run(time.Minute)
	if n.Role() != Leader || n.Epoch() != 1 {
		t.Fatalf("after a minute: %v in epoch %d", n.Role(), n.Epoch())
	}
	c.checkInvariants()
}

// Mirrors KafkaRaftClientPreVoteTest.testProspectiveTransitionsToUnattachedOnElectionFailure
// and testPreVoteRequestTimeout, and RaftEventSimulationTest
// .leadershipAssignedOnlyOnceWithNetworkPartitionIfThereExistsMajority: a
// voter that reaches no other voter asks for pre-votes over and over but
// never gets a majority, so it never stands (its epoch never moves) and
// never leads; the majority elects a leader without it.
func TestElectionNeedsMajority(t *testing.T) {
	c := newCluster(t, clusterOpts{voters: 3, seed: 9, noStart: true})
	c.isolate("c1")
	for _, m := range c.ms {
		c.start(m.addr)
	}
	c.run(30 * time.Second)
	n := c.node("c1")
	if n.Epoch() != 0 || n.Role() == Leader || n.Role() == Candidate {
		t.Fatalf("isolated c1: %v in epoch %d", n.Role(), n.Epoch())
	}
	prospective := 0
	for _, tr := range c.roleHistory("c1") {
		if tr.Role == Candidate || tr.Role == Leader || tr.Epoch != 0 {
			t.Fatalf("isolated c1 went %v in epoch %d at %v", tr.Role, tr.Epoch, tr.At)
		}
		if tr.Role == Prospective {
			prospective++
		}
	}
	if prospective < 5 {
		t.Fatalf("c1 was prospective %d times in 30s; it should keep asking", prospective)
	}
	l := c.leader()
	if l == nil || l.addr == "c1" || l.node.Epoch() != 1 {
		t.Fatalf("majority leader: %+v\n%s", l, c.describe())
	}
	c.checkInvariants()
}

// Mirrors KafkaRaftClientPreVoteTest.testProspectiveTransitionsToUnattachedOnElectionFailure,
// testProspectiveWithLeaderTransitionsToFollower and
// KafkaRaftClientTest.testCandidateWaitsRestOfElectionTimeoutAfterElectionLoss,
// testCandidateElectionTimeout: the tallies of one node whose peers are
// fakes.
func TestElectionTallies(t *testing.T) {
	voters := []int32{1, 2, 3}
	t.Run("pre-vote carries the current epoch and changes nothing durable", func(t *testing.T) {
		s := newSolo(t, soloOpts{id: 1, voters: voters, seed: 1, preload: preloadState(4, -1, -1, preloadLog(epochs(3, 2, 4, 1)...))})
		s.advanceUntil(3*time.Second, "prospective", func() bool { return s.node.Role() == Prospective })
		s.flush()
		for _, to := range []sim.NodeID{"c2", "c3"} {
			req := lastSent[protocol.VoteRequest](s, to)
			want := protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 4, CandidateID: 1, VoterID: voterNode2ID(to), LastOffsetEpoch: 4, LastOffset: 3, PreVote: true}
			if req != want {
				t.Fatalf("pre-vote to %s: %+v, want %+v", to, req, want)
			}
		}
		if s.node.Epoch() != 4 || s.store.state.VotedID != -1 || s.store.state.LeaderEpoch != 4 {
			t.Fatalf("prospective: epoch %d stored %+v; want epoch 4, no vote", s.node.Epoch(), s.store.state)
		}
		// One grant is a majority of three with its own: it stands in epoch 5.
		s.deliver("c2", protocol.VoteResponse{LeaderID: -1, LeaderEpoch: 4, VoteGranted: true, PreVote: true})
		if s.node.Role() != Candidate || s.node.Epoch() != 5 || s.store.state != (QuorumState{LeaderID: -1, LeaderEpoch: 5, VotedID: 1}) {
			t.Fatalf("after the pre-vote: %v epoch %d stored %+v", s.node.Role(), s.node.Epoch(), s.store.state)
		}
		for _, to := range []sim.NodeID{"c2", "c3"} {
			req := lastSent[protocol.VoteRequest](s, to)
			if req.PreVote || req.ReplicaEpoch != 5 || req.LastOffsetEpoch != 4 || req.LastOffset != 3 {
				t.Fatalf("vote to %s: %+v", to, req)
			}
		}
		// A late pre-vote answer does not count toward the vote.
		s.deliver("c3", protocol.VoteResponse{LeaderID: -1, LeaderEpoch: 4, VoteGranted: true, PreVote: true})
		if s.node.Role() != Candidate {
			t.Fatalf("a stale pre-vote grant made it %v", s.node.Role())
		}
		s.deliver("c3", protocol.VoteResponse{LeaderID: -1, LeaderEpoch: 5, VoteGranted: true})
		if s.node.Role() != Leader || s.node.Epoch() != 5 {
			t.Fatalf("after the vote: %v epoch %d", s.node.Role(), s.node.Epoch())
		}
		if e, _ := s.node.Log().Entry(3); e.Epoch != 5 || e.Record.Type != "LeaderChange" {
			t.Fatalf("leader's epoch start: %+v", e)
		}
		for _, to := range []sim.NodeID{"c2", "c3"} {
			if b := lastSent[protocol.BeginQuorumEpochRequest](s, to); b.LeaderID != 1 || b.LeaderEpoch != 5 {
				t.Fatalf("BeginQuorumEpoch to %s: %+v", to, b)
			}
		}
	})
	t.Run("pre-vote refused by a majority: unattached, same epoch", func(t *testing.T) {
		s := newSolo(t, soloOpts{id: 1, voters: voters, seed: 2, preload: preloadState(2, -1, -1, nil)})
		s.advanceUntil(3*time.Second, "prospective", func() bool { return s.node.Role() == Prospective })
		s.deliver("c2", protocol.VoteResponse{LeaderID: -1, LeaderEpoch: 2, PreVote: true})
		if s.node.Role() != Prospective {
			t.Fatalf("one refusal of three: %v", s.node.Role())
		}
		s.deliver("c3", protocol.VoteResponse{LeaderID: -1, LeaderEpoch: 2, PreVote: true})
		if s.node.Role() != Unattached || s.node.Epoch() != 2 || s.node.Status().VotedID != -1 {
			t.Fatalf("two refusals: %v epoch %d", s.node.Role(), s.node.Epoch())
		}
	})
	t.Run("pre-vote unanswered: back to unattached after the election timeout", func(t *testing.T) {
		s := newSolo(t, soloOpts{id: 1, voters: voters, seed: 3, preload: preloadState(2, -1, -1, nil)})
		s.advanceUntil(3*time.Second, "prospective", func() bool { return s.node.Role() == Prospective })
		at := s.clock.Elapsed()
		s.advanceUntil(3*time.Second, "unattached", func() bool { return s.node.Role() == Unattached })
		if d := s.clock.Elapsed() - at; d < time.Second || d > 2*time.Second || s.node.Epoch() != 2 {
			t.Fatalf("prospective for %v, now epoch %d; want 1-2s in epoch 2", d, s.node.Epoch())
		}
	})
	t.Run("pre-vote refused by a voter naming the leader: follows it", func(t *testing.T) {
		s := newSolo(t, soloOpts{id: 1, voters: voters, seed: 4, preload: preloadState(2, -1, -1, nil)})
		s.advanceUntil(3*time.Second, "prospective", func() bool { return s.node.Role() == Prospective })
		s.deliver("c2", protocol.VoteResponse{LeaderID: 3, LeaderEpoch: 2, PreVote: true})
		if s.node.Role() != Follower || s.node.LeaderID() != 3 || s.node.Epoch() != 2 {
			t.Fatalf("%v leader %d epoch %d, want a follower of 3 in epoch 2", s.node.Role(), s.node.LeaderID(), s.node.Epoch())
		}
		if f := lastSent[protocol.QuorumFetchRequest](s, "c3"); f.CurrentLeaderEpoch != 2 {
			t.Fatalf("fetch to the leader: %+v", f)
		}
	})
	t.Run("pre-vote answer in a later epoch: follows that epoch's leader", func(t *testing.T) {
		s := newSolo(t, soloOpts{id: 1, voters: voters, seed: 5, preload: preloadState(2, -1, -1, nil)})
		s.advanceUntil(3*time.Second, "prospective", func() bool { return s.node.Role() == Prospective })
		s.deliver("c2", protocol.VoteResponse{LeaderID: 2, LeaderEpoch: 6, PreVote: true})
		if s.node.Role() != Follower || s.node.LeaderID() != 2 || s.node.Epoch() != 6 {
			t.Fatalf("%v leader %d epoch %d, want a follower of 2 in epoch 6", s.node.Role(), s.node.LeaderID(), s.node.Epoch())
		}
	})
	t.Run("candidate refused waits its whole election timeout, then asks for pre-votes in its epoch", func(t *testing.T) {
		s := newSolo(t, soloOpts{id: 1, voters: voters, seed: 6, preload: preloadState(2, -1, -1, nil)})
		s.advanceUntil(3*time.Second, "prospective", func() bool { return s.node.Role() == Prospective })
		s.deliver("c2", protocol.VoteResponse{LeaderID: -1, LeaderEpoch: 2, VoteGranted: true, PreVote: true})
		if s.node.Role() != Candidate || s.node.Epoch() != 3 {
			t.Fatalf("%v epoch %d", s.node.Role(), s.node.Epoch())
		}
		at := s.clock.Elapsed()
		s.deliver("c2", protocol.VoteResponse{LeaderID: -1, LeaderEpoch: 3})
		s.deliver("c3", protocol.VoteResponse{LeaderID: -1, LeaderEpoch: 3})
		if s.node.Role() != Candidate {
			t.Fatalf("refused by all: %v, want still a candidate", s.node.Role())
		}
		s.inbox = nil
		s.advanceUntil(3*time.Second, "prospective", func() bool { return s.node.Role() == Prospective })
		if d := s.clock.Elapsed() - at; d < time.Second || d > 2*time.Second || s.node.Epoch() != 3 {
			t.Fatalf("candidate for %v, then prospective in epoch %d; want 1-2s, epoch 3", d, s.node.Epoch())
		}
		s.flush()
		if req := lastSent[protocol.VoteRequest](s, "c2"); !req.PreVote || req.ReplicaEpoch != 3 {
			t.Fatalf("after the timeout: %+v, want a pre-vote in epoch 3", req)
		}
	})
	t.Run("candidate restarted stands again in its epoch", func(t *testing.T) {
		// QuorumStateTest.testInitializeAsResignedCandidate / KafkaRaftClientTest.testInitializeAsCandidateFromStateStore.
		s := newSolo(t, soloOpts{id: 1, voters: voters, seed: 7, preload: preloadState(3, -1, 1, nil)})
		if s.node.Role() != Candidate || s.node.Epoch() != 3 {
			t.Fatalf("%v epoch %d, want a candidate in epoch 3", s.node.Role(), s.node.Epoch())
		}
		if req := lastSent[protocol.VoteRequest](s, "c2"); req.PreVote || req.ReplicaEpoch != 3 {
			t.Fatalf("%+v", req)
		}
	})
	t.Run("candidate restarted knowing the leader follows it", func(t *testing.T) {
		// KafkaRaftClientTest.testInitializeAsCandidateFromStateStore with
		// testHandleBeginQuorumRequest: it stood in epoch 3 (voted for
		// itself), then followed c2, the epoch's leader, and crashed. Kafka
		// restarts it as a candidate, which knows no leader: c2's
		// BeginQuorumEpoch makes it a follower again at once.
		s := newSolo(t, soloOpts{id: 1, voters: voters, seed: 7, preload: preloadState(3, 2, 1, nil)})
		if st := s.node.Status(); st.Role != Candidate || st.Epoch != 3 || st.LeaderID != -1 || st.VotedID != 1 {
			t.Fatalf("%v epoch %d leader %d voted %d, want a candidate in epoch 3 knowing no leader", st.Role, st.Epoch, st.LeaderID, st.VotedID)
		}
		s.inbox = nil
		s.deliver("c2", protocol.BeginQuorumEpochRequest{ClusterID: "loglab", LeaderID: 2, LeaderEpoch: 3, VoterID: 1})
		if st := s.node.Status(); st.Role != Follower || st.Epoch != 3 || st.LeaderID != 2 || st.VotedID != 1 {
			t.Fatalf("after BeginQuorumEpoch: %v epoch %d leader %d voted %d, want a follower of 2", st.Role, st.Epoch, st.LeaderID, st.VotedID)
		}
		if f := lastSent[protocol.QuorumFetchRequest](s, "c2"); f.CurrentLeaderEpoch != 3 {
			t.Fatalf("fetch %+v", f)
		}
	})
	t.Run("leader restarted is resigned", func(t *testing.T) {
		// QuorumStateTest.testInitializeAsResignedLeader / KafkaRaftClientTest.testInitializeAsResignedLeaderFromStateStore.
		s := newSolo(t, soloOpts{id: 1, voters: voters, seed: 8, preload: preloadState(3, 1, 1, preloadLog(1, 3))})
		if s.node.Role() != Resigned || s.node.Epoch() != 3 || s.node.Ready() {
			t.Fatalf("%v epoch %d", s.node.Role(), s.node.Epoch())
		}
		if _, err := s.node.Append(records(1, "x")); err != ErrNotLeader {
			t.Fatalf("append on a resigned leader: %v", err)
		}
		// testRejectVotesFromSameEpochAfterResigningLeadership.
		s.deliver("c2", protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 3, CandidateID: 2, VoterID: 1, LastOffsetEpoch: 3, LastOffset: 2})
		if r := lastSent[protocol.VoteResponse](s, "c2"); r.VoteGranted {
			t.Fatalf("resigned leader granted a vote in its epoch")
		}
		// testGrantVotesFromHigherEpochAfterResigningLeadership.
		s.deliver("c2", protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 4, CandidateID: 2, VoterID: 1, LastOffsetEpoch: 3, LastOffset: 2})
		if r := lastSent[protocol.VoteResponse](s, "c2"); !r.VoteGranted || s.node.Epoch() != 4 || s.node.Status().VotedID != 2 {
			t.Fatalf("vote in epoch 4: %+v, node epoch %d", r, s.node.Epoch())
		}
		s.advance(3 * time.Second) // the resigned timer of epoch 3 must not fire now
		if s.node.Epoch() != 4 {
			t.Fatalf("epoch %d after the stale timer", s.node.Epoch())
		}
	})
}

func voterNode2ID(addr sim.NodeID) int32 {
	var id int32
	fmt.Sscanf(string(addr), "c%d", &id)
	return id
}

// Mirrors KafkaRaftClientPreVoteTest.testHandlePreVoteRequestAsFollower,
// FollowerStateTest.testPreVoteIfHasNotFetchedFromLeaderYet and
// testPreVoteAfterSuccessfulFetchFromLeader,
// KafkaRaftClientPreVoteTest.testFollowerGrantsPreVoteIfHasNotFetchedYet:
// a follower refuses pre-votes once it has fetched from its leader.
func TestPreVoteRefusedWhileLeaderKnown(t *testing.T) {
	t.Run("cluster follower refuses a pre-vote sent by hand", func(t *testing.T) {
		c := newCluster(t, clusterOpts{voters: 3, seed: 21})
		var answers []protocol.VoteResponse
		c.net.Attach("x9", func(env *sim.Envelope) {
			if r, ok := env.Msg.(protocol.VoteResponse); ok {
				answers = append(answers, r)
			}
		})
		l := c.waitLeader(10 * time.Second)
		c.run(time.Second)
		var f *member
		for _, m := range c.ms {
			if m != l {
				f = m
				break
			}
		}
		if f.node.Role() != Follower || f.node.fetching == nil || !f.node.fetching.fetchedFromLeader {
			t.Fatalf("%s has not fetched from its leader\n%s", f.addr, c.describe())
		}
		epoch := f.node.Epoch()
		other := int32(6) - l.id - f.id
		c.net.Send("x9", f.addr, protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: epoch, CandidateID: other, VoterID: f.id,
			LastOffsetEpoch: f.node.Log().LastEpoch(), LastOffset: f.node.Log().EndOffset() + 10, PreVote: true})
		c.run(10 * time.Millisecond)
		want := protocol.VoteResponse{LeaderID: l.id, LeaderEpoch: epoch, VoteGranted: false, PreVote: true}
		if len(answers) != 1 || answers[0] != want {
			t.Fatalf("answers %+v, want %+v", answers, want)
		}
		if f.node.Role() != Follower || f.node.Epoch() != epoch || f.node.LeaderID() != l.id {
			t.Fatalf("after the pre-vote: %v epoch %d leader %d", f.node.Role(), f.node.Epoch(), f.node.LeaderID())
		}
		c.checkInvariants()
	})
	t.Run("follower grants a pre-vote until its first fetch succeeds", func(t *testing.T) {
		s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: preloadState(1, -1, -1, nil)})
		s.inbox = nil // the unattached voter's fetches, asking for the leader
		s.deliver("c2", protocol.BeginQuorumEpochRequest{ClusterID: "loglab", LeaderID: 2, LeaderEpoch: 2, VoterID: 1})
		if s.node.Role() != Follower || s.node.Epoch() != 2 || s.node.LeaderID() != 2 {
			t.Fatalf("after BeginQuorumEpoch: %v epoch %d leader %d", s.node.Role(), s.node.Epoch(), s.node.LeaderID())
		}
		if r := lastSent[protocol.BeginQuorumEpochResponse](s, "c2"); r.Error != protocol.None || r.LeaderID != 2 || r.LeaderEpoch != 2 {
			t.Fatalf("BeginQuorumEpochResponse %+v", r)
		}
		if f := lastSent[protocol.QuorumFetchRequest](s, "c2"); f.CurrentLeaderEpoch != 2 || f.FetchOffset != 0 || f.ReplicaID != 1 {
			t.Fatalf("first fetch %+v", f)
		}
		preVote := protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 2, CandidateID: 3, VoterID: 1, LastOffsetEpoch: 0, LastOffset: 0, PreVote: true}
		s.deliver("c3", preVote)
		if r := lastSent[protocol.VoteResponse](s, "c3"); !r.VoteGranted || !r.PreVote || r.LeaderID != 2 {
			t.Fatalf("before any fetch: %+v, want the pre-vote granted", r)
		}
		// A standard vote in the leader's epoch is refused whatever
		// (testHandleVoteRequestAsFollowerWithElectedLeader).
		s.deliver("c3", protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 2, CandidateID: 3, VoterID: 1, LastOffsetEpoch: 1, LastOffset: 5})
		if r := lastSent[protocol.VoteResponse](s, "c3"); r.VoteGranted || s.node.Status().VotedID != -1 {
			t.Fatalf("standard vote in the leader's epoch: %+v", r)
		}
		s.deliver("c2", protocol.QuorumFetchResponse{LeaderID: 2, LeaderEpoch: 2, HighWatermark: 0, LogStart: 0})
		s.deliver("c3", preVote)
		if r := lastSent[protocol.VoteResponse](s, "c3"); r.VoteGranted || r.LeaderID != 2 || r.LeaderEpoch != 2 {
			t.Fatalf("after a fetch: %+v, want the pre-vote refused naming leader 2", r)
		}
		if s.node.Role() != Follower || s.node.Epoch() != 2 {
			t.Fatalf("%v epoch %d", s.node.Role(), s.node.Epoch())
		}
		// A pre-vote in a later epoch moves it there (unattached), as Kafka's
		// handleVoteRequest does, and is granted (up-to-date log).
		s.deliver("c3", protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 3, CandidateID: 3, VoterID: 1, PreVote: true})
		if r := lastSent[protocol.VoteResponse](s, "c3"); !r.VoteGranted || s.node.Epoch() != 3 || s.node.Role() != Unattached || s.node.Status().VotedID != -1 {
			t.Fatalf("pre-vote in epoch 3: %+v; node %v epoch %d", r, s.node.Role(), s.node.Epoch())
		}
	})
	t.Run("isolated follower healed does not disturb the leader", func(t *testing.T) {
		// RaftEventSimulationTest.leadershipWillNotChangeDuringNetworkPartitionIfMajorityStillReachable.
		c := newCluster(t, clusterOpts{voters: 3, seed: 33})
		l := c.waitLeader(10 * time.Second)
		c.appendOn(l, 3, "before")
		c.must(2*time.Second, "converged", c.converged)
		epoch := l.node.Epoch()
		var f *member
		for _, m := range c.ms {
			if m != l {
				f = m
			}
		}
		mark := len(c.transitions)
		c.isolate(f.addr)
		c.run(20 * time.Second)
		c.appendOn(l, 2, "during")
		sawProspective := false
		for _, tr := range c.transitions[mark:] {
			if tr.Node != f.addr || tr.Epoch != epoch || tr.Role == Candidate || tr.Role == Leader {
				t.Fatalf("isolated %s went %v in epoch %d at %v", f.addr, tr.Role, tr.Epoch, tr.At)
			}
			sawProspective = sawProspective || tr.Role == Prospective
		}
		if !sawProspective {
			t.Fatalf("isolated %s never asked for pre-votes", f.addr)
		}
		c.recordMsgs = true
		c.heal()
		c.must(10*time.Second, "converged after heal", c.converged)
		c.run(10 * time.Second)
		if c.leader() != l || l.node.Epoch() != epoch || f.node.Role() != Follower || f.node.Epoch() != epoch || f.node.LeaderID() != l.id {
			t.Fatalf("after heal: leader %v epoch %d, %s %v in %d\n%s", c.leader(), l.node.Epoch(), f.addr, f.node.Role(), f.node.Epoch(), c.describe())
		}
		for _, tr := range c.transitions[mark:] {
			if tr.Node != f.addr {
				t.Fatalf("%s went %v in epoch %d at %v", tr.Node, tr.Role, tr.Epoch, tr.At)
			}
		}
		for _, env := range c.msgs {
			if v, ok := env.Msg.(protocol.VoteRequest); ok && !v.PreVote {
				t.Fatalf("a standard vote after the heal: %+v", v)
			}
		}
		c.checkInvariants()
	})
}

// Mirrors KafkaRaftClientTest.testHandleVoteRequestAsFollower... /
// testHandleValidVoteRequestAsFollower, QuorumStateTest's canGrantVote
// cases and KafkaRaftClientPreVoteTest.testRejectPreVoteIfRemoteLogIsNotUpToDate:
// the vote's safety rule, a candidate's log must be at least the voter's
// (last epoch, then end offset).
func TestVoteRefusedToShorterLog(t *testing.T) {
	// The voter c1: offsets 0-2 in epoch 1, 3-4 in epoch 2 (end 5, last
	// epoch 2), unattached in epoch 2 with no vote.
	mine := preloadState(2, -1, -1, preloadLog(epochs(1, 3, 2, 2)...))
	rows := []struct {
		name      string
		lastEpoch int32
		lastOff   int64
		pre       bool
		granted   bool
	}{
		{"older last epoch, longer log", 1, 10, false, false},
		{"same last epoch, shorter log", 2, 4, false, false},
		{"same last epoch, same length", 2, 5, false, true},
		{"same last epoch, longer log", 2, 6, false, true},
		{"later last epoch, shorter log", 3, 1, false, true},
		{"empty log", 0, 0, false, false},
		{"pre-vote: older last epoch", 1, 10, true, false},
		{"pre-vote: same epoch, shorter", 2, 4, true, false},
		{"pre-vote: same epoch, same length", 2, 5, true, true},
		{"pre-vote: later epoch", 3, 1, true, true},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: mine})
			s.inbox = nil
			s.deliver("c2", protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 4, CandidateID: 2, VoterID: 1, LastOffsetEpoch: r.lastEpoch, LastOffset: r.lastOff, PreVote: r.pre})
			got := lastSent[protocol.VoteResponse](s, "c2")
			want := protocol.VoteResponse{LeaderID: -1, LeaderEpoch: 4, VoteGranted: r.granted, PreVote: r.pre}
			if got != want {
				t.Fatalf("answer %+v, want %+v", got, want)
			}
			// The request's later epoch moves the voter there, granted or not.
			voted := int32(-1)
			if r.granted && !r.pre {
				voted = 2
			}
			st := s.node.Status()
			if st.Role != Unattached || st.Epoch != 4 || st.VotedID != voted || s.store.state != (QuorumState{LeaderID: -1, LeaderEpoch: 4, VotedID: voted}) {
				t.Fatalf("voter: %v epoch %d voted %d stored %+v; want unattached in 4, voted %d", st.Role, st.Epoch, st.VotedID, s.store.state, voted)
			}
		})
	}
	t.Run("one vote per epoch", func(t *testing.T) {
		s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3, 4, 5}, seed: 1, preload: mine})
		s.inbox = nil
		vote := func(from int32, lastEpoch int32, lastOff int64) bool {
			s.deliver(voterNode(from), protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 4, CandidateID: from, VoterID: 1, LastOffsetEpoch: lastEpoch, LastOffset: lastOff})
			return lastSent[protocol.VoteResponse](s, voterNode(from)).VoteGranted
		}
		// Two candidates with shorter logs are both refused in epoch 4: no
		// vote is spent.
		if vote(2, 2, 4) || vote(3, 1, 9) || s.node.Status().VotedID != -1 {
			t.Fatalf("a shorter log got the vote (voted %d)", s.node.Status().VotedID)
		}
		if !vote(4, 2, 5) || s.node.Status().VotedID != 4 {
			t.Fatalf("the up-to-date candidate was refused")
		}
		// Then a second up-to-date candidate is refused in the same epoch,
		// the first one granted again.
		if vote(5, 3, 9) || vote(2, 2, 7) || !vote(4, 2, 5) || s.node.Status().VotedID != 4 || s.store.state.VotedID != 4 {
			t.Fatalf("voted twice in epoch 4 (voted %d)", s.node.Status().VotedID)
		}
		// Restarted, it still refuses (the vote is durable).
		s.node.Crash()
		if err := s.node.Start(); err != nil {
			t.Fatal(err)
		}
		s.inbox = nil
		if vote(5, 3, 9) || s.node.Status().VotedID != 4 || s.node.Epoch() != 4 {
			t.Fatalf("after a restart it voted again")
		}
	})
	t.Run("invalid and fenced requests", func(t *testing.T) {
		// testHandleInvalidVoteRequestWithOlderEpoch, testVoteRequestClusterIdValidation,
		// testInvalidVoterReplicaVoteRequest, testInvalidVoteRequest.
		for _, r := range []struct {
			name string
			req  protocol.VoteRequest
			code protocol.ErrorCode
		}{
			{"older epoch", protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 1, CandidateID: 2, VoterID: 1, LastOffsetEpoch: 0, LastOffset: 9}, protocol.FencedLeaderEpoch},
			{"other cluster", protocol.VoteRequest{ClusterID: "other", ReplicaEpoch: 4, CandidateID: 2, VoterID: 1, LastOffsetEpoch: 2, LastOffset: 9}, protocol.InconsistentClusterID},
			{"another voter's request", protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 4, CandidateID: 2, VoterID: 3, LastOffsetEpoch: 2, LastOffset: 9}, protocol.InconsistentVoterSet},
			{"negative offset", protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 4, CandidateID: 2, VoterID: 1, LastOffsetEpoch: 2, LastOffset: -1}, protocol.InvalidRequest},
			{"last epoch not below the candidate's", protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 4, CandidateID: 2, VoterID: 1, LastOffsetEpoch: 4, LastOffset: 9}, protocol.InvalidRequest},
			{"pre-vote last epoch above the candidate's", protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 4, CandidateID: 2, VoterID: 1, LastOffsetEpoch: 5, LastOffset: 9, PreVote: true}, protocol.InvalidRequest},
		} {
			t.Run(r.name, func(t *testing.T) {
				s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: mine})
				s.inbox = nil
				s.deliver("c2", r.req)
				got := lastSent[protocol.VoteResponse](s, "c2")
				if got.Error != r.code || got.VoteGranted || s.node.Status().VotedID != -1 {
					t.Fatalf("answer %+v, want %v", got, r.code)
				}
			})
		}
	})
	t.Run("leader and candidate in their epoch", func(t *testing.T) {
		// testLeaderIgnoreVoteRequestOnSameEpoch, testLeaderRejectPreVoteRequestOnSameEpoch,
		// testCandidateIgnoreVoteRequestOnSameEpoch, testHandlePreVoteRequestAsCandidate.
		s := newSolo(t, soloOpts{id: 1, voters: []int32{1, 2, 3}, seed: 1, preload: preloadState(2, -1, -1, nil)})
		s.advanceUntil(3*time.Second, "prospective", func() bool { return s.node.Role() == Prospective })
		s.deliver("c2", protocol.VoteResponse{LeaderID: -1, LeaderEpoch: 2, VoteGranted: true, PreVote: true})
		s.inbox = nil
		s.deliver("c3", protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 3, CandidateID: 3, VoterID: 1, LastOffsetEpoch: 2, LastOffset: 9})
		if r := lastSent[protocol.VoteResponse](s, "c3"); r.VoteGranted || s.node.Role() != Candidate || s.node.Status().VotedID != 1 {
			t.Fatalf("candidate's answer to a vote: %+v", r)
		}
		s.deliver("c3", protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 3, CandidateID: 3, VoterID: 1, LastOffsetEpoch: 2, LastOffset: 9, PreVote: true})
		if r := lastSent[protocol.VoteResponse](s, "c3"); !r.VoteGranted || s.node.Role() != Candidate {
			t.Fatalf("candidate's answer to a pre-vote: %+v", r)
		}
		s.deliver("c2", protocol.VoteResponse{LeaderID: -1, LeaderEpoch: 3, VoteGranted: true})
		if s.node.Role() != Leader {
			t.Fatalf("%v", s.node.Role())
		}
		s.inbox = nil
		for _, pre := range []bool{false, true} {
			s.deliver("c3", protocol.VoteRequest{ClusterID: "loglab", ReplicaEpoch: 3, CandidateID: 3, VoterID: 1, LastOffsetEpoch: 2, LastOffset: 9, PreVote: pre})
			if r := lastSent[protocol.VoteResponse](s, "c3"); r.VoteGranted || r.LeaderID != 1 || r.LeaderEpoch != 3 || s.node.Role() != Leader {
				t.Fatalf("leader's answer (pre-vote %v): %+v", pre, r)
			}
		}
	})
	t.Run("in a cluster the voter with the longer log wins", func(t *testing.T) {
		// RaftEventSimulationTest.canElectNewLeaderAfterOldLeaderFailure with a lagging voter.
		c := newCluster(t, clusterOpts{voters: 3, seed: 13})
		l := c.waitLeader(10 * time.Second)
		c.must(2*time.Second, "converged", c.converged)
		var lag, other *member
		for _, m := range c.ms {
			if m != l {
				if lag == nil {
					lag = m
				} else {
					other = m
				}
			}
		}
		c.crash(lag.addr)
		c.appendOn(l, 4, "while-lag-down")
		c.must(2*time.Second, "committed without the lagging voter", func() bool { return other.node.HighWatermark() == 5 })
		c.crash(l.addr)
		c.start(lag.addr)
		nl := c.waitLeader(20 * time.Second)
		if nl != other {
			t.Fatalf("new leader %s, want %s (the longer log)\n%s", nl.addr, other.addr, c.describe())
		}
		for _, tr := range c.roleHistory(lag.addr) {
			if tr.Role == Leader {
				t.Fatalf("the lagging voter led epoch %d", tr.Epoch)
			}
		}
		c.must(5*time.Second, "converged", c.converged)
		c.checkInvariants()
	})
}
