package cluster

import (
	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/record"
)

// tailRecord is one record of a partition's shown tail, control records
// included: the strip draws a transaction marker as the offset it takes.
type tailRecord struct {
	log.RecordAt
	// Control is the marker's type ("COMMIT", "ABORT") of a control record.
	Control string
	// Txn is the fate of a transactional record as this log tells it:
	// "open" (no marker of its producer follows yet), "committed" or
	// "aborted"; "" for a record written outside transactions.
	Txn        string
	ProducerID int64
}

// tailRecords reads up to limit records from offset from to the log end,
// markers included, and gives each transactional record the fate its
// producer's next marker in this log decides. Markers always follow their
// transaction's data, so reading to the end finds every fate there is.
func tailRecords(l *log.Log, from int64, limit int) ([]tailRecord, error) {
	var out []tailRecord
	open := map[int64][]int{} // producer id -> indexes of its undecided records in out
	err := l.EachBatch(from, l.EndOffset(), func(b *record.Batch) bool {
		if b.IsControl() {
			fate := "aborted"
			f := factsOf(b)
			if f.commit {
				fate = "committed"
			}
			for _, j := range open[b.ProducerID] {
				out[j].Txn = fate
			}
			delete(open, b.ProducerID)
			if b.BaseOffset >= from {
				out = append(out, tailRecord{RecordAt: log.RecordAt{Offset: b.BaseOffset, Timestamp: b.MaxTimestamp},
					Control: markerName(f.commit), ProducerID: b.ProducerID})
			}
			return true
		}
		for _, r := range b.Records {
			off := b.Offset(r)
			if off < from {
				continue
			}
			t := tailRecord{RecordAt: log.RecordAt{Offset: off, Timestamp: b.Timestamp(r), Key: r.Key, Value: r.Value, Headers: r.Headers},
				ProducerID: b.ProducerID}
			if b.IsTransactional() {
				t.Txn = "open"
				open[b.ProducerID] = append(open[b.ProducerID], len(out))
			}
			out = append(out, t)
		}
		return true
	})
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, err
}

// lastStableOffset is the offset below which every transaction of the
// replica's partition is decided: what read_committed consumers may read.
func lastStableOffset(r *broker.Replica) int64 { return r.LastStableOffset() }
