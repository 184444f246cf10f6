package coordinator

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/group/classic"
	"github.com/loglab/loglab/engine/group/consumer"
	"github.com/loglab/loglab/engine/group/offsets"
)

// replayState is what the records say so far, latest value per key, as
// GroupCoordinatorShard.replay keeps it while the partition loads.
type replayState struct {
	classic       map[string]*offsets.GroupMetadataValue
	groupEpoch    map[string]int32
	assignEpoch   map[string]int32
	memberMeta    map[string]map[string]*offsets.ConsumerGroupMemberMetadataValue
	memberTarget  map[string]map[string]*offsets.ConsumerGroupTargetAssignmentMemberValue
	memberCurrent map[string]map[string]*offsets.ConsumerGroupCurrentMemberAssignmentValue
}

func newReplayState() *replayState {
	return &replayState{classic: map[string]*offsets.GroupMetadataValue{}, groupEpoch: map[string]int32{},
		assignEpoch:   map[string]int32{},
		memberMeta:    map[string]map[string]*offsets.ConsumerGroupMemberMetadataValue{},
		memberTarget:  map[string]map[string]*offsets.ConsumerGroupTargetAssignmentMemberValue{},
		memberCurrent: map[string]map[string]*offsets.ConsumerGroupCurrentMemberAssignmentValue{}}
}

// replayGroupRecord is GroupCoordinatorShard.replay for a group record
// while the partition loads: a key's latest value wins and a tombstone
// deletes it, which is also what compaction keeps. Records of types
// loglab does not decode are skipped, as Kafka's loader skips unknown
// types. Offset commits go through ReplayRecord.
func (s *Shard) replayGroupRecord(r offsets.Record) {
	if s.replay == nil {
		s.replay = newReplayState()
	}
	rs := s.replay
	switch k := r.Key.(type) {
	case *offsets.GroupMetadataKey:
		if v, ok := r.Value.(*offsets.GroupMetadataValue); ok {
			rs.classic[k.Group] = v
		} else {
			delete(rs.classic, k.Group)
		}
	case *offsets.ConsumerGroupMetadataKey:
		if v, ok := r.Value.(*offsets.ConsumerGroupMetadataValue); ok {
			rs.groupEpoch[k.GroupID] = v.Epoch
		} else {
			delete(rs.groupEpoch, k.GroupID)
		}
	case *offsets.TargetAssignmentMetadataKey:
		if v, ok := r.Value.(*offsets.ConsumerGroupTargetAssignmentMetadataValue); ok {
			rs.assignEpoch[k.GroupID] = v.AssignmentEpoch
		} else {
			delete(rs.assignEpoch, k.GroupID)
		}
	case *offsets.MemberKey:
		switch k.RecordType {
		case offsets.TypeConsumerGroupMemberMetadata:
			v, _ := r.Value.(*offsets.ConsumerGroupMemberMetadataValue)
			setMember(rs.memberMeta, k, v)
		case offsets.TypeConsumerGroupTargetAssignmentMember:
			v, _ := r.Value.(*offsets.ConsumerGroupTargetAssignmentMemberValue)
			setMember(rs.memberTarget, k, v)
		case offsets.TypeConsumerGroupCurrentMemberAssignment:
			v, _ := r.Value.(*offsets.ConsumerGroupCurrentMemberAssignmentValue)
			setMember(rs.memberCurrent, k, v)
		}
	}
}

func setMember[V any](m map[string]map[string]*V, k *offsets.MemberKey, v *V) {
	if v == nil {
		delete(m[k.GroupID], k.MemberID)
		return
	}
	if m[k.GroupID] == nil {
		m[k.GroupID] = map[string]*V{}
	}
	m[k.GroupID][k.MemberID] = v
}

// LoadStats is what a load found, for the broker's trace.
type LoadStats struct{ Groups, Offsets, PendingTxnOffsets int }

