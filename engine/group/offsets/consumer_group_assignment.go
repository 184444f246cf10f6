package offsets

// TopicPartitions is a topic, by id since KIP-848 records name topics by
// their Uuid (a recreated topic is a different topic), and its partitions.
type TopicPartitions struct {
	TopicID    [16]byte
	Partitions []int32
}

func writeTopicPartitions(w *writer, tps []TopicPartitions) {
	w.ArrayLen(len(tps))
	for _, tp := range tps {
		w.UUID(tp.TopicID)
		w.ArrayLen(len(tp.Partitions))
		for _, p := range tp.Partitions {
			w.Int32(p)
		}
		w.Tags()
	}
}

func readTopicPartitions(r *reader, field string) []TopicPartitions {
	n := r.ArrayLen(field)
	out := make([]TopicPartitions, 0, n)
	for i := 0; i < n && r.Err == nil; i++ {
		tp := TopicPartitions{TopicID: r.UUID()}
		m := r.ArrayLen("partitions")
		tp.Partitions = make([]int32, 0, m)
		for j := 0; j < m && r.Err == nil; j++ {
			tp.Partitions = append(tp.Partitions, r.Int32())
		}
		r.Tags()
		out = append(out, tp)
	}
	return out
}

// ConsumerGroupTargetAssignmentMetadataValue (type 6, keyed by
// ConsumerGroupMetadataKey's shape): the group epoch the target assignment
// was computed for.
type ConsumerGroupTargetAssignmentMetadataValue struct {
	AssignmentEpoch int32
}

// TargetAssignmentMetadataKey is type 6's key: the group id only.
type TargetAssignmentMetadataKey struct {
	GroupID string
}

func (*TargetAssignmentMetadataKey) Type() int16 { return TypeConsumerGroupTargetAssignmentMeta }

func (k *TargetAssignmentMetadataKey) write(w *writer) { w.Str("groupId", k.GroupID) }
func (k *TargetAssignmentMetadataKey) read(r *reader)  { k.GroupID = r.Str("groupId") }

func (*ConsumerGroupTargetAssignmentMetadataValue) maxVersion() int16   { return 0 }
func (*ConsumerGroupTargetAssignmentMetadataValue) flexibleFrom() int16 { return 0 }

func (v *ConsumerGroupTargetAssignmentMetadataValue) write(w *writer, _ int16) {
	w.Int32(v.AssignmentEpoch)
	w.Tags()
}

func (v *ConsumerGroupTargetAssignmentMetadataValue) read(r *reader, _ int16) {
	v.AssignmentEpoch = r.Int32()
	r.Tags()
}

// ConsumerGroupTargetAssignmentMemberValue (type 7): the partitions the
// coordinator's assignor wants this member to own.
type ConsumerGroupTargetAssignmentMemberValue struct {
	TopicPartitions []TopicPartitions
}

func (*ConsumerGroupTargetAssignmentMemberValue) maxVersion() int16   { return 0 }
func (*ConsumerGroupTargetAssignmentMemberValue) flexibleFrom() int16 { return 0 }

func (v *ConsumerGroupTargetAssignmentMemberValue) write(w *writer, _ int16) {
	writeTopicPartitions(w, v.TopicPartitions)
	w.Tags()
}

func (v *ConsumerGroupTargetAssignmentMemberValue) read(r *reader, _ int16) {
	v.TopicPartitions = readTopicPartitions(r, "topicPartitions")
	r.Tags()
}

// ConsumerGroupCurrentMemberAssignmentValue (type 8): where the member's
// reconciliation stands; partitions pending revocation must be released
// before anyone else may be given them.
type ConsumerGroupCurrentMemberAssignmentValue struct {
	MemberEpoch                 int32
	PreviousMemberEpoch         int32
	State                       int8
	AssignedPartitions          []TopicPartitions
	PartitionsPendingRevocation []TopicPartitions
}

func (*ConsumerGroupCurrentMemberAssignmentValue) maxVersion() int16   { return 0 }
func (*ConsumerGroupCurrentMemberAssignmentValue) flexibleFrom() int16 { return 0 }

func (v *ConsumerGroupCurrentMemberAssignmentValue) write(w *writer, _ int16) {
	w.Int32(v.MemberEpoch)
	w.Int32(v.PreviousMemberEpoch)
	w.Int8(v.State)
	writeTopicPartitions(w, v.AssignedPartitions)
	writeTopicPartitions(w, v.PartitionsPendingRevocation)
	w.Tags()
}

func (v *ConsumerGroupCurrentMemberAssignmentValue) read(r *reader, _ int16) {
	v.MemberEpoch = r.Int32()
	v.PreviousMemberEpoch = r.Int32()
	v.State = r.Int8()
	v.AssignedPartitions = readTopicPartitions(r, "assignedPartitions")
	v.PartitionsPendingRevocation = readTopicPartitions(r, "partitionsPendingRevocation")
	r.Tags()
}
