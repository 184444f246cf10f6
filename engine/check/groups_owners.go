package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loglab/loglab/engine/group/coordinator"
	"github.com/loglab/loglab/engine/protocol"
)

// What the groups' invariants find in one look, as pure functions of
// what the clients hold and the coordinator describes: partitions owned
// twice (group-one-owner), and a coordinator showing less than the log
// committed (committed-offset-monotonic).

// memberView is a running group client as the checker sees it.
type memberView struct {
	Name, MemberID string
	Generation     int32 // classic generation, or KIP-848 member epoch
	Consumer       bool  // group.protocol=consumer
	Assignment     []protocol.TopicPartition
}

// classicDoubleOwners finds partitions two running classic members hold
// at the same generation: within a generation the leader's assignment
// (ConsumerCoordinator.onJoinComplete) gives each partition once, eager
// members revoke everything before they join and cooperative ones give a
// moved partition up a generation before its new owner gets it
// (CooperativeStickyAssignor's two rounds). A member at generation -1 is
// out of the group (it reset its generation) and is not compared, nor is
// one the coordinator no longer counts (members lists who it does): a
// static member replaced by a new process with its group.instance.id
// keeps the generation, and its partitions, until its next heartbeat
// answers FENCED_INSTANCE_ID (GroupMetadataManager's static member
// replacement: no rebalance, the same generation), a zombie Kafka fences
// by member id.
func classicDoubleOwners(group string, ms []memberView, members []string) []string {
	var out []string
	for i, a := range ms {
		if a.Consumer || a.Generation < 0 || !slices.Contains(members, a.MemberID) {
			continue
		}
		for _, b := range ms[i+1:] {
			if b.Consumer || b.Generation != a.Generation || !slices.Contains(members, b.MemberID) {
				continue
			}
			for _, tp := range a.Assignment {
				if slices.Contains(b.Assignment, tp) {
					out = append(out, fmt.Sprintf("%s is held by %s and %s of group %s, both at generation %d", name(tp), a.Name, b.Name, group, a.Generation))
				}
			}
		}
	}
	return out
}

// coordinatorDoubleOwners finds partitions a KIP-848 coordinator counts
// for two members (assigned or pending revocation): its reconciliation
// (CurrentAssignmentBuilder) keeps a partition another member still has
// to revoke out of the new owner's assignment until it is released.
func coordinatorDoubleOwners(d coordinator.GroupDescription) []string {
	if d.Type != "consumer" {
		return nil
	}
	owner := map[protocol.TopicPartition]string{}
	var out []string
	for _, m := range d.Members {
		for _, tp := range slices.Concat(m.Assigned, m.PendingRevocation) {
			if o, ok := owner[tp]; ok && o != m.MemberID {
				out = append(out, fmt.Sprintf("coordinator of group %s counts %s for members %s and %s at group epoch %d", d.GroupID, name(tp), o, m.MemberID, d.Epoch))
				continue
			}
			owner[tp] = m.MemberID
		}
	}
	return out
}

// consumerDoubleOwners finds partitions two running KIP-848 clients hold
// while the coordinator still counts both as members: a client gives a
// revoked partition up before it acknowledges (and so before anyone else
// gets it); only a member the coordinator fenced may still hold one.
func consumerDoubleOwners(group string, ms []memberView, members []string) []string {
	var out []string
	for i, a := range ms {
		if !a.Consumer || !slices.Contains(members, a.MemberID) {
			continue
		}
		for _, b := range ms[i+1:] {
			if !b.Consumer || !slices.Contains(members, b.MemberID) || b.MemberID == a.MemberID {
				continue
			}
			for _, tp := range a.Assignment {
				if slices.Contains(b.Assignment, tp) {
					out = append(out, fmt.Sprintf("%s is held by %s (epoch %d) and %s (epoch %d), both members of group %s", name(tp), a.Name, a.Generation, b.Name, b.Generation, group))
				}
			}
		}
	}
	return out
}

// replayedBelowCommitted compares a coordinator's committed offsets with
// what the log committed: a coordinator that replayed the log after a
// failover must show the same or higher (a higher one is a write not yet
// committed). A missing offset counts only when everything the
// coordinator wrote is committed, since an expiry's tombstone may be in
// flight.
func replayedBelowCommitted(d coordinator.GroupDescription, committed map[protocol.TopicPartition]int64, excused func(protocol.TopicPartition) bool, state coordState) []string {
	var tps []protocol.TopicPartition
	for tp := range committed {
		tps = append(tps, tp)
	}
	slices.SortFunc(tps, func(a, b protocol.TopicPartition) int { return strings.Compare(name(a), name(b)) })
	var out []string
	for _, tp := range tps {
		want := committed[tp]
		i := slices.IndexFunc(d.Offsets, func(o coordinator.CommittedOffset) bool { return o.TP == tp })
		switch {
		case excused(tp):
		case i < 0 && state.committed:
			out = append(out, fmt.Sprintf("coordinator of group %s (%s) lost the committed offset %d of %s", d.GroupID, state, want, name(tp)))
		case i >= 0 && d.Offsets[i].Offset < want:
			out = append(out, fmt.Sprintf("coordinator of group %s (%s) shows %s committed at %d, the log committed %d", d.GroupID, state, name(tp), d.Offsets[i].Offset, want))
		}
	}
	return out
}
