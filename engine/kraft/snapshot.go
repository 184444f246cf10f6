package kraft

import (
	"slices"

	"github.com/loglab/loglab/engine/protocol"
)

// Records is the image written as metadata records, the way a KRaft
// snapshot holds it: replaying them into an empty image rebuilds this one.
// Every record carries the image's offset (they are one snapshot, not log
// entries).
func (im *Image) Records() []protocol.MetadataRecord {
	var out []protocol.MetadataRecord
	add := func(r protocol.MetadataRecord) {
		r.Offset = im.Offset
		out = append(out, r)
	}
	for _, b := range im.Brokers {
		add(protocol.MetadataRecord{Type: "RegisterBroker", BrokerID: b.ID, BrokerEpoch: b.Epoch})
		if !b.Fenced {
			add(protocol.MetadataRecord{Type: "UnfenceBroker", BrokerID: b.ID, BrokerEpoch: b.Epoch})
		}
	}
	for _, t := range im.Topics {
		add(protocol.MetadataRecord{Type: "Topic", Topic: t.Name, Partitions: int32(len(t.Partitions))})
		for _, kv := range t.Configs {
			add(protocol.MetadataRecord{Type: "Config", Topic: t.Name, Name: kv[0], Value: kv[1]})
		}
		for i, p := range t.Partitions {
			if p == nil {
				continue
			}
			add(protocol.MetadataRecord{Type: "Partition", Topic: t.Name, Partition: int32(i),
				Replicas: slices.Clone(p.Replicas), ISR: slices.Clone(p.ISR), Leader: p.Leader,
				LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch})
		}
	}
	// After topics and configs, as Kafka's MetadataImage.write orders a
	// snapshot.
	if pi := im.ProducerIDs; pi.NextProducerID > 0 {
		add(protocol.MetadataRecord{Type: "ProducerIds", BrokerID: pi.BrokerID, BrokerEpoch: pi.BrokerEpoch,
			NextProducerID: pi.NextProducerID})
	}
	return out
}

// ImageFromRecords replays a snapshot's records into a new image at offset.
func ImageFromRecords(records []protocol.MetadataRecord, offset int64) *Image {
	im := NewImage()
	for _, r := range records {
		im.Apply(r)
	}
	im.Offset = offset
	return im
}
