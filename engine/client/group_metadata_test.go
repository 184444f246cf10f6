package client

import (
	"testing"
	"time"

	"github.com/loglab/loglab/engine/group/classic"
	"github.com/loglab/loglab/engine/sim"
)

// GroupMetadata mirrors ConsumerCoordinator.groupMetadata: unknown
// generation before the first join, the generation and member id from
// onJoinComplete, and kept (not reset) when the member is thrown out, so
// a zombie hands its stale generation to sendOffsetsToTransaction.
func TestGroupMetadataClassic(t *testing.T) {
	f := newGroupTest(t, 1)
	c1 := f.newConsumer("c1", func(cfg *ConsumerConfig) { cfg.GroupInstanceID = "i1" })
	if got := c1.GroupMetadata(); got != (ConsumerGroupMetadata{GroupID: "g", GenerationID: -1, GroupInstanceID: "i1"}) {
		t.Fatalf("before joining: %+v", got)
	}
	f.run(5*time.Second, c1)
	gen, id := c1.Generation(), c1.MemberID()
	if gen < 1 || id == "" {
		t.Fatalf("not joined: generation %d member %q", gen, id)
	}
	want := ConsumerGroupMetadata{GroupID: "g", GenerationID: gen, MemberID: id, GroupInstanceID: "i1"}
	if got := c1.GroupMetadata(); got != want {
		t.Fatalf("joined: %+v, want %+v", got, want)
	}
	// The coordinator forgets the member; it cannot rejoin.
	f.classic.Leave(f.nowMs(), []classic.LeaveMember{{MemberID: id, GroupInstanceID: "i1"}})
	f.net.Drop(sim.DropRule{From: "c1", Kind: "JoinGroup", Remaining: -1})
	f.run(10*time.Second, c1)
	if c1.Generation() != -1 {
		t.Fatalf("the member did not notice: generation %d", c1.Generation())
	}
	if got := c1.GroupMetadata(); got != want {
		t.Fatalf("thrown out: %+v, want the stale %+v", got, want)
	}
}

// With group.protocol=consumer the metadata follows the member epoch
// (AsyncKafkaConsumer.updateGroupMetadata).
func TestGroupMetadataConsumerProtocol(t *testing.T) {
	f := newGroupTest(t, 2)
	c1 := f.newConsumer("c1", kip848)
	f.run(10*time.Second, c1)
	got := c1.GroupMetadata()
	if got.GenerationID < 1 || got.GenerationID != c1.Generation() || got.MemberID != c1.MemberID() || got.GroupID != "g" {
		t.Fatalf("metadata %+v; member %q epoch %d", got, c1.MemberID(), c1.Generation())
	}
	c2 := f.newConsumer("c2", kip848)
	f.run(10*time.Second, c1, c2)
	if got := c1.GroupMetadata(); got.GenerationID != c1.Generation() || got.GenerationID <= 1 {
		t.Fatalf("after the group grew: %+v, epoch %d", got, c1.Generation())
	}
}
