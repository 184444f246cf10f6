package check

import (
	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/protocol"
)

// The power-loss marks: which replicas lost their unsynced writes in a
// power cut and are not whole again, so that a lost acknowledged record
// is excused only when more disks were lost than acks=all covers.

// replicasOf is tp's replicas as the metadata names them.
func (k *Checker) replicasOf(tp protocol.TopicPartition) []int32 {
	p := k.c.MetadataImage().Partition(tp.Topic, tp.Partition)
	if p == nil {
		return nil
	}
	return p.Replicas
}

// diskLosses counts the replicas of tp that lost writes in a power cut
// and have not been whole again since.
func (k *Checker) diskLosses(tp protocol.TopicPartition) int {
	n := 0
	for _, id := range k.replicasOf(tp) {
		if _, ok := k.powerLost[replicaKey(tp, id)]; ok {
			n++
		}
	}
	return n
}

// powerLostOn is the power-loss mark of tp's replica on broker id; no
// key is built while no broker is marked, the common case.
func (k *Checker) powerLostOn(tp protocol.TopicPartition, id int32) (*broker.Broker, bool) {
	if len(k.powerLost) == 0 {
		return nil, false
	}
	b, ok := k.powerLost[replicaKey(tp, id)]
	return b, ok
}

// LostPower marks every partition broker b hosts as missing its unsynced
// writes on b (see powerLost).
func (k *Checker) LostPower(b *broker.Broker) {
	for _, r := range b.Replicas() {
		k.powerLost[replicaKey(r.TP, b.ID)] = b
	}
}
