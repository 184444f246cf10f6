package check

import (
	"fmt"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
)

// committed-offset-monotonic as the log tells it: each group's committed
// offsets and membership, read from __consumer_offsets below the high
// watermark (transactional commits once their marker is), and the
// decreases it excuses.

// offsetExcused reports, for a group, which partitions may have gone
// back: every one while the group has no members (an admin may reset
// it), those a member seeked back, or those an unclean election truncated.
func (k *Checker) offsetExcused(w *groupWatch, group string) func(protocol.TopicPartition) bool {
	empty := w.empty(group)
	return func(tp protocol.TopicPartition) bool { return empty || k.unclean[tp] || w.seeks[group][tp] }
}

// scanCommittedOffsets reads what each __consumer_offsets partition's
// leader committed since the last scan (below its high watermark) and
// checks each group's committed offsets only move forward.
func (k *Checker) scanCommittedOffsets(w *groupWatch) {
	t := k.c.MetadataImage().Topic(broker.OffsetsTopic)
	if t == nil {
		return
	}
	for i := range t.Partitions {
		p := int32(i)
		r := k.c.LeaderReplica(protocol.TopicPartition{Topic: broker.OffsetsTopic, Partition: p})
		if r == nil {
			continue
		}
		from := max(w.scanned[p], r.Log.StartOffset())
		if from >= r.HW {
			continue
		}
		_ = r.Log.EachBatch(from, r.HW, func(b *record.Batch) bool {
			for _, v := range w.applyBatch(b, k.unclean) {
				k.report(CommittedOffsetMonotonic, v)
			}
			w.scanned[p] = b.NextOffset()
			return true
		})
		w.scanned[p] = max(w.scanned[p], r.HW)
	}
}

// applyBatch folds one committed __consumer_offsets batch into the watch.
// A transaction's offset commits (a transactional batch) count only once
// their producer's COMMIT marker is committed, and then only where no
// commit written later in the log has been applied already (Kafka's
// replayEndTransactionMarker); an ABORT drops them.
func (w *groupWatch) applyBatch(b *record.Batch, unclean map[protocol.TopicPartition]bool) []string {
	if b.IsControl() {
		pending := w.pendingTxn[b.ProducerID]
		delete(w.pendingTxn, b.ProducerID)
		if len(b.Records) == 0 {
			return nil
		}
		if m, err := record.ParseControlRecord(b.Records[0]); err != nil || m.Type != record.Commit {
			return nil
		}
		var out []string
		for _, pc := range pending {
			if key, ok := pc.d.Key.(*offsets.OffsetCommitKey); ok {
				tp := protocol.TopicPartition{Topic: key.Topic, Partition: key.Partition}
				if at, seen := w.committedAt[key.Group][tp]; seen && at > pc.at {
					continue // a later plain commit already decided this partition
				}
			}
			out = append(out, w.apply(pc.d, pc.at, unclean)...)
		}
		return out
	}
	var out []string
	for _, rec := range b.Records {
		d, err := offsets.Decode(rec.Key, rec.Value)
		if err != nil {
			continue
		}
		at := b.Offset(rec)
		if b.IsTransactional() {
			w.pendingTxn[b.ProducerID] = append(w.pendingTxn[b.ProducerID], pendingCommit{d: d, at: at})
			continue
		}
		out = append(out, w.apply(d, at, unclean)...)
	}
	return out
}

// pendingCommit is a transactional offset commit waiting for its marker.
type pendingCommit struct {
	d  offsets.Record
	at int64
}

// apply folds one committed __consumer_offsets record (at log offset at)
// into the watch and returns the violations it shows.
func (w *groupWatch) apply(d offsets.Record, at int64, unclean map[protocol.TopicPartition]bool) []string {
	switch key := d.Key.(type) {
	case *offsets.OffsetCommitKey:
		tp := protocol.TopicPartition{Topic: key.Topic, Partition: key.Partition}
		if d.Value == nil {
			delete(w.committed[key.Group], tp) // expired or deleted: the next commit starts afresh
			return nil
		}
		v, ok := d.Value.(*offsets.OffsetCommitValue)
		if !ok {
			return nil
		}
		if w.committed[key.Group] == nil {
			w.committed[key.Group] = map[protocol.TopicPartition]int64{}
		}
		if w.committedAt[key.Group] == nil {
			w.committedAt[key.Group] = map[protocol.TopicPartition]int64{}
		}
		prev, seen := w.committed[key.Group][tp]
		w.committed[key.Group][tp] = v.Offset
		w.committedAt[key.Group][tp] = at
		if seen && v.Offset < prev && w.seeks[key.Group][tp] {
			delete(w.seeks[key.Group], tp)
			return nil
		}
		if seen && v.Offset < prev && !w.empty(key.Group) && !unclean[tp] {
			return []string{fmt.Sprintf("group %s's committed offset of %s went back from %d to %d (__consumer_offsets record at offset %d)",
				key.Group, name(tp), prev, v.Offset, at)}
		}
	case *offsets.GroupMetadataKey:
		if v, ok := d.Value.(*offsets.GroupMetadataValue); ok {
			w.classicMembers[key.Group] = len(v.Members)
		} else {
			delete(w.classicMembers, key.Group) // the group was deleted
		}
	case *offsets.ConsumerGroupMetadataKey:
		if d.Value == nil {
			delete(w.consumerMembers, key.GroupID)
		}
	case *offsets.MemberKey:
		if key.RecordType != offsets.TypeConsumerGroupMemberMetadata {
			break
		}
		if d.Value == nil {
			delete(w.consumerMembers[key.GroupID], key.MemberID)
			break
		}
		if w.consumerMembers[key.GroupID] == nil {
			w.consumerMembers[key.GroupID] = map[string]bool{}
		}
		w.consumerMembers[key.GroupID][key.MemberID] = true
	}
	return nil
}

// empty reports whether group has no members in the committed log: the
// coordinator then accepts offsets committed from outside the group, as
// an admin's reset does (Kafka allows --reset-offsets only then).
func (w *groupWatch) empty(group string) bool {
	return w.classicMembers[group] == 0 && len(w.consumerMembers[group]) == 0
}
