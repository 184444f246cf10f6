package check

import (
	"testing"

	"github.com/loglab/loglab/engine/protocol"
)

// The offsets the checker excuses when the cleaner removes them from a
// compacted log: those of a transaction an ABORT marker ended, not a
// committed or still open one's, nor another producer's in between.
func TestAbortedTxnRecord(t *testing.T) {
	tp := protocol.TopicPartition{Topic: "t", Partition: 0}
	txnData := func(off, last int64, pid int64) batchFacts {
		return batchFacts{offset: off, lastOffset: last, pid: pid, firstSeq: 0, lastSeq: int32(last - off), transactional: true}
	}
	marker := func(off int64, pid int64, commit bool) batchFacts {
		return batchFacts{offset: off, lastOffset: off, pid: pid, epoch: 1, firstSeq: -1, lastSeq: -1, control: true, commit: commit}
	}
	k := &Checker{}
	w := k.txnWatch()
	for _, b := range []batchFacts{txnData(0, 2, 7), txnData(3, 4, 8), marker(5, 7, false), marker(6, 8, true), txnData(7, 9, 7)} {
		w.apply(tp, b)
	}
	for _, c := range []struct {
		offset int64
		want   bool
	}{{0, true}, {2, true}, {3, false}, {4, false}, {5, false}, {6, false}, {8, false}} {
		if got := k.abortedTxnRecord(tp, c.offset); got != c.want {
			t.Errorf("offset %d: aborted %v, want %v", c.offset, got, c.want)
		}
	}
	if k.abortedTxnRecord(protocol.TopicPartition{Topic: "u"}, 0) {
		t.Error("another partition's offset 0 counted as aborted")
	}
}
