package client

import (
	"slices"

	"github.com/loglab/loglab/engine/protocol"
)

// The classic member's pure decisions, each mirroring a method of Kafka's
// ConsumerCoordinator; group_decisions_test.go tables them.

// rebalanceProtocolFor is the protocol ConsumerCoordinator's constructor
// picks: the highest one every configured assignor supports. Only
// cooperative-sticky supports COOPERATIVE, so one eager assignor in the
// list (Kafka 4's default [range, cooperative-sticky]) makes it EAGER.
func rebalanceProtocolFor(strategies []string) string {
	if len(strategies) == 0 {
		return "eager"
	}
	for _, s := range strategies {
		if s != "cooperative-sticky" {
			return "eager"
		}
	}
	return "cooperative"
}

// joinPrepareRevocation is ConsumerCoordinator.onJoinPrepare's choice of
// partitions to give up before JoinGroup: all of them, lost, when the
// member lost its generation or member id; all of them, revoked, under
// EAGER; under COOPERATIVE only those of topics no longer subscribed.
func joinPrepareRevocation(generation int32, memberID, protocolName string, owned []protocol.TopicPartition, topics []string) (revoked []protocol.TopicPartition, lost bool) {
	switch {
	case generation < 0 || memberID == "":
		return owned, len(owned) > 0
	case protocolName == "eager":
		return owned, false
	}
	for _, tp := range owned {
		if !slices.Contains(topics, tp.Topic) {
			revoked = append(revoked, tp)
		}
	}
	return revoked, false
}

// joinCompleteChanges is ConsumerCoordinator.onJoinComplete's diff: what
// the member gives up (owned but not assigned: only possible under
// COOPERATIVE, since EAGER revoked everything before joining) and what is
// new; giving something up means joining again so it can be handed over.
func joinCompleteChanges(owned, assigned []protocol.TopicPartition) (revoked, added []protocol.TopicPartition, rejoin bool) {
	revoked = minus(owned, assigned)
	added = minus(assigned, owned)
	return revoked, added, len(revoked) > 0
}
