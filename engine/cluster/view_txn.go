package cluster

import (
	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/check"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/record"
)

// TxnRecord is one record of a partition's log, control records included:
// the strip draws a transaction marker as the offset it takes.
type TxnRecord struct {
	log.RecordAt
	// Control is the marker's type ("COMMIT", "ABORT") of a control record.
	Control string
	// Txn is the fate of a transactional record as this log tells it:
	// "open" (no marker of its producer follows yet), "committed" or
	// "aborted"; "" for a record written outside transactions.
	Txn        string
	ProducerID int64
}

// tailRecords is the newest limit of TxnRecords from offset from: the tail
// the strip draws.
func tailRecords(l *log.Log, from int64, limit int) ([]TxnRecord, error) {
	out, err := TxnRecords(l, from)
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, err
}

// TxnRecords is every record of l from offset from on, markers included,
// each transactional one with the fate its producer's next marker in this
// log decides (the view's strip and the lessons' checks read it). Markers
// always follow their transaction's data, so reading to the end finds
// every fate there is.
func TxnRecords(l *log.Log, from int64) ([]TxnRecord, error) {
	var out []TxnRecord
	open := map[int64][]int{} // producer id -> indexes of its undecided records in out
	err := l.EachBatch(from, l.EndOffset(), func(b *record.Batch) bool {
		if b.IsControl() {
			commits := check.MarkerCommits(b)
			fate := "aborted"
			if commits {
				fate = "committed"
			}
			for _, j := range open[b.ProducerID] {
				out[j].Txn = fate
			}
			delete(open, b.ProducerID)
			if b.BaseOffset >= from {
				out = append(out, TxnRecord{RecordAt: log.RecordAt{Offset: b.BaseOffset, Timestamp: b.MaxTimestamp},
					Control: check.MarkerName(commits), ProducerID: b.ProducerID})
			}
			return true
		}
		for _, r := range b.Records {
			off := b.Offset(r)
			if off < from {
				continue
			}
			t := TxnRecord{RecordAt: log.RecordAt{Offset: off, Timestamp: b.Timestamp(r), Key: r.Key, Value: r.Value, Headers: r.Headers},
				ProducerID: b.ProducerID}
			if b.IsTransactional() {
				t.Txn = "open"
				open[b.ProducerID] = append(open[b.ProducerID], len(out))
			}
			out = append(out, t)
		}
		return true
	})
	return out, err
}

// lastStableOffset is the offset below which every transaction of the
// replica's partition is decided: what read_committed consumers may read.
func lastStableOffset(r *broker.Replica) int64 { return r.LastStableOffset() }
