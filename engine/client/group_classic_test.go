package client

import (
	"errors"
	"github.com/loglab/loglab/engine/group/classic"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	"slices"
	"testing"
	"time"
)

func assertAssigned(t *testing.T, c *Consumer, want ...int) {
	t.Helper()
	if got := c.Assignment(); !slices.Equal(got, tps(want...)) {
		t.Fatalf("%s assigned %s, want %s", c.ID, partitionNames(got), partitionNames(tps(want...)))
	}
}

// Two members of an eager (range) group split four partitions; a third
// joins and every member revokes everything before the new assignment
// (ConsumerCoordinator.onJoinPrepare under EAGER).
func TestEagerGroupSplitsThenEveryoneRevokesForANewMember(t *testing.T) {
	f := newGroupTest(t, 4)
	for p := range 4 {
		f.produce(p, 3)
	}
	c1 := f.newConsumer("c1", nil)
	c2 := f.newConsumer("c2", nil)
	got := f.run(10*time.Second, c1, c2)
	assertAssigned(t, c1, 0, 1)
	assertAssigned(t, c2, 2, 3)
	if c1.Phase() != "stable" || c2.Phase() != "stable" || c1.Generation() != c2.Generation() {
		t.Fatalf("phases %s/%s generations %d/%d", c1.Phase(), c2.Phase(), c1.Generation(), c2.Generation())
	}
	if len(got[c1]) != 6 || len(got[c2]) != 6 {
		t.Fatalf("c1 read %d records, c2 %d; want 6 each (from the earliest offset, nothing committed)", len(got[c1]), len(got[c2]))
	}
	gen := c1.Generation()

	c3 := f.newConsumer("c3", nil)
	f.run(10*time.Second, c1, c2, c3)
	assertAssigned(t, c1, 0, 1)
	assertAssigned(t, c2, 2)
	assertAssigned(t, c3, 3)
	if c1.Generation() != gen+1 || c3.Generation() != gen+1 {
		t.Fatalf("generations %d, %d after the join; want %d", c1.Generation(), c3.Generation(), gen+1)
	}
	for _, c := range []*Consumer{c1, c2} {
		log := c.RebalanceLog()
		last := log[len(log)-1]
		if len(last.Revoked) != 2 || last.StoppedFrom < 0 || last.StoppedTo < last.StoppedFrom || last.End < 0 {
			t.Fatalf("%s: last rebalance %+v: want everything revoked and a stop interval (eager)", c.ID, last)
		}
	}
	// c1 kept orders/0 and orders/1 but revoked them and read them again
	// from the offsets auto-committed before the rebalance: no duplicates.
	if off, ok := c1.Committed(tps(0)[0]); !ok || off != 3 {
		t.Fatalf("orders/0 committed %d (%v), want 3 from the auto-commit before rebalancing", off, ok)
	}
	if m := c1.Metrics(); m.RebalanceTotal != 2 || m.LastRebalanceSecondsAgo < 0 {
		t.Fatalf("metrics %+v", m)
	}
}

