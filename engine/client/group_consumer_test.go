package client

import (
	"slices"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/sim"
)

func kip848(cfg *ConsumerConfig) { cfg.GroupProtocol = GroupProtocolConsumer }

// KIP-848: the second member gets its partitions only after the first
// revoked them (committing first), so no partition has two owners and the
// new owner starts exactly where the old one stopped.
func TestConsumerProtocolRevokesBeforeTheNewOwnerGetsPartitions(t *testing.T) {
	f := newGroupTest(t, 4)
	for p := range 4 {
		f.produce(p, 5)
	}
	c1 := f.newConsumer("c1", kip848)
	f.run(10*time.Second, c1)
	assertAssigned(t, c1, 0, 1, 2, 3)
	if len(c1.MemberID()) != 22 || c1.Generation() < 1 || c1.Phase() != "stable" {
		t.Fatalf("member %q epoch %d phase %s", c1.MemberID(), c1.Generation(), c1.Phase())
	}

	c2 := f.newConsumer("c2", kip848)
	seen := map[*Consumer][]ConsumedRecord{}
	for range 100 {
		got := f.run(100*time.Millisecond, c1, c2)
		seen[c1] = append(seen[c1], got[c1]...)
		seen[c2] = append(seen[c2], got[c2]...)
		for _, tp := range c2.Assignment() {
			if slices.Contains(c1.Assignment(), tp) {
				t.Fatalf("%s/%d owned by both members", tp.Topic, tp.Partition)
			}
		}
	}
	if len(c1.Assignment()) != 2 || len(c2.Assignment()) != 2 {
		t.Fatalf("c1 %s c2 %s", partitionNames(c1.Assignment()), partitionNames(c2.Assignment()))
	}
	if len(seen[c2]) != 0 {
		t.Fatalf("c2 read %d records: it should start at c1's commits (the log end)", len(seen[c2]))
	}
	log := c1.RebalanceLog()
	last := log[len(log)-1]
	if !slices.Equal(last.Revoked, c2.Assignment()) || last.StoppedFrom >= 0 {
		t.Fatalf("c1's reconciliation %+v: want %s revoked, consuming the rest throughout", last, partitionNames(c2.Assignment()))
	}
	for _, tp := range c2.Assignment() {
		if off, ok := c1.Committed(tp); !ok || off != 5 {
			t.Fatalf("%s/%d committed %d before revocation, want 5", tp.Topic, tp.Partition, off)
		}
	}
}

// A member whose heartbeats were lost past the session timeout is
// expired by the coordinator; its next heartbeat is refused
// (UNKNOWN_MEMBER_ID, handled as FENCED_MEMBER_EPOCH): it loses its
// partitions without committing and rejoins at epoch 0 with the same id.
func TestConsumerProtocolFencedMemberRejoinsAtEpochZero(t *testing.T) {
	f := newGroupTest(t, 2)
	c1 := f.newConsumer("c1", kip848)
	f.run(10*time.Second, c1)
	id := c1.MemberID()
	f.net.Drop(sim.DropRule{From: "c1", Kind: "ConsumerGroupHeartbeat", Remaining: -1})
	f.run(50*time.Second, c1)
	if len(f.kip848.Members()) != 0 {
		t.Fatal("the coordinator did not expire the silent member")
	}
	f.net.Heal()
	lost := false
	// The heartbeat lost last is noticed after request.timeout.ms (30 s).
	for range 400 {
		f.run(100*time.Millisecond, c1)
		if e := c1.RebalanceLog(); len(e) > 0 && e[len(e)-1].Lost {
			lost = true
		}
	}
	if !lost {
		t.Fatal("no rebalance entry records the lost partitions")
	}
	if c1.MemberID() != id || len(c1.Assignment()) != 2 {
		t.Fatalf("rejoined as %s (was %s) with %s", c1.MemberID(), id, partitionNames(c1.Assignment()))
	}
}

