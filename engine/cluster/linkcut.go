package cluster

import (
	"fmt"

	"github.com/loglab/loglab/engine/sim"
)

// CutLink cuts the link between two nodes of the simulated network both
// ways (net cut A B): brokers, clients, controllers (ctl1, ctl2...), and
// ctl, the active controller's address. A broker cut from ctl stays cut
// from whichever controller is active, as a broker that cannot reach the
// controller quorum's listeners would; a broker cut from controller 2
// is cut from ctl too while controller 2 is the active one, since one
// process answers on both (sim.Network.Host).
func (c *Cluster) CutLink(a, b sim.NodeID) error {
	if a == b {
		return fmt.Errorf("a link joins two different nodes, not %s and itself", a)
	}
	if !c.net.CutLink(a, b) {
		return fmt.Errorf("the link %s-%s is already cut", a, b)
	}
	return nil
}

// HealLink reconnects one cut link (net heal A B).
func (c *Cluster) HealLink(a, b sim.NodeID) error {
	if !c.net.HealLink(a, b) {
		return fmt.Errorf("the link %s-%s is not cut", a, b)
	}
	return nil
}

// separator names what keeps a from reaching b, for the liveness
// checker's explanations: a partition or a cut link.
func (c *Cluster) separator(a, b sim.NodeID) string {
	if c.net.LinkCut(a, b) && !c.net.Partitioned(a, b) {
		for _, l := range c.net.CutLinks() {
			if x, y := c.net.HostOf(a), c.net.HostOf(b); l == [2]sim.NodeID{min(x, y), max(x, y)} {
				a, b = x, y // cut through the node hosting an address
			}
		}
		return fmt.Sprintf("the cut link %s-%s", a, b)
	}
	return "a net partition"
}

// netFaultWords names the faults in force when none separates the two
// nodes a lag is about but one may still hold it back (a drop rule, or a
// cut or partition between other nodes it depends on); "" when the
// network is healthy.
func (c *Cluster) netFaultWords() string {
	switch {
	case c.net.Dropping():
		return "net drop rules are in force"
	case c.net.Partitioning():
		return "a net partition is in force (" + c.net.Describe() + ")"
	case c.net.Faulty():
		return "a link is cut (" + c.net.Describe() + ")"
	}
	return ""
}
