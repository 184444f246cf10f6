package offsets

// KIP-848 records of one member. Keys are never flexible; every value is
// version 0 and flexible from 0.
const (
	TypeConsumerGroupMemberMetadata          int16 = 5
	TypeConsumerGroupTargetAssignmentMeta    int16 = 6
	TypeConsumerGroupTargetAssignmentMember  int16 = 7
	TypeConsumerGroupCurrentMemberAssignment int16 = 8
)

// MemberKey is the key shape shared by the per-member KIP-848 records
// (types 5, 7 and 8): group id, then member id.
type MemberKey struct {
	RecordType int16
	GroupID    string
	MemberID   string
}

func (k *MemberKey) Type() int16 { return k.RecordType }

func (k *MemberKey) write(w *writer) {
	w.Str("groupId", k.GroupID)
	w.Str("memberId", k.MemberID)
}

func (k *MemberKey) read(r *reader) {
	k.GroupID = r.Str("groupId")
	k.MemberID = r.Str("memberId")
}

// ConsumerGroupMemberMetadataValue (type 5): what a member told the
// coordinator in its ConsumerGroupHeartbeat; the coordinator rebuilds the
// member from it after a failover.
type ConsumerGroupMemberMetadataValue struct {
	InstanceID           *string
	RackID               *string
	ClientID             string
	ClientHost           string
	SubscribedTopicNames []string
	SubscribedTopicRegex *string
	RebalanceTimeoutMs   int32
	ServerAssignor       *string
	// ClassicMemberMetadata (tagged field 0) is set only for a member
	// that joined with the classic protocol into a consumer group.
	ClassicMemberMetadata *ClassicMemberMetadata
}

// ClassicMemberMetadata is a classic member's JoinGroup protocols.
type ClassicMemberMetadata struct {
	SessionTimeoutMs   int32
	SupportedProtocols []ClassicProtocol
}

// ClassicProtocol is one (assignor name, subscription bytes) pair.
type ClassicProtocol struct {
	Name     string
	Metadata []byte
}

func (*ConsumerGroupMemberMetadataValue) maxVersion() int16   { return 0 }
func (*ConsumerGroupMemberMetadataValue) flexibleFrom() int16 { return 0 }

func (v *ConsumerGroupMemberMetadataValue) write(w *writer, _ int16) {
	w.NullableStr("instanceId", v.InstanceID)
	w.NullableStr("rackId", v.RackID)
	w.Str("clientId", v.ClientID)
	w.Str("clientHost", v.ClientHost)
	w.ArrayLen(len(v.SubscribedTopicNames))
	for _, t := range v.SubscribedTopicNames {
		w.Str("subscribedTopicNames", t)
	}
	w.NullableStr("subscribedTopicRegex", v.SubscribedTopicRegex)
	w.Int32(v.RebalanceTimeoutMs)
	w.NullableStr("serverAssignor", v.ServerAssignor)
	var body []byte
	if c := v.ClassicMemberMetadata; c != nil {
		cw := &writer{Flexible: true}
		cw.Int32(c.SessionTimeoutMs)
		cw.ArrayLen(len(c.SupportedProtocols))
		for _, p := range c.SupportedProtocols {
			cw.Str("name", p.Name)
			cw.Bytes(p.Metadata)
			cw.Tags()
		}
		cw.Tags()
		w.Fail(cw.Err)
		body = cw.Buf
	}
	w.TaggedStruct(body)
}

func (v *ConsumerGroupMemberMetadataValue) read(r *reader, _ int16) {
	v.InstanceID = r.NullableStr("instanceId")
	v.RackID = r.NullableStr("rackId")
	v.ClientID = r.Str("clientId")
	v.ClientHost = r.Str("clientHost")
	n := r.ArrayLen("subscribedTopicNames")
	v.SubscribedTopicNames = make([]string, 0, n)
	for i := 0; i < n && r.Err == nil; i++ {
		v.SubscribedTopicNames = append(v.SubscribedTopicNames, r.Str("subscribedTopicNames"))
	}
	v.SubscribedTopicRegex = r.NullableStr("subscribedTopicRegex")
	v.RebalanceTimeoutMs = r.Int32()
	v.ServerAssignor = r.NullableStr("serverAssignor")
	v.ClassicMemberMetadata = nil
	r.TaggedFields(func(tag uint32, data []byte) {
		if tag != 0 {
			return
		}
		// Kafka reads the struct straight from the stream; loglab
		// bounds it by the tagged field's size, which is the same for
		// any record Kafka wrote.
		cr := &reader{Buf: data, Flexible: true}
		c := &ClassicMemberMetadata{SessionTimeoutMs: cr.Int32()}
		m := cr.ArrayLen("supportedProtocols")
		c.SupportedProtocols = make([]ClassicProtocol, 0, m)
		for i := 0; i < m && cr.Err == nil; i++ {
			p := ClassicProtocol{Name: cr.Str("name"), Metadata: cr.Bytes("metadata")}
			cr.Tags()
			c.SupportedProtocols = append(c.SupportedProtocols, p)
		}
		cr.Tags()
		if cr.Err != nil && r.Err == nil {
			r.Err = cr.Err
		}
		v.ClassicMemberMetadata = c
	})
}