// KIP-848 poll timer: a member that does not poll within
// max.poll.interval.ms leaves (epoch -1), its partitions lost, and the
// other member takes them; its next poll rejoins at epoch 0.
func TestConsumerProtocolPollTimeoutLeavesAndRejoinsOnNextPoll(t *testing.T) {
	f := newGroupTest(t, 2)
	c1 := f.newConsumer("c1", func(cfg *ConsumerConfig) { kip848(cfg); cfg.MaxPollInterval = 20 * time.Second })
	c2 := f.newConsumer("c2", kip848)
	f.run(20*time.Second, c1, c2)
	if len(c1.Assignment()) != 1 || len(c2.Assignment()) != 1 {
		t.Fatalf("c1 %s c2 %s", partitionNames(c1.Assignment()), partitionNames(c2.Assignment()))
	}
	f.run(30*time.Second, c2)
	if c1.Phase() != "stale" || len(c1.Assignment()) != 0 || !slices.Contains(f.epochs, leaveEpoch) {
		t.Fatalf("c1 phase %s assigned %s; leave heartbeat sent: %v", c1.Phase(), partitionNames(c1.Assignment()), slices.Contains(f.epochs, leaveEpoch))
	}
	assertAssigned(t, c2, 0, 1)
	n := len(f.epochs)
	f.run(20*time.Second, c1, c2)
	if !slices.Contains(f.epochs[n:], joinEpoch) || len(c1.Assignment()) != 1 {
		t.Fatalf("c1 after polling again: phase %s assigned %s", c1.Phase(), partitionNames(c1.Assignment()))
	}
}

// Close: a dynamic KIP-848 member commits, then leaves with epoch -1 and
// its partitions go to the other member; a static one leaves with -2.
func TestConsumerProtocolCloseLeaves(t *testing.T) {
	f := newGroupTest(t, 2)
	c1 := f.newConsumer("c1", kip848)
	c2 := f.newConsumer("c2", func(cfg *ConsumerConfig) { kip848(cfg); cfg.GroupInstanceID = "i2" })
	f.run(20*time.Second, c1, c2)
	cl := c1.Close()
	f.run(20*time.Second, c2)
	if !cl.Done || !slices.Contains(f.epochs, leaveEpoch) || c1.Phase() != "closed" {
		t.Fatalf("close: done %v phase %s; -1 sent %v", cl.Done, c1.Phase(), slices.Contains(f.epochs, leaveEpoch))
	}
	assertAssigned(t, c2, 0, 1)
	c2.Close()
	f.run(time.Second)
	if !slices.Contains(f.epochs, leaveStaticEpoch) {
		t.Fatal("a static member must leave with epoch -2")
	}
}

// With auto-commit a KIP-848 member reconciles only inside the
// application's poll: a member that does not poll keeps a partition the
// coordinator wants to move, and PollGroup (the application waiting in
// poll) lets it go without handing out records.
func TestConsumerProtocolReconcilesOnlyInPollWithAutoCommit(t *testing.T) {
	f := newGroupTest(t, 2)
	f.produce(0, 2)
	f.produce(1, 2)
	c1 := f.newConsumer("c1", kip848)
	f.run(10*time.Second, c1)
	assertAssigned(t, c1, 0, 1)
	c2 := f.newConsumer("c2", kip848)
	f.run(20*time.Second, c2) // c1 does not poll: it heartbeats but keeps both
	assertAssigned(t, c1, 0, 1)
	if c1.Phase() != "reconciling" || len(c2.Assignment()) != 0 {
		t.Fatalf("c1 %s, c2 assigned %s", c1.Phase(), partitionNames(c2.Assignment()))
	}
	buffered := c1.Buffered()
	for range 100 {
		if err := c1.PollGroup(); err != nil {
			t.Fatal(err)
		}
		f.run(100*time.Millisecond, c2)
	}
	if len(c1.Assignment()) != 1 || len(c2.Assignment()) != 1 || c1.Buffered() > buffered {
		t.Fatalf("after PollGroup: c1 %s c2 %s", partitionNames(c1.Assignment()), partitionNames(c2.Assignment()))
	}
}
