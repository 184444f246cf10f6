package coordinator

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/group/classic"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/protocol"
)

// TxnWrite marks a Result whose records are a transactional offset
// commit: the broker writes them as one transactional batch of that
// producer (Kafka's CoordinatorRuntime.scheduleTransactionalWriteOperation)
// and, once appended, hands them back with ReplayRecord so they become
// that producer's pending offsets.
type TxnWrite struct {
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
}

// groupOffsets is one producer's pending offsets, by group and partition
// (OffsetMetadataManager.Offsets).
type groupOffsets map[string]map[protocol.TopicPartition]committed

// txnCommit is OffsetMetadataManager.commitTransactionalOffset: validate
// the consumer the producer speaks for, then one OffsetCommit record per
// partition. Nothing changes here: the records become the producer's
// pending offsets when the broker has appended them (ReplayRecord), and
// the group's committed offsets only with the producer's COMMIT marker.
func (s *Shard) txnCommit(now int64, req Request, m protocol.TxnOffsetCommitRequest) Result {
	resp := protocol.TxnOffsetCommitResponse{}
	all := func(c protocol.ErrorCode) Result {
		for _, p := range m.Offsets {
			resp.Partitions = append(resp.Partitions, protocol.OffsetCommitPartitionResponse{TP: p.TP, Error: c})
		}
		return Result{Replies: []Reply{{req.Ref, resp}}}
	}
	if m.GroupID == "" {
		// GroupCoordinatorService.commitTransactionalOffsets: isGroupIdNotEmpty.
		return all(protocol.InvalidGroupID)
	}
	if c := s.validateTxnOffsetCommit(now, m); c != protocol.None {
		r := all(c)
		r.Events = []string{fmt.Sprintf("group %s: TxnOffsetCommit of transaction %s (producer %d) for member %q at generation/epoch %d answered %s",
			m.GroupID, m.TransactionalID, m.ProducerID, m.MemberID, m.GenerationID, c.Name())}
		return r
	}
	out := Result{Txn: &TxnWrite{TransactionalID: m.TransactionalID, ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch}}
	var parts []string
	for _, p := range m.Offsets {
		if len(p.Metadata) > s.cfg.OffsetMetadataMaxBytes {
			resp.Partitions = append(resp.Partitions, protocol.OffsetCommitPartitionResponse{TP: p.TP, Error: protocol.OffsetMetadataTooLarge})
			continue
		}
		c := committed{Offset: p.Offset, LeaderEpoch: p.LeaderEpoch, Metadata: p.Metadata, CommitTimestamp: now, ExpireTimestamp: -1}
		out.Records = append(out.Records, offsetCommitRecord(m.GroupID, p.TP, c))
		resp.Partitions = append(resp.Partitions, protocol.OffsetCommitPartitionResponse{TP: p.TP, Error: protocol.None})
		parts = append(parts, fmt.Sprintf("%s/%d=%d", p.TP.Topic, p.TP.Partition, p.Offset))
	}
	if len(parts) > 0 {
		out.Events = append(out.Events, fmt.Sprintf("group %s: transaction %s (producer %d, epoch %d) wrote offsets %v, pending until its marker",
			m.GroupID, m.TransactionalID, m.ProducerID, m.ProducerEpoch, parts))
	}
	out.Replies = append(out.Replies, Reply{req.Ref, resp})
	return out
}

// validateTxnOffsetCommit is OffsetMetadataManager.validateTransactionalOffsetCommit:
// an unknown group with generation -1 becomes a simple group, with a
// generation ILLEGAL_GENERATION (not GROUP_ID_NOT_FOUND: TxnOffsetCommit
// has no such error); then the group's own rules with isTransactional. A
// consumer group's STALE_MEMBER_EPOCH is answered ILLEGAL_GENERATION, the
// error a transactional producer knows (it aborts, CommitFailedException).
func (s *Shard) validateTxnOffsetCommit(now int64, m protocol.TxnOffsetCommitRequest) protocol.ErrorCode {
	if e := s.consumer[m.GroupID]; e != nil {
		c := validateConsumerCommit(e, m.MemberID, m.GenerationID)
		if c == protocol.StaleMemberEpoch {
			c = protocol.IllegalGeneration
		}
		return c
	}
	e := s.classic[m.GroupID]
	if e == nil {
		if m.GenerationID >= 0 {
			return protocol.IllegalGeneration
		}
		e = &classicEntry{g: classic.New(m.GroupID, s.cfg.Classic, now), written: 0, hosts: map[string]string{}}
		s.classic[m.GroupID] = e
	}
	return code(e.g.ValidateTxnOffsetCommit(m.MemberID, m.GroupInstanceID, m.GenerationID))
}

