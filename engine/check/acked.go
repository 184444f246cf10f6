package check

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
)

// The acknowledged records' invariant: a record a producer was told was
// written (acks=all or acks=1) is still on the leader, unless compaction
// removed it (CompactedAway) or the loss is excused: an unclean election,
// or more disks lost in power cuts than acks=all covers (powerloss.go).

// checkAcked verifies acknowledged records are still on the leader.
func (k *Checker) checkAcked(tp protocol.TopicPartition, leader *broker.Replica, leaderID int32, minISR int) {
	key := epochKey(tp, leader.LeaderEpoch)
	done := k.verified[key]
	acked := k.c.AckedRecords()
	// Acknowledged records come mostly in offset order: each batch of the
	// leader's log is decoded once for all the records it holds.
	var held leaderBatch
	var newest map[string]int64 // compacted logs: each key's newest offset on the leader, read once when needed
	for ; done < len(acked); done++ {
		a := acked[done]
		if a.TP != tp || a.Offset < leader.Log.StartOffset() || k.excused[done] {
			continue
		}
		lost := a.Offset >= leader.Log.EndOffset()
		if !lost {
			v, found := held.value(leader.Log, a.Offset)
			lost = !found || !bytes.Equal(v, a.Value)
		}
		if lost && a.Offset < leader.Log.EndOffset() && leader.Log.Config().Compact() {
			if newest == nil {
				newest = NewestByKey(leader.Log, tp, acked)
			}
			lost = !k.CompactedAway(a, newest)
		}
		if !lost {
			continue
		}
		detail := fmt.Sprintf("%s offset %d (%q, acknowledged at %v) is gone from leader %d", name(tp), a.Offset, a.Value, a.At, leaderID)
		switch {
		case a.Acks != -1:
			k.report("acks=1-loss", detail)
		case k.unclean[tp]:
			k.report("unclean-election-loss", detail)
		case k.diskLosses(tp) >= max(minISR, 1):
			// As many replicas lost their disks as acks=all promised copies:
			// the ISR may have shrunk to min.insync.replicas before the
			// acknowledgement, and each copy may be among those lost.
			k.excused[done] = true
		default:
			k.report("acked-record-lost", detail)
		}
	}
	k.verified[key] = done
}

// leaderBatch holds the leader's data batch checkAcked last decoded.
type leaderBatch struct {
	b  record.Batch
	ok bool
}

// value is the value of the record at offset off in l (found false: no
// record there, compacted away, a marker, or unreadable).
func (h *leaderBatch) value(l *log.Log, off int64) ([]byte, bool) {
	if !h.ok || off < h.b.BaseOffset || off > h.b.LastOffset() {
		h.ok = false
		_ = l.EachBatch(off, l.EndOffset(), func(b *record.Batch) bool {
			if b.IsControl() {
				return true // markers hold no acknowledged record
			}
			h.b, h.ok = *b, true
			return false
		})
		if !h.ok {
			return nil, false
		}
	}
	rs, delta := h.b.Records, off-h.b.BaseOffset
	// A batch no cleaner has thinned holds its records at their offset
	// deltas: the record is looked at directly, without a binary search
	// per acknowledged record (in WASM, a tenth of checking a produce).
	// The deltas only increase, so this is the record the search finds.
	if delta >= 0 && delta < int64(len(rs)) && int64(rs[delta].OffsetDelta) == delta {
		return rs[delta].Value, true
	}
	i, found := slices.BinarySearchFunc(rs, delta, func(r record.Record, delta int64) int {
		return cmp.Compare(int64(r.OffsetDelta), delta)
	})
	if !found {
		return nil, false
	}
	return rs[i].Value, true
}

// NewestByKey maps each key of a partition to the newest offset written
// with it: in the replica's log, or acknowledged (a tombstone the cleaner
// has since removed, with every older record of its key, still counts).
func NewestByKey(l *log.Log, tp protocol.TopicPartition, acked []AckedRecord) map[string]int64 {
	recs, _ := l.Records(l.StartOffset(), 0)
	m := make(map[string]int64, len(recs))
	for _, rec := range recs {
		m[string(rec.Key)] = rec.Offset
	}
	for _, a := range acked {
		if a.TP == tp && a.Offset > m[string(a.Key)] {
			m[string(a.Key)] = a.Offset
		}
	}
	return m
}

// CompactedAway reports whether an acknowledged record missing from a
// compacted log was the cleaner's doing rather than a loss: compaction
// keeps only each key's newest record, and drops a tombstone after
// delete.retention.ms. A produce of the key that failed after this one
// was acknowledged may have been written after it too. The checker and
// the view both ask, so the page never draws as lost what the checker
// calls compaction. The cleaner also removes aborted transactions'
// records (txn.go).
func (k *Checker) CompactedAway(a AckedRecord, newest map[string]int64) bool {
	return a.Value == nil || newest[string(a.Key)] > a.Offset || k.failedAfter(a) || k.abortedTxnRecord(a.TP, a.Offset)
}

// failedAfter reports whether a produce of a's key to a's partition
// failed after a was acknowledged.
func (k *Checker) failedAfter(a AckedRecord) bool {
	for _, f := range k.c.FailedProduces() {
		if f.TP == a.TP && f.At >= a.At && bytes.Equal(f.Key, a.Key) {
			return true
		}
	}
	return false
}
