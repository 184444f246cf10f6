package broker

import (
	"errors"
	"slices"
	"time"

	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/producerstate"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/storage"
)

// delayedProduce is an acks=all request waiting for the high watermark
// (Kafka's produce purgatory).
type delayedProduce struct {
	from     sim.NodeID
	req      protocol.ProduceRequest
	replica  *Replica
	required int64 // the HW that acknowledges it: the batch's last offset + 1
	base     int64
	timeout  *sim.Event
}

// handleProduce is the leader's Produce: with acks=all it refuses the write
// up front when the ISR is smaller than the effective min.insync.replicas
// (NOT_ENOUGH_REPLICAS); otherwise it appends with its leader epoch, then
// answers at once for acks=1, never for acks=0, and for acks=all when the
// high watermark passes the batch (replica.Leader.CheckEnoughReplicasReachOffset).
// Under min ISR the high watermark stands still, so an acks=all write
// appended before the ISR shrank waits until request.timeout.ms
// (REQUEST_TIMED_OUT), and an acks=1 write stays invisible to consumers.
func (b *Broker) handleProduce(from sim.NodeID, m protocol.ProduceRequest) {
	reply := func(code protocol.ErrorCode, base int64) {
		if m.Acks != 0 {
			b.send(from, protocol.ProduceResponse{CorrelationID: m.CorrelationID, TP: m.TP, Error: code, BaseOffset: base})
		}
	}
	r := b.Replica(m.TP)
	switch {
	case r == nil && b.image.Topic(m.TP.Topic) == nil:
		reply(protocol.UnknownTopicOrPartition, -1)
		return
	case b.isOffline(m.TP) || (r != nil && r.failing):
		reply(protocol.KafkaStorageError, -1)
		return
	case r == nil || !r.leader:
		reply(protocol.NotLeaderOrFollower, -1)
		return
	case m.Acks != 0 && m.Acks != 1 && m.Acks != -1:
		reply(protocol.InvalidRequiredAcks, -1)
		return
	}
	if code := r.state(b.ID).AppendError(m.Acks); code != protocol.None {
		b.produceFailed(code)
		reply(code, -1)
		return
	}
	raw := slices.Clone(m.Records)
	h, err := record.ReadHeader(raw)
	if err != nil || record.VerifyCRC(raw) != nil {
		reply(protocol.CorruptMessage, -1)
		return
	}
	if needsTxnVerification(r, h, m.TransactionalID) {
		// KIP-890 (transaction version 2): the first transactional batch
		// of a producer on this partition adds the partition to its
		// transaction through the coordinator before it is appended
		// (ReplicaManager.appendRecords with verification). Leadership
		// may have moved while waiting.
		b.addPartitionToTxn(m.TransactionalID, h.ProducerID, h.ProducerEpoch, m.TP, func(code protocol.ErrorCode) {
			if code != protocol.None {
				reply(code, -1)
				return
			}
			if cur := b.Replica(m.TP); cur != r || !r.leader {
				reply(protocol.NotLeaderOrFollower, -1)
				return
			}
			// The ISR may have shrunk meanwhile (appendRecordsToLeader
			// checks it again when the verified append runs).
			if code := r.state(b.ID).AppendError(m.Acks); code != protocol.None {
				b.produceFailed(code)
				reply(code, -1)
				return
			}
			b.appendProduce(from, m, r, raw, h)
		})
		return
	}
	b.appendProduce(from, m, r, raw, h)
}

// needsTxnVerification: a transactional batch from a producer with no
// transaction open on this partition (UnifiedLog.maybeStartTransactionVerification).
func needsTxnVerification(r *Replica, h record.BatchHeader, txnID string) bool {
	if txnID == "" || !h.IsTransactional() || h.ProducerID < 0 {
		return false
	}
	// UnifiedLog.hasOngoingTransaction(producerId, producerEpoch): a batch
	// of a newer epoch starts a new transaction even while the previous
	// one is still open here. With transaction version 2 EndTxn answers
	// with the bumped epoch before the markers are written, so the next
	// transaction's first batch can overtake the last one's marker: it
	// must be verified (the coordinator answers CONCURRENT_TRANSACTIONS
	// until the markers are out, and the producer retries), or it would
	// join the old transaction and the new marker would be refused.
	e, known := r.Log.Producer(h.ProducerID)
	return !known || !e.HasOngoingTxn() || e.Epoch != h.ProducerEpoch
}

