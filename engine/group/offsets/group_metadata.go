package offsets

// GroupMetadataKey (GroupMetadataKey.json, version 2, never flexible): the
// state of a classic group, one record per group, rewritten at every
// generation; its tombstone deletes the group.
type GroupMetadataKey struct {
	Group string
}

func (*GroupMetadataKey) Type() int16 { return TypeGroupMetadata }

func (k *GroupMetadataKey) write(w *writer) { w.string("group", k.Group) }
func (k *GroupMetadataKey) read(r *reader)  { k.Group = r.string("group") }

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
	w.string("protocolType", v.ProtocolType)
	w.int32(v.Generation)
	w.nullableString("protocol", v.Protocol)
	w.nullableString("leader", v.Leader)
	if version >= 2 {
		w.int64(v.CurrentStateTimestamp)
	}
	w.arrayLen(len(v.Members))
	for i := range v.Members {
		m := &v.Members[i]
		w.string("memberId", m.MemberID)
		if version >= 3 {
			w.nullableString("groupInstanceId", m.GroupInstanceID)
		}
		w.string("clientId", m.ClientID)
		w.string("clientHost", m.ClientHost)
		if version >= 1 {
			w.int32(m.RebalanceTimeout)
		}
		w.int32(m.SessionTimeout)
		w.bytes(m.Subscription)
		w.bytes(m.Assignment)
		w.tags()
	}
	w.tags()
}

func (v *GroupMetadataValue) read(r *reader, version int16) {
	*v = GroupMetadataValue{CurrentStateTimestamp: -1}
	v.ProtocolType = r.string("protocolType")
	v.Generation = r.int32()
	v.Protocol = r.nullableString("protocol")
	v.Leader = r.nullableString("leader")
	if version >= 2 {
		v.CurrentStateTimestamp = r.int64()
	}
	n := r.arrayLen("members")
	v.Members = make([]MemberMetadata, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		m := MemberMetadata{RebalanceTimeout: -1}
		m.MemberID = r.string("memberId")
		if version >= 3 {
			m.GroupInstanceID = r.nullableString("groupInstanceId")
		}
		m.ClientID = r.string("clientId")
		m.ClientHost = r.string("clientHost")
		if version >= 1 {
			m.RebalanceTimeout = r.int32()
		}
		m.SessionTimeout = r.int32()
		m.Subscription = r.bytes("subscription")
		m.Assignment = r.bytes("assignment")
		r.tags()
		v.Members = append(v.Members, m)
	}
	r.tags()
}
