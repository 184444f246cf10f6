package broker

import (
	"errors"
	"fmt"

	"github.com/loglab/loglab/engine/group/coordinator"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/producerstate"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/storage"
)

// The group coordinator's side of transactions: TxnOffsetCommit, the
// markers that decide its offsets, and the load that rebuilds them.

// verifyTxnOffsetCommit is GroupCoordinatorService.commitTransactionalOffsets
// with transaction version 2: the group's __consumer_offsets partition is
// added to the producer's transaction first (the producer sends no
// AddOffsetsToTxn), and only then does the shard validate the consumer and
// write the offsets, so the transaction's markers reach the partition.
func (b *Broker) verifyTxnOffsetCommit(from sim.NodeID, m protocol.TxnOffsetCommitRequest, cs *coordShard) {
	if m.GroupID == "" {
		// Checked before the transaction is touched (isGroupIdNotEmpty).
		b.send(from, coordinator.ErrorResponse(m, protocol.InvalidGroupID))
		return
	}
	tp := protocol.TopicPartition{Topic: OffsetsTopic, Partition: cs.r.TP.Partition}
	b.addPartitionToTxn(m.TransactionalID, m.ProducerID, m.ProducerEpoch, tp, func(c protocol.ErrorCode) {
		if c != protocol.None {
			c = coordinatorOperationError(c)
			b.events(fmt.Sprintf("%s: TxnOffsetCommit of transaction %s for group %s: %s (adding %s/%d to the transaction)",
				b.Node, m.TransactionalID, m.GroupID, c.Name(), OffsetsTopic, tp.Partition))
			b.send(from, coordinator.ErrorResponse(m, c))
			return
		}
		if b.groups == nil || b.groups.shards[tp.Partition] != cs || cs.shard == nil || !cs.r.leader {
			// The partition moved while the transaction coordinator answered.
			b.send(from, coordinator.ErrorResponse(m, protocol.NotCoordinator))
			return
		}
		b.runGroupRequest(cs, from, m)
	})
}

// onTxnMarker runs on the leader of a __consumer_offsets partition when a
// COMMIT or ABORT marker of producer pid is appended there: the group
// coordinator makes that producer's pending transactional offsets the
// committed ones (commit) or drops them (abort), Kafka's
// OffsetMetadataManager.replayEndTransactionMarker. A shard still loading
// reads the marker from the log when it finishes.
func (b *Broker) onTxnMarker(r *Replica, pid int64, committed bool) {
	if r.TP.Topic != OffsetsTopic || b.groups == nil {
		return
	}
	cs := b.groups.shards[r.TP.Partition]
	if cs == nil || cs.r != r || cs.shard == nil {
		return
	}
	result := "ABORT"
	if committed {
		result = "COMMIT"
	}
	for _, e := range cs.shard.ReplayEndTxnMarker(pid, committed) {
		b.events(fmt.Sprintf("%s: %s marker of producer %d: %s", b.Node, result, pid, e))
	}
}

// appendCoordinatorBatch appends a batch the group coordinator itself
// writes, with the COORDINATOR origin (CoordinatorPartitionWriter): a
// transactional offset commit carries the producer's id and epoch but no
// sequence, so only its epoch is checked.
func appendCoordinatorBatch(r *Replica, b *record.Batch) (log.AppendInfo, error) {
	return r.Log.AppendAsCoordinator(b, r.LeaderEpoch)
}

// groupAppendError is the answer to a request whose records the log
// refused: the producer state's refusal (a fenced epoch) as
// handleOperationException passes it on, anything else
// COORDINATOR_NOT_AVAILABLE so the client retries.
func groupAppendError(err error) protocol.ErrorCode {
	var pe producerstate.Error
	if errors.As(err, &pe) {
		return coordinatorOperationError(protocol.ErrorCode(pe.Code))
	}
	if storage.IsDiskFailure(err) {
		return coordinatorOperationError(protocol.KafkaStorageError)
	}
	return protocol.CoordinatorNotAvailable
}

// coordinatorOperationError is CoordinatorOperationExceptionHelper.handleOperationException:
// the errors a group coordinator write can fail with, as the client must
// see them (a partition or replication problem means "find the
// coordinator again", NETWORK_EXCEPTION from the transaction verification
// a plain retry).
func coordinatorOperationError(c protocol.ErrorCode) protocol.ErrorCode {
	switch c {
	case protocol.NetworkException:
		return protocol.CoordinatorLoadInProgress
	case protocol.UnknownTopicOrPartition, protocol.NotEnoughReplicas, protocol.RequestTimedOut:
		return protocol.CoordinatorNotAvailable
	case protocol.NotLeaderOrFollower, protocol.KafkaStorageError:
		return protocol.NotCoordinator
	}
	return c
}

// readBatches reads the partition's batches from offset from to its end,
// as Kafka's CoordinatorLoaderImpl does: it needs each batch's producer
// id and its control markers, not only the records.
func readBatches(r *Replica, from int64) ([]record.Batch, error) {
	var out []record.Batch
	err := r.Log.EachBatch(from, r.Log.EndOffset(), func(b *record.Batch) bool {
		out = append(out, *b)
		return true
	})
	return out, err
}

// replayCoordinatorLog is CoordinatorLoaderImpl.load's loop: a control
// batch is a transaction marker (replayEndTransactionMarker), a record of
// a transactional batch a pending offset of its producer, any other
// record replayed at its offset. Records loglab cannot decode are
// skipped, as Kafka's loader skips unknown types.
func replayCoordinatorLog(shard *coordinator.Shard, batches []record.Batch) {
	for _, bt := range batches {
		if bt.IsControl() {
			for _, rec := range bt.Records {
				if mk, err := record.ParseControlRecord(rec); err == nil && (mk.Type == record.Commit || mk.Type == record.Abort) {
					shard.ReplayEndTxnMarker(bt.ProducerID, mk.Type == record.Commit)
				}
			}
			continue
		}
		pid := int64(-1)
		if bt.IsTransactional() {
			pid = bt.ProducerID
		}
		for _, rec := range bt.Records {
			if d, err := offsets.Decode(rec.Key, rec.Value); err == nil {
				shard.ReplayRecord(bt.Offset(rec), pid, d)
			}
		}
	}
}
