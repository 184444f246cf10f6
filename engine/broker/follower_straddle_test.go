package broker

import (
	"testing"

	"github.com/loglab/loglab/engine/record"
)

// The cases of Partition.appendRecordsToFollowerOrFutureReplica's
// UnexpectedAppendOffsetException handler: only an empty follower log
// whose offset lies inside the fetched batches starts again at the first
// batch's base offset; anything else is a real error.
func TestStraddlesEmptyLog(t *testing.T) {
	encode := func(base int64, n int) []byte {
		b := &record.Batch{BaseOffset: base, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, LastOffsetDelta: int32(n - 1)}
		for i := range n {
			b.Records = append(b.Records, record.Record{OffsetDelta: int32(i), Value: []byte("v")})
		}
		out, err := b.AppendEncoded(nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	two := append(encode(28, 8), encode(36, 5)...)
	for _, c := range []struct {
		name       string
		start, end int64
		batches    []byte
		first      int64
		ok         bool
	}{
		{"empty log at 33 inside batch 28-35 (seed 26)", 33, 33, two, 28, true},
		{"empty log at 36, the second batch's base: a plain append", 36, 36, encode(36, 5), 0, false},
		{"empty log at 36 below batches 28-35 and 36-40: straddled by the fetch", 36, 36, two, 28, true},
		{"a log holding records: a real divergence, not restarted", 20, 33, two, 0, false},
		{"batches wholly below the empty log", 40, 40, encode(28, 8), 0, false},
	} {
		first, ok := straddlesEmptyLog(c.start, c.end, c.batches)
		if ok != c.ok || (ok && first != c.first) {
			t.Errorf("%s: got %d %v, want %d %v", c.name, first, ok, c.first, c.ok)
		}
	}
}
