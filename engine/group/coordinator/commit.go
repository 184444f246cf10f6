package coordinator

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/group/classic"
	"github.com/loglab/loglab/engine/protocol"
)

// commit is OffsetMetadataManager.commitOffset: validate the committer
// against its group, then write one OffsetCommit record per partition.
func (s *Shard) commit(now int64, req Request, m protocol.OffsetCommitRequest) Result {
	resp := protocol.OffsetCommitResponse{}
	all := func(c protocol.ErrorCode) Result {
		for _, p := range m.Offsets {
			resp.Partitions = append(resp.Partitions, protocol.OffsetCommitPartitionResponse{TP: p.TP, Error: c})
		}
		return Result{Replies: []Reply{{req.Ref, resp}}}
	}
	if m.GroupID == "" {
		return all(protocol.InvalidGroupID)
	}
	if c := s.validateOffsetCommit(now, m); c != protocol.None {
		r := all(c)
		who := m.MemberID
		if who == "" {
			who = req.Client
		}
		r.Events = []string{fmt.Sprintf("group %s: OffsetCommit of %s at generation/epoch %d answered %s", m.GroupID,
			who, m.GenerationIDOrMemberEpoch, c.Name())}
		return r
	}
	var out Result
	var parts []string
	for _, p := range m.Offsets {
		if len(p.Metadata) > s.cfg.OffsetMetadataMaxBytes {
			resp.Partitions = append(resp.Partitions, protocol.OffsetCommitPartitionResponse{TP: p.TP, Error: protocol.OffsetMetadataTooLarge})
			continue
		}
		c := committed{Offset: p.Offset, LeaderEpoch: p.LeaderEpoch, Metadata: p.Metadata, CommitTimestamp: now, ExpireTimestamp: -1,
			RecordOffset: s.nextOffset + int64(len(out.Records))}
		s.setOffset(m.GroupID, p.TP, c)
		out.Records = append(out.Records, offsetCommitRecord(m.GroupID, p.TP, c))
		resp.Partitions = append(resp.Partitions, protocol.OffsetCommitPartitionResponse{TP: p.TP, Error: protocol.None})
		parts = append(parts, fmt.Sprintf("%s/%d=%d", p.TP.Topic, p.TP.Partition, p.Offset))
	}
	if len(parts) > 0 {
		who := m.MemberID
		if who == "" {
			who = req.Client
		}
		out.Events = append(out.Events, fmt.Sprintf("group %s: %s committed %v", m.GroupID, who, parts))
	}
	out.Replies = append(out.Replies, Reply{req.Ref, resp})
	return out
}

// validateOffsetCommit is OffsetMetadataManager.validateOffsetCommit
// (OffsetCommit v9): a commit with generation/epoch -1 for an unknown
// group creates a "simple" classic group (an admin, or a consumer using
// assign()); otherwise the group's own rules decide.
func (s *Shard) validateOffsetCommit(now int64, m protocol.OffsetCommitRequest) protocol.ErrorCode {
	if e := s.consumer[m.GroupID]; e != nil {
		return validateConsumerCommit(e, m.MemberID, m.GenerationIDOrMemberEpoch)
	}
	e := s.classic[m.GroupID]
	if e == nil {
		if m.GenerationIDOrMemberEpoch >= 0 {
			return protocol.GroupIDNotFound
		}
		// getOrMaybeCreateClassicGroup(groupId, true): in memory only; its
		// offsets bring it back on a load.
		e = &classicEntry{g: classic.New(m.GroupID, s.cfg.Classic, now), written: 0, hosts: map[string]string{}}
		s.classic[m.GroupID] = e
	}
	return code(e.g.ValidateOffsetCommit(now, m.MemberID, m.GroupInstanceID, m.GenerationIDOrMemberEpoch))
}

// validateConsumerCommit is ConsumerGroup.validateOffsetCommit: -1 from
// outside the group is fine while it has no members; a member must be
// known and at its current epoch.
func validateConsumerCommit(e *consumerEntry, memberID string, epoch int32) protocol.ErrorCode {
	members := e.g.Members()
	if epoch < 0 && len(members) == 0 {
		return protocol.None
	}
	i := slices.IndexFunc(members, func(mm consumerMember) bool { return mm.ID == memberID })
	if i < 0 {
		return protocol.UnknownMemberID
	}
	if epoch != members[i].MemberEpoch {
		return protocol.StaleMemberEpoch
	}
	return protocol.None
}

// fetch is OffsetMetadataManager.fetchOffsets / fetchAllOffsets: a
// KIP-848 member must name itself at its epoch; anyone may read a
// classic group's offsets. A partition without a committed offset reads
// -1, and so does every partition of an unknown group. With RequireStable
// (every consumer since Kafka 2.5 asks so) a partition with a pending
// transactional offset answers UNSTABLE_OFFSET_COMMIT; fetching all
// offsets lists only committed ones, as Kafka's fetchAllOffsets does.
func (s *Shard) fetch(req Request, m protocol.OffsetFetchRequest) Result {
	resp := protocol.OffsetFetchResponse{}
	if e := s.consumer[m.GroupID]; e != nil && (m.MemberID != "" || m.MemberEpoch >= 0) {
		if c := validateConsumerCommit(e, m.MemberID, m.MemberEpoch); c != protocol.None {
			resp.Error = c
			return Result{Replies: []Reply{{req.Ref, resp}}}
		}
	}
	offs := s.offsets[m.GroupID]
	tps := m.TPs
	if tps == nil {
		tps = sortedTPs(offs)
	}
	for _, tp := range tps {
		p := protocol.OffsetFetchPartition{TP: tp, Offset: -1, LeaderEpoch: -1}
		if m.RequireStable && s.hasPendingTxnOffsets(m.GroupID, tp) {
			// A transaction is about to change this offset: a consumer
			// starting from it now could reprocess what the transaction
			// already consumed (KIP-447). It asks again.
			p.Error = protocol.UnstableOffsetCommit
		} else if c, ok := offs[tp]; ok {
			p.Offset, p.LeaderEpoch, p.Metadata = c.Offset, c.LeaderEpoch, c.Metadata
		}
		resp.Partitions = append(resp.Partitions, p)
	}
	return Result{Replies: []Reply{{req.Ref, resp}}}
}

func (s *Shard) setOffset(group string, tp protocol.TopicPartition, c committed) {
	if s.offsets[group] == nil {
		s.offsets[group] = map[protocol.TopicPartition]committed{}
	}
	s.offsets[group][tp] = c
}

func sortedTPs(m map[protocol.TopicPartition]committed) []protocol.TopicPartition {
	out := make([]protocol.TopicPartition, 0, len(m))
	for tp := range m {
		out = append(out, tp)
	}
	slices.SortFunc(out, func(a, b protocol.TopicPartition) int {
		if a.Topic != b.Topic {
			if a.Topic < b.Topic {
				return -1
			}
			return 1
		}
		return int(a.Partition - b.Partition)
	})
	return out
}
