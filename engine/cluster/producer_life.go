package cluster

import (
	"fmt"
	"slices"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/txn/coordinator"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// CrashProducer kills producer name's process: everything it had queued
// or in flight is gone, its open transaction stays open on the brokers
// until its transaction.timeout.ms passes or a new instance fences it.
func (c *Cluster) CrashProducer(name string) error {
	p := c.Producer(name)
	if p == nil {
		return fmt.Errorf("%w: %q", ErrNoClient, name)
	}
	if p.Crashed() {
		return fmt.Errorf("producer %s has already crashed", name)
	}
	p.Crash()
	return nil
}

// RestartProducer starts a new instance of a crashed producer, with the
// same name and configuration: a new process, so a new producer id for an
// idempotent one; a transactional one keeps its transactional.id, and its
// initTransactions (the caller's to run) fences the crashed instance.
func (c *Cluster) RestartProducer(name string) (*client.Producer, error) {
	old := c.Producer(name)
	if old == nil {
		return nil, fmt.Errorf("%w: %q", ErrNoClient, name)
	}
	if !old.Crashed() {
		return nil, fmt.Errorf("producer %s is running: crash it first (or create a second producer with the same transactional.id to make a zombie)", name)
	}
	p := client.NewProducer(sim.NodeID(name), old.Config(), c.bootstrap(), c.net, c.sched, c.rng, c.event)
	c.producers[slices.Index(c.producers, old)] = p
	return p, nil
}

// RunTxnOp runs the cluster until a transactional call completes, as the
// Java caller blocks on it, for at most timeout of virtual time (Kafka
// bounds initTransactions, commitTransaction and abortTransaction by
// max.block.ms).
func (c *Cluster) RunTxnOp(op *client.TxnOp, timeout time.Duration) error {
	if op.Done {
		return nil
	}
	_, err := c.RunUntil(func() bool { return op.Done }, timeout)
	return err
}

// TxnPartition is the __transaction_state partition of a transactional
// id, -1 while the topic does not exist: Kafka's
// TransactionStateManager.partitionFor, abs(hashCode) % the topic's
// partition count, read from the controller's metadata as Coordinator
// reads __consumer_offsets' for a group. Not from a broker's: one that
// restarted cut off from the quorum's leader has replayed nothing (its
// image has no __transaction_state), and asking it made every
// transactional id look coordinator-less (VOPR seed 583).
func (c *Cluster) TxnPartition(txnID string) int32 {
	t := c.controller.Image().Topic(broker.TransactionStateTopic)
	if t == nil {
		return -1
	}
	return txnlog.PartitionFor(txnID, int32(len(t.Partitions)))
}

// DescribeTransaction is DescribeTransactions to the coordinator of
// txnID: the leader of its __transaction_state partition.
func (c *Cluster) DescribeTransaction(txnID string) (coordinator.Description, protocol.ErrorCode) {
	t := c.controller.Image().Topic(broker.TransactionStateTopic)
	if t == nil {
		return coordinator.Description{}, protocol.TransactionalIDNotFound
	}
	r := c.leaderReplica(protocol.TopicPartition{Topic: broker.TransactionStateTopic, Partition: c.TxnPartition(txnID)})
	if r == nil {
		return coordinator.Description{}, protocol.CoordinatorNotAvailable
	}
	pi := c.controller.Image().Partition(broker.TransactionStateTopic, c.TxnPartition(txnID))
	return c.Broker(int(pi.Leader)).DescribeTransaction(txnID)
}
