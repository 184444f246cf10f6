package raft

import (
	"errors"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/storage"
)

// Reproduction 3 of issue 26, the controllers' half: a voter whose disk
// is full when it must write its vote. It used to log the failure and
// send the vote all the same, so after a restart it could vote again in
// the same epoch for another candidate (two leaders in one epoch). Kafka's
// fault handler stops the process instead; the node halts, sends no vote,
// tells its owner once, and after space returns starts from what its
// files hold: no vote in that epoch.
func TestAVoterWhoseDiskIsFullHaltsInsteadOfVoting(t *testing.T) {
	disk := storage.NewFaulty(storage.NewMem())
	sched := sim.NewScheduler(&sim.Clock{})
	net := sim.NewNetwork(sched)
	var sent []sim.Message
	net.Attach("c2", func(env *sim.Envelope) { sent = append(sent, env.Msg) })
	net.Attach("c3", func(env *sim.Envelope) {})
	var events []string
	start := func() *Node {
		store := fsOpen(t, disk)
		n := NewNode(DefaultConfig(1, "c1", []int32{1, 2, 3}, fsVoterNode), net, sched, sim.NewRand(7), store, &fsListener{},
			func(e string) { events = append(events, e) })
		net.Attach("c1", func(env *sim.Envelope) { n.Handle(env) })
		fsMust(t, n.Start())
		return n
	}
	n := start()
	var halts []error
	n.SetOnHalt(func(err error) { halts = append(halts, err) })
	epoch, clusterID := n.Epoch(), n.cfg.ClusterID

	// Room for one more quorum-state of the same length: the new epoch
	// is written, the vote that follows it is not.
	before, err := storage.ReadFile(disk, "ctl1/quorum-state")
	fsMust(t, err)
	disk.FillAfter(int64(len(before)))
	n.Handle(&sim.Envelope{From: "c2", To: "c1", Msg: protocol.VoteRequest{ClusterID: clusterID, ReplicaEpoch: epoch + 1, CandidateID: 2, VoterID: 1, LastOffset: 0}})
	sched.RunUntil(sched.Clock.Elapsed()+sim.DefaultLatency*4, 1000)

	for _, m := range sent {
		if v, ok := m.(protocol.VoteResponse); ok && v.VoteGranted {
			t.Fatalf("the voter granted a vote it could not write: %+v", v)
		}
	}
	if n.Up() || !errors.Is(n.Halted(), storage.ErrNoSpace) {
		t.Fatalf("up %v, halted %v: want the node stopped by ENOSPC", n.Up(), n.Halted())
	}
	if len(halts) != 1 || !errors.Is(halts[0], storage.ErrNoSpace) {
		t.Fatalf("the owner heard %v, want one ENOSPC", halts)
	}
	text := strings.Join(events, "\n")
	if !strings.Contains(text, "c1: Unexpected error in raft IO thread: quorum-state: write ctl1/quorum-state.tmp: no space left on device") {
		t.Errorf("the events do not name the file and the error:\n%s", text)
	}

	// Space freed, restarted: the vote was never made.
	n.Close()
	disk.Free()
	n = start()
	if n.Halted() != nil || !n.Up() {
		t.Fatalf("restarted node: up %v, halted %v", n.Up(), n.Halted())
	}
	st, _, _ := fsLoad(t, fsOpen(t, disk))
	if st.LeaderEpoch != epoch+1 || st.VotedID != -1 {
		t.Errorf("quorum-state %+v, want epoch %d written and no vote in it", st, epoch+1)
	}
}
