package check

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
)

// The idempotent and transactional producers' safety invariants, read
// from the logs themselves (committed data, below each leader's high
// watermark) and from what consumers return:
//
//   - IdempotentNoDuplicate: in a partition, no two data batches of one
//     producer id and epoch carry overlapping sequence numbers: a retry
//     the leader wrote twice.
//   - IdempotentInOrder: in a partition, a producer's batches of one epoch
//     carry increasing sequence numbers in offset order: a retried batch
//     never lands after a later one.
//   - ProducerEpochMonotonic: in a partition, no batch of a producer id
//     follows a batch or marker of a higher epoch of the same id: a fenced
//     producer (a zombie) never writes again.
//   - TransactionAtomic: a transaction, named by its producer id and the
//     epoch of its markers, ends the same way in every partition it
//     touched, __consumer_offsets included: never committed in one and
//     aborted in another.
//   - ReadCommittedIsolation: a read_committed consumer never returns a
//     record of an aborted or still open transaction, and no consumer ever
//     returns a control record (a transaction marker).
const (
	IdempotentNoDuplicate  = "idempotent-no-duplicate"
	IdempotentInOrder      = "idempotent-in-order"
	ProducerEpochMonotonic = "producer-epoch-monotonic"
	TransactionAtomic      = "transaction-atomic"
	ReadCommittedIsolation = "read-committed-isolation"
)

// txnWatch is the checker's memory of producers and transactions.
type txnWatch struct {
	// scanned is, per partition, the next offset to read below the high
	// watermark.
	scanned map[protocol.TopicPartition]int64
	parts   map[protocol.TopicPartition]*partitionProducers
	// ends is how each transaction ended, by producer id and marker
	// epoch, where it was first seen ending.
	ends map[producerEpoch]txnEnd
	// open is, per partition and producer, the offset ranges of its
	// transactional data batches no marker has ended yet; aborted is, per
	// partition, those an ABORT marker ended: the cleaner may remove them
	// from a compacted log (abortedTxnRecord).
	open    map[protocol.TopicPartition]map[int64][][2]int64
	aborted map[protocol.TopicPartition][][2]int64
}

type producerEpoch struct {
	pid   int64
	epoch int16
}

type txnEnd struct {
	commit bool
	where  string
}

// partitionProducers is what one partition's committed log says of its
// producers so far.
type partitionProducers struct {
	// written is, per producer, the sequence ranges of its newest epoch
	// (the last maxRangesKept of them), in offset order.
	written map[int64][]sequenced
	// epoch is each producer's highest epoch seen, data or marker, and
	// the offset it was seen at.
	epoch map[int64]sequenced
}

type sequenced struct {
	epoch             int16
	firstSeq, lastSeq int32
	offset            int64
}

// batchFacts is what the invariants need of a batch: its header and, for
// a control batch, its marker.
type batchFacts struct {
	offset, lastOffset int64
	pid                int64
	epoch              int16
	firstSeq, lastSeq  int32
	control            bool
	commit             bool // the marker's type, for a control batch
	transactional      bool
}

func newTxnWatch() *txnWatch {
	return &txnWatch{scanned: map[protocol.TopicPartition]int64{}, parts: map[protocol.TopicPartition]*partitionProducers{},
		ends: map[producerEpoch]txnEnd{}, open: map[protocol.TopicPartition]map[int64][][2]int64{}, aborted: map[protocol.TopicPartition][][2]int64{}}
}

func (k *Checker) txnWatch() *txnWatch {
	if k.txns == nil {
		k.txns = newTxnWatch()
	}
	return k.txns
}

