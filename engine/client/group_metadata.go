package client

// ConsumerGroupMetadata is KafkaConsumer.groupMetadata(): the consumer's
// group, generation (or member epoch), member id and instance id, which a
// transactional producer passes to sendOffsetsToTransaction so the group
// coordinator can fence a zombie consumer's offsets (KIP-447).
type ConsumerGroupMetadata struct {
	GroupID         string
	GenerationID    int32 // -1: outside any membership
	MemberID        string
	GroupInstanceID string
}

// GroupMetadata is the consumer's current group metadata.
// CONTRACT STUB (to be replaced): always the group with no membership.
func (c *Consumer) GroupMetadata() ConsumerGroupMetadata {
	return ConsumerGroupMetadata{GroupID: c.cfg.GroupID, GenerationID: -1}
}
