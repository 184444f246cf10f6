package cluster

import (
	"reflect"
	"testing"

	"github.com/loglab/loglab/engine/protocol"
)

// The index catches up with every record appended since it last looked,
// keeps c.acked's order in each list, and starts over when the list is
// replaced: always what a walk over all of c.acked gives.
func TestAckedIndexFollowsTheAcknowledgedRecords(t *testing.T) {
	c := &Cluster{}
	tp := func(p int32) protocol.TopicPartition { return protocol.TopicPartition{Topic: "t", Partition: p} }
	walk := func() (map[ackKey][][]byte, map[protocol.TopicPartition][]int) {
		values, byTP := map[ackKey][][]byte{}, map[protocol.TopicPartition][]int{}
		for i, a := range c.acked {
			k := ackKey{a.TP, a.Offset}
			values[k] = append(values[k], a.Value)
			byTP[a.TP] = append(byTP[a.TP], i)
		}
		return values, byTP
	}
	check := func(when string) {
		t.Helper()
		x := c.ackedIndexed()
		values, byTP := walk()
		if len(c.acked) == 0 {
			values, byTP = map[ackKey][][]byte{}, map[protocol.TopicPartition][]int{}
		}
		if !reflect.DeepEqual(x.values, values) || !reflect.DeepEqual(x.byTP, byTP) {
			t.Errorf("%s: the index differs from a walk over the %d records", when, len(c.acked))
		}
	}
	check("empty")
	for i := range 100 {
		// Offset 3 of partition 1 is acknowledged twice (truncated, then
		// written again): both values count.
		c.acked = append(c.acked, AckedRecord{TP: tp(int32(i % 3)), Offset: int64(i / 3 % 7), Value: []byte{byte(i)}})
		if i%9 == 0 {
			check("appending")
		}
	}
	check("after 100")
	c.acked = []AckedRecord{{TP: tp(5), Offset: 1, Value: []byte("replaced")}}
	check("replaced by a shorter list")
	c.acked = append(make([]AckedRecord, 0, 8), AckedRecord{TP: tp(6), Offset: 0, Value: []byte("a")}, AckedRecord{TP: tp(6), Offset: 1, Value: []byte("b")})
	check("replaced by a longer one")
}
