package offsets

// ConsumerGroupMetadataKey (ConsumerGroupMetadataKey.json, version 3): the
// KIP-848 group's epoch record. Its tombstone deletes the group.
type ConsumerGroupMetadataKey struct {
	GroupID string
}

func (*ConsumerGroupMetadataKey) Type() int16 { return TypeConsumerGroupMetadata }

func (k *ConsumerGroupMetadataKey) write(w *writer) { w.Str("groupId", k.GroupID) }
func (k *ConsumerGroupMetadataKey) read(r *reader)  { k.GroupID = r.Str("groupId") }

// ConsumerGroupMetadataValue (version 0, flexible from 0): the group epoch,
// bumped whenever membership or subscriptions change, which makes the
// coordinator compute a new target assignment.
type ConsumerGroupMetadataValue struct {
	Epoch int32
}

func (*ConsumerGroupMetadataValue) maxVersion() int16   { return 0 }
func (*ConsumerGroupMetadataValue) flexibleFrom() int16 { return 0 }

func (v *ConsumerGroupMetadataValue) write(w *writer, _ int16) {
	w.Int32(v.Epoch)
	w.Tags()
}

func (v *ConsumerGroupMetadataValue) read(r *reader, _ int16) {
	v.Epoch = r.Int32()
	r.Tags()
}
