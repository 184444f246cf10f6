package coordinator

import (
	"slices"
	"strings"

	"github.com/loglab/loglab/engine/group/consumer"
	"github.com/loglab/loglab/engine/group/consumerprotocol"
	"github.com/loglab/loglab/engine/protocol"
)

// GroupDescription is one group as kafka-consumer-groups.sh --describe
// (--members, --state, --offsets) shows it.
type GroupDescription struct {
	GroupID string
	// Type is "classic" or "consumer" (KIP-848), --list --type's names.
	Type string
	// State as --state prints it: Empty, PreparingRebalance,
	// CompletingRebalance, Stable, Dead (classic); Empty, Assigning,
	// Reconciling, Stable (consumer).
	State string
	// Protocol is the classic group's chosen assignor (range, ...) or the
	// consumer group's server assignor (uniform, range).
	Protocol     string
	ProtocolType string // "consumer" for consumers; "" for a simple group
	// Epoch is the classic generation or the consumer group epoch;
	// AssignmentEpoch the consumer group's target assignment epoch.
	Epoch           int32
	AssignmentEpoch int32
	Members         []MemberDescription
	Offsets         []CommittedOffset
}

// MemberDescription is one member.
type MemberDescription struct {
	MemberID   string
	InstanceID string
	ClientID   string
	Host       string // "/" + the client's node name
	// Assigned is the member's current assignment: for a classic member
	// what the leader's SyncGroup gave it, decoded from the
	// ConsumerProtocolAssignment bytes; for a KIP-848 member its assigned
	// partitions (not those it still has to revoke).
	Assigned []protocol.TopicPartition
	// KIP-848 only: the member's epoch, its target partitions, and the
	// partitions it still has to revoke.
	MemberEpoch       int32
	Target            []protocol.TopicPartition
	PendingRevocation []protocol.TopicPartition
	MemberState       string // STABLE, UNREVOKED_PARTITIONS, UNRELEASED_PARTITIONS
}

// CommittedOffset is one committed position.
type CommittedOffset struct {
	TP              protocol.TopicPartition
	Offset          int64
	LeaderEpoch     int32
	Metadata        string
	CommitTimestamp int64
}

// Groups lists the shard's groups in group id order (kafka-consumer-groups
// --list, --describe --all-groups).
func (s *Shard) Groups() []GroupDescription {
	var ids []string
	ids = append(ids, sortedKeys(s.classic)...)
	ids = append(ids, sortedKeys(s.consumer)...)
	sortStrings(ids)
	out := make([]GroupDescription, 0, len(ids))
	for _, id := range ids {
		d, _ := s.Describe(id)
		out = append(out, d)
	}
	return out
}

// Describe describes one group; false when the shard does not know it.
func (s *Shard) Describe(id string) (GroupDescription, bool) {
	var d GroupDescription
	switch {
	case s.classic[id] != nil:
		e := s.classic[id]
		g := e.g
		d = GroupDescription{GroupID: id, Type: "classic", State: g.State().String(), Protocol: g.ProtocolName(),
			ProtocolType: g.ProtocolType(), Epoch: g.Generation()}
		for _, m := range g.Members() {
			d.Members = append(d.Members, MemberDescription{MemberID: m.ID, InstanceID: m.InstanceID, ClientID: m.ClientID,
				Host: e.hosts[m.ID], Assigned: decodeAssignment([]byte(m.Assignment)), MemberEpoch: -1})
		}
	case s.consumer[id] != nil:
		e := s.consumer[id]
		g := e.g
		d = GroupDescription{GroupID: id, Type: "consumer", State: string(g.State()), Protocol: groupAssignorName(e),
			ProtocolType: "consumer", Epoch: g.GroupEpoch(), AssignmentEpoch: g.AssignmentEpoch()}
		for _, m := range g.Members() {
			det := e.details[m.ID]
			d.Members = append(d.Members, MemberDescription{MemberID: m.ID, InstanceID: m.InstanceID, ClientID: det.ClientID,
				Host: det.Host, Assigned: tpList(m.Assigned), MemberEpoch: m.MemberEpoch, Target: tpList(g.Target(m.ID)),
				PendingRevocation: tpList(m.PendingRevocation), MemberState: m.State.String()})
		}
	default:
		return GroupDescription{}, false
	}
	for _, tp := range sortedTPs(s.offsets[id]) {
		c := s.offsets[id][tp]
		d.Offsets = append(d.Offsets, CommittedOffset{TP: tp, Offset: c.Offset, LeaderEpoch: c.LeaderEpoch, Metadata: c.Metadata,
			CommitTimestamp: c.CommitTimestamp})
	}
	return d, true
}

// groupAssignorName is the assignor the group's first member named, or
// uniform.
func groupAssignorName(e *consumerEntry) string {
	for _, id := range sortedKeys(e.details) {
		if a := e.details[id].ServerAssignor; a != "" {
			return a
		}
	}
	return "uniform"
}

func tpList(p consumer.Partitions) []protocol.TopicPartition {
	var out []protocol.TopicPartition
	for _, t := range p.Topics() {
		for _, n := range p[t] {
			out = append(out, protocol.TopicPartition{Topic: t, Partition: n})
		}
	}
	return out
}

// decodeAssignment reads the partitions of a ConsumerProtocolAssignment,
// sorted; nil when the bytes are not one (another protocol type, or no
// assignment yet).
func decodeAssignment(b []byte) []protocol.TopicPartition {
	a, err := consumerprotocol.DecodeAssignment(b)
	if err != nil {
		return nil
	}
	out := make([]protocol.TopicPartition, 0, len(a.Partitions))
	for _, tp := range a.Partitions {
		out = append(out, protocol.TopicPartition{Topic: tp.Topic, Partition: tp.Partition})
	}
	slices.SortFunc(out, func(x, y protocol.TopicPartition) int {
		if c := strings.Compare(x.Topic, y.Topic); c != 0 {
			return c
		}
		return int(x.Partition - y.Partition)
	})
	return out
}
