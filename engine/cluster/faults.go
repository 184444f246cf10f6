package cluster

import (
	"fmt"

	"github.com/loglab/loglab/engine/sim"
)

// CrashBroker kills broker id. With powerLoss, its disk also loses every
// write still in the page cache, as a machine losing power does: neither
// fsynced nor written back by the OS's flusher, which writes out data dirty
// for 30 s (storage.NewCrashableMemWithWriteback); a plain crash (a killed
// process) keeps them in the page cache. By default Kafka never fsyncs on
// its own: it relies on other replicas, not on the disk.
func (c *Cluster) CrashBroker(id int, powerLoss bool) error {
	b := c.Broker(id)
	if b == nil {
		return fmt.Errorf("no broker %d (brokers are 1-%d)", id, len(c.brokers))
	}
	if !b.Alive() {
		return fmt.Errorf("broker %d is already down", id)
	}
	if powerLoss && c.fs != nil {
		return fmt.Errorf("power=true needs the in-memory disks; this cluster writes real files")
	}
	b.Stop()
	if powerLoss {
		c.disks[id-1] = c.disks[id-1].Crash()
		c.diskFaults[id-1].SetInner(c.disks[id-1]) // still full, if it was
		c.checker.LostPower(b)
	}
	return nil
}

// RestartBroker starts broker id again on its disk: it recovers its logs,
// registers with a new broker epoch and catches up as a follower.
func (c *Cluster) RestartBroker(id int) error {
	b := c.Broker(id)
	if b == nil {
		return fmt.Errorf("no broker %d (brokers are 1-%d)", id, len(c.brokers))
	}
	if b.Alive() {
		return fmt.Errorf("broker %d is running", id)
	}
	c.net.SetDown(b.Node, false)
	b, err := c.newBroker(id)
	if err != nil {
		return err
	}
	c.brokers[id-1] = b
	return nil
}

// NodeFor resolves a lab name to a network node: a broker number, "ctl"
// (the controller) or a client name.
func (c *Cluster) NodeFor(name string) (sim.NodeID, error) {
	var id int
	if _, err := fmt.Sscanf(name, "%d", &id); err == nil && fmt.Sprint(id) == name {
		if c.Broker(id) == nil {
			return "", fmt.Errorf("no broker %d (brokers are 1-%d)", id, len(c.brokers))
		}
		return c.Broker(id).Node, nil
	}
	if name == "ctl" || name == "controller" {
		return "ctl", nil
	}
	if c.Producer(name) != nil || c.Consumer(name) != nil {
		return sim.NodeID(name), nil
	}
	// After the clients: a consumer named c1 keeps its name; its
	// namesake controller is also ctl1.
	if id, ok := c.ControllerFor(name); ok && c.remote == nil {
		return controllerNode(id), nil
	}
	return "", fmt.Errorf("no node %q: use a broker number, ctl, a controller c1-c%d (ctl1-ctl%d) or a client name", name, c.config.Controllers, c.config.Controllers)
}
