package offsets

// OffsetCommitKey (OffsetCommitKey.json, versions 0-1, never flexible):
// one committed position per group, topic and partition. Compaction keeps
// the latest commit per key, which is why it is a key.
type OffsetCommitKey struct {
	Group     string
	Topic     string
	Partition int32
}

// Type is 1, the type Kafka writes; type 0 is read as the same key.
func (*OffsetCommitKey) Type() int16 { return TypeOffsetCommit }

func (k *OffsetCommitKey) write(w *writer) {
	w.Str("group", k.Group)
	w.Str("topic", k.Topic)
	w.Int32(k.Partition)
}

func (k *OffsetCommitKey) read(r *reader) {
	k.Group = r.Str("group")
	k.Topic = r.Str("topic")
	k.Partition = r.Int32()
}

// OffsetCommitValue (OffsetCommitValue.json, versions 0-4, flexible from 4).
// Fields outside a version keep their schema defaults when decoding:
// LeaderEpoch -1 below v3, ExpireTimestamp -1 outside v1.
type OffsetCommitValue struct {
	Offset int64
	// LeaderEpoch (v3+) lets a consumer that resumes from this offset
	// detect log truncation (KIP-320); -1 when unknown.
	LeaderEpoch     int32
	Metadata        string
	CommitTimestamp int64
	// ExpireTimestamp exists only in v1: OffsetCommit requests up to v4
	// could set a retention per commit, removed by KIP-211.
	ExpireTimestamp int64
}

func (*OffsetCommitValue) maxVersion() int16   { return 4 }
func (*OffsetCommitValue) flexibleFrom() int16 { return 4 }

func (v *OffsetCommitValue) write(w *writer, version int16) {
	w.Int64(v.Offset)
	if version >= 3 {
		w.Int32(v.LeaderEpoch)
	}
	w.Str("metadata", v.Metadata)
	w.Int64(v.CommitTimestamp)
	if version == 1 {
		w.Int64(v.ExpireTimestamp)
	}
	w.Tags()
}

func (v *OffsetCommitValue) read(r *reader, version int16) {
	*v = OffsetCommitValue{LeaderEpoch: -1, ExpireTimestamp: -1}
	v.Offset = r.Int64()
	if version >= 3 {
		v.LeaderEpoch = r.Int32()
	}
	v.Metadata = r.Str("metadata")
	v.CommitTimestamp = r.Int64()
	if version == 1 {
		v.ExpireTimestamp = r.Int64()
	}
	r.Tags()
}
