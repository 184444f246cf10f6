package cluster

import (
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
)

// The external side effect of a consume-transform-produce application (the
// lab's `eos` loop): an email sent, a payment API called, a row written to
// another database, once per input record the application processes.
// Kafka's transactions cover the partitions the producer writes and the
// offsets it commits, nothing else: an aborted transaction takes back its
// records and offsets, never the side effect, so a record processed again
// after a crash has its side effect performed again. The lab counts them
// here, as a mail server's log would, to show what exactly-once does not
// cover.

// SideEffect is the side effect of one input record: which consumer's
// application performed it, for which record, and how often so far.
type SideEffect struct {
	Consumer string
	TP       protocol.TopicPartition
	Offset   int64
	Value    string
	Times    int
}

type sideEffectKey struct {
	consumer string
	tp       protocol.TopicPartition
	off      int64
}

// sideEffects keeps the effects in the order their records were first
// processed, so that `show side-effects` lists them deterministically.
type sideEffects struct {
	list  []SideEffect
	index map[sideEffectKey]int
}

// PerformSideEffect is consumer's application performing the external
// side effect of record r; it returns the effect with its count so far.
func (c *Cluster) PerformSideEffect(consumer string, r client.ConsumedRecord) SideEffect {
	s := &c.sideEffects
	if s.index == nil {
		s.index = map[sideEffectKey]int{}
	}
	k := sideEffectKey{consumer: consumer, tp: r.TP, off: r.Offset}
	i, ok := s.index[k]
	if !ok {
		i = len(s.list)
		s.index[k] = i
		s.list = append(s.list, SideEffect{Consumer: consumer, TP: r.TP, Offset: r.Offset, Value: string(r.Value)})
	}
	s.list[i].Times++
	return s.list[i]
}

// SideEffects lists every input record's side effect, in the order the
// records were first processed.
func (c *Cluster) SideEffects() []SideEffect { return c.sideEffects.list }
