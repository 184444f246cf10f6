package cluster

import (
	"errors"
	"fmt"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/protocol"
)

// The controllers. Inside the simulation they are KRaft voters on the
// simulated network (quorum_sim.go): a controller failover takes what it
// takes in Kafka, controller.quorum.fetch.timeout.ms to notice and an
// election, in virtual time. Controllers that are separate OS processes
// (Config.OpenQuorum, hashicorp/raft in engine/kraft/quorum) run in real
// time: the simulation waits for them whenever it asks them something.

// ErrNotController is Kafka's NOT_CONTROLLER: no controller is active.
var ErrNotController = errors.New("NOT_CONTROLLER")

// activateRemote makes the leader of the quorum of processes the active
// controller, resuming from the image it replayed; without one, the
// controller's address stops answering.
func (c *Cluster) activateRemote() {
	if !c.quorumHasMajority() {
		c.deactivate()
		return
	}
	img := c.remote.ActiveImage()
	leader := c.remote.Leader()
	if img == nil || leader == 0 {
		c.deactivate()
		return
	}
	if c.controller != nil && !c.controller.Stopped() && leader == c.activeID {
		return
	}
	if c.controller != nil {
		c.controller.Stop()
	}
	c.controller = kraft.NewController(c.controllerConfig(), c.net, c.sched, c.rng, c.meta, img, c.event)
	c.activeID = leader
	c.placePartition()
	if c.started {
		c.event(fmt.Sprintf("controller %d is the active controller now: it resumes from metadata offset %d, every broker's session starts afresh",
			leader, img.Offset))
	}
}

func (c *Cluster) deactivate() {
	if c.controller != nil && !c.controller.Stopped() {
		c.controller.Stop()
		why := fmt.Sprintf("controller %d no longer leads the quorum", c.activeID)
		if c.remote != nil {
			why = fmt.Sprintf("%d of %d controllers run, a majority is %d", c.controllersUp(), c.config.Controllers, c.majority())
			if c.controllersUp() >= c.majority() {
				why = fmt.Sprintf("no %d of the %d controllers reach each other across the network partition", c.majority(), c.config.Controllers)
			}
		}
		c.event("no active controller: " + why + "; brokers keep their last metadata, nothing is fenced, elected or changed in any ISR")
	}
	c.activeID = 0
	c.net.SetDown(kraft.ControllerNode, true)
	c.net.Host(kraft.ControllerNode, "")
}

func (c *Cluster) controllerConfig() kraft.ControllerConfig {
	return kraft.ControllerConfig{SessionTimeout: c.config.SessionTimeout,
		AutoLeaderRebalance: c.config.AutoLeaderRebalance, ImbalanceCheckInterval: c.config.ImbalanceCheckInterval,
		MaxReplicas: MaxReplicasPerCluster}
}

func (c *Cluster) controllersUp() int {
	n := 0
	for _, up := range c.controllerUp {
		if up {
			n++
		}
	}
	return n
}

// quorumHasMajority says whether a majority of the controllers runs and
// reaches each other across the partition's groups: only then can the
// quorum elect and commit.
func (c *Cluster) quorumHasMajority() bool {
	return MajorityConnected(c.config.Controllers, func(id int) bool { return c.controllerUp[id-1] }, c.controllersConnected)
}

// MajorityConnected says whether some majority of n controllers (ids
// 1..n) all run (up) and reach each other (connected).
func MajorityConnected(n int, up func(id int) bool, connected func(a, b int) bool) bool {
	for mask := 1; mask < 1<<n; mask++ {
		var ids []int
		ok := true
		for id := 1; id <= n && ok; id++ {
			if mask&(1<<(id-1)) == 0 {
				continue
			}
			ok = up(id)
			for _, other := range ids {
				ok = ok && connected(id, other)
			}
			ids = append(ids, id)
		}
		if ok && len(ids) >= n/2+1 {
			return true
		}
	}
	return false
}

// CrashController stops controller id. When it was the active controller,
// the others notice (controller.quorum.fetch.timeout.ms) and elect another,
// if a majority of them still runs.
func (c *Cluster) CrashController(id int) error {
	if err := c.checkControllerID(id); err != nil {
		return err
	}
	if !c.controllerUp[id-1] {
		return fmt.Errorf("controller %d is already down", id)
	}
	if c.remote != nil {
		if err := c.remote.Crash(id); err != nil {
			return err
		}
	} else {
		c.voter(id).node.Crash()
		c.net.SetDown(controllerNode(id), true)
	}
	c.controllerUp[id-1] = false
	c.event(fmt.Sprintf("controller %d crashed", id))
	if c.remote != nil && (id == c.activeID || !c.quorumHasMajority()) {
		c.activateRemote()
	} else if id == c.activeID {
		c.deactivate()
	}
	return nil
}

