package cluster

import (
	"github.com/loglab/loglab/engine/check"
	"github.com/loglab/loglab/engine/protocol"
)

// The invariant and liveness checker lives in engine/check and reads the
// cluster through checkedCluster (checked_cluster.go), a read-only view;
// the cluster calls it after every event, and tells it what only the
// cluster sees (a power cut, a consumer's poll, a seek, a quorum leader).
// Here are the cluster's calls into it and the names it re-exports.

// Checker is the cluster's invariant checker (engine/check).
type Checker = check.Checker

// Violation is a broken invariant: which, where, when.
type Violation = check.Violation

// Checker returns the cluster's invariant checker.
func (c *Cluster) Checker() *Checker { return c.checker }

// NoteSeek tells the checker a member of group moved its position in tp
// with KafkaConsumer.seek: a commit after it may go back, which Kafka
// allows (an application reprocessing), once.
func (c *Cluster) NoteSeek(group string, tp protocol.TopicPartition) {
	c.checker.NoteSeek(group, tp)
}

// Lag is one way the cluster has not converged (a liveness property of
// engine/check).
type Lag = check.Lag

// The liveness properties' names.
const (
	Converged        = check.Converged
	UnfencedInISR    = check.UnfencedInISR
	NoBusyLoop       = check.NoBusyLoop
	GroupConverged   = check.GroupConverged
	TransactionEnded = check.TransactionEnded
	QuorumConverged  = check.QuorumConverged
)

// Lags lists what keeps the cluster from having converged, brokers first,
// then partitions in topic order; empty when it has.
func (c *Cluster) Lags() []Lag { return c.checker.Lags() }

// settled reports whether every lag left is one a fault keeps
// (check.Checker.Settled).
func (c *Cluster) settled() bool { return c.checker.Settled() }
