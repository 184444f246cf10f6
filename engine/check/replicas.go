package check

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
)

// The replicas' invariants, partition by partition: one leader per
// epoch, a high watermark that never goes back in an epoch and never
// passes an ISR member's log end, dense offsets, and followers agreeing
// with their leader below the high watermark (agreement.go compares the
// batches). acked.go checks the acknowledged records on the leader.

func (k *Checker) checkPartition(tp protocol.TopicPartition, minISR string) {
	var leader *broker.Replica
	var leaderID int32
	for _, b := range k.c.Brokers() {
		if !b.Alive() {
			continue
		}
		r := b.Replica(tp)
		if r == nil {
			continue
		}
		k.checkDense(tp, b.ID, r)
		if !r.IsLeader() {
			continue
		}
		key := epochKey(tp, r.LeaderEpoch)
		if other, ok := k.leaders[key]; ok && other != b.ID {
			k.report("one-leader-per-epoch", fmt.Sprintf("%s has two leaders in epoch %d: brokers %d and %d", name(tp), r.LeaderEpoch, other, b.ID))
		}
		k.leaders[key] = b.ID
		if hw, ok := k.hws[key]; ok && r.HW < hw {
			k.report("hw-monotonic", fmt.Sprintf("%s leader %d lowered its high watermark from %d to %d in epoch %d", name(tp), b.ID, hw, r.HW, r.LeaderEpoch))
		}
		k.hws[key] = max(k.hws[key], r.HW)
		// A deposed leader that has not heard yet still thinks it leads,
		// in an older epoch: the leader is the one in the newest epoch.
		if leader == nil || r.LeaderEpoch > leader.LeaderEpoch {
			leader, leaderID = r, b.ID
		}
	}
	if leader == nil {
		return
	}
	// Every live "leader" may be deposed: one cut off from the controllers
	// still leads an older epoch while the metadata moved the leadership
	// to a broker that has crashed since. Its log is no measure of what
	// the ISR holds: wait for the leader the metadata names.
	if p := k.c.MetadataImage().Partition(tp.Topic, tp.Partition); p != nil && p.LeaderEpoch > leader.LeaderEpoch {
		return
	}
	// Replicas whole again lose their power-loss mark only after the
	// acknowledged records are checked: a check that first runs when every
	// replica has caught up with a leader that lost the records too must
	// still count the disks that lost them.
	var whole []string
	var leaderValid leaderWalk // the leader's batches found valid, shared by its followers' comparisons
	for _, id := range leader.ISR {
		if id == leaderID {
			continue
		}
		b := k.c.Broker(int(id))
		if b == nil || !b.Alive() {
			continue
		}
		f := b.Replica(tp)
		if f == nil {
			continue
		}
		if lost, ok := k.powerLostOn(tp, id); ok && lost != b && f.Log.EndOffset() >= leader.HW {
			whole = append(whole, replicaKey(tp, id))
		}
		if leader.HW > f.Log.EndOffset() {
			k.report("hw-within-isr", fmt.Sprintf("%s high watermark %d is past ISR member %d's log end %d", name(tp), leader.HW, id, f.Log.EndOffset()))
			continue
		}
		k.checkAgreement(tp, leader, f, id, &leaderValid)
	}
	mi, _ := strconv.Atoi(minISR)
	k.checkAcked(tp, leader, leaderID, mi)
	for _, key := range whole {
		delete(k.powerLost, key)
	}
}

// checkDense verifies a replica's batches follow each other offset by
// offset (a compacted log may have gaps inside batches, not between them).
// Only what was appended since the last check is read.
func (k *Checker) checkDense(tp protocol.TopicPartition, id int32, r *broker.Replica) {
	if r.Log.Config().Compact() {
		return
	}
	key := replicaKey(tp, id)
	if k.denseEnd[key] == r.Log.EndOffset()+1 {
		return // nothing appended or truncated since the last check (stored +1: 0 means never)
	}
	k.denseEnd[key] = r.Log.EndOffset() + 1
	from, ok := k.dense[key]
	if !ok || from > r.Log.EndOffset() || from < r.Log.StartOffset() {
		from = r.Log.StartOffset() // new, truncated or trimmed: check it all
	}
	if from >= r.Log.EndOffset() {
		k.dense[key] = from
		return
	}
	bs, err := r.Log.BatchesFrom(from)
	if err != nil {
		k.report("dense-offsets", fmt.Sprintf("%s on broker %d: %v", name(tp), id, err))
		return
	}
	next := int64(-1)
	for _, b := range bs {
		if next >= 0 && b.Header.BaseOffset != next {
			k.report("dense-offsets", fmt.Sprintf("%s on broker %d: batch at offset %d follows one ending at %d", name(tp), id, b.Header.BaseOffset, next-1))
		}
		next = b.Header.LastOffset() + 1
	}
	// Resume at the last batch's start next time, so its successor is
	// checked against it.
	if len(bs) > 0 {
		k.dense[key] = bs[len(bs)-1].Header.BaseOffset
	}
}

// checkAgreement compares the follower's batches with the leader's below
// the high watermark.
func (k *Checker) checkAgreement(tp protocol.TopicPartition, leader, f *broker.Replica, id int32, leaderValid *leaderWalk) {
	key := epochKey(tp, leader.LeaderEpoch) + " b" + strconv.Itoa(int(id))
	from := max(k.agreed[key], leader.Log.StartOffset(), f.Log.StartOffset())
	if from >= leader.HW {
		return
	}
	if leader.Log.Config().Compact() {
		k.checkCompactedAgreement(tp, leader, f, id, from, key)
		return
	}
	same, err := sameBatchesBelow(leader.Log, f.Log, from, leader.HW, leaderValid)
	if err != nil {
		return
	}
	if !same {
		k.report("replicas-agree", fmt.Sprintf("%s: broker %d's batches below the high watermark %d differ from leader's", name(tp), id, leader.HW))
		return
	}
	k.agreed[key] = leader.HW
}

// checkCompactedAgreement compares a compacted log's records below the
// high watermark offset by offset: each replica's cleaner runs on its own
// schedule (as in Kafka), so their batches differ, but a record both
// still hold must be the same record.
func (k *Checker) checkCompactedAgreement(tp protocol.TopicPartition, leader, f *broker.Replica, id int32, from int64, key string) {
	lr, err1 := recordsBelow(leader, from, leader.HW)
	fr, err2 := recordsBelow(f, from, leader.HW)
	if err1 != nil || err2 != nil {
		return
	}
	i := 0
	for _, r := range fr {
		for i < len(lr) && lr[i].Offset < r.Offset {
			i++
		}
		if i < len(lr) && lr[i].Offset == r.Offset && (!bytes.Equal(lr[i].Key, r.Key) || !bytes.Equal(lr[i].Value, r.Value)) {
			k.report("replicas-agree", fmt.Sprintf("%s: broker %d's record at offset %d below the high watermark %d differs from leader's", name(tp), id, r.Offset, leader.HW))
			return
		}
	}
	k.agreed[key] = leader.HW
}

func recordsBelow(r *broker.Replica, from, hw int64) ([]log.RecordAt, error) {
	recs, err := r.Log.Records(from, 0)
	i, _ := slices.BinarySearchFunc(recs, hw, func(r log.RecordAt, off int64) int { return cmp.Compare(r.Offset, off) })
	return recs[:i], err
}