// apply folds one committed batch of partition tp into the watch and
// returns the violations it shows, by invariant.
func (w *txnWatch) apply(tp protocol.TopicPartition, b batchFacts) [][2]string {
	if b.pid < 0 {
		return nil // not an idempotent producer's batch
	}
	p := w.parts[tp]
	if p == nil {
		p = &partitionProducers{written: map[int64][]sequenced{}, epoch: map[int64]sequenced{}}
		w.parts[tp] = p
	}
	var out [][2]string
	where := fmt.Sprintf("%s offset %d", name(tp), b.offset)
	if hi, ok := p.epoch[b.pid]; ok && b.epoch < hi.epoch {
		out = append(out, [2]string{ProducerEpochMonotonic, fmt.Sprintf("%s: producer %d wrote with epoch %d after epoch %d at offset %d: a fenced producer wrote again",
			where, b.pid, b.epoch, hi.epoch, hi.offset)})
	}
	if hi, ok := p.epoch[b.pid]; !ok || b.epoch > hi.epoch {
		p.epoch[b.pid] = sequenced{epoch: b.epoch, offset: b.offset}
	}
	w.noteTxnRanges(tp, b)
	if b.control {
		key := producerEpoch{b.pid, b.epoch}
		if end, ok := w.ends[key]; ok && end.commit != b.commit {
			out = append(out, [2]string{TransactionAtomic, fmt.Sprintf("%s: producer %d's transaction (marker epoch %d) ends with %s here and %s at %s",
				where, b.pid, b.epoch, MarkerName(b.commit), MarkerName(end.commit), end.where)})
		} else if !ok {
			w.ends[key] = txnEnd{commit: b.commit, where: where}
		}
		return out
	}
	if b.firstSeq < 0 {
		return out // a coordinator's transactional write (offsets) carries no sequence
	}
	ranges := p.written[b.pid]
	if len(ranges) > 0 && ranges[0].epoch != b.epoch {
		ranges = nil // a new epoch numbers from 0 again
	}
	for _, prev := range ranges {
		if b.firstSeq <= prev.lastSeq && b.lastSeq >= prev.firstSeq {
			out = append(out, [2]string{IdempotentNoDuplicate, fmt.Sprintf("%s: producer %d epoch %d sequences %d-%d were already written at offset %d (sequences %d-%d)",
				where, b.pid, b.epoch, b.firstSeq, b.lastSeq, prev.offset, prev.firstSeq, prev.lastSeq)})
			break
		}
	}
	if n := len(ranges); n > 0 && b.firstSeq < ranges[n-1].firstSeq && len(out) == 0 {
		prev := ranges[n-1]
		out = append(out, [2]string{IdempotentInOrder, fmt.Sprintf("%s: producer %d epoch %d sequences %d-%d landed after sequences %d-%d at offset %d",
			where, b.pid, b.epoch, b.firstSeq, b.lastSeq, prev.firstSeq, prev.lastSeq, prev.offset)})
	}
	ranges = append(ranges, sequenced{epoch: b.epoch, firstSeq: b.firstSeq, lastSeq: b.lastSeq, offset: b.offset})
	if len(ranges) > maxRangesKept {
		ranges = slices.Delete(ranges, 0, len(ranges)-maxRangesKept)
	}
	p.written[b.pid] = ranges
	return out
}

// noteTxnRanges remembers which offsets belong to a transaction that an
// ABORT marker ended.
func (w *txnWatch) noteTxnRanges(tp protocol.TopicPartition, b batchFacts) {
	switch {
	case b.control:
		if !b.commit {
			w.aborted[tp] = append(w.aborted[tp], w.open[tp][b.pid]...)
		}
		delete(w.open[tp], b.pid)
	case b.transactional:
		if w.open[tp] == nil {
			w.open[tp] = map[int64][][2]int64{}
		}
		w.open[tp][b.pid] = append(w.open[tp][b.pid], [2]int64{b.offset, b.lastOffset})
	}
}

// abortedTxnRecord reports whether offset of tp held a record of an
// aborted transaction: the log cleaner removes those from a compacted
// log (LogCleaner drops an aborted transaction's batches, then its
// marker, KIP-98), so an acknowledged one missing there was not lost.
// The checker learns it from the markers it scans below the high
// watermark, which it does before the cleaner may remove anything: the
// cleaner stops at the last stable offset.
func (k *Checker) abortedTxnRecord(tp protocol.TopicPartition, offset int64) bool {
	if k.txns == nil {
		return false
	}
	return slices.ContainsFunc(k.txns.aborted[tp], func(r [2]int64) bool { return r[0] <= offset && offset <= r[1] })
}

// maxRangesKept bounds the sequence ranges remembered per producer: a
// leader keeps 5 batches per producer to find duplicates, so a duplicate
// can only repeat one of a producer's recent batches.
const maxRangesKept = 64

// MarkerName is a transaction marker's type as Kafka writes it: COMMIT
// or ABORT.
func MarkerName(commit bool) string {
	if commit {
		return "COMMIT"
	}
	return "ABORT"
}

