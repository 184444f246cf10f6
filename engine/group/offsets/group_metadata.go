package offsets

// GroupMetadataKey (GroupMetadataKey.json, version 2, never flexible): the
// state of a classic group, one record per group, rewritten at every
// generation; its tombstone deletes the group.
type GroupMetadataKey struct {
	Group string
}

func (*GroupMetadataKey) Type() int16 { return TypeGroupMetadata }

func (k *GroupMetadataKey) write(w *writer) { w.Str("group", k.Group) }
func (k *GroupMetadataKey) read(r *reader)  { k.Group = r.Str("group") }

// GroupMetadataValue (GroupMetadataValue.json, versions 0-4, flexible from 4).
type GroupMetadataValue struct {
	ProtocolType string
	Generation   int32
	// Protocol is the chosen assignor (e.g. "range"); nil while the group
	// is empty.
	Protocol *string
	// Leader is the member id of the member that computes the assignment.
	Leader *string
	// CurrentStateTimestamp (v2+) is when the group entered its state;
	// offsets of an empty group expire counted from it. -1 below v2.
	CurrentStateTimestamp int64
	Members               []MemberMetadata
}

// MemberMetadata is one member of a classic group.
type MemberMetadata struct {
	MemberID string
	// GroupInstanceID (v3+) is the static member's group.instance.id
	// (KIP-345); nil for a dynamic member.
	GroupInstanceID *string
	ClientID        string
	ClientHost      string
	// RebalanceTimeout (v1+), -1 below v1.
	RebalanceTimeout int32
	SessionTimeout   int32
	// Subscription and Assignment are the opaque bytes of the embedded
	// protocol (ConsumerProtocolSubscription/Assignment for consumers).
	Subscription []byte
	Assignment   []byte
}

func (*GroupMetadataValue) maxVersion() int16   { return 4 }
func (*GroupMetadataValue) flexibleFrom() int16 { return 4 }

func (v *GroupMetadataValue) write(w *writer, version int16) {
	w.Str("protocolType", v.ProtocolType)
	w.Int32(v.Generation)
	w.NullableStr("protocol", v.Protocol)
	w.NullableStr("leader", v.Leader)
	if version >= 2 {
		w.Int64(v.CurrentStateTimestamp)
	}
	w.ArrayLen(len(v.Members))
	for i := range v.Members {
		m := &v.Members[i]
		w.Str("memberId", m.MemberID)
		if version >= 3 {
			w.NullableStr("groupInstanceId", m.GroupInstanceID)
		}
		w.Str("clientId", m.ClientID)
		w.Str("clientHost", m.ClientHost)
		if version >= 1 {
			w.Int32(m.RebalanceTimeout)
		}
		w.Int32(m.SessionTimeout)
		w.Bytes(m.Subscription)
		w.Bytes(m.Assignment)
		w.Tags()
	}
	w.Tags()
}

func (v *GroupMetadataValue) read(r *reader, version int16) {
	*v = GroupMetadataValue{CurrentStateTimestamp: -1}
	v.ProtocolType = r.Str("protocolType")
	v.Generation = r.Int32()
	v.Protocol = r.NullableStr("protocol")
	v.Leader = r.NullableStr("leader")
	if version >= 2 {
		v.CurrentStateTimestamp = r.Int64()
	}
	n := r.ArrayLen("members")
	v.Members = make([]MemberMetadata, 0, n)
	for i := 0; i < n && r.Err == nil; i++ {
		m := MemberMetadata{RebalanceTimeout: -1}
		m.MemberID = r.Str("memberId")
		if version >= 3 {
			m.GroupInstanceID = r.NullableStr("groupInstanceId")
		}
		m.ClientID = r.Str("clientId")
		m.ClientHost = r.Str("clientHost")
		if version >= 1 {
			m.RebalanceTimeout = r.Int32()
		}
		m.SessionTimeout = r.Int32()
		m.Subscription = r.Bytes("subscription")
		m.Assignment = r.Bytes("assignment")
		r.Tags()
		v.Members = append(v.Members, m)
	}
	r.Tags()
}
