package coordinator

import (
	"crypto/sha256"

	"github.com/loglab/loglab/engine/group/consumer"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/protocol"
)

// TopicID is the id loglab's coordinator writes for a topic in KIP-848
// records. Kafka names topics there by their Uuid; loglab topics have
// none, so the id is a hash of the name (see the package doc).
func TopicID(name string) [16]byte {
	sum := sha256.Sum256([]byte("loglab topic id: " + name))
	var id [16]byte
	copy(id[:], sum[:16])
	return id
}

func rec(k offsets.Key, version int16, v offsets.Value) offsets.Record {
	return offsets.Record{Key: k, KeyType: k.Type(), ValueVersion: version, Value: v}
}

func tombstone(k offsets.Key) offsets.Record { return offsets.Record{Key: k, KeyType: k.Type()} }

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// groupMetadataRecord is GroupCoordinatorRecordHelpers.newGroupMetadataRecord:
// the group with every member's subscription for the chosen protocol and
// its assignment.
func (s *Shard) groupMetadataRecord(e *classicEntry) offsets.Record {
	g := e.g
	v := &offsets.GroupMetadataValue{ProtocolType: g.ProtocolType(), Generation: g.Generation(),
		Protocol: strPtr(g.ProtocolName()), Leader: strPtr(g.Leader()), CurrentStateTimestamp: g.StateSince()}
	for _, m := range g.Members() {
		mm := offsets.MemberMetadata{MemberID: m.ID, GroupInstanceID: strPtr(m.InstanceID), ClientID: m.ClientID,
			ClientHost: e.hosts[m.ID], RebalanceTimeout: int32(m.RebalanceTimeoutMs), SessionTimeout: int32(m.SessionTimeoutMs),
			Assignment: []byte(m.Assignment)}
		for _, p := range m.Protocols {
			if p.Name == g.ProtocolName() {
				mm.Subscription = []byte(p.Metadata)
			}
		}
		v.Members = append(v.Members, mm)
	}
	return rec(&offsets.GroupMetadataKey{Group: g.ID}, offsets.GroupMetadataValueVersion, v)
}

func offsetCommitRecord(group string, tp protocol.TopicPartition, c committed) offsets.Record {
	return rec(&offsets.OffsetCommitKey{Group: group, Topic: tp.Topic, Partition: tp.Partition}, offsets.OffsetCommitValueVersion,
		&offsets.OffsetCommitValue{Offset: c.Offset, LeaderEpoch: c.LeaderEpoch, Metadata: c.Metadata,
			CommitTimestamp: c.CommitTimestamp, ExpireTimestamp: -1})
}

// toRecordPartitions names a set's topics by id, in name order.
func toRecordPartitions(p consumer.Partitions) []offsets.TopicPartitions {
	out := []offsets.TopicPartitions{}
	for _, t := range p.Topics() {
		if len(p[t]) > 0 {
			out = append(out, offsets.TopicPartitions{TopicID: TopicID(t), Partitions: append([]int32(nil), p[t]...)})
		}
	}
	return out
}

// fromRecordPartitions resolves topic ids back to names; a topic the
// shard does not know (deleted meanwhile) is dropped, as Kafka drops
// partitions of topics missing from its metadata image.
func (s *Shard) fromRecordPartitions(tps []offsets.TopicPartitions) consumer.Partitions {
	out := consumer.Partitions{}
	for _, tp := range tps {
		if name, ok := s.topicIDs[tp.TopicID]; ok {
			out[name] = append(out[name], tp.Partitions...)
		}
	}
	return out
}
