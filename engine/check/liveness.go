package check

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
)

// The safety invariants (checker.go) say nothing bad happens; these
// liveness properties say the good thing does once the faults are gone:
//
//   - converged: every live replica of a partition has its leader's log
//     end offset and the same leader-epoch history where both histories
//     speak (sameEpochs);
//   - unfenced-in-isr: every live broker is registered and unfenced in the
//     active controller's image, and in the ISR of each partition it
//     replicates;
//   - group-converged (liveness_groups.go) and transaction-ended
//     (liveness_txn.go): consumer groups settle, transactions end;
//   - quorum-converged (liveness_quorum.go): the KRaft quorum has a
//     leader, every voter's high watermark is the leader's, and every
//     broker has replayed the metadata log to its committed end.
//
// Both are eventual: they hold only after the cluster has had time to
// catch up, so the cluster's Stabilize (engine/cluster/stabilize.go)
// asks them, not every event. A fault still in
// force (no controller majority, a network partition, a drop rule, every
// ISR member down) can keep one from holding however long the cluster
// runs; the finding then names that fault instead of being a violation.

// Invariant names of the liveness properties.
const (
	Converged     = "converged"
	UnfencedInISR = "unfenced-in-isr"
	NoBusyLoop    = "no-busy-loop"
)

// Lag is one way the cluster has not converged.
type Lag struct {
	Property string // Converged, UnfencedInISR, GroupConverged, TransactionEnded or QuorumConverged
	Detail   string // what differs: "b3 orders/0 log end 5, leader b1's 7"
	// Blocked names the fault in force that keeps it so ("" when nothing
	// does: then only time, or a bug, stands in the way).
	Blocked string
}

func (l Lag) String() string {
	if l.Blocked == "" {
		return l.Detail
	}
	return l.Detail + " (" + l.Blocked + ")"
}

// Lags lists what keeps the cluster from having converged, brokers first,
// then partitions in topic order; empty when it has.
func (k *Checker) Lags() []Lag {
	var lags []Lag
	k.walkLags(true, func(l Lag) bool {
		lags = append(lags, l)
		return true
	})
	return lags
}

// Settled reports whether every lag left is one a fault keeps. Stabilize
// asks it after every event that leaves the network quiet, up to
// MaxEventsPerCommand times in one command, so it names nothing: it stops
// at the first lag no fault keeps and formats no text. Formatting every
// lag of every partition after each event made a stabilize that never
// settles cost seconds of wall time for a few thousand events, outside
// the event budget that bounds a command's cost.
func (k *Checker) Settled() bool {
	settled := true
	k.walkLags(false, func(l Lag) bool {
		settled = l.Blocked != ""
		return settled
	})
	return settled
}

// lagWalk is one walk over the lags. With describe false its texts are
// placeholders: a reason is non-empty exactly when the described one
// would be, which is all Settled needs.
type lagWalk struct {
	c        Cluster
	k        *Checker // what the safety checks learnt (unclean elections)
	describe bool
}

// say is the text, formatted only when the walk describes.
func (w lagWalk) say(format string, args ...any) string {
	if !w.describe {
		return "-"
	}
	return fmt.Sprintf(format, args...)
}

// walkLags yields every lag in Lags' order until yield returns false.
func (k *Checker) walkLags(describe bool, yield func(Lag) bool) {
	c := k.c
	w := lagWalk{c, k, describe}
	img := c.MetadataImage()
	noController := ""
	if c.ActiveController() == 0 {
		noController = w.say("no active controller: %d of %d controllers run", c.ControllersUp(), c.Controllers())
	}
	for _, b := range c.Brokers() {
		if !b.Alive() {
			continue
		}
		bi := img.Broker(b.ID)
		var detail string
		switch {
		case bi == nil:
			detail = w.say("b%d is not registered", b.ID)
		case bi.Fenced:
			detail = w.say("b%d is fenced", b.ID)
		case bi.Epoch != b.Epoch() || !b.Registered():
			detail = w.say("b%d's registration (broker epoch %d) is not the running one's", b.ID, bi.Epoch)
		default:
			continue
		}
		if !yield(Lag{UnfencedInISR, detail, firstReason(noController, w.cutOffFromController(b))}) {
			return
		}
	}
	for _, t := range img.Topics {
		for i, p := range t.Partitions {
			if p != nil {
				tp := protocol.TopicPartition{Topic: t.Name, Partition: int32(i)}
				if !w.partitionLags(t, tp, p, noController, yield) {
					return
				}
			}
		}
	}
	if !w.groupLags(yield) {
		return
	}
	if !w.txnLags(yield) { // liveness_txn.go
		return
	}
	w.quorumLags(yield) // liveness_quorum.go
}

// firstReason is the first non-empty reason.
func firstReason(reasons ...string) string {
	for _, r := range reasons {
		if r != "" {
			return r
		}
	}
	return ""
}

// cutOffFromController says what on the network keeps broker b from
// reaching the controller.
func (w lagWalk) cutOffFromController(b *broker.Broker) string {
	if !w.c.Connected(b.Node, kraft.ControllerNode) {
		return w.say("%s cuts b%d off from the controller", w.c.Separator(b.Node, kraft.ControllerNode), b.ID)
	}
	return w.netFaulty()
}

