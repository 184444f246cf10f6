package offsets

// TopicPartitions is a topic, by id since KIP-848 records name topics by
// their Uuid (a recreated topic is a different topic), and its partitions.
type TopicPartitions struct {
	TopicID    [16]byte
	Partitions []int32
}

func writeTopicPartitions(w *writer, tps []TopicPartitions) {
	w.arrayLen(len(tps))
	for _, tp := range tps {
		w.uuid(tp.TopicID)
		w.arrayLen(len(tp.Partitions))
		for _, p := range tp.Partitions {
			w.int32(p)
		}
		w.tags()
	}
}

func readTopicPartitions(r *reader, field string) []TopicPartitions {
	n := r.arrayLen(field)
	out := make([]TopicPartitions, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		tp := TopicPartitions{TopicID: r.uuid()}
		m := r.arrayLen("partitions")
		tp.Partitions = make([]int32, 0, m)
		for j := 0; j < m && r.err == nil; j++ {
			tp.Partitions = append(tp.Partitions, r.int32())
		}
		r.tags()
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

func (k *TargetAssignmentMetadataKey) write(w *writer) { w.string("groupId", k.GroupID) }
func (k *TargetAssignmentMetadataKey) read(r *reader)  { k.GroupID = r.string("groupId") }

func (*ConsumerGroupTargetAssignmentMetadataValue) maxVersion() int16   { return 0 }
func (*ConsumerGroupTargetAssignmentMetadataValue) flexibleFrom() int16 { return 0 }

func (v *ConsumerGroupTargetAssignmentMetadataValue) write(w *writer, _ int16) {
	w.int32(v.AssignmentEpoch)
	w.tags()
}

func (v *ConsumerGroupTargetAssignmentMetadataValue) read(r *reader, _ int16) {
	v.AssignmentEpoch = r.int32()
	r.tags()
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
	w.tags()
}

func (v *ConsumerGroupTargetAssignmentMemberValue) read(r *reader, _ int16) {
	v.TopicPartitions = readTopicPartitions(r, "topicPartitions")
	r.tags()
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
	w.int32(v.MemberEpoch)
	w.int32(v.PreviousMemberEpoch)
	w.int8(v.State)
	writeTopicPartitions(w, v.AssignedPartitions)
	writeTopicPartitions(w, v.PartitionsPendingRevocation)
	w.tags()
}

func (v *ConsumerGroupCurrentMemberAssignmentValue) read(r *reader, _ int16) {
	v.MemberEpoch = r.int32()
	v.PreviousMemberEpoch = r.int32()
	v.State = r.int8()
	v.AssignedPartitions = readTopicPartitions(r, "assignedPartitions")
	v.PartitionsPendingRevocation = readTopicPartitions(r, "partitionsPendingRevocation")
	r.tags()
}