// Loaded builds the groups the replayed records describe, as
// GroupMetadataManager.onLoaded does at virtual time now: classic groups
// come back Stable (or Empty) with their members' sessions running, KIP-848
// groups with their epochs and assignments. A group that only has
// offsets comes back as an Empty "simple" classic group.
func (s *Shard) Loaded(now int64) LoadStats {
	rs := s.replay
	if rs == nil {
		rs = newReplayState()
	}
	s.replay = nil
	for _, id := range sortedKeys(rs.classic) {
		v := rs.classic[id]
		var members []classic.Member
		hosts := map[string]string{}
		for _, mm := range v.Members {
			members = append(members, classic.Member{ID: mm.MemberID, InstanceID: deref(mm.GroupInstanceID), ClientID: mm.ClientID,
				ProtocolType: v.ProtocolType, Protocols: []classic.Protocol{{Name: deref(v.Protocol), Metadata: string(mm.Subscription)}},
				SessionTimeoutMs: int64(mm.SessionTimeout), RebalanceTimeoutMs: int64(mm.RebalanceTimeout), Assignment: string(mm.Assignment)})
			hosts[mm.MemberID] = mm.ClientHost
		}
		g := classic.Restore(id, s.cfg.Classic, now, v.Generation, v.ProtocolType, deref(v.Protocol), deref(v.Leader),
			v.CurrentStateTimestamp, members)
		s.classic[id] = &classicEntry{g: g, written: v.Generation, writtenMembers: memberIDs(g.Members()), hosts: hosts}
	}
	for _, id := range sortedKeys(rs.groupEpoch) {
		s.consumer[id] = s.restoreConsumer(now, rs, id)
	}
	groups := sortedKeys(s.offsets)
	for pid := range s.pendingTxn {
		groups = append(groups, sortedKeys(s.pendingTxn[pid])...)
	}
	slices.Sort(groups)
	for _, id := range slices.Compact(groups) {
		if s.classic[id] == nil && s.consumer[id] == nil {
			s.classic[id] = &classicEntry{g: classic.New(id, s.cfg.Classic, now), written: 0, hosts: map[string]string{}}
		}
	}
	s.loaded = true
	st := LoadStats{Groups: len(s.classic) + len(s.consumer)}
	for _, offs := range s.offsets {
		st.Offsets += len(offs)
	}
	for _, g := range s.pendingTxn {
		for _, offs := range g {
			st.PendingTxnOffsets += len(offs)
		}
	}
	return st
}

func (s *Shard) restoreConsumer(now int64, rs *replayState, id string) *consumerEntry {
	e := &consumerEntry{details: map[string]memberDetails{}}
	var members []consumer.Member
	targets := map[string]consumer.Partitions{}
	assignorName := ""
	for _, mid := range sortedKeys(rs.memberMeta[id]) {
		meta := rs.memberMeta[id][mid]
		m := consumer.Member{ID: mid, InstanceID: deref(meta.InstanceID), State: consumer.Stable, SubscribedTopics: meta.SubscribedTopicNames,
			RebalanceTimeoutMs: meta.RebalanceTimeoutMs, Assigned: consumer.Partitions{}, PendingRevocation: consumer.Partitions{}}
		if cur := rs.memberCurrent[id][mid]; cur != nil {
			m.State, m.MemberEpoch, m.PreviousMemberEpoch = memberStateFromByte(cur.State), cur.MemberEpoch, cur.PreviousMemberEpoch
			m.Assigned = s.fromRecordPartitions(cur.AssignedPartitions)
			m.PendingRevocation = s.fromRecordPartitions(cur.PartitionsPendingRevocation)
		}
		members = append(members, m)
		e.details[mid] = memberDetails{ClientID: meta.ClientID, Host: meta.ClientHost, InstanceID: deref(meta.InstanceID),
			RackID: deref(meta.RackID), ServerAssignor: deref(meta.ServerAssignor)}
		if assignorName == "" {
			assignorName = deref(meta.ServerAssignor)
		}
	}
	for _, mid := range sortedKeys(rs.memberTarget[id]) {
		targets[mid] = s.fromRecordPartitions(rs.memberTarget[id][mid].TopicPartitions)
	}
	a, ok := serverAssignor(assignorName)
	if !ok {
		a, _ = serverAssignor("")
	}
	e.g = consumer.Restore(id, a, s.topics, s.cfg.Consumer, now, rs.groupEpoch[id], rs.assignEpoch[id], members, targets)
	return e
}

// String says what a load found, as the broker traces it.
func (st LoadStats) String() string {
	if st.PendingTxnOffsets > 0 {
		return fmt.Sprintf("%d groups, %d offsets, %d pending transactional offsets", st.Groups, st.Offsets, st.PendingTxnOffsets)
	}
	return fmt.Sprintf("%d groups, %d offsets", st.Groups, st.Offsets)
}
