package cluster

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/sim"
)

// Network partitions that cut controllers apart.
//
// A partition's groups name brokers, clients and controllers. Brokers and
// clients are nodes of the simulated network. Controllers are named c1,
// c2, ...: each is a node of the simulated network, so a partition cuts
// them apart like any node; a controller alone cannot commit and a
// connected majority elects a new active controller.
//
// `ctl` stays what brokers talk to: the active controller (Kafka brokers
// heartbeat to, and fetch metadata from, the active controller only).
// When a partition names controllers, ctl sits on the side of whichever
// controller is active, and moves with it: a broker grouped with an
// isolated controller cannot reach the active one, so it is fenced after
// broker.session.timeout.ms, even though it still reaches a controller.
// A partition names either ctl (the controllers are then not cut apart,
// as before controllers could be named) or controllers, not both.
// Controllers not named reach everybody, as nodes not named do.

// ControllerFor resolves a lab name for a controller, "c1" (or its
// network address "ctl1") to 1, and says whether name is one.
func (c *Cluster) ControllerFor(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, "ctl")
	if !ok {
		digits, ok = strings.CutPrefix(name, "c")
	}
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(digits)
	if err != nil || strconv.Itoa(id) != digits || id < 1 || id > c.config.Controllers {
		return 0, false
	}
	return id, true
}

// controllerNode is controller id's address on the network: ctl1, ctl2,
// ... (ctl alone is the active controller's). Not c1: lab clients are
// often named c1, c2.
func controllerNode(id int) sim.NodeID { return sim.NodeID("ctl" + strconv.Itoa(id)) }

// PartitionNetwork splits the network into groups (see above). The
// simulated quorum takes it as it comes, in virtual time: a leader cut off
// from its majority resigns by check-quorum, and a connected majority
// elects another. Controllers in other processes are cut apart on their
// real network, and the call returns once they have settled into it.
func (c *Cluster) PartitionNetwork(groups [][]sim.NodeID) error {
	namesCtl, namesControllers := false, false
	for _, g := range groups {
		for _, id := range g {
			if id == kraft.ControllerNode {
				namesCtl = true
			}
			if _, ok := c.ControllerFor(string(id)); ok {
				namesControllers = true
			}
		}
	}
	if namesCtl && namesControllers {
		return fmt.Errorf("name the controllers (c1..c%d) or ctl, the active controller's address, not both", c.config.Controllers)
	}
	before := c.activeID
	c.partition = slices.Clone(groups)
	if c.remote != nil {
		if err := c.remote.Partition(c.controllersConnectedFunc()); err != nil {
			return err
		}
		if before != 0 && !c.quorumReaches(before) {
			c.event(fmt.Sprintf("controller %d is cut off from a majority of the quorum: it stepped down and cannot commit metadata", before))
		}
		c.activateRemote()
	}
	c.placePartition()
	return nil
}

// HealNetwork reconnects everything: brokers, clients and controllers.
func (c *Cluster) HealNetwork() error {
	c.net.Heal()
	cut := c.controllersCut()
	c.partition = nil
	if c.remote == nil {
		return nil
	}
	if cut {
		if err := c.remote.Partition(nil); err != nil {
			return err
		}
	}
	if c.activeID == 0 || c.activeID != c.remote.Leader() {
		c.activateRemote()
	}
	return nil
}

// controllersCut says whether the current partition names controllers.
func (c *Cluster) controllersCut() bool {
	for _, g := range c.partition {
		for _, id := range g {
			if _, ok := c.ControllerFor(string(id)); ok {
				return true
			}
		}
	}
	return false
}

// controllersConnected says whether controllers a and b reach each other.
func (c *Cluster) controllersConnected(a, b int) bool {
	side := func(id int) int {
		for i, g := range c.partition {
			if slices.Contains(g, controllerNode(id)) {
				return i + 1
			}
		}
		return 0
	}
	sa, sb := side(a), side(b)
	return sa == 0 || sb == 0 || sa == sb
}

// controllersConnectedFunc is controllersConnected for the quorum, nil
// when no partition names a controller.
func (c *Cluster) controllersConnectedFunc() func(a, b int) bool {
	if !c.controllersCut() {
		return nil
	}
	groups := slices.Clone(c.partition)
	saved := &Cluster{partition: groups, config: c.config}
	return saved.controllersConnected
}

// quorumReaches says whether controller id runs and reaches a majority of
// the controllers (itself included).
func (c *Cluster) quorumReaches(id int) bool {
	if !c.controllerUp[id-1] {
		return false
	}
	n := 0
	for other := 1; other <= c.config.Controllers; other++ {
		if c.controllerUp[other-1] && c.controllersConnected(id, other) {
			n++
		}
	}
	return n >= c.majority()
}

func (c *Cluster) majority() int { return c.config.Controllers/2 + 1 }

// placePartition partitions the simulated network as c.partition says,
// with ctl on the active controller's side when controllers are named.
func (c *Cluster) placePartition() {
	if c.partition == nil {
		return
	}
	groups := make([][]sim.NodeID, len(c.partition))
	for i, g := range c.partition {
		groups[i] = slices.Clone(g)
		if c.activeID != 0 && c.controllersCut() && slices.Contains(g, controllerNode(c.activeID)) {
			groups[i] = append(groups[i], kraft.ControllerNode)
		}
	}
	c.net.Partition(groups)
}

// ControllerNode is controller id's address on the network.
func (c *Cluster) ControllerNode(id int) sim.NodeID { return controllerNode(id) }