// cutOffFromLeader says what on the network keeps broker b from reaching
// its leader lb.
func (w lagWalk) cutOffFromLeader(b, lb *broker.Broker) string {
	if !w.c.Connected(b.Node, lb.Node) {
		return w.say("%s cuts b%d off from its leader b%d", w.c.Separator(b.Node, lb.Node), b.ID, lb.ID)
	}
	return w.netFaulty()
}

func (w lagWalk) netFaulty() string { return w.c.NetFaultWords() }

// partitionLags yields partition p's lags; false when yield stopped the walk.
func (w lagWalk) partitionLags(t *kraft.TopicInfo, tp protocol.TopicPartition, p *kraft.PartitionInfo, noController string, yield func(Lag) bool) bool {
	c := w.c
	if p.Leader < 0 {
		var blocked string
		if cut, ok := w.cannotLead(p.ISR); ok && t.Config("unclean.leader.election.enable", "false") != "true" {
			if cut == "" {
				blocked = w.say("every ISR member (%s) is down and unclean.leader.election.enable=false", protocol.JoinIDs(p.ISR))
			} else {
				blocked = w.say("every ISR member (%s) is down or fenced and unclean.leader.election.enable=false: %s", protocol.JoinIDs(p.ISR), cut)
			}
		}
		if cut, ok := w.cannotLead(p.Replicas); ok {
			if cut == "" {
				blocked = w.say("every replica (%s) is down", protocol.JoinIDs(p.Replicas))
			} else {
				blocked = w.say("every replica (%s) is down or fenced: %s", protocol.JoinIDs(p.Replicas), cut)
			}
		}
		return yield(Lag{Converged, w.say("%s has no leader", name(tp)), firstReason(noController, blocked)})
	}
	lb := c.Broker(int(p.Leader))
	if lb == nil || !lb.Alive() {
		return yield(Lag{Converged, w.say("%s's leader b%d is down", name(tp), p.Leader), noController})
	}
	leader := lb.Replica(tp)
	if leader == nil || !leader.IsLeader() || leader.LeaderEpoch != p.LeaderEpoch {
		return yield(Lag{Converged, w.say("b%d does not lead %s in epoch %d yet", p.Leader, name(tp), p.LeaderEpoch),
			firstReason(noController, w.cutOffFromController(lb))})
	}
	for _, id := range p.Replicas {
		b := c.Broker(int(id))
		if id == p.Leader || b == nil || !b.Alive() {
			continue
		}
		blocked := firstReason(w.cutOffFromLeader(b, lb), w.cutOffFromController(lb), noController)
		if bi := c.MetadataImage().Broker(id); bi == nil || bi.Fenced {
			blocked = firstReason(noController, w.cutOffFromController(b), blocked)
		}
		f := b.Replica(tp)
		switch {
		case f == nil:
			if !yield(Lag{Converged, w.say("b%d has no replica of %s", id, name(tp)), blocked}) {
				return false
			}
		case f.Log.EndOffset() != leader.Log.EndOffset():
			detail := w.say("b%d %s log end %d, leader b%d's %d", id, name(tp), f.Log.EndOffset(), lb.ID, leader.Log.EndOffset())
			if w.describe && leader.Log.StartOffset() > f.Log.EndOffset() {
				detail += fmt.Sprintf(" (the leader's log starts at %d)", leader.Log.StartOffset())
			}
			if !yield(Lag{Converged, detail, blocked}) {
				return false
			}
		case !sameEpochs(leader.Log, f.Log):
			detail := "-"
			if w.describe {
				detail = fmt.Sprintf("b%d %s leader epochs %s, leader b%d's %s", id, name(tp),
					formatEpochs(f.Log.Epochs().Entries()), lb.ID, formatEpochs(leader.Log.Epochs().Entries()))
			}
			if !yield(Lag{Converged, detail, blocked}) {
				return false
			}
		}
		if !slices.Contains(p.ISR, id) {
			if !yield(Lag{UnfencedInISR, w.say("b%d is not in %s's ISR %v", id, name(tp), p.ISR), blocked}) {
				return false
			}
		}
	}
	return true
}

// cannotLead reports whether a fault in force keeps every one of ids from
// being elected: each is down, or runs fenced (or unregistered) while the
// network keeps it from the controller. The controller elects only an
// unfenced broker (PartitionChangeBuilder): fencing the last ISR member
// leaves it in the ISR and the partition without a leader until it
// registers again, which a broker cut off from the controller cannot do.
// cut is what keeps the first fenced one away ("" when all are down).
// False when one runs unfenced, or fenced with nothing in its way (time
// unfences it).
func (w lagWalk) cannotLead(ids []int32) (cut string, ok bool) {
	img := w.c.MetadataImage()
	for _, id := range ids {
		b := w.c.Broker(int(id))
		if b == nil || !b.Alive() {
			continue
		}
		if bi := img.Broker(id); bi != nil && !bi.Fenced {
			return "", false
		}
		reason := w.cutOffFromController(b)
		if reason == "" {
			return "", false
		}
		cut = firstReason(cut, reason)
	}
	return cut, true
}

// brokerLive says whether broker id runs.
func (w lagWalk) brokerLive(id int32) bool {
	b := w.c.Broker(int(id))
	return b != nil && b.Alive()
}