// RestartController starts controller id on its stores: it restores its
// latest snapshot and catches up from the leader (by snapshot, if the
// leader's log no longer holds what it missed).
func (c *Cluster) RestartController(id int) error {
	if err := c.checkControllerID(id); err != nil {
		return err
	}
	if c.controllerUp[id-1] {
		return fmt.Errorf("controller %d is running", id)
	}
	if c.remote != nil {
		if err := c.remote.Restart(id); err != nil {
			return err
		}
	} else {
		v := c.voter(id)
		v.image = kraft.NewImage()
		if v.node.Halted() != nil {
			// A process that exited opens its files afresh: the store's
			// state in memory ended with the write that failed.
			v.node.Close()
			if err := c.newVoterNode(v); err != nil {
				return fmt.Errorf("controller %d: %w", id, err)
			}
		}
		c.net.SetDown(controllerNode(id), false)
		if err := v.node.Start(); err != nil {
			return fmt.Errorf("controller %d: %w", id, err)
		}
	}
	c.controllerUp[id-1] = true
	c.event(fmt.Sprintf("controller %d restarted", id))
	if c.remote != nil && c.activeID == 0 {
		c.activateRemote()
	}
	return nil
}

func (c *Cluster) checkControllerID(id int) error {
	if id < 1 || id > c.config.Controllers {
		return fmt.Errorf("no controller %d (controllers are 1-%d)", id, c.config.Controllers)
	}
	return nil
}

// ControllersDown lists the crashed controllers in id order.
func (c *Cluster) ControllersDown() []int {
	var out []int
	for i, up := range c.controllerUp {
		if !up {
			out = append(out, i+1)
		}
	}
	return out
}

// ActiveController is the active controller's id, 0 when there is none.
func (c *Cluster) ActiveController() int { return c.activeID }

// QuorumStatus describes every controller.
func (c *Cluster) QuorumStatus() []kraft.ControllerStatus {
	if c.remote != nil {
		c.remote.Settle()
		return c.remote.Status()
	}
	out := make([]kraft.ControllerStatus, len(c.voters))
	for i, v := range c.voters {
		out[i] = controllerStatus(v.node.Status(), c.controllerUp[i])
	}
	return out
}

// controllerStatus maps a KRaft node's status onto the panel's fields:
// terms are epochs, indexes metadata offsets.
func controllerStatus(s raft.Status, up bool) kraft.ControllerStatus {
	role := map[raft.Role]string{raft.Unattached: "unattached", raft.Prospective: "prospective", raft.Candidate: "candidate",
		raft.Leader: "leader", raft.Follower: "follower", raft.Resigned: "resigned"}[s.Role]
	if !up {
		role = "shutdown"
	}
	out := kraft.ControllerStatus{ID: int(s.ID), Role: role, Leader: max(int(s.LeaderID), 0), Term: uint64(max(s.Epoch, 0)),
		LastIndex: uint64(s.LogEnd), CommitIndex: uint64(s.HighWatermark), AppliedIndex: uint64(s.HighWatermark),
		FirstIndex: uint64(s.LogStart), MetadataStart: s.LogStart, MetadataEnd: s.LogEnd, RestoredOffset: -1}
	if s.SnapshotEnd >= 0 {
		out.SnapshotIndex = uint64(s.SnapshotEnd)
	}
	return out
}

// MetadataLog is the committed metadata log (__cluster_metadata).
func (c *Cluster) MetadataLog() interface {
	ReadLog(from int64) ([]protocol.MetadataRecord, int64, error)
	End() int64
} {
	return c.meta
}

// FollowRemoteQuorum follows controllers that are separate processes:
// they run in real time and may elect another leader between two
// commands, a real event of their own; the new leader becomes the active
// controller. It reports whether the active controller changed. The
// simulated quorum needs none of this: it elects only in virtual time.
func (c *Cluster) FollowRemoteQuorum() bool {
	if c.remote == nil || !c.quorumHasMajority() || c.remote.Leader() == c.activeID {
		return false
	}
	c.activateRemote()
	return true
}

// controllerHalted marks controller v down once its KRaft node halted
// because its store failed a write (engine/kraft/raft/halt.go): in Kafka
// the fault handler exits the process, so this is a crash the controller
// did to itself. The others go on; a restart brings it back on what its
// files hold.
func (c *Cluster) controllerHalted(v *voter, err error) {
	if !c.controllerUp[v.id-1] {
		return
	}
	c.net.SetDown(controllerNode(v.id), true)
	c.controllerUp[v.id-1] = false
	c.event(fmt.Sprintf("controller %d stopped: its metadata store failed a write (%v); free the disk and restart it (controller restart %d)", v.id, err, v.id))
	if v.id == c.activeID {
		c.deactivate()
	}
}

// quorumConnected says whether a majority of the controllers runs and
// reaches each other on the simulated network (partitions and cut links).
func (c *Cluster) quorumConnected() bool {
	return MajorityConnected(c.config.Controllers, func(id int) bool { return c.controllerUp[id-1] },
		func(a, b int) bool { return c.net.Connected(controllerNode(a), controllerNode(b)) })
}