// scanProducers reads every partition's newly committed batches, on its
// leader, in topic and partition order.
func (k *Checker) scanProducers() {
	w := k.txnWatch()
	for _, t := range k.c.MetadataImage().Topics {
		for i := range t.Partitions {
			tp := protocol.TopicPartition{Topic: t.Name, Partition: int32(i)}
			if k.unclean[tp] {
				continue // an unclean election rewrote history: the log no longer tells who wrote what
			}
			r := k.c.LeaderReplica(tp)
			if r == nil {
				continue
			}
			from := max(w.scanned[tp], r.Log.StartOffset())
			_ = r.Log.EachValidBatch(from, r.HW, func(h record.BatchHeader, raw []byte) bool {
				for _, v := range w.apply(tp, headerFacts(h, raw)) {
					k.report(v[0], v[1])
				}
				w.scanned[tp] = h.NextOffset()
				return true
			})
		}
	}
}

// headerFacts is factsOf for a valid batch's header and bytes: only a
// marker's record is decoded.
func headerFacts(h record.BatchHeader, raw []byte) batchFacts {
	f := batchFacts{offset: h.BaseOffset, lastOffset: h.LastOffset(), pid: h.ProducerID, epoch: h.ProducerEpoch,
		firstSeq: h.BaseSequence, lastSeq: h.LastSequence(), control: h.IsControl(), transactional: h.IsTransactional()}
	if f.control && h.RecordCount > 0 {
		if b, _, err := record.Decode(raw); err == nil {
			f = factsOf(&b)
		}
	}
	return f
}

// MarkerCommits reports whether control batch b is a COMMIT marker.
func MarkerCommits(b *record.Batch) bool { return factsOf(b).commit }

func factsOf(b *record.Batch) batchFacts {
	f := batchFacts{offset: b.BaseOffset, lastOffset: b.LastOffset(), pid: b.ProducerID, epoch: b.ProducerEpoch,
		firstSeq: b.BaseSequence, lastSeq: b.LastSequence(), control: b.IsControl(), transactional: b.IsTransactional()}
	if f.control && len(b.Records) > 0 {
		if m, err := record.ParseControlRecord(b.Records[0]); err == nil {
			f.commit = m.Type == record.Commit
		}
	}
	return f
}

// NotePolled checks the records a consumer's poll returned against the
// leader's log as it is now: no control record ever; for read_committed,
// no record of a transaction that is aborted or not yet decided (its
// producer has no marker after it). What the consumer was given was
// decided when it was given (a transaction's fate never changes), so
// checking at the poll is exact.
func (k *Checker) NotePolled(consumer string, readCommitted bool, recs []client.ConsumedRecord) {
	for _, rec := range recs {
		r := k.c.LeaderReplica(rec.TP)
		if r == nil || k.unclean[rec.TP] {
			continue
		}
		b, ok := batchAt(r, rec.Offset)
		if !ok {
			continue
		}
		where := fmt.Sprintf("%s offset %d", name(rec.TP), rec.Offset)
		switch {
		case b.IsControl():
			k.report(ReadCommittedIsolation, fmt.Sprintf("consumer %s returned the control record at %s", consumer, where))
		case readCommitted && b.IsTransactional():
			switch fate := markerAfter(r, b.ProducerID, b.NextOffset()); fate {
			case "ABORT", "open":
				k.report(ReadCommittedIsolation, fmt.Sprintf("read_committed consumer %s returned %s, a record of producer %d's %s transaction",
					consumer, where, b.ProducerID, map[string]string{"ABORT": "aborted", "open": "undecided"}[fate]))
			}
		}
	}
}

// batchAt is the batch holding offset in r's log.
func batchAt(r *broker.Replica, offset int64) (record.Batch, bool) {
	var found record.Batch
	ok := false
	_ = r.Log.EachBatch(offset, offset+1, func(b *record.Batch) bool {
		if b.BaseOffset <= offset && offset <= b.LastOffset() {
			found, ok = *b, true
		}
		return false
	})
	return found, ok
}

// markerAfter is how producer pid's transaction open at offset from ends
// in r's log: "COMMIT", "ABORT", or "open" when no marker follows yet.
func markerAfter(r *broker.Replica, pid int64, from int64) string {
	fate := "open"
	_ = r.Log.EachBatch(from, r.Log.EndOffset(), func(b *record.Batch) bool {
		if b.ProducerID == pid && b.IsControl() {
			fate = MarkerName(factsOf(b).commit)
			return false
		}
		return true
	})
	return fate
}
