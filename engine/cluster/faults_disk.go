package cluster

import (
	"fmt"

	"github.com/loglab/loglab/engine/storage"
)

// FillDisk makes broker id's disk full once after more bytes have been
// written (0: now): the write that crosses it writes what fits and fails
// with ENOSPC, and so does every write after it, until FreeDisk. With
// eio, every write fails with EIO at once instead (a failing disk). The
// broker answers as Kafka does for a failed log directory: the request
// gets KAFKA_STORAGE_ERROR, the replica goes offline on that broker and
// the controller moves its leadership (engine/broker/logdir_failure.go).
//
// A cluster on real files (the workshop server's) fills a broker's disk
// the same way, in front of its folder of the data directory: the engine
// cannot tell it from osfs reporting the kernel's ENOSPC when the real
// disk fills.
func (c *Cluster) FillDisk(id int, after int64, eio bool) error {
	if err := c.checkFillable(id); err != nil {
		return err
	}
	if eio {
		c.diskFaults[id-1].FailIO()
	} else {
		c.diskFaults[id-1].FillAfter(after)
	}
	return nil
}

// FreeDisk makes broker id's disk accept writes again (space was freed).
// Replicas already offline stay offline until the broker restarts, as in
// Kafka, where a failed log directory comes back only with the broker.
func (c *Cluster) FreeDisk(id int) error {
	if err := c.checkFillable(id); err != nil {
		return err
	}
	c.diskFaults[id-1].Free()
	return nil
}

func (c *Cluster) checkFillable(id int) error {
	if c.Broker(id) == nil {
		return fmt.Errorf("no broker %d (brokers are 1-%d)", id, len(c.brokers))
	}
	return nil
}

// FillControllerDisk makes controller id's disk full once after more
// bytes (0: now); FreeControllerDisk frees it. Only controllers that keep
// their metadata in files have a disk to fill (a data directory, or a
// MetadataDir over any storage.FS); the simulation's in-memory
// controllers keep it in memory.
func (c *Cluster) FillControllerDisk(id int, after int64) error {
	d, err := c.controllerDisk(id)
	if err != nil {
		return err
	}
	d.FillAfter(after)
	return nil
}

// FreeControllerDisk makes controller id's disk accept writes again; a
// controller that halted stays down until restarted, as in Kafka.
func (c *Cluster) FreeControllerDisk(id int) error {
	d, err := c.controllerDisk(id)
	if err != nil {
		return err
	}
	d.Free()
	return nil
}

func (c *Cluster) controllerDisk(id int) (*storage.Faulty, error) {
	if err := c.checkControllerID(id); err != nil {
		return nil, err
	}
	if id > len(c.controllerDisks) {
		return nil, fmt.Errorf("controller %d keeps its metadata in memory: it has no disk to fill", id)
	}
	return c.controllerDisks[id-1], nil
}
