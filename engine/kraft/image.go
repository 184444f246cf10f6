// Package kraft is cluster metadata as Kafka 4 keeps it: a log of records
// (__cluster_metadata) written by the active controller and replayed, by
// controllers and brokers alike, into a metadata image. This file is the
// image; controller.go is the controller's decision logic; memlog.go the
// single-node log that the hashicorp/raft quorum will replace.
package kraft

import (
	"slices"

	"github.com/loglab/loglab/engine/protocol"
)

// Image is the metadata as of Offset: brokers, topics and partitions,
// and where the next block of producer ids starts.
type Image struct {
	Offset  int64 // the last applied record's offset, -1 for none
	Brokers []*BrokerInfo
	Topics  []*TopicInfo
	// ProducerIDs is the last ProducerIds record replayed (Kafka's
	// ProducerIdsImage): it survives a controller failover and snapshots,
	// so no controller grants an id twice.
	ProducerIDs ProducerIDsInfo
}

// ProducerIDsInfo is the state of producer id allocation (KIP-730).
type ProducerIDsInfo struct {
	// NextProducerID is the first id of the next block to grant (0 before
	// the first grant).
	NextProducerID int64
	// BrokerID and BrokerEpoch got the last block; a snapshot keeps them,
	// as Kafka's ProducerIdsRecord in a snapshot does.
	BrokerID    int32
	BrokerEpoch int64
}

// BrokerInfo is a registered broker.
type BrokerInfo struct {
	ID     int32
	Epoch  int64
	Fenced bool
}

// TopicInfo is a topic with its configs and partitions.
type TopicInfo struct {
	Name       string
	Configs    [][2]string // name, value in the order set
	Partitions []*PartitionInfo
}

// PartitionInfo is one partition's placement and leadership.
type PartitionInfo struct {
	Replicas       []int32
	ISR            []int32
	Leader         int32 // -1: no leader
	LeaderEpoch    int32
	PartitionEpoch int32
}

// NewImage is an empty image.
func NewImage() *Image { return &Image{Offset: -1} }

// Broker finds a registered broker.
func (im *Image) Broker(id int32) *BrokerInfo {
	for _, b := range im.Brokers {
		if b.ID == id {
			return b
		}
	}
	return nil
}

// Topic finds a topic.
func (im *Image) Topic(name string) *TopicInfo {
	for _, t := range im.Topics {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Partition finds a partition.
func (im *Image) Partition(topic string, p int32) *PartitionInfo {
	t := im.Topic(topic)
	if t == nil || p < 0 || int(p) >= len(t.Partitions) {
		return nil
	}
	return t.Partitions[p]
}

// Config returns a topic config value, or def.
func (t *TopicInfo) Config(name, def string) string {
	for _, c := range t.Configs {
		if c[0] == name {
			return c[1]
		}
	}
	return def
}

// Apply replays one record. Records must come in offset order.
func (im *Image) Apply(r protocol.MetadataRecord) {
	im.Offset = r.Offset
	switch r.Type {
	case "RegisterBroker":
		if b := im.Broker(r.BrokerID); b != nil {
			b.Epoch, b.Fenced = r.BrokerEpoch, true
		} else {
			im.Brokers = append(im.Brokers, &BrokerInfo{ID: r.BrokerID, Epoch: r.BrokerEpoch, Fenced: true})
			slices.SortFunc(im.Brokers, func(a, b *BrokerInfo) int { return int(a.ID - b.ID) })
		}
	case "FenceBroker":
		if b := im.Broker(r.BrokerID); b != nil {
			b.Fenced = true
		}
	case "UnfenceBroker":
		if b := im.Broker(r.BrokerID); b != nil {
			b.Fenced = false
		}
	case "Topic":
		im.Topics = append(im.Topics, &TopicInfo{Name: r.Topic, Partitions: make([]*PartitionInfo, r.Partitions)})
	case "Config":
		if t := im.Topic(r.Topic); t != nil {
			t.Configs = append(t.Configs, [2]string{r.Name, r.Value})
		}
	case "Partition", "PartitionChange":
		t := im.Topic(r.Topic)
		if t == nil || int(r.Partition) >= len(t.Partitions) {
			return
		}
		p := t.Partitions[r.Partition]
		if p == nil {
			p = &PartitionInfo{}
			t.Partitions[r.Partition] = p
		}
		if r.Replicas != nil {
			p.Replicas = slices.Clone(r.Replicas)
		}
		p.ISR = slices.Clone(r.ISR)
		p.Leader, p.LeaderEpoch, p.PartitionEpoch = r.Leader, r.LeaderEpoch, r.PartitionEpoch
	case "ProducerIds":
		// Kafka's ProducerIdControlManager.replay refuses a record that
		// does not move the next id forward (it throws); a controller
		// never writes one, so loglab keeps the larger.
		if r.NextProducerID > im.ProducerIDs.NextProducerID {
			im.ProducerIDs = ProducerIDsInfo{NextProducerID: r.NextProducerID, BrokerID: r.BrokerID, BrokerEpoch: r.BrokerEpoch}
		}
	}
}

// Clone copies the image deeply.
func (im *Image) Clone() *Image {
	c := &Image{Offset: im.Offset, ProducerIDs: im.ProducerIDs}
	for _, b := range im.Brokers {
		bb := *b
		c.Brokers = append(c.Brokers, &bb)
	}
	for _, t := range im.Topics {
		tt := &TopicInfo{Name: t.Name, Configs: slices.Clone(t.Configs)}
		for _, p := range t.Partitions {
			if p == nil {
				tt.Partitions = append(tt.Partitions, nil)
				continue
			}
			pp := *p
			pp.Replicas, pp.ISR = slices.Clone(p.Replicas), slices.Clone(p.ISR)
			tt.Partitions = append(tt.Partitions, &pp)
		}
		c.Topics = append(c.Topics, tt)
	}
	return c
}
