package producerstate

import "math"

// Kafka's "absent" values (RecordBatch.NO_PRODUCER_ID, NO_PRODUCER_EPOCH,
// NO_SEQUENCE, NO_TIMESTAMP).
const (
	NoProducerID    int64 = -1
	NoProducerEpoch int16 = -1
	NoSequence      int32 = -1
	NoTimestamp     int64 = -1
)

// NumBatchesToRetain is how many batches per producer the leader remembers
// (ProducerStateEntry.NUM_BATCHES_TO_RETAIN): the producer has at most 5
// requests in flight (max.in.flight.requests.per.connection <= 5 with
// idempotence), so a retry is always of one of the last 5 batches.
const NumBatchesToRetain = 5

// BatchMetadata is what the leader keeps of one appended batch. The first
// sequence and offset are derived from the last ones and the offset delta,
// as in Kafka, because a batch's records take consecutive offsets and
// consecutive sequences.
type BatchMetadata struct {
	LastSeq     int32
	LastOffset  int64
	OffsetDelta int32
	Timestamp   int64
}

// FirstSeq is the batch's base sequence, wrapping below 0 to Int32 max
// (DefaultRecordBatch.decrementSequence).
func (b BatchMetadata) FirstSeq() int32 { return decrementSequence(b.LastSeq, b.OffsetDelta) }

// FirstOffset is the batch's base offset.
func (b BatchMetadata) FirstOffset() int64 { return b.LastOffset - int64(b.OffsetDelta) }

func decrementSequence(seq, dec int32) int32 {
	if seq < dec {
		return math.MaxInt32 - (dec - seq) + 1
	}
	return seq - dec
}

// Entry is one producer's state on a partition (ProducerStateEntry).
// Batches holds at most NumBatchesToRetain, oldest first, all of Epoch.
type Entry struct {
	ProducerID       int64
	Epoch            int16
	CoordinatorEpoch int32
	LastTimestamp    int64
	// CurrentTxnFirstOffset is the first offset of the producer's open
	// transaction on this partition, -1 when none is open.
	CurrentTxnFirstOffset int64
	Batches               []BatchMetadata
}

// emptyEntry is ProducerStateEntry.empty: no epoch yet, so any first
// sequence is accepted.
func emptyEntry(pid int64) Entry {
	return Entry{ProducerID: pid, Epoch: NoProducerEpoch, CoordinatorEpoch: -1,
		LastTimestamp: NoTimestamp, CurrentTxnFirstOffset: -1}
}

// IsEmpty says no batch of the current epoch is remembered.
func (e Entry) IsEmpty() bool { return len(e.Batches) == 0 }

// HasOngoingTxn says a transaction of this producer is open here.
func (e Entry) HasOngoingTxn() bool { return e.CurrentTxnFirstOffset >= 0 }

// FirstSeq is the first sequence remembered, NoSequence when none.
func (e Entry) FirstSeq() int32 {
	if e.IsEmpty() {
		return NoSequence
	}
	return e.Batches[0].FirstSeq()
}

// LastSeq is the last sequence appended, NoSequence when none.
func (e Entry) LastSeq() int32 {
	if e.IsEmpty() {
		return NoSequence
	}
	return e.Batches[len(e.Batches)-1].LastSeq
}

// FirstDataOffset is the first offset remembered, -1 when none.
func (e Entry) FirstDataOffset() int64 {
	if e.IsEmpty() {
		return -1
	}
	return e.Batches[0].FirstOffset()
}

// LastDataOffset is the last offset appended, -1 when none.
func (e Entry) LastDataOffset() int64 {
	if e.IsEmpty() {
		return -1
	}
	return e.Batches[len(e.Batches)-1].LastOffset
}

// LastOffsetDelta is the last batch's offset delta, 0 when none.
func (e Entry) LastOffsetDelta() int32 {
	if e.IsEmpty() {
		return 0
	}
	return e.Batches[len(e.Batches)-1].OffsetDelta
}

// FindDuplicateBatch finds the remembered batch with exactly this epoch and
// sequence range (findDuplicateBatch): a retry of a batch already written.
func (e Entry) FindDuplicateBatch(epoch int16, firstSeq, lastSeq int32) (BatchMetadata, bool) {
	if epoch != e.Epoch {
		return BatchMetadata{}, false
	}
	for _, b := range e.Batches {
		if b.FirstSeq() == firstSeq && b.LastSeq == lastSeq {
			return b, true
		}
	}
	return BatchMetadata{}, false
}

func (e Entry) clone() Entry {
	e.Batches = append([]BatchMetadata(nil), e.Batches...)
	return e
}

// maybeUpdateEpoch forgets the batches of an older epoch: their sequences
// belong to another numbering.
func (e *Entry) maybeUpdateEpoch(epoch int16) {
	if e.Epoch != epoch {
		e.Batches = nil
		e.Epoch = epoch
	}
}

func (e *Entry) addBatch(epoch int16, lastSeq int32, lastOffset int64, offsetDelta int32, timestamp int64) {
	e.maybeUpdateEpoch(epoch)
	if len(e.Batches) == NumBatchesToRetain {
		e.Batches = append(e.Batches[:0:0], e.Batches[1:]...)
	}
	e.Batches = append(e.Batches, BatchMetadata{lastSeq, lastOffset, offsetDelta, timestamp})
	e.LastTimestamp = timestamp
}
