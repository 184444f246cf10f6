package client

import (
	"slices"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/protocol"
)

func TestRebalanceProtocolFor(t *testing.T) {
	for _, tc := range []struct {
		name       string
		strategies []string
		want       string
	}{
		{"ConsumerCoordinator: Kafka 4's default list has range, so EAGER", []string{"range", "cooperative-sticky"}, "eager"},
		{"ConsumerCoordinator: only cooperative-sticky is COOPERATIVE", []string{"cooperative-sticky"}, "cooperative"},
		{"ConsumerCoordinator: sticky is eager", []string{"sticky"}, "eager"},
		{"ConsumerCoordinator: roundrobin then cooperative-sticky", []string{"roundrobin", "cooperative-sticky"}, "eager"},
	} {
		if got := rebalanceProtocolFor(tc.strategies); got != tc.want {
			t.Errorf("%s: %v -> %s, want %s", tc.name, tc.strategies, got, tc.want)
		}
	}
}

func TestJoinPrepareRevocation(t *testing.T) {
	owned := []protocol.TopicPartition{{Topic: "a", Partition: 0}, {Topic: "b", Partition: 1}}
	for _, tc := range []struct {
		name       string
		generation int32
		memberID   string
		protocol   string
		topics     []string
		revoked    []protocol.TopicPartition
		lost       bool
	}{
		{"onJoinPrepare: generation reset, everything lost", -1, "m", "eager", []string{"a", "b"}, owned, true},
		{"onJoinPrepare: member id reset, everything lost (cooperative too)", 3, "", "cooperative", []string{"a", "b"}, owned, true},
		{"onJoinPrepare: EAGER revokes everything", 3, "m", "eager", []string{"a", "b"}, owned, false},
		{"onJoinPrepare: COOPERATIVE keeps what it still subscribes to", 3, "m", "cooperative", []string{"a", "b"}, nil, false},
		{"onJoinPrepare: COOPERATIVE revokes an unsubscribed topic's partitions", 3, "m", "cooperative", []string{"a"}, owned[1:], false},
	} {
		revoked, lost := joinPrepareRevocation(tc.generation, tc.memberID, tc.protocol, owned, tc.topics)
		if !slices.Equal(revoked, tc.revoked) || lost != tc.lost {
			t.Errorf("%s: revoked %v lost %v, want %v %v", tc.name, revoked, lost, tc.revoked, tc.lost)
		}
	}
}

func TestJoinCompleteChanges(t *testing.T) {
	tp := func(p int32) protocol.TopicPartition { return protocol.TopicPartition{Topic: "t", Partition: p} }
	for _, tc := range []struct {
		name            string
		owned, assigned []protocol.TopicPartition
		revoked, added  []protocol.TopicPartition
		rejoin          bool
	}{
		{"onJoinComplete: EAGER owns nothing by now: all new", nil, []protocol.TopicPartition{tp(0), tp(1)}, nil, []protocol.TopicPartition{tp(0), tp(1)}, false},
		{"onJoinComplete: COOPERATIVE keeps, gives up one, rejoins", []protocol.TopicPartition{tp(0), tp(1)}, []protocol.TopicPartition{tp(0)}, []protocol.TopicPartition{tp(1)}, nil, true},
		{"onJoinComplete: COOPERATIVE second round takes the released one", []protocol.TopicPartition{tp(2)}, []protocol.TopicPartition{tp(1), tp(2)}, nil, []protocol.TopicPartition{tp(1)}, false},
	} {
		revoked, added, rejoin := joinCompleteChanges(tc.owned, tc.assigned)
		if !slices.Equal(revoked, tc.revoked) || !slices.Equal(added, tc.added) || rejoin != tc.rejoin {
			t.Errorf("%s: revoked %v added %v rejoin %v", tc.name, revoked, added, rejoin)
		}
	}
}

// Same seed, same calls: the same decisions traced, byte for byte (no map
// order or wall clock leaks into the group client).
func TestGroupRunsReplayExactly(t *testing.T) {
	run := func(proto string) []string {
		f := newGroupTest(t, 6)
		for p := range 6 {
			f.produce(p, 4)
		}
		mod := func(cfg *ConsumerConfig) {
			cfg.GroupProtocol = proto
			cfg.PartitionAssignmentStrategy = []string{"cooperative-sticky"}
		}
		c1 := f.newConsumer("c1", mod)
		c2 := f.newConsumer("c2", mod)
		f.run(10*time.Second, c1, c2)
		c3 := f.newConsumer("c3", mod)
		f.run(10*time.Second, c1, c2, c3)
		c2.Close()
		f.run(10*time.Second, c1, c3)
		return f.events
	}
	for _, proto := range []string{GroupProtocolClassic, GroupProtocolConsumer} {
		a, b := run(proto), run(proto)
		if !slices.Equal(a, b) || len(a) < 10 {
			t.Fatalf("%s: two runs traced differently (%d and %d events)", proto, len(a), len(b))
		}
	}
}