// appendError maps a refused append to Kafka's error code: the producer
// state's own codes (OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH,
// INVALID_TXN_STATE, ...) travel as they are.
func appendError(err error) protocol.ErrorCode {
	var pe producerstate.Error
	switch {
	case errors.As(err, &pe):
		return protocol.ErrorCode(pe.Code)
	case errors.Is(err, log.ErrMessageTooLarge):
		return protocol.MessageTooLarge
	case errors.Is(err, log.ErrRecordBatchTooLarge):
		return protocol.RecordListTooLarge
	case errors.Is(err, log.ErrInvalidRecord):
		return protocol.InvalidRecord
	case storage.IsDiskFailure(err):
		// UnifiedLog.maybeHandleIOException: a KafkaStorageException.
		return protocol.KafkaStorageError
	}
	return protocol.CorruptMessage
}

// appendProduce appends a produce's batch and answers it. A duplicate (a
// retry of a batch already written) is answered with the original batch's
// base offset and NONE, for acks=all only once the high watermark covers
// the original, as Kafka's delayed produce waits for its last offset.
func (b *Broker) appendProduce(from sim.NodeID, m protocol.ProduceRequest, r *Replica, raw []byte, h record.BatchHeader) {
	reply := func(code protocol.ErrorCode, base int64) {
		if m.Acks != 0 {
			b.send(from, protocol.ProduceResponse{CorrelationID: m.CorrelationID, TP: m.TP, Error: code, BaseOffset: base})
		}
	}
	info, err := r.Log.AppendEncodedAsLeader(raw, h, r.LeaderEpoch)
	if err != nil {
		b.produceFailed(appendError(err))
		reply(appendError(err), -1)
		b.storageFailed(r, "appending records to", err)
		return
	}
	if !info.Duplicate {
		b.meters.MessagesIn.Mark(b.sched.Clock.Elapsed(), info.LastOffset-info.FirstOffset+1)
		// New data: parked follower fetches can be answered now.
		b.completeFetches(r)
	}
	// Partition.appendRecordsToLeader asks after every append, a
	// duplicate's too: a lone leader's HW moves at once, and a follower
	// that stopped fetching (its replica offline) stops holding the HW
	// once replica.lag.time.max.ms has passed, which only an event like
	// this retry notices.
	if b.maybeIncrementHW(r) {
		b.onHWChange(r)
	}
	switch m.Acks {
	case 0:
	case 1:
		reply(protocol.None, info.FirstOffset)
	default:
		d := &delayedProduce{from: from, req: m, replica: r, required: info.LastOffset + 1, base: info.FirstOffset}
		if !b.tryCompleteProduce(d) {
			d.timeout = b.after(time.Duration(m.TimeoutMs)*time.Millisecond, "produce-timeout", func() {
				b.removeProduce(d)
				b.send(d.from, protocol.ProduceResponse{CorrelationID: m.CorrelationID, TP: m.TP, Error: protocol.RequestTimedOut, BaseOffset: -1})
			})
			b.produces = append(b.produces, d)
		}
	}
}

// tryCompleteProduce answers a waiting acks=all produce if it can be.
func (b *Broker) tryCompleteProduce(d *delayedProduce) bool {
	r := d.replica
	if !r.leader {
		b.send(d.from, protocol.ProduceResponse{CorrelationID: d.req.CorrelationID, TP: d.req.TP, Error: protocol.NotLeaderOrFollower, BaseOffset: -1})
		return true
	}
	done, code := r.state(b.ID).CheckEnoughReplicasReachOffset(r.HW, d.required)
	if !done {
		return false
	}
	b.send(d.from, protocol.ProduceResponse{CorrelationID: d.req.CorrelationID, TP: d.req.TP, Error: code, BaseOffset: d.base})
	return true
}

func (b *Broker) completeProduces(r *Replica) {
	for _, d := range slices.Clone(b.produces) {
		if d.replica == r && b.tryCompleteProduce(d) {
			b.removeProduce(d)
		}
	}
}

func (b *Broker) failProduces(r *Replica, code protocol.ErrorCode) {
	b.failMarkers(r, code)
	for _, d := range slices.Clone(b.produces) {
		if d.replica == r {
			b.removeProduce(d)
			b.send(d.from, protocol.ProduceResponse{CorrelationID: d.req.CorrelationID, TP: d.req.TP, Error: code, BaseOffset: -1})
		}
	}
}

func (b *Broker) removeProduce(d *delayedProduce) {
	if d.timeout != nil {
		d.timeout.Cancelled = true
	}
	b.produces = slices.DeleteFunc(b.produces, func(x *delayedProduce) bool { return x == d })
}

// onHWChange runs when the leader's high watermark moved: acks=all
// produces may complete, parked consumer fetches may have data.
func (b *Broker) onHWChange(r *Replica) {
	b.completeProduces(r)
	b.completeMarkers(r)
	b.completeFetches(r)
	b.completeGroupWrites(r)
	b.completeTxnWrites(r)
}