// Cooperative (KIP-429): with only cooperative-sticky configured, a new
// member takes partitions in two rounds; the old members revoke only what
// moves and keep reading what they keep throughout.
func TestCooperativeRevokesOnlyMovedPartitionsAndKeepsConsuming(t *testing.T) {
	f := newGroupTest(t, 4)
	coop := func(cfg *ConsumerConfig) { cfg.PartitionAssignmentStrategy = []string{"cooperative-sticky"} }
	c1 := f.newConsumer("c1", coop)
	c2 := f.newConsumer("c2", coop)
	f.run(10*time.Second, c1, c2)
	before1, before2 := c1.Assignment(), c2.Assignment()
	if len(before1) != 2 || len(before2) != 2 {
		t.Fatalf("c1 %s c2 %s", partitionNames(before1), partitionNames(before2))
	}

	c3 := f.newConsumer("c3", coop)
	// Step through the rebalance 100 ms at a time, producing to every
	// partition: each member must keep returning records of the
	// partitions it keeps while the group rebalances.
	kept := map[*Consumer][]ConsumedRecord{}
	for range 100 {
		for p := range 4 {
			f.produce(p, 1)
		}
		got := f.run(100*time.Millisecond, c1, c2, c3)
		for _, c := range []*Consumer{c1, c2} {
			if c.Phase() != "stable" {
				kept[c] = append(kept[c], got[c]...)
			}
		}
	}
	after1, after2, after3 := c1.Assignment(), c2.Assignment(), c3.Assignment()
	if len(after3) != 1 || len(after1)+len(after2) != 3 {
		t.Fatalf("after: c1 %s c2 %s c3 %s", partitionNames(after1), partitionNames(after2), partitionNames(after3))
	}
	for _, c := range []*Consumer{c1, c2} {
		log := c.RebalanceLog()
		var revoked []string
		for _, e := range log {
			if e.StoppedFrom >= 0 && e.Start > 0 {
				t.Fatalf("%s stopped consuming in a cooperative rebalance: %+v", c.ID, e)
			}
			revoked = append(revoked, partitionNames(e.Revoked))
		}
		moved := minus(map[*Consumer][]protocol.TopicPartition{c1: before1, c2: before2}[c], c.Assignment())
		t.Logf("%s revoked %v (moved %s)", c.ID, revoked, partitionNames(moved))
		for _, e := range log {
			if len(e.Revoked) > 0 && !slices.Equal(e.Revoked, moved) {
				t.Fatalf("%s revoked %s, but only %s moved", c.ID, partitionNames(e.Revoked), partitionNames(moved))
			}
		}
	}
	// The members polled during the rebalance (phase not stable) and got
	// records of the partitions they kept.
	for _, c := range []*Consumer{c1, c2} {
		if len(kept[c]) == 0 {
			t.Fatalf("%s returned no records while rebalancing", c.ID)
		}
		for _, r := range kept[c] {
			if !slices.Contains(c.Assignment(), r.TP) && !slices.Contains(minus(map[*Consumer][]protocol.TopicPartition{c1: before1, c2: before2}[c], c.Assignment()), r.TP) {
				t.Fatalf("%s returned %s/%d which it never owned", c.ID, r.TP.Topic, r.TP.Partition)
			}
		}
	}
	if f.classic.Generation() < 3 {
		t.Fatalf("generation %d: the cooperative protocol needs a second rebalance to hand over the revoked partition", f.classic.Generation())
	}
}

