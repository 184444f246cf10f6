package broker

import (
	"slices"

	"github.com/loglab/loglab/engine/metrics"
	"github.com/loglab/loglab/engine/protocol"
)

// Meters are the broker's Yammer meters the metrics panel shows. They
// live as long as the broker process: a restart starts them from zero,
// as a restarted JVM does.
type Meters struct {
	// IsrShrinks and IsrExpands are ReplicaManager's IsrShrinksPerSec and
	// IsrExpandsPerSec: marked by the leader when the controller accepts
	// the AlterPartition it sent (Partition.handleAlterPartitionUpdate ->
	// PendingShrinkIsr/PendingExpandIsr.notifyListener). An ISR the
	// controller changes on its own (fencing a broker) marks neither.
	IsrShrinks, IsrExpands metrics.Meter
	// FailedProduceRequests is BrokerTopicMetrics' FailedProduceRequestsPerSec
	// (all topics): one mark per partition whose append failed.
	FailedProduceRequests metrics.Meter
	// MessagesIn is BrokerTopicMetrics' MessagesInPerSec (all topics):
	// records appended as leader for producers (a duplicate batch, which
	// is not written again, is not counted).
	MessagesIn metrics.Meter
	// proposals: the ISR change each partition's AlterPartition in flight
	// asks for, true for a shrink (looked up, never ranged over).
	proposals map[protocol.TopicPartition]bool
}

// Meters returns the broker's meters (a copy).
func (b *Broker) Meters() Meters { return b.meters }

// isrProposed notes the kind of ISR change the leader just asked the
// controller for (Partition.prepareIsrShrink / prepareIsrExpand build a
// PendingShrinkIsr or PendingExpandIsr).
func (b *Broker) isrProposed(tp protocol.TopicPartition, shrink bool) {
	if b.meters.proposals == nil {
		b.meters.proposals = map[protocol.TopicPartition]bool{}
	}
	b.meters.proposals[tp] = shrink
}

// isrProposalCommitted marks IsrShrinksPerSec or IsrExpandsPerSec once the
// change the leader proposed is committed (Partition.handleAlterPartitionUpdate
// -> notifyListener), whether the answer or the metadata says so first.
func (b *Broker) isrProposalCommitted(tp protocol.TopicPartition) {
	shrink, ok := b.meters.proposals[tp]
	if !ok {
		return
	}
	delete(b.meters.proposals, tp)
	if shrink {
		b.meters.IsrShrinks.Mark(b.sched.Clock.Elapsed(), 1)
	} else {
		b.meters.IsrExpands.Mark(b.sched.Clock.Elapsed(), 1)
	}
}

// isrMetadataCommitted: the metadata brought the ISR a pending proposal
// asked for. In Kafka the controller's AlterPartition answer normally
// reaches the leader before the metadata, and that answer marks the
// meter; loglab's brokers often get the metadata first, so the committed
// proposal is marked here then (Kafka, seeing the metadata first, ignores
// the late answer and marks nothing: a race loglab resolves as the common
// order does).
func (b *Broker) isrMetadataCommitted(r *Replica) {
	if r.pendingISR != nil && sameMembers(r.pendingISR, r.ISR) {
		b.isrProposalCommitted(r.TP)
	}
}

func sameMembers(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// produceFailed marks FailedProduceRequestsPerSec for an append refused
// with code, unless Kafka leaves the code out.
func (b *Broker) produceFailed(code protocol.ErrorCode) {
	if countsAsFailedProduce(code) {
		b.meters.FailedProduceRequests.Mark(b.sched.Clock.Elapsed(), 1)
	}
}

// countsAsFailedProduce is ReplicaManager.appendToLocalLog's choice:
// "Failed produce requests metric is not incremented for known exceptions,
// it is supposed to indicate un-expected failures of a broker in handling
// a produce request" — unknown topic, not the leader, record or batch too
// large, corrupt record, storage error. Everything else thrown by the
// append counts: NOT_ENOUGH_REPLICAS (Partition.appendRecordsToLeader
// refusing acks=all under min.insync.replicas), the producer state's
// OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH and such, and
// INVALID_RECORD. Errors found before the append (invalid acks, failed
// transaction verification) and NOT_ENOUGH_REPLICAS_AFTER_APPEND or
// REQUEST_TIMED_OUT from the produce purgatory never reach it.
func countsAsFailedProduce(code protocol.ErrorCode) bool {
	switch code {
	case protocol.None, protocol.UnknownTopicOrPartition, protocol.NotLeaderOrFollower,
		protocol.MessageTooLarge, protocol.RecordListTooLarge, protocol.CorruptMessage:
		return false
	}
	return true
}
