package log

import (
	"fmt"
	"math"

	"github.com/loglab/loglab/engine/producerstate"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/txn/txnindex"
)

// The partition's memory of idempotent and transactional producers
// (UnifiedLog's producerStateManager): every append is checked against it
// before anything is written, and updates it after; the transactions it
// sees open bound the last stable offset; an ABORT marker that completes a
// transaction adds an entry to the .txnindex of the segment it lands in.

// noClock is the time snapshot entries are loaded at when the log has no
// clock (Open): nothing counts as expired then; the broker's next
// producer-expiration check removes what is.
const noClock = math.MinInt64 / 2

// Producers is every producer's state on this partition, by producer id
// (kafka-transactions.sh describe-producers).
func (l *Log) Producers() []producerstate.Entry { return l.producers.Producers() }

// Producer is one producer's state on this partition.
func (l *Log) Producer(pid int64) (producerstate.Entry, bool) { return l.producers.Entry(pid) }

// FirstUnstableOffset is the first offset a read_committed reader may not
// see yet (ProducerStateManager.firstUnstableOffset): the first offset of
// the oldest transaction still open, or of a completed one whose marker the
// high watermark has not passed yet (unreplicatedTxns). False when there is
// none.
func (l *Log) FirstUnstableOffset() (int64, bool) {
	first, found := l.producers.FirstUndecidedOffset()
	for _, t := range l.unreplicated {
		if !found || t.FirstOffset < first {
			first, found = t.FirstOffset, true
		}
	}
	return first, found
}

// LastStableOffset is UnifiedLog.lastStableOffset for the high watermark
// hw: the first unstable offset, or hw when that is not below it. The log
// does not keep the high watermark (the broker's replica does), so this is
// also where Kafka's onHighWatermarkUpdated happens: completed transactions
// whose marker lies below hw stop holding the LSO back.
func (l *Log) LastStableOffset(hw int64) int64 {
	l.onHighWatermarkUpdated(hw)
	if fuo, ok := l.FirstUnstableOffset(); ok && fuo < hw {
		// Retention may delete the segment an open transaction began in
		// (it is bounded by the high watermark only): the LSO then stays at
		// the log start, never below it (maybeIncrementFirstUnstableOffset).
		return max(fuo, l.startOffset)
	}
	return hw
}

// onHighWatermarkUpdated is ProducerStateManager.removeUnreplicatedTransactions.
func (l *Log) onHighWatermarkUpdated(hw int64) {
	kept := l.unreplicated[:0]
	for _, t := range l.unreplicated {
		if t.LastOffset >= hw {
			kept = append(kept, t)
		}
	}
	l.unreplicated = kept
}

// RemoveExpiredProducers forgets producers idle for expirationMs
// (producer.id.expiration.ms) with no transaction open; the broker calls it
// every producer.id.expiration.check.interval.ms with the virtual time.
func (l *Log) RemoveExpiredProducers(nowMs, expirationMs int64) []int64 {
	if expirationMs != l.expirationMs {
		l.producers = cloneManager(l.producers, expirationMs)
		l.expirationMs = expirationMs
	}
	return l.producers.RemoveExpired(nowMs)
}

func cloneManager(m *producerstate.Manager, expirationMs int64) *producerstate.Manager {
	c := producerstate.NewManager(expirationMs)
	c.Load(m.Producers(), noClock)
	return c
}

// AbortedTransactions is what a read_committed fetch of [from, to) sends
// with its records (UnifiedLog.addAbortedTransactions through
// LocalLog.collectAbortedTransactions): the aborted transactions
// overlapping the range, from the .txnindex of the segment holding from
// onwards, until an entry's last stable offset reaches to (every later
// abort began at or after it).
func (l *Log) AbortedTransactions(from, to int64) []protocol.AbortedTransaction {
	var out []protocol.AbortedTransaction
	for i := l.segmentFor(from); i < len(l.segments); i++ {
		r, err := l.segments[i].txnIndex.idx.CollectAbortedTxns(from, to)
		if err != nil {
			return out
		}
		for _, t := range r.AbortedTransactions {
			a := t.AsAbortedTransaction()
			out = append(out, protocol.AbortedTransaction{ProducerID: a.ProducerID, FirstOffset: a.FirstOffset})
		}
		if r.IsComplete {
			break
		}
	}
	return out
}

// AbortedTxns is every entry of every segment's .txnindex, oldest first,
// for the lab and tests.
func (l *Log) AbortedTxns() []txnindex.AbortedTxn {
	var out []txnindex.AbortedTxn
	for _, s := range l.segments {
		out = append(out, s.txnIndex.entries()...)
	}
	return out
}

// producerBatch is the producer part of a batch about to be (or already)
// in the log. A control batch's marker is read from its record; an empty
// control batch (its transaction cleaned away) has none and changes no
// producer state, as in Kafka's ProducerAppendInfo.append.
func producerBatch(h record.BatchHeader, raw []byte, tv int16) (producerstate.Batch, bool, error) {
	pb := producerstate.Batch{
		ProducerID: h.ProducerID, Epoch: h.ProducerEpoch, FirstSeq: h.BaseSequence, LastSeq: h.LastSequence(),
		FirstOffset: h.BaseOffset, LastOffset: h.LastOffset(), MaxTimestamp: h.MaxTimestamp,
		Transactional: h.IsTransactional(),
	}
	if h.ProducerID == producerstate.NoProducerID {
		return pb, false, nil
	}
	if !h.IsControl() {
		return pb, true, nil
	}
	b, _, err := record.Decode(raw)
	if err != nil {
		return pb, false, fmt.Errorf("%w: %v", ErrCorruptMessage, err)
	}
	if len(b.Records) == 0 {
		return pb, false, nil
	}
	m, err := record.ParseControlRecord(b.Records[0])
	if err != nil {
		return pb, false, fmt.Errorf("%w: %v", ErrInvalidRecord, err)
	}
	typ := producerstate.Abort
	if m.Type == record.Commit {
		typ = producerstate.Commit
	}
	pb.Marker = &producerstate.Marker{Type: typ, CoordinatorEpoch: m.CoordinatorEpoch, TransactionVersion: tv}
	return pb, true, nil
}

// applyProducerBatch remembers an appended batch (ProducerStateManager.update)
// and, when it is a marker completing a transaction, records an aborted one
// in s's .txnindex with the last stable offset Kafka computes at that point
// (ProducerStateManager.lastStableOffset(completedTxn): the first offset of
// the oldest other transaction still open, else just past the marker), then
// keeps the transaction unstable until the high watermark passes its
// marker (completeTxn). writeIndex is false when replaying a segment whose
// index is already on disk.
func (l *Log) applyProducerBatch(s *segment, pb producerstate.Batch, origin producerstate.Origin, writeIndex bool) error {
	r := l.producers.Append(pb, origin)
	if r.Err != nil {
		return r.Err
	}
	c := r.Completed
	if c == nil {
		return nil
	}
	lso := c.LastOffset + 1
	if first, ok := l.producers.FirstUndecidedOffset(); ok {
		lso = first
	}
	if c.Aborted && writeIndex {
		if err := s.txnIndex.append(txnindex.NewAbortedTxn(c.ProducerID, c.FirstOffset, c.LastOffset, lso)); err != nil {
			return err
		}
	}
	l.unreplicated = append(l.unreplicated, *c)
	return nil
}