// max.poll.interval.ms: a member that takes too long between polls is
// made to leave by its own heartbeat thread (LeaveGroup), the other member
// takes its partition from the last commit and re-reads the batch the
// slow member was processing: the duplicate. The slow member rejoins at
// its next poll, its partitions lost (not revoked: no commit).
func TestMaxPollIntervalExpiryLeavesAndTheBatchIsReadAgain(t *testing.T) {
	f := newGroupTest(t, 2)
	for p := range 2 {
		f.produce(p, 10)
	}
	slow := func(cfg *ConsumerConfig) { cfg.MaxPollInterval = 20 * time.Second }
	c1 := f.newConsumer("c1", slow)
	c2 := f.newConsumer("c2", nil)
	f.run(10*time.Second, c1, c2)
	assertAssigned(t, c1, 0)
	assertAssigned(t, c2, 1)
	if off, _ := c1.Committed(tps(0)[0]); off != 10 {
		t.Fatalf("orders/0 committed %d, want 10", off)
	}

	f.produce(0, 5)
	var batch []ConsumedRecord
	for len(batch) == 0 {
		batch = f.run(100*time.Millisecond, c1, c2)[c1]
	}
	// c1 now "processes" its batch for longer than max.poll.interval.ms.
	got := f.run(30*time.Second, c2)
	if !slices.Contains(f.got, "LeaveGroup") || c1.Generation() != -1 || c1.MemberID() != "" {
		t.Fatalf("c1 did not leave: generation %d member %q", c1.Generation(), c1.MemberID())
	}
	assertAssigned(t, c2, 0, 1)
	var again []int64
	for _, r := range got[c2] {
		if r.TP.Partition == 0 {
			again = append(again, r.Offset)
		}
	}
	var first []int64
	for _, r := range batch {
		first = append(first, r.Offset)
	}
	if !slices.Equal(again, first) {
		t.Fatalf("c2 read orders/0 offsets %v; c1's uncommitted batch was %v", again, first)
	}

	// c1's next poll: it rejoins; its old partition was lost, not committed.
	if _, err := c1.Poll(0); err != nil {
		t.Fatal(err)
	}
	if len(c1.commits) != 0 || len(c1.Assignment()) != 0 {
		t.Fatalf("c1's first poll after expiring: %d commits sent, assigned %s; want its partition lost, nothing committed",
			len(c1.commits), partitionNames(c1.Assignment()))
	}
	f.run(10*time.Second, c1, c2)
	if c1.Generation() < 0 || len(c1.Assignment())+len(c2.Assignment()) != 2 {
		t.Fatalf("after rejoining: c1 gen %d %s, c2 %s", c1.Generation(), partitionNames(c1.Assignment()), partitionNames(c2.Assignment()))
	}
	log := c1.RebalanceLog()
	if e := log[len(log)-1]; !e.Lost {
		t.Fatalf("c1's rejoin %+v: the partitions should be lost", e)
	}
}

// Static membership (KIP-345): a static member that crashes and restarts
// within session.timeout.ms gets its partitions back with no rebalance;
// closing a static member sends no LeaveGroup.
func TestStaticMemberRestartKeepsItsAssignment(t *testing.T) {
	f := newGroupTest(t, 2)
	static := func(id string) func(*ConsumerConfig) {
		return func(cfg *ConsumerConfig) { cfg.GroupInstanceID = id }
	}
	c1 := f.newConsumer("c1", static("i1"))
	c2 := f.newConsumer("c2", static("i2"))
	f.run(10*time.Second, c1, c2)
	assertAssigned(t, c1, 0)
	assertAssigned(t, c2, 1)
	gen := c2.Generation()
	rebalances := len(c2.RebalanceLog())

	c1.Crash()
	f.run(10*time.Second, c2)
	again := f.newConsumer("c1", static("i1"))
	f.run(10*time.Second, again, c2)
	assertAssigned(t, again, 0)
	assertAssigned(t, c2, 1)
	if c2.Generation() != gen || len(c2.RebalanceLog()) != rebalances {
		t.Fatalf("c2 went from generation %d to %d, %d rebalances to %d: the restart caused a rebalance",
			gen, c2.Generation(), rebalances, len(c2.RebalanceLog()))
	}

	cl := again.Close()
	f.run(time.Second, c2)
	if !cl.Done || slices.Contains(f.got, "LeaveGroup") {
		t.Fatalf("close done %v; LeaveGroup sent: %v (a static member must not send it)", cl.Done, slices.Contains(f.got, "LeaveGroup"))
	}
}

