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
	w.string("groupId", k.GroupID)
	w.string("memberId", k.MemberID)
}

func (k *MemberKey) read(r *reader) {
	k.GroupID = r.string("groupId")
	k.MemberID = r.string("memberId")
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
	w.nullableString("instanceId", v.InstanceID)
	w.nullableString("rackId", v.RackID)
	w.string("clientId", v.ClientID)
	w.string("clientHost", v.ClientHost)
	w.arrayLen(len(v.SubscribedTopicNames))
	for _, t := range v.SubscribedTopicNames {
		w.string("subscribedTopicNames", t)
	}
	w.nullableString("subscribedTopicRegex", v.SubscribedTopicRegex)
	w.int32(v.RebalanceTimeoutMs)
	w.nullableString("serverAssignor", v.ServerAssignor)
	var body []byte
	if c := v.ClassicMemberMetadata; c != nil {
		cw := &writer{flexible: true}
		cw.int32(c.SessionTimeoutMs)
		cw.arrayLen(len(c.SupportedProtocols))
		for _, p := range c.SupportedProtocols {
			cw.string("name", p.Name)
			cw.bytes(p.Metadata)
			cw.tags()
		}
		cw.tags()
		w.fail(cw.err)
		body = cw.buf
	}
	w.taggedStruct(body)
}

func (v *ConsumerGroupMemberMetadataValue) read(r *reader, _ int16) {
	v.InstanceID = r.nullableString("instanceId")
	v.RackID = r.nullableString("rackId")
	v.ClientID = r.string("clientId")
	v.ClientHost = r.string("clientHost")
	n := r.arrayLen("subscribedTopicNames")
	v.SubscribedTopicNames = make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		v.SubscribedTopicNames = append(v.SubscribedTopicNames, r.string("subscribedTopicNames"))
	}
	v.SubscribedTopicRegex = r.nullableString("subscribedTopicRegex")
	v.RebalanceTimeoutMs = r.int32()
	v.ServerAssignor = r.nullableString("serverAssignor")
	v.ClassicMemberMetadata = nil
	r.taggedFields(func(tag uint32, data []byte) {
		if tag != 0 {
			return
		}
		// Kafka reads the struct straight from the stream; loglab
		// bounds it by the tagged field's size, which is the same for
		// any record Kafka wrote.
		cr := &reader{buf: data, flexible: true}
		c := &ClassicMemberMetadata{SessionTimeoutMs: cr.int32()}
		m := cr.arrayLen("supportedProtocols")
		c.SupportedProtocols = make([]ClassicProtocol, 0, m)
		for i := 0; i < m && cr.err == nil; i++ {
			p := ClassicProtocol{Name: cr.string("name"), Metadata: cr.bytes("metadata")}
			cr.tags()
			c.SupportedProtocols = append(c.SupportedProtocols, p)
		}
		cr.tags()
		if cr.err != nil && r.err == nil {
			r.err = cr.err
		}
		v.ClassicMemberMetadata = c
	})
}
