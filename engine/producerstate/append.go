package producerstate

import "math"

// Origin is who is appending (AppendOrigin): it decides how much is checked.
type Origin int

const (
	// Client: a produce request on the leader; everything is checked.
	Client Origin = iota
	// Coordinator: the transaction or group coordinator (markers, offset
	// commits): epochs are checked, sequences are not (they carry none).
	Coordinator
	// Replication: a follower's fetch or the leader rebuilding its state
	// from the log. The leader already checked the batch, so sequences are
	// not checked and an old epoch is only logged by Kafka, not refused.
	Replication
)

// ControlType is the kind of an end-transaction marker.
type ControlType int

const (
	Abort ControlType = iota
	Commit
)

func (c ControlType) String() string {
	if c == Commit {
		return "COMMIT"
	}
	return "ABORT"
}

// Marker is the end-transaction marker of a control batch
// (EndTransactionMarker). TransactionVersion is the version the
// coordinator wrote it with (WriteTxnMarkers); it is not in the log, so a
// replicated marker is checked as version 0.
type Marker struct {
	Type               ControlType
	CoordinatorEpoch   int32
	TransactionVersion int16
}

// Batch is the producer part of a record batch's header plus the offsets
// the log gives it. A control batch has Marker set; its FirstOffset is the
// marker's offset.
type Batch struct {
	ProducerID    int64
	Epoch         int16
	FirstSeq      int32
	LastSeq       int32
	FirstOffset   int64
	LastOffset    int64
	MaxTimestamp  int64
	Transactional bool
	Marker        *Marker
}

// CompletedTxn is a transaction a marker closed on this partition, for
// the transaction index and the last stable offset.
type CompletedTxn struct {
	ProducerID  int64
	FirstOffset int64
	LastOffset  int64
	Aborted     bool
}

// Result is the leader's answer to one batch. Err is nil or an Error. A
// Duplicate is not an error: Kafka acknowledges it with the offsets and
// timestamp of the batch already in the log (Original) and writes nothing.
type Result struct {
	Err       error
	Duplicate bool
	Original  BatchMetadata
	Completed *CompletedTxn
	// Entry is the producer's state once the batch is appended (zero when
	// Err is set or the batch has no producer id).
	Entry Entry
}

// check validates b against cur (the producer's state, emptyEntry when it
// has none) and returns the state after appending it, without touching
// the manager: ProducerAppendInfo on a scratch entry.
func check(cur Entry, b Batch, origin Origin) Result {
	next := cur.clone()
	if b.Marker != nil {
		return appendEndTxnMarker(next, b, origin)
	}
	if err := checkProducerEpoch(next, b.Epoch, 0, origin); err != nil {
		return Result{Err: err}
	}
	if origin == Client {
		if err := checkSequence(cur, b.Epoch, b.FirstSeq); err != nil {
			return Result{Err: err}
		}
	}
	next.addBatch(b.Epoch, b.LastSeq, b.LastOffset, int32(b.LastOffset-b.FirstOffset), b.MaxTimestamp)
	switch {
	case next.HasOngoingTxn() && !b.Transactional:
		// A plain write in the middle of the producer's own transaction
		// means the producer lost track of its state: Kafka refuses it,
		// whatever the origin.
		return Result{Err: InvalidTxnState}
	case !next.HasOngoingTxn() && b.Transactional:
		next.CurrentTxnFirstOffset = b.FirstOffset
	}
	return Result{Entry: next}
}

// checkProducerEpoch refuses a batch from an older epoch: a zombie
// producer instance that a newer one (same transactional.id) fenced. With
// transaction version 2 the coordinator bumps the epoch for every marker,
// so a marker of the current epoch is stale too, unless no transaction is
// open: then it is a retry of a marker already written (KAFKA-19999).
func checkProducerEpoch(e Entry, epoch int16, tv int16, origin Origin) error {
	invalid := epoch < e.Epoch
	if tv >= 2 {
		invalid = epoch <= e.Epoch
		if epoch == e.Epoch && !e.HasOngoingTxn() {
			return nil
		}
	}
	if !invalid || origin == Replication {
		return nil
	}
	// Since 2.7 the leader answers INVALID_PRODUCER_EPOCH, not
	// PRODUCER_FENCED, so the client can abort and retry rather than die.
	return InvalidProducerEpoch
}

// checkSequence is ProducerAppendInfo.checkSequence for the first batch of
// an append: a new epoch must start at sequence 0 (the producer reset its
// numbering), the same epoch must continue exactly after the last sequence.
func checkSequence(cur Entry, epoch int16, firstSeq int32) error {
	if epoch != cur.Epoch {
		if firstSeq != 0 && cur.Epoch != NoProducerEpoch {
			return OutOfOrderSequenceNumber
		}
		return nil
	}
	// No epoch known means all of the producer's batches left the log
	// (retention, DeleteRecords) or it expired: accept any sequence, which
	// is why Kafka ≥2.5 no longer answers UNKNOWN_PRODUCER_ID here.
	if cur.Epoch == NoProducerEpoch || inSequence(cur.LastSeq(), firstSeq) {
		return nil
	}
	return OutOfOrderSequenceNumber
}

// inSequence: next follows last, wrapping from Int32 max to 0.
func inSequence(last, next int32) bool {
	return int64(next) == int64(last)+1 || (next == 0 && last == math.MaxInt32)
}

func appendEndTxnMarker(next Entry, b Batch, origin Origin) Result {
	tv := b.Marker.TransactionVersion
	if origin == Replication {
		// The version is not in the log; version 0's rule is the looser one,
		// so whatever the leader accepted passes.
		tv = 0
	}
	if err := checkProducerEpoch(next, b.Epoch, tv, origin); err != nil {
		return Result{Err: err}
	}
	// A marker from an older coordinator is from one that lost the
	// transactional.id's partition of __transaction_state to another.
	if next.CoordinatorEpoch > b.Marker.CoordinatorEpoch && origin != Replication {
		return Result{Err: TransactionCoordinatorFenced}
	}
	var done *CompletedTxn
	if next.HasOngoingTxn() {
		// Only a transaction with data here completes; a marker alone moves
		// neither the LSO nor the transaction index.
		done = &CompletedTxn{ProducerID: b.ProducerID, FirstOffset: next.CurrentTxnFirstOffset,
			LastOffset: b.FirstOffset, Aborted: b.Marker.Type == Abort}
	}
	next.maybeUpdateEpoch(b.Epoch)
	next.CoordinatorEpoch = b.Marker.CoordinatorEpoch
	next.CurrentTxnFirstOffset = -1
	next.LastTimestamp = b.MaxTimestamp
	return Result{Entry: next, Completed: done}
}
