package main

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/lab"
)

func TestSessionRunsCommandsAndRendersTheView(t *testing.T) {
	s := newSession()
	for _, line := range strings.Split(lab.StarterScript, "\n") {
		if r := s.run(line); !r.OK {
			t.Fatalf("starter command %q failed: %s", line, r.Output)
		}
	}
	r := s.run("produce orders key=a value=hello partition=2")
	if !r.OK || r.Output != "produced to orders/2 at offset 0 (acks=all)" {
		t.Fatalf("produce gave ok=%v %q", r.OK, r.Output)
	}
	if !strings.Contains(r.View, `data-partition="orders/2"`) || !strings.Contains(r.View, "hello") {
		t.Fatalf("the rendered view does not show the new record:\n%s", r.View)
	}
	if !strings.Contains(r.Entry, "produce orders key=a value=hello partition=2") || !strings.Contains(r.Entry, "offset 0") {
		t.Fatalf("the transcript entry does not show the command and its output:\n%s", r.Entry)
	}
}

func TestSessionReportsErrorsAndStillRenders(t *testing.T) {
	r := newSession().run("produce orders value=1")
	if r.OK || !strings.HasPrefix(r.Output, "error: produce: there is no cluster yet") {
		t.Fatalf("got ok=%v %q, want the no-cluster error", r.OK, r.Output)
	}
	if !strings.Contains(r.View, `id="cluster-view"`) {
		t.Fatalf("a failed command left no view to show:\n%s", r.View)
	}
}

// A long simulation must give the event loop turns: in WASM goroutines
// run only when the running one blocks, and timers (raft's heartbeats,
// the page's own work) fire only when the module returns to JavaScript.
// Without the pacer, the ticker below cannot fire until the simulation
// ends. (Whether raft then keeps its leader also depends on how busy the
// machine is, so that is not asserted.)
func TestLongSimulationLetsTimersFire(t *testing.T) {
	s := newSession()
	defer s.lab.Close()
	for _, line := range strings.Split(lab.StarterScript, "\n") {
		if r := s.run(line); !r.OK {
			t.Fatalf("starter command %q failed: %s", line, r.Output)
		}
	}
	var fired atomic.Int64
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				fired.Add(1)
			}
		}
	}()
	if r := s.run("produce orders value=v{i} count=3000"); !r.OK {
		t.Fatal(r.Output)
	}
	if r := s.run("tick 2h"); !r.OK {
		t.Fatal(r.Output)
	}
	during := fired.Load()
	close(stop)
	if during == 0 {
		t.Fatal("no timer fired while two hours of virtual time ran: the simulation held the thread")
	}
	if after := s.run("show quorum"); !after.OK || !strings.Contains(after.Output, "is active") {
		t.Fatalf("no active controller after the simulation:\n%s", after.Output)
	}
}

// Raft elects another leader on its own between commands: followQuorum
// hands it back and returns a view in which raft and the simulation
// agree; with nothing to follow it returns nothing.
func TestSessionFollowsAnElectionRaftHeldOnItsOwn(t *testing.T) {
	s := newSession()
	if r := s.run("cluster brokers=1 controllers=3"); !r.OK {
		t.Fatal(r.Output)
	}
	t.Cleanup(func() { s.lab.Close() })
	if v := s.followQuorum(); v != "" {
		t.Fatal("a view for a quorum that agrees with the cluster")
	}
	c := s.lab.Cluster()
	if err := c.RaftHiccup(); err != nil {
		t.Fatal(err)
	}
	if !c.QuorumDrifted() {
		t.Fatal("the hiccup left raft's leader in place: the test proves nothing")
	}
	v := s.followQuorum()
	if !strings.Contains(v, `id="quorum"`) || strings.Contains(v, `id="raft-drift"`) || c.QuorumDrifted() {
		t.Fatalf("after followQuorum: drifted %v, view %.200s", c.QuorumDrifted(), v)
	}
}
