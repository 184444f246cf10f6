package consumer

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/group/assignor"
)

// reconciliation is the input of Kafka's CurrentAssignmentBuilder: one
// member moves one step from its current assignment towards its target.
type reconciliation struct {
	targetEpoch int32
	target      Partitions
	// topics is the cluster metadata: subscribed names that do not
	// exist resolve to nothing, as Kafka's TopicIds drops them.
	topics assignor.Topics
	// partitionEpoch is the epoch of a partition's current owner (any
	// member, counting partitions pending revocation), -1 if free.
	partitionEpoch func(topic string, partition int32) int32
	// owned is what the member says it owns in this heartbeat; nil
	// when it did not say (Kafka's null ownedTopicPartitions).
	owned Partitions
	// subscriptionChanged is Kafka's enforceSubscriptionConsistency
	// (hasSubscriptionChanged in 3.x): strip no-longer-subscribed topics
	// even when there is no new target.
	subscriptionChanged bool
}

// reconcile is Kafka's CurrentAssignmentBuilder.build: the member's next
// state, or the member unchanged when it cannot move yet.
func reconcile(m Member, r reconciliation) (Member, error) {
	switch m.State {
	case Stable:
		if m.MemberEpoch != r.targetEpoch {
			return r.next(m, m.MemberEpoch), nil
		}
		if r.subscriptionChanged {
			return r.dropUnsubscribed(m), nil
		}
		return m, nil
	case UnrevokedPartitions:
		// The member keeps its epoch until its heartbeat no longer lists
		// any partition it must revoke: only then may others get them.
		if r.ownsAnyOf(m.PendingRevocation) {
			if r.subscriptionChanged {
				return r.dropUnsubscribed(m), nil
			}
			return m, nil
		}
		return r.next(m, m.MemberEpoch), nil
	case UnreleasedPartitions:
		return r.next(m, m.MemberEpoch), nil
	}
	// Unknown: start the member over from nothing. It must first prove
	// it dropped everything by sending an empty owned list.
	if r.owned == nil || !r.owned.Empty() {
		return m, fmt.Errorf("%w: the consumer group member is in a unknown state; "+
			"the member must abandon all its partitions and rejoin", ErrFencedMemberEpoch)
	}
	return r.next(m, r.targetEpoch), nil
}

// ownsAnyOf is Kafka's ownsRevokedPartitions: a member that did not say
// what it owns is assumed to still own everything.
func (r reconciliation) ownsAnyOf(revoking Partitions) bool {
	if r.owned == nil {
		return true
	}
	return r.owned.intersects(revoking)
}

// subscribed is the member's subscription resolved against the metadata.
// Subscriptions are topic names only: KIP-848's regular expressions
// (SubscribedTopicRegex) are not modelled.
func (r reconciliation) subscribed(m Member) map[string]bool {
	s := map[string]bool{}
	for _, t := range m.SubscribedTopics {
		if _, ok := r.topics[t]; ok {
			s[t] = true
		}
	}
	return s
}

// dropUnsubscribed is Kafka's updateCurrentAssignment: the cheap path
// that only takes away topics the member no longer subscribes to.
func (r reconciliation) dropUnsubscribed(m Member) Member {
	subscribed := r.subscribed(m)
	assigned, pending := Partitions{}, m.PendingRevocation.normalized()
	removed := false
	for t, ps := range m.Assigned {
		if subscribed[t] {
			assigned[t] = ps
			continue
		}
		removed = removed || len(ps) > 0
		pending[t] = append(pending[t], ps...)
	}
	if !removed {
		return m
	}
	pending = pending.normalized()
	n := m.withEpoch(m.MemberEpoch)
	n.Assigned = assigned.normalized()
	if !pending.Empty() && r.ownsAnyOf(pending) {
		n.State = UnrevokedPartitions
		n.PendingRevocation = pending
	}
	return n
}

// next is Kafka's computeNextAssignment. Per topic: keep what is both
// owned and targeted, revoke the rest, and add targeted partitions only
// when no other member owns them (the per-partition handover that
// replaces the classic protocol's group-wide barrier).
func (r reconciliation) next(m Member, epoch int32) Member {
	subscribed := r.subscribed(m)
	assigned, revoking, adding := Partitions{}, Partitions{}, Partitions{}
	unreleased := false
	for _, t := range unionTopics(r.target, m.Assigned) {
		target := r.target[t]
		if !subscribed[t] {
			target = nil
		}
		for _, p := range m.Assigned[t] {
			if slices.Contains(target, p) {
				assigned[t] = append(assigned[t], p)
			} else {
				revoking[t] = append(revoking[t], p)
			}
		}
		for _, p := range target {
			if slices.Contains(assigned[t], p) {
				continue
			}
			// A partition this very member is still revoking is not
			// someone else's: it may simply be given back.
			if r.partitionEpoch(t, p) != -1 && !m.PendingRevocation.has(t, p) {
				unreleased = true
				continue
			}
			adding[t] = append(adding[t], p)
		}
	}
	n := m
	if !revoking.Empty() && r.ownsAnyOf(revoking) {
		// Revoke first, at the old epoch: the member is not told of any
		// new partition until it acknowledges the revocation.
		n = n.withEpoch(epoch)
		n.State = UnrevokedPartitions
		n.Assigned = assigned.normalized()
		n.PendingRevocation = revoking.normalized()
		return n
	}
	for t, ps := range adding {
		assigned[t] = append(assigned[t], ps...)
	}
	n = n.withEpoch(r.targetEpoch)
	n.State = Stable
	if unreleased {
		n.State = UnreleasedPartitions
	}
	n.Assigned = assigned.normalized()
	n.PendingRevocation = Partitions{}
	return n
}

func unionTopics(a, b Partitions) []string {
	ts := append(a.Topics(), b.Topics()...)
	slices.Sort(ts)
	return slices.Compact(ts)
}
