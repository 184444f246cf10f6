package client

import (
	"slices"
	"testing"

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
