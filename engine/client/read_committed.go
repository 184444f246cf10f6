package client

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
)

// isolation.level values.
const (
	ReadUncommitted = "read_uncommitted"
	ReadCommitted   = "read_committed"
)

// validateIsolationLevel is ConfigDef.ValidString.in(read_committed,
// read_uncommitted) on isolation.level.
func validateIsolationLevel(s string) error {
	if s == ReadCommitted || s == ReadUncommitted {
		return nil
	}
	return fmt.Errorf("ConfigException: Invalid value %s for configuration isolation.level: String must be one of: %s, %s", s, ReadCommitted, ReadUncommitted)
}

// isolationLevel is the wire id of the consumer's isolation.level
// (IsolationLevel.id): the fetch and the "latest" ListOffsets carry it.
func (cfg ConsumerConfig) isolationLevel() int8 {
	if cfg.IsolationLevel == ReadCommitted {
		return protocol.ReadCommitted
	}
	return protocol.ReadUncommitted
}

// completedFetch is what one fetch answer gives the application, as
// Kafka's CompletedFetch iterates it: the records at or after position,
// control batches never returned, and with read_committed the batches of
// aborted transactions dropped. next is where the position stands once
// all of them are consumed: past the last batch, markers and aborted
// batches included (the learner sees offsets the application never got).
func completedFetch(tp protocol.TopicPartition, raw []byte, position int64, readCommitted bool, abortedTxns []protocol.AbortedTransaction) (recs []ConsumedRecord, next int64) {
	next = position
	f := newAbortedFilter(abortedTxns)
	for len(raw) > 0 {
		b, n, err := record.Decode(raw)
		if err != nil {
			break // a partial batch at the end of the answer
		}
		raw = raw[n:]
		if b.NextOffset() <= position {
			continue
		}
		next = max(next, b.NextOffset())
		if readCommitted && b.ProducerID >= 0 && f.skip(&b) {
			continue
		}
		if b.IsControl() {
			continue
		}
		for _, r := range b.Records {
			if off := b.Offset(r); off >= position {
				recs = append(recs, ConsumedRecord{TP: tp, Offset: off, Timestamp: b.Timestamp(r), Key: r.Key, Value: r.Value, LeaderEpoch: b.PartitionLeaderEpoch})
			}
		}
	}
	return recs, next
}

// abortedFilter is CompletedFetch's abortedTransactions queue (by first
// offset) and abortedProducerIds set: an aborted transaction becomes
// active when the reader reaches its first offset and ends at its
// producer's ABORT marker.
type abortedFilter struct {
	queue   []protocol.AbortedTransaction
	aborted map[int64]bool
}

func newAbortedFilter(txns []protocol.AbortedTransaction) *abortedFilter {
	q := slices.Clone(txns)
	slices.SortStableFunc(q, func(a, b protocol.AbortedTransaction) int {
		switch {
		case a.FirstOffset < b.FirstOffset:
			return -1
		case a.FirstOffset > b.FirstOffset:
			return 1
		}
		return 0
	})
	return &abortedFilter{queue: q, aborted: map[int64]bool{}}
}

// skip is nextFetchedBatch's read_committed step for a batch with a
// producer id: consumeAbortedTransactionsUpTo(lastOffset), then an ABORT
// marker ends its producer's aborted transaction (the marker itself is a
// control batch, skipped anyway), and a transactional batch of a producer
// in an aborted transaction is dropped.
func (f *abortedFilter) skip(b *record.Batch) bool {
	for len(f.queue) > 0 && f.queue[0].FirstOffset <= b.LastOffset() {
		f.aborted[f.queue[0].ProducerID] = true
		f.queue = f.queue[1:]
	}
	if b.IsControl() {
		if len(b.Records) > 0 {
			if t, err := record.ControlTypeOf(b.Records[0]); err == nil && t == record.Abort {
				delete(f.aborted, b.ProducerID)
			}
		}
		return false
	}
	return b.IsTransactional() && f.aborted[b.ProducerID]
}