// Auto-commit: poll commits the positions consumed by earlier polls once
// auto.commit.interval.ms has passed, not before.
func TestAutoCommitOnPollAfterTheInterval(t *testing.T) {
	f := newGroupTest(t, 1)
	f.produce(0, 4)
	c1 := f.newConsumer("c1", func(cfg *ConsumerConfig) { cfg.AutoCommitInterval = 10 * time.Second })
	var read int
	for read < 4 {
		read += len(f.run(100*time.Millisecond, c1)[c1])
	}
	if _, ok := c1.Committed(tps(0)[0]); ok || slices.Contains(f.got, "OffsetCommit") {
		t.Fatal("committed before auto.commit.interval.ms passed")
	}
	// The interval counts from the consumer's creation (at time 0), as
	// ConsumerCoordinator's nextAutoCommitTimer does.
	f.run(10*time.Second-f.sched.Clock.Elapsed()-200*time.Millisecond, c1)
	if slices.Contains(f.got, "OffsetCommit") {
		t.Fatal("committed before auto.commit.interval.ms passed")
	}
	f.run(time.Second, c1)
	if !slices.Contains(f.got, "OffsetCommit") {
		t.Fatal("no auto-commit after auto.commit.interval.ms")
	}
	if off := f.commits[tps(0)[0]]; off != 4 {
		t.Fatalf("auto-committed %d, want 4 (the position after the records polled)", off)
	}
	// Without polls nothing more is committed, however long.
	n := len(f.got)
	f.run(time.Minute)
	for _, k := range f.got[n:] {
		if k == "OffsetCommit" {
			t.Fatal("auto-commit without a poll")
		}
	}
}

// Explicit commits: commitSync of an explicit offset, and a commit by a
// member kicked out of its generation fails with CommitFailedException.
func TestCommitSyncAndCommitFailedException(t *testing.T) {
	f := newGroupTest(t, 1)
	c1 := f.newConsumer("c1", func(cfg *ConsumerConfig) { cfg.EnableAutoCommit = false })
	f.run(5*time.Second, c1)
	h := c1.CommitSync([]protocol.OffsetCommitPartition{{TP: tps(0)[0], Offset: 7, LeaderEpoch: -1}})
	f.run(time.Second, c1)
	if !h.Done || h.Err != nil || f.commits[tps(0)[0]] != 7 {
		t.Fatalf("commitSync: done %v err %v committed %d", h.Done, h.Err, f.commits[tps(0)[0]])
	}
	// The coordinator forgets the member (as after a session timeout).
	f.classic.Leave(f.nowMs(), []classic.LeaveMember{{MemberID: c1.MemberID()}})
	h = c1.CommitAsync(nil)
	f.run(time.Second)
	if !h.Done || !errors.Is(h.Err, ErrCommitFailed) {
		t.Fatalf("commit by an expelled member: done %v err %v", h.Done, h.Err)
	}
}

// A manually assigned consumer with a group.id starts from the group's
// committed offset and commits outside any membership (generation -1).
func TestManualAssignmentWithGroupIDUsesCommittedOffsets(t *testing.T) {
	f := newGroupTest(t, 1)
	f.produce(0, 6)
	f.commits[tps(0)[0]] = 4
	cfg := DefaultConsumerConfig()
	cfg.GroupID = "g"
	c := NewConsumer("m", cfg, []int32{1}, f.net, f.sched, sim.NewRand(1), func(e string) { t.Log(e) })
	c.Assign(tps(0))
	got := f.run(2*time.Second, c)[c]
	if len(got) != 2 || got[0].Offset != 4 {
		t.Fatalf("read %d records from %v, want offsets 4 and 5", len(got), got)
	}
	h := c.CommitSync(nil)
	f.run(time.Second)
	if h.Err != nil || f.commits[tps(0)[0]] != 6 {
		t.Fatalf("commit: %v, committed %d", h.Err, f.commits[tps(0)[0]])
	}
}

// NOT_COORDINATOR on a heartbeat: the member forgets the coordinator,
// finds it again (FindCoordinator) and goes on heartbeating in the same
// generation, without a rebalance.
func TestNotCoordinatorRediscoversTheCoordinator(t *testing.T) {
	f := newGroupTest(t, 2)
	c1 := f.newConsumer("c1", nil)
	f.run(10*time.Second, c1)
	gen := c1.Generation()
	count := func(kind string) int {
		n := 0
		for _, k := range f.got {
			if k == kind {
				n++
			}
		}
		return n
	}
	finds, heartbeats := count("FindCoordinator"), count("Heartbeat")
	f.notCoordinator = 1
	f.run(10*time.Second, c1)
	if count("FindCoordinator") != finds+1 || count("Heartbeat") < heartbeats+2 {
		t.Fatalf("FindCoordinator %d -> %d, Heartbeat %d -> %d", finds, count("FindCoordinator"), heartbeats, count("Heartbeat"))
	}
	if c1.Generation() != gen || c1.Phase() != "stable" || c1.Coordinator() != 1 {
		t.Fatalf("generation %d (was %d), phase %s, coordinator %d", c1.Generation(), gen, c1.Phase(), c1.Coordinator())
	}
}

