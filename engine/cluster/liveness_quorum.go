package cluster

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
	if len(c.voters) == 0 {
		return true // controllers in other processes: their quorum is theirs
	}
	blocked := w.quorumBlocked()
	var leader *voter
	for i, v := range c.voters {
		if c.controllerUp[i] && v.node.Role() == raft.Leader && (leader == nil || v.node.Epoch() > leader.node.Epoch()) {
			leader = v
		}
	}
	if leader == nil {
		return yield(Lag{QuorumConverged, w.say("no controller leads the KRaft quorum"), firstReason(blocked, w.netFaulty())})
	}
	ln, lnode := leader.node, controllerNode(leader.id)
	if ln.HighWatermark() != ln.Log().EndOffset() {
		if !yield(Lag{QuorumConverged, w.say("controller %d leads epoch %d with its metadata log ending at %d, past its high watermark %d: a majority does not have what it appended",
			leader.id, ln.Epoch(), ln.Log().EndOffset(), ln.HighWatermark()), firstReason(blocked, w.netFaulty())}) {
			return false
		}
	}
	if c.activeID != leader.id {
		if !yield(Lag{QuorumConverged, w.say("controller %d leads epoch %d but is not the active controller (%d is)", leader.id, ln.Epoch(), c.activeID),
			firstReason(blocked, w.netFaulty())}) {
			return false
		}
	}
	for i, v := range c.voters {
		if v == leader || !c.controllerUp[i] {
			continue
		}
		n := v.node
		var detail string
		switch {
		case n.Epoch() != ln.Epoch() || n.LeaderID() != int32(leader.id):
			detail = w.say("controller %d is %s in epoch %d (leader %d), controller %d leads epoch %d", v.id, strings.ToLower(n.Role().String()), n.Epoch(), n.LeaderID(), leader.id, ln.Epoch())
		case n.Log().EndOffset() != ln.Log().EndOffset():
			detail = w.say("controller %d's metadata log ends at %d, the leader's (controller %d) at %d", v.id, n.Log().EndOffset(), leader.id, ln.Log().EndOffset())
		case n.HighWatermark() != ln.HighWatermark():
			detail = w.say("controller %d's high watermark %d, the leader's (controller %d) %d", v.id, n.HighWatermark(), leader.id, ln.HighWatermark())
		default:
			continue
		}
		if !yield(Lag{QuorumConverged, detail, firstReason(w.cutOffFromQuorumLeader(controllerNode(v.id), lnode, "controller ", v.id, leader.id), blocked, w.netFaulty())}) {
			return false
		}
	}
	committed := ln.HighWatermark() - 1 // the last committed offset
	for _, b := range c.brokers {
		if !b.Alive() || b.MetadataOffset() == committed {
			continue
		}
		if !yield(Lag{QuorumConverged, w.say("b%d replayed the metadata log to offset %d, the quorum committed it to %d", b.ID, b.MetadataOffset(), committed),
			firstReason(w.cutOffFromQuorumLeader(b.Node, lnode, "b", int(b.ID), leader.id), blocked, w.netFaulty())}) {
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
	if up := c.controllersUp(); up < c.majority() {
		return w.say("%d of %d controllers run, a majority is %d", up, c.config.Controllers, c.majority())
	}
	if !c.quorumConnected() {
		return w.say("no %d of the %d running controllers reach each other (%s)", c.majority(), c.controllersUp(), c.net.Describe())
	}
	return ""
}

// quorumConnected says whether a majority of the controllers runs and
// reaches each other on the simulated network (partitions and cut links).
func (c *Cluster) quorumConnected() bool {
	return MajorityConnected(c.config.Controllers, func(id int) bool { return c.controllerUp[id-1] },
		func(a, b int) bool { return c.net.Connected(controllerNode(a), controllerNode(b)) })
}

// cutOffFromQuorumLeader says what on the network keeps node (controller
// or broker id, as kind names it) from the quorum's leader.
func (w lagWalk) cutOffFromQuorumLeader(node, leader sim.NodeID, kind string, id, leaderID int) string {
	if w.c.net.Connected(node, leader) {
		return ""
	}
	return w.say("%s cuts %s%d off from the quorum's leader, controller %d", w.c.separator(node, leader), kind, id, leaderID)
}
