package log

import (
	"slices"

	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/txn/txnindex"
)

// cleanedTxns is Kafka's CleanedTransactionMetadata: while the cleaner
// walks the log in offset order it knows, from the segments' .txnindex,
// which transactions were aborted, so it can drop their records, and it
// tracks which transactions still have records, so a marker goes only
// once nothing of its transaction is left (and then only after
// delete.retention.ms, like a tombstone, so a consumer reading slowly
// still meets it).
type cleanedTxns struct {
	ongoingCommitted map[int64]bool
	ongoingAborted   map[int64]*abortedTxnSeen
	pending          []txnindex.AbortedTxn // by first offset, not yet reached
	// cleanedIndex receives the aborted transactions whose records were
	// met in the segment being written (they keep their marker).
	cleanedIndex *segmentTxnIndex
}

// abortedTxnSeen is AbortedTransactionMetadata.
type abortedTxnSeen struct {
	txn       txnindex.AbortedTxn
	sawRecord bool // lastObservedBatchOffset is defined
}

func newCleanedTxns() *cleanedTxns {
	return &cleanedTxns{ongoingCommitted: map[int64]bool{}, ongoingAborted: map[int64]*abortedTxnSeen{}}
}

// addAborted is addAbortedTransactions.
func (t *cleanedTxns) addAborted(txns []txnindex.AbortedTxn) {
	t.pending = append(t.pending, txns...)
	slices.SortStableFunc(t.pending, func(a, b txnindex.AbortedTxn) int {
		switch {
		case a.FirstOffset < b.FirstOffset:
			return -1
		case a.FirstOffset > b.FirstOffset:
			return 1
		}
		return 0
	})
}

// consumeUpTo is consumeAbortedTxnsUpTo: the aborted transactions that
// have begun by offset become ongoing.
func (t *cleanedTxns) consumeUpTo(offset int64) {
	for len(t.pending) > 0 && t.pending[0].FirstOffset <= offset {
		a := t.pending[0]
		t.pending = t.pending[1:]
		if _, ok := t.ongoingAborted[a.ProducerID]; !ok {
			t.ongoingAborted[a.ProducerID] = &abortedTxnSeen{txn: a}
		}
	}
}

// onControlBatch is onControlBatchRead: true when the marker may be
// discarded (its transaction has no record left in what was read). An
// ABORT marker whose records were met here keeps its .txnindex entry.
func (t *cleanedTxns) onControlBatch(b *record.Batch) bool {
	t.consumeUpTo(b.LastOffset())
	if len(b.Records) == 0 {
		return true // an empty control batch was already cleaned
	}
	m, err := record.ParseControlRecord(b.Records[0])
	if err != nil {
		return false
	}
	pid := b.ProducerID
	if m.Type == record.Abort {
		seen, ok := t.ongoingAborted[pid]
		delete(t.ongoingAborted, pid)
		if ok && seen.sawRecord {
			if t.cleanedIndex != nil {
				t.cleanedIndex.append(seen.txn)
			}
			return false
		}
		return true
	}
	had := t.ongoingCommitted[pid]
	delete(t.ongoingCommitted, pid)
	return !had
}

// onBatch is onBatchRead: true when the batch belongs to an aborted
// transaction (its records may go).
func (t *cleanedTxns) onBatch(b *record.Batch) bool {
	t.consumeUpTo(b.LastOffset())
	if !b.IsTransactional() {
		return false
	}
	if seen, ok := t.ongoingAborted[b.ProducerID]; ok {
		seen.sawRecord = true
		return true
	}
	t.ongoingCommitted[b.ProducerID] = true
	return false
}

// collectAbortedTxns is LocalLog.collectAbortedTransactions as the cleaner
// calls it: every aborted transaction still in the log (from the log
// start) that began before upper, from the segment holding start onwards.
func (l *Log) collectAbortedTxns(start, upper int64) []txnindex.AbortedTxn {
	var out []txnindex.AbortedTxn
	for i := l.segmentFor(start); i < len(l.segments); i++ {
		r, err := l.segments[i].txnIndex.idx.CollectAbortedTxns(l.startOffset, upper)
		if err != nil {
			return out
		}
		out = append(out, r.AbortedTransactions...)
		if r.IsComplete {
			break
		}
	}
	return out
}

// isLastBatchOfProducer: the cleaner keeps (possibly emptied) the batch
// holding an active producer's last sequence, or its last marker when it
// has no data left, so the producer state rebuilt from the log keeps its
// sequence and epoch (LogCleaner's isBatchLastRecordOfProducer).
func (l *Log) isLastBatchOfProducer(b *record.Batch) bool {
	if b.ProducerID < 0 {
		return false
	}
	e, ok := l.producers.Entry(b.ProducerID)
	if !ok {
		return false
	}
	if last := e.LastDataOffset(); last >= 0 {
		return b.LastOffset() == last
	}
	return b.IsControl() && b.ProducerEpoch == e.Epoch
}
