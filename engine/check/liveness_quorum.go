package check

import (
	"strings"

	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/sim"
)

// QuorumConverged is the KRaft quorum's liveness property: once the
// faults are gone, a controller leads the quorum and is the active
// controller, every running voter follows it in its epoch with the same
// log end and high watermark, the leader has committed everything it
// appended, and every live broker has replayed the metadata log to the
// committed end (its metadata image has converged: Kafka's
// kafka-metadata-quorum describe --replication shows every voter's and
// observer's lag at 0). A leader never elected with a connected
// majority running (an election livelock), a voter or broker that stops
// fetching, a high watermark that never reaches a follower: each breaks
// it. Crashed controllers and brokers are not asked, as crashed replicas
// are not in converged; no majority of running, connected controllers,
// a net partition or cut link between a node and the leader, and the
// network faults in force excuse what they keep back.
const QuorumConverged = "quorum-converged"

// quorumLags yields the quorum's lags: the leader first, then the voters
// in id order, then the brokers; false when yield stopped the walk.
func (w lagWalk) quorumLags(yield func(Lag) bool) bool {
	c := w.c
	if c.QuorumNode(1) == nil {
		return true // controllers in other processes: their quorum is theirs
	}
	blocked := w.quorumBlocked()
	var ln *raft.Node
	leaderID := 0
	for id := 1; id <= c.Controllers(); id++ {
		n := c.QuorumNode(id)
		if c.ControllerUp(id) && n.Role() == raft.Leader && (ln == nil || n.Epoch() > ln.Epoch()) {
			ln, leaderID = n, id
		}
	}
	if ln == nil {
		return yield(Lag{QuorumConverged, w.say("no controller leads the KRaft quorum"), firstReason(blocked, w.netFaulty())})
	}
	lnode := c.ControllerNode(leaderID)
	if ln.HighWatermark() != ln.Log().EndOffset() {
		if !yield(Lag{QuorumConverged, w.say("controller %d leads epoch %d with its metadata log ending at %d, past its high watermark %d: a majority does not have what it appended",
			leaderID, ln.Epoch(), ln.Log().EndOffset(), ln.HighWatermark()), firstReason(blocked, w.netFaulty())}) {
			return false
		}
	}
	if c.ActiveController() != leaderID {
		if !yield(Lag{QuorumConverged, w.say("controller %d leads epoch %d but is not the active controller (%d is)", leaderID, ln.Epoch(), c.ActiveController()),
			firstReason(blocked, w.netFaulty())}) {
			return false
		}
	}
	for id := 1; id <= c.Controllers(); id++ {
		if id == leaderID || !c.ControllerUp(id) {
			continue
		}
		n := c.QuorumNode(id)
		var detail string
		switch {
		case n.Epoch() != ln.Epoch() || n.LeaderID() != int32(leaderID):
			detail = w.say("controller %d is %s in epoch %d (leader %d), controller %d leads epoch %d", id, strings.ToLower(n.Role().String()), n.Epoch(), n.LeaderID(), leaderID, ln.Epoch())
		case n.Log().EndOffset() != ln.Log().EndOffset():
			detail = w.say("controller %d's metadata log ends at %d, the leader's (controller %d) at %d", id, n.Log().EndOffset(), leaderID, ln.Log().EndOffset())
		case n.HighWatermark() != ln.HighWatermark():
			detail = w.say("controller %d's high watermark %d, the leader's (controller %d) %d", id, n.HighWatermark(), leaderID, ln.HighWatermark())
		default:
			continue
		}
		if !yield(Lag{QuorumConverged, detail, firstReason(w.cutOffFromQuorumLeader(c.ControllerNode(id), lnode, "controller ", id, leaderID), blocked, w.netFaulty())}) {
			return false
		}
	}
	committed := ln.HighWatermark() - 1 // the last committed offset
	for _, b := range c.Brokers() {
		if !b.Alive() || b.MetadataOffset() == committed {
			continue
		}
		if !yield(Lag{QuorumConverged, w.say("b%d replayed the metadata log to offset %d, the quorum committed it to %d", b.ID, b.MetadataOffset(), committed),
			firstReason(w.cutOffFromQuorumLeader(b.Node, lnode, "b", int(b.ID), leaderID), blocked, w.netFaulty())}) {
			return false
		}
	}
	return true
}

// quorumBlocked names what keeps the quorum from electing and committing:
// fewer than a majority of the controllers run, or no majority of the
// running ones reach each other ("" when a majority can).
func (w lagWalk) quorumBlocked() string {
	c := w.c
	majority := c.Controllers()/2 + 1
	if up := c.ControllersUp(); up < majority {
		return w.say("%d of %d controllers run, a majority is %d", up, c.Controllers(), majority)
	}
	if !c.QuorumConnected() {
		return w.say("no %d of the %d running controllers reach each other (%s)", majority, c.ControllersUp(), c.NetDescribe())
	}
	return ""
}

// cutOffFromQuorumLeader says what on the network keeps node (controller
// or broker id, as kind names it) from the quorum's leader.
func (w lagWalk) cutOffFromQuorumLeader(node, leader sim.NodeID, kind string, id, leaderID int) string {
	if w.c.Connected(node, leader) {
		return ""
	}
	return w.say("%s cuts %s%d off from the quorum's leader, controller %d", w.c.Separator(node, leader), kind, id, leaderID)
}