// ReplayRecord is GroupCoordinatorShard.replay for one record at log
// offset offset of a batch of producer producerID (-1: not
// transactional), as the loader reads the partition and as the broker
// hands back a transactional commit it appended. An OffsetCommit of a
// transactional batch is pending for that producer until its marker
// (OffsetMetadataManager.replay); a tombstone deletes the committed offset
// and every pending one of that partition.
func (s *Shard) ReplayRecord(offset, producerID int64, r offsets.Record) {
	k, ok := r.Key.(*offsets.OffsetCommitKey)
	if !ok {
		s.replayGroupRecord(r)
		return
	}
	tp := protocol.TopicPartition{Topic: k.Topic, Partition: k.Partition}
	v, ok := r.Value.(*offsets.OffsetCommitValue)
	if !ok {
		s.deleteOffset(k.Group, tp)
		for _, pid := range s.openTxns(k.Group) {
			delete(s.pendingTxn[pid][k.Group], tp)
		}
		return
	}
	if s.loaded && s.classic[k.Group] == nil && s.consumer[k.Group] == nil {
		// A loaded shard learning an offset of a group it does not know:
		// Kafka's replay makes it a simple group (during a load, Loaded
		// does).
		s.classic[k.Group] = &classicEntry{g: classic.New(k.Group, s.cfg.Classic, v.CommitTimestamp), written: 0, hosts: map[string]string{}}
	}
	c := committed{Offset: v.Offset, LeaderEpoch: v.LeaderEpoch, Metadata: v.Metadata,
		CommitTimestamp: v.CommitTimestamp, ExpireTimestamp: v.ExpireTimestamp, RecordOffset: offset}
	if producerID < 0 {
		s.setOffset(k.Group, tp, c)
		return
	}
	if s.pendingTxn[producerID] == nil {
		s.pendingTxn[producerID] = groupOffsets{}
	}
	if s.pendingTxn[producerID][k.Group] == nil {
		s.pendingTxn[producerID][k.Group] = map[protocol.TopicPartition]committed{}
	}
	s.pendingTxn[producerID][k.Group][tp] = c
}

// ReplayEndTxnMarker is OffsetMetadataManager.replayEndTransactionMarker:
// a COMMIT moves the producer's pending offsets into the committed ones,
// each only if it was written after the committed one it replaces (a
// plain OffsetCommit written after the transactional one wins, whatever
// the marker's order: compaction could otherwise bring the older one
// back); an ABORT drops them. It returns what changed, for the trace.
func (s *Shard) ReplayEndTxnMarker(producerID int64, committed bool) []string {
	pending := s.pendingTxn[producerID]
	if pending == nil {
		return nil
	}
	delete(s.pendingTxn, producerID)
	var out []string
	for _, group := range sortedKeys(pending) {
		for _, tp := range sortedTPs(pending[group]) {
			c := pending[group][tp]
			switch {
			case !committed:
				out = append(out, fmt.Sprintf("group %s: %s/%d=%d aborted", group, tp.Topic, tp.Partition, c.Offset))
			case s.newerCommitted(group, tp, c.RecordOffset):
				out = append(out, fmt.Sprintf("group %s: %s/%d=%d skipped (a later commit is in place)", group, tp.Topic, tp.Partition, c.Offset))
			default:
				s.setOffset(group, tp, c)
				out = append(out, fmt.Sprintf("group %s: %s/%d=%d committed", group, tp.Topic, tp.Partition, c.Offset))
			}
		}
	}
	return out
}

func (s *Shard) newerCommitted(group string, tp protocol.TopicPartition, recordOffset int64) bool {
	cur, ok := s.offsets[group][tp]
	return ok && cur.RecordOffset >= recordOffset
}

// hasPendingTxnOffsets is OffsetMetadataManager.hasPendingTransactionalOffsets.
func (s *Shard) hasPendingTxnOffsets(group string, tp protocol.TopicPartition) bool {
	for _, pid := range s.openTxns(group) {
		if _, ok := s.pendingTxn[pid][group][tp]; ok {
			return true
		}
	}
	return false
}

// openTxns is openTransactionsByGroup: the producers with pending
// offsets in the group, in id order.
func (s *Shard) openTxns(group string) []int64 {
	var out []int64
	for pid, g := range s.pendingTxn {
		if len(g[group]) > 0 {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}

// PendingTxnOffsets lists a group's pending transactional offsets, by
// producer id then partition, for the lab and tests.
func (s *Shard) PendingTxnOffsets(group string) []PendingOffset {
	var out []PendingOffset
	for _, pid := range s.openTxns(group) {
		g := s.pendingTxn[pid][group]
		for _, tp := range sortedTPs(g) {
			out = append(out, PendingOffset{ProducerID: pid, TP: tp, Offset: g[tp].Offset})
		}
	}
	return out
}

// PendingOffset is one pending transactional offset.
type PendingOffset struct {
	ProducerID int64
	TP         protocol.TopicPartition
	Offset     int64
}

func (s *Shard) deleteOffset(group string, tp protocol.TopicPartition) {
	if s.offsets[group] == nil {
		return
	}
	delete(s.offsets[group], tp)
	if len(s.offsets[group]) == 0 {
		delete(s.offsets, group)
	}
}
