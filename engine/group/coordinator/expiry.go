package coordinator

import (
	"fmt"

	"github.com/loglab/loglab/engine/group/classic"
	"github.com/loglab/loglab/engine/group/consumer"
	"github.com/loglab/loglab/engine/group/offsets"
)

// ExpireOffsets is GroupMetadataManager.cleanupGroupMetadata, run every
// offsets.retention.check.interval.ms: offsets of a group without
// members are deleted (tombstones) offsets.retention.minutes after the
// group became Empty (a classic consumer group, Kafka's
// currentStateTimestamp) or after their commit (a simple group, a
// KIP-848 group); a group left with no members and no offsets is deleted.
// A group with members keeps its offsets (see the package doc). As
// OffsetMetadataManager.cleanupExpiredOffsets, an offset with a pending
// transactional offset for its partition is kept, and a group with an
// open transaction is not deleted: the transaction's COMMIT would
// otherwise bring offsets back into a group that no longer exists.
func (s *Shard) ExpireOffsets(now int64) Result {
	var out Result
	ids := sortedKeys(s.classic)
	for _, id := range sortedKeys(s.consumer) {
		ids = append(ids, id)
	}
	sortStrings(ids)
	for _, id := range ids {
		base, empty := s.expiryBase(id)
		if !empty {
			continue
		}
		n := 0
		for _, tp := range sortedTPs(s.offsets[id]) {
			c := s.offsets[id][tp]
			expired := now-base(c) >= s.cfg.OffsetsRetentionMs
			if c.ExpireTimestamp >= 0 {
				expired = now >= c.ExpireTimestamp
			}
			if expired && !s.hasPendingTxnOffsets(id, tp) {
				delete(s.offsets[id], tp)
				out.Records = append(out.Records, tombstone(&offsets.OffsetCommitKey{Group: id, Topic: tp.Topic, Partition: tp.Partition}))
				n++
			}
		}
		if n > 0 {
			out.Events = append(out.Events, fmt.Sprintf("group %s: removed %d expired offsets", id, n))
		}
		if len(s.offsets[id]) > 0 || len(s.openTxns(id)) > 0 {
			continue
		}
		delete(s.offsets, id)
		out.Records = append(out.Records, s.deleteGroup(now, id)...)
		out.Events = append(out.Events, fmt.Sprintf("group %s: deleted (no members, no offsets)", id))
	}
	return out
}

// expiryBase is Group.offsetExpirationCondition: when the group has no
// members, the timestamp an offset's retention counts from.
func (s *Shard) expiryBase(id string) (func(committed) int64, bool) {
	if e := s.consumer[id]; e != nil {
		return func(c committed) int64 { return c.CommitTimestamp }, e.g.State() == consumer.GroupEmpty
	}
	e := s.classic[id]
	if e == nil || e.g.State() != classic.Empty {
		return nil, false
	}
	if e.g.ProtocolType() == "" {
		return func(c committed) int64 { return c.CommitTimestamp }, true
	}
	since := e.g.StateSince()
	return func(committed) int64 { return since }, true
}

// deleteGroup removes an empty group and returns its tombstones.
func (s *Shard) deleteGroup(now int64, id string) []offsets.Record {
	if e := s.classic[id]; e != nil {
		e.g.Unload(now)
		delete(s.classic, id)
		return []offsets.Record{tombstone(groupMetadataKey(id))}
	}
	delete(s.consumer, id)
	return []offsets.Record{tombstone(&offsets.TargetAssignmentMetadataKey{GroupID: id}),
		tombstone(&offsets.ConsumerGroupMetadataKey{GroupID: id})}
}