// Pause: no fetch and no records for the paused partition, while the
// heartbeats keep the member in its generation; Resume reads on.
func TestPauseKeepsTheMemberAndStopsThePartition(t *testing.T) {
	f := newGroupTest(t, 2)
	c1 := f.newConsumer("c1", nil)
	f.run(10*time.Second, c1)
	gen := c1.Generation()
	if err := c1.Pause(tps(0)); err != nil {
		t.Fatal(err)
	}
	f.produce(0, 3)
	f.produce(1, 3)
	got := f.run(time.Minute, c1)[c1]
	if partitionsOf(got) != "1" || c1.Generation() != gen {
		t.Fatalf("paused orders/0: read partitions %q, generation %d (was %d)", partitionsOf(got), c1.Generation(), gen)
	}
	if err := c1.Resume(tps(0)); err != nil {
		t.Fatal(err)
	}
	if got := f.run(2*time.Second, c1)[c1]; partitionsOf(got) != "0" || len(got) != 3 {
		t.Fatalf("resumed: read %d records of partitions %q", len(got), partitionsOf(got))
	}
}

// Crash: nothing more is sent; the coordinator notices at the session
// timeout and the survivor takes the partitions from the last commit.
func TestCrashedMemberIsRemovedAtSessionTimeout(t *testing.T) {
	f := newGroupTest(t, 2)
	c1 := f.newConsumer("c1", nil)
	c2 := f.newConsumer("c2", nil)
	f.run(10*time.Second, c1, c2)
	sent := f.net.Sent("c1")
	c1.Crash()
	f.run(30*time.Second, c2)
	if len(c2.Assignment()) != 1 || f.net.Sent("c1") != sent {
		t.Fatalf("within the session timeout: c2 has %s; c1 sent %d messages after crashing", partitionNames(c2.Assignment()), f.net.Sent("c1")-sent)
	}
	f.run(30*time.Second, c2)
	assertAssigned(t, c2, 0, 1)
	if c1.Phase() != "crashed" {
		t.Fatalf("phase %s", c1.Phase())
	}
}

// The eager sticky assignor reads each member's previous assignment from
// its subscription's user data (StickyAssignorUserData): after a third
// member joins, the first two keep partitions they had.
func TestStickyAssignorKeepsPartitionsThroughUserData(t *testing.T) {
	f := newGroupTest(t, 6)
	sticky := func(cfg *ConsumerConfig) { cfg.PartitionAssignmentStrategy = []string{"sticky"} }
	c1 := f.newConsumer("c1", sticky)
	c2 := f.newConsumer("c2", sticky)
	f.run(10*time.Second, c1, c2)
	before1, before2 := c1.Assignment(), c2.Assignment()
	c3 := f.newConsumer("c3", sticky)
	f.run(10*time.Second, c1, c2, c3)
	if c1.RebalanceProtocol() != "eager" || len(c3.Assignment()) != 2 {
		t.Fatalf("protocol %s, c3 has %s", c1.RebalanceProtocol(), partitionNames(c3.Assignment()))
	}
	for _, pair := range [][2][]protocol.TopicPartition{{before1, c1.Assignment()}, {before2, c2.Assignment()}} {
		if len(pair[1]) != 2 || len(minus(pair[1], pair[0])) != 0 {
			t.Fatalf("before %s, after %s: the sticky assignor moved a kept partition", partitionNames(pair[0]), partitionNames(pair[1]))
		}
	}
}
