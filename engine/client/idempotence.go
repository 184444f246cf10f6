package client

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/protocol"
)

// producerIDAndEpoch is Kafka's ProducerIdAndEpoch.
type producerIDAndEpoch struct {
	id    int64
	epoch int16
}

var noProducerIDAndEpoch = producerIDAndEpoch{protocol.NoProducerID, protocol.NoProducerEpoch}

func (pe producerIDAndEpoch) valid() bool { return pe.id >= 0 }

// String is ProducerIdAndEpoch.toString, which Java's messages print.
func (pe producerIDAndEpoch) String() string {
	return fmt.Sprintf("ProducerIdAndEpoch(producerId=%d, epoch=%d)", pe.id, pe.epoch)
}

const noLastAckedSequence = -1

// partitionSequences is TxnPartitionEntry: an idempotent producer's
// numbering for one partition. nextSequence is the base sequence of the
// next batch drained; inFlight holds the batches that have a sequence and
// are not complete, ordered by (producer id, epoch, base sequence), so
// that retries go out in sequence order even when answers come back out
// of order.
type partitionSequences struct {
	tp              protocol.TopicPartition
	pe              producerIDAndEpoch
	nextSequence    int32
	lastAcked       int32
	lastAckedOffset int64
	inFlight        []*producerBatch
}

func newPartitionSequences(tp protocol.TopicPartition) *partitionSequences {
	return &partitionSequences{tp: tp, pe: noProducerIDAndEpoch, lastAcked: noLastAckedSequence, lastAckedOffset: -1}
}

func batchOrder(a, b *producerBatch) int {
	return cmp.Or(cmp.Compare(a.producerID, b.producerID), cmp.Compare(a.producerEpoch, b.producerEpoch), cmp.Compare(a.baseSequence, b.baseSequence))
}

func (e *partitionSequences) addInFlight(b *producerBatch) {
	if slices.Contains(e.inFlight, b) {
		return
	}
	i, _ := slices.BinarySearchFunc(e.inFlight, b, batchOrder)
	e.inFlight = slices.Insert(e.inFlight, i, b)
}

func (e *partitionSequences) removeInFlight(b *producerBatch) {
	e.inFlight = slices.DeleteFunc(e.inFlight, func(x *producerBatch) bool { return x == b })
}

// firstInFlightSequence is TransactionManager.firstInFlightSequence: the
// lowest base sequence in flight, -1 when none.
func (e *partitionSequences) firstInFlightSequence() int32 {
	if len(e.inFlight) == 0 {
		return -1
	}
	return e.inFlight[0].baseSequence
}

// incrementSequence is DefaultRecordBatch.incrementSequence: sequences wrap
// from Int32 max to 0.
func incrementSequence(seq int32, n int) int32 {
	if int64(seq) > int64(1<<31-1)-int64(n) {
		return int32(int64(n) - (int64(1<<31-1) - int64(seq)) - 1)
	}
	return seq + int32(n)
}

// startSequencesAtBeginning renumbers the in-flight batches from 0 under a
// new producer id and epoch (after an epoch bump): their headers are
// rewritten, so they are encoded again before their next attempt.
func (e *partitionSequences) startSequencesAtBeginning(pe producerIDAndEpoch) {
	seq := int32(0)
	for _, b := range e.inFlight {
		b.resetProducerState(pe, seq)
		seq += int32(len(b.records))
	}
	slices.SortFunc(e.inFlight, batchOrder)
	e.pe, e.nextSequence, e.lastAcked = pe, seq, noLastAckedSequence
}

// adjustSequencesDueToFailedBatch: a batch the broker refused for good
// left a hole; the batches after it move down so the broker sees no gap
// (used by the transactional producer, which may not bump its epoch).
func (e *partitionSequences) adjustSequencesDueToFailedBatch(failed *producerBatch) {
	n := int32(len(failed.records))
	e.nextSequence = max(e.nextSequence-n, 0)
	for _, b := range e.inFlight {
		if b.baseSequence >= failed.baseSequence {
			b.resetProducerState(producerIDAndEpoch{b.producerID, b.producerEpoch}, max(b.baseSequence-n, 0))
		}
	}
	slices.SortFunc(e.inFlight, batchOrder)
}

// PartitionSequence is what the UI shows of an idempotent producer's
// numbering for one partition.
type PartitionSequence struct {
	TP                protocol.TopicPartition
	ProducerID        int64
	ProducerEpoch     int16
	NextSequence      int32 // the base sequence the next new batch gets
	LastAckedSequence int32 // -1: none acknowledged under this epoch
	InFlight          int   // batches with a sequence not yet complete
}
