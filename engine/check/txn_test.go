package check

import (
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/protocol"
)

// Each case folds batches into a fresh watch and names the invariants the
// last batch must break (none: it must break none). The cases mirror the
// leader's own checks (ProducerStateManager's duplicate lookup and
// ProducerAppendInfo.checkSequence / checkProducerEpoch) and the
// coordinator's promise that a transaction ends one way everywhere.
func TestTxnWatchApply(t *testing.T) {
	tp := protocol.TopicPartition{Topic: "t", Partition: 0}
	other := protocol.TopicPartition{Topic: "u", Partition: 1}
	data := func(off int64, pid int64, epoch int16, first, last int32) batchFacts {
		return batchFacts{offset: off, lastOffset: off + int64(last-first), pid: pid, epoch: epoch, firstSeq: first, lastSeq: last}
	}
	marker := func(off int64, pid int64, epoch int16, commit bool) batchFacts {
		return batchFacts{offset: off, lastOffset: off, pid: pid, epoch: epoch, firstSeq: -1, lastSeq: -1, control: true, commit: commit}
	}
	type step struct {
		tp protocol.TopicPartition
		b  batchFacts
	}
	cases := []struct {
		name  string
		steps []step
		want  []string
	}{
		{"in sequence", []step{{tp, data(0, 7, 0, 0, 4)}, {tp, data(5, 7, 0, 5, 9)}}, nil},
		{"a retry written twice (findDuplicateBatch missed it)", []step{{tp, data(0, 7, 0, 0, 4)}, {tp, data(5, 7, 0, 0, 4)}}, []string{IdempotentNoDuplicate}},
		{"a duplicate of an older batch", []step{{tp, data(0, 7, 0, 0, 4)}, {tp, data(5, 7, 0, 5, 9)}, {tp, data(10, 7, 0, 2, 3)}}, []string{IdempotentNoDuplicate}},
		{"a retried batch after a later one (checkSequence missed it)", []step{{tp, data(0, 7, 0, 5, 9)}, {tp, data(5, 7, 0, 0, 4)}}, []string{IdempotentInOrder}},
		{"a new epoch restarts at sequence 0", []step{{tp, data(0, 7, 0, 0, 4)}, {tp, data(5, 7, 1, 0, 4)}}, nil},
		{"other producers and partitions are separate", []step{{tp, data(0, 7, 0, 0, 4)}, {tp, data(5, 8, 0, 0, 4)}, {other, data(0, 7, 0, 0, 4)}}, nil},
		{"a non-idempotent producer is not checked", []step{{tp, data(0, -1, -1, -1, -1)}, {tp, data(1, -1, -1, -1, -1)}}, nil},
		{"a zombie writes after its fence (checkProducerEpoch missed it)", []step{{tp, data(0, 7, 1, 0, 0)}, {tp, data(1, 7, 0, 1, 1)}}, []string{ProducerEpochMonotonic}},
		{"a zombie writes after the marker that fenced it", []step{{tp, data(0, 7, 0, 0, 0)}, {tp, marker(1, 7, 1, false)}, {tp, data(2, 7, 0, 1, 1)}}, []string{ProducerEpochMonotonic}},
		{"transaction version 2: the next transaction uses the marker's epoch", []step{{tp, data(0, 7, 0, 0, 0)}, {tp, marker(1, 7, 1, true)}, {tp, data(2, 7, 1, 0, 0)}}, nil},
		{"one transaction committed in one partition, aborted in another", []step{{tp, marker(1, 7, 1, true)}, {other, marker(3, 7, 1, false)}}, []string{TransactionAtomic}},
		{"the same ending everywhere", []step{{tp, marker(1, 7, 1, true)}, {other, marker(3, 7, 1, true)}}, nil},
		{"transactional offsets carry no sequence", []step{{tp, data(0, 7, 0, -1, -1)}, {tp, data(1, 7, 0, -1, -1)}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newTxnWatch()
			var got [][2]string
			for i, s := range c.steps {
				v := w.apply(s.tp, s.b)
				if i < len(c.steps)-1 && len(v) > 0 {
					t.Fatalf("step %d already broke %v", i, v)
				}
				got = v
			}
			var names []string
			for _, v := range got {
				names = append(names, v[0])
			}
			if strings.Join(names, ",") != strings.Join(c.want, ",") {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}
