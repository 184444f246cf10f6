package cluster

import "github.com/loglab/loglab/engine/protocol"

// ackedIndex finds the acknowledged records (Cluster.acked) of one
// partition and offset without a walk over all of them. The view looks
// them up for every record it shows and every partition whose lost
// records it lists, at each drawing; walking the whole list each time made
// a drawing's cost grow with everything ever produced (a lab that ran
// `produce … count=100000` paid 100,000 steps per partition per drawing).
//
// c.acked only grows (collectAcks appends; openAckFile sets it once, at
// start), so the index catches up with what was appended since it last
// looked. Nothing here decides an order: lookups only, and each list keeps
// c.acked's order.
type ackedIndex struct {
	indexed int                               // c.acked[:indexed] are in the maps
	first   *AckedRecord                      // &c.acked[0] when indexed: a replaced list starts over
	values  map[ackKey][][]byte               // the values acknowledged at each offset
	byTP    map[protocol.TopicPartition][]int // positions in c.acked, per partition
}

// ackedIndexed brings the index up to date with c.acked and returns it.
func (c *Cluster) ackedIndexed() *ackedIndex {
	x := &c.ackIndex
	if x.values == nil || x.indexed > len(c.acked) || (x.indexed > 0 && x.first != &c.acked[0]) {
		*x = ackedIndex{values: map[ackKey][][]byte{}, byTP: map[protocol.TopicPartition][]int{}}
	}
	for i := x.indexed; i < len(c.acked); i++ {
		a := &c.acked[i]
		k := ackKey{a.TP, a.Offset}
		x.values[k] = append(x.values[k], a.Value)
		x.byTP[a.TP] = append(x.byTP[a.TP], i)
	}
	x.indexed = len(c.acked)
	if len(c.acked) > 0 {
		x.first = &c.acked[0]
	}
	return x
}
