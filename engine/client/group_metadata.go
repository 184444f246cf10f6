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

// GroupMetadata is the consumer's current group metadata. As in the Java
// consumer it is what the membership last completed, not reset when the
// member falls out of the group: a consumer the group has moved on from
// still hands its old generation to the producer, which is how the
// coordinator recognizes it as a zombie (ILLEGAL_GENERATION,
// UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID) rather than taking its offsets as
// an admin's. Without a group.id the Java consumer throws
// InvalidGroupIdException; this returns the group-less metadata.
func (c *Consumer) GroupMetadata() ConsumerGroupMetadata {
	if c.group == nil || !c.group.metaSet {
		return ConsumerGroupMetadata{GroupID: c.cfg.GroupID, GenerationID: -1, GroupInstanceID: c.cfg.GroupInstanceID}
	}
	return c.group.meta
}

// setGroupMetadata records a completed membership: the classic
// protocol's onJoinComplete (after SyncGroup) or a KIP-848 member epoch
// the coordinator gave (AsyncKafkaConsumer.updateGroupMetadata, for
// epochs above 0: a leave's -1/-2 never reach it).
func (g *groupMember) setGroupMetadata(generation int32, memberID string) {
	c := g.c
	g.meta = ConsumerGroupMetadata{GroupID: c.cfg.GroupID, GenerationID: generation, MemberID: memberID, GroupInstanceID: c.cfg.GroupInstanceID}
	g.metaSet = true
}
