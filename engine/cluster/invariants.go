package cluster

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
)

// Violation is a broken invariant: which, where, when.
type Violation struct {
	At        time.Duration
	Step      int // events run since the cluster started
	Invariant string
	Detail    string
}

func (v Violation) String() string {
	return fmt.Sprintf("[%v, step %d] %s: %s", v.At, v.Step, v.Invariant, v.Detail)
}

// Checker watches the safety invariants replication must keep (liveness.go
// has the liveness properties, which Stabilize checks):
//
//   - one leader per partition and leader epoch;
//   - a leader's high watermark never decreases within its epoch;
//   - the high watermark is at most the log end of every live ISR member;
//   - live ISR members hold the leader's batches, byte for byte, below it;
//   - every log's offsets are dense and increasing, the metadata log's
//     too, and the active controller has applied all of it: a controller
//     failover neither loses nor repeats a decision;
//   - no record acknowledged with acks=all is lost while fewer than
//     min.insync.replicas of its replicas lost their disks (plain crashes
//     keep the disk) and no unclean election happened: an acknowledged
//     record is on every ISR member, at least min.insync.replicas of them,
//     and the checker does not know how many more; records
//     acknowledged with acks=1 are checked too, and their loss reported
//     as "acks=1-loss", which is not a bug but the lesson;
//   - the consumer groups' invariants (invariants_groups.go): one owner
//     per partition, committed offsets never going back;
//   - the producers' and transactions' invariants (invariants_txn.go): no
//     duplicate or reordered idempotent batch, no write from a fenced
//     producer, all-or-nothing transactions, read_committed isolation.
type Checker struct {
	c          *Cluster
	EveryStep  bool
	leaders    map[string]int32 // "topic/p@epoch" -> leader
	hws        map[string]int64 // "topic/p@epoch" -> last HW seen
	agreed     map[string]int64 // "topic/p@epoch b<id>" -> verified below
	verified   map[string]int   // "topic/p@epoch" -> acked records verified
	dense      map[string]int64 // "topic/p b<id>" -> offset checked from next
	denseEnd   map[string]int64 // "topic/p b<id>" -> log end offset + 1 at the last check
	seen       map[string]bool  // violations already reported
	violations []Violation
	// powerLost marks, per partition and replica ("topic/p b<id>"), the
	// broker incarnation that lost its unsynced writes in a power cut; the
	// mark goes when a later incarnation is back in the leader's ISR with
	// everything below the high watermark: then the replica is whole again.
	powerLost map[string]*broker.Broker
	// excused holds acknowledged records (indexes into Cluster.acked) lost
	// while more replicas had lost their disks than acks=all covers: the
	// loss stays excused when a later leader epoch verifies them again,
	// after the power-loss marks are gone.
	excused  map[int]bool
	unclean  map[protocol.TopicPartition]bool
	metaRead int64 // metadata records scanned for unclean elections
	// quorumLeaders is who led each KRaft epoch (invariants_quorum.go).
	quorumLeaders map[int32]int
	steps         int
	groups        *groupWatch // the consumer groups' invariants (invariants_groups.go)
	txns          *txnWatch   // the producers' and transactions' invariants (invariants_txn.go)
}

func newChecker(c *Cluster) *Checker {
	return &Checker{c: c, leaders: map[string]int32{}, hws: map[string]int64{}, agreed: map[string]int64{},
		verified: map[string]int{}, dense: map[string]int64{}, denseEnd: map[string]int64{}, seen: map[string]bool{}, powerLost: map[string]*broker.Broker{}, excused: map[int]bool{}, unclean: map[protocol.TopicPartition]bool{}}
}

// Checker returns the cluster's invariant checker.
func (c *Cluster) Checker() *Checker { return c.checker }

func (k *Checker) afterStep() {
	k.steps++
	if k.EveryStep {
		k.Check()
	}
}

// Violations lists every violation found so far, in order.
func (k *Checker) Violations() []Violation { return k.violations }

func (k *Checker) report(invariant, detail string) {
	key := invariant + detail
	if k.seen[key] {
		return
	}
	k.seen[key] = true
	k.violations = append(k.violations, Violation{At: k.c.clock.Elapsed(), Step: k.steps, Invariant: invariant, Detail: detail})
}

// Check runs every invariant now and returns the violations it found.
func (k *Checker) Check() []Violation {
	before := len(k.violations)
	k.noteUncleanElections()
	if k.c.controller == nil {
		return nil
	}
	if img, end := k.c.controller.Image(), k.c.activeLogEnd(); k.c.activeID != 0 && img.Offset != end-1 {
		k.report("controller-image", fmt.Sprintf("the controller's image is at metadata offset %d, its log ends at %d", img.Offset, end-1))
	}
	k.checkQuorum()
	for _, t := range k.c.controller.Image().Topics {
		for i := range t.Partitions {
			tp := protocol.TopicPartition{Topic: t.Name, Partition: int32(i)}
			k.checkPartition(tp, t.Config("min.insync.replicas", "1"))
		}
	}
	k.checkGroups()
	k.scanProducers()
	return k.violations[before:]
}

func (k *Checker) noteUncleanElections() {
	if k.metaRead < k.c.meta.first {
		k.metaRead = k.c.meta.first // committed before this cluster started
	}
	for _, r := range k.c.meta.Read(k.metaRead) {
		if r.Offset != k.metaRead {
			k.report("metadata-offsets", fmt.Sprintf("metadata record %s at offset %d, expected offset %d", r.Type, r.Offset, k.metaRead))
		}
		k.metaRead = r.Offset + 1
		if r.Unclean {
			k.unclean[protocol.TopicPartition{Topic: r.Topic, Partition: r.Partition}] = true
		}
	}
}

func name(tp protocol.TopicPartition) string { return tp.Topic + "/" + strconv.Itoa(int(tp.Partition)) }

func (k *Checker) checkPartition(tp protocol.TopicPartition, minISR string) {
	var leader *broker.Replica
	var leaderID int32
	for _, b := range k.c.brokers {
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
	if p := k.c.controller.Image().Partition(tp.Topic, tp.Partition); p != nil && p.LeaderEpoch > leader.LeaderEpoch {
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
	same, err := sameBatchesBelow(leader, f, from, leader.HW, leaderValid)
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

// sameBatchesBelow compares, batch by batch, the raw batches of two
// replicas holding offsets [from, hw). It fails when either holds a batch
// that does not decode (record.Validate) or cannot be read. Batches are
// compared rather than reads: a read returns whole batches but only from
// one segment, and replicas roll their segments independently (segment.ms,
// or retention rolling an expired active segment, as in Kafka's
// UnifiedLog.deleteOldSegments), so the same batches come in differently
// cut reads on two replicas: comparing reads instead of batches reported
// identical logs as different (VOPR seeds 5 and 108).
//
// Both are read one batch at a time, to their ends even once they differ
// (an unreadable batch further on still means no verdict). A follower's
// batch equal to the leader's is as valid as the leader's, and aValid
// knows the leader's batches validated for another follower: each
// batch is parsed once, not copied and decoded once per replica and per
// follower, which after a large produce was a fifth of the command's time.
func sameBatchesBelow(a, b *broker.Replica, from, hw int64, aValid *leaderWalk) (bool, error) {
	ra, rb := a.Log.RawBatches(from, hw), b.Log.RawBatches(from, hw)
	aValid.start(from)
	same := true
	for {
		x, err := ra.Next()
		if err != nil {
			return false, err
		}
		if x != nil {
			if err := aValid.validate(x); err != nil {
				return false, err
			}
		}
		y, err := rb.Next()
		if err != nil {
			return false, err
		}
		if x == nil && y == nil {
			return same, nil
		}
		switch {
		case y == nil:
			same = false // b's walk ended while a still has batches
		case x == nil || !bytes.Equal(x, y):
			same = false
			if err := record.Validate(y); err != nil {
				return false, err
			}
		}
	}
}

// leaderWalk remembers how many batches of the leader's walk from an
// offset were found valid: a second follower compared from the same
// offset reads the same batches (nothing runs during a check).
type leaderWalk struct {
	from  int64
	valid int // batches from from on found valid
	at    int // batches of the current walk read so far
	set   bool
}

// start begins a walk from from, forgetting what an earlier walk from
// another offset found.
func (w *leaderWalk) start(from int64) {
	if !w.set || w.from != from {
		w.from, w.valid, w.set = from, 0, true
	}
	w.at = 0
}

// validate validates the walk's next batch unless an earlier walk from
// the same offset found it valid.
func (w *leaderWalk) validate(raw []byte) error {
	w.at++
	if w.at <= w.valid {
		return nil
	}
	if err := record.Validate(raw); err != nil {
		return err
	}
	w.valid = w.at
	return nil
}

// checkAcked verifies acknowledged records are still on the leader.
func (k *Checker) checkAcked(tp protocol.TopicPartition, leader *broker.Replica, leaderID int32, minISR int) {
	key := epochKey(tp, leader.LeaderEpoch)
	done := k.verified[key]
	acked := k.c.acked
	// Acknowledged records come mostly in offset order: each batch of the
	// leader's log is decoded once for all the records it holds.
	var held leaderBatch
	var newest map[string]int64 // compacted logs: each key's newest offset on the leader, read once when needed
	for ; done < len(acked); done++ {
		a := acked[done]
		if a.TP != tp || a.Offset < leader.Log.StartOffset() || k.excused[done] {
			continue
		}
		lost := a.Offset >= leader.Log.EndOffset()
		if !lost {
			v, found := held.value(leader.Log, a.Offset)
			lost = !found || !bytes.Equal(v, a.Value)
		}
		if lost && a.Offset < leader.Log.EndOffset() && leader.Log.Config().Compact() {
			if newest == nil {
				newest = newestByKey(leader.Log, tp, acked)
			}
			lost = !k.c.compactedAway(a, newest)
		}
		if !lost {
			continue
		}
		detail := fmt.Sprintf("%s offset %d (%q, acknowledged at %v) is gone from leader %d", name(tp), a.Offset, a.Value, a.At, leaderID)
		switch {
		case a.Acks != -1:
			k.report("acks=1-loss", detail)
		case k.unclean[tp]:
			k.report("unclean-election-loss", detail)
		case k.diskLosses(tp) >= max(minISR, 1):
			// As many replicas lost their disks as acks=all promised copies:
			// the ISR may have shrunk to min.insync.replicas before the
			// acknowledgement, and each copy may be among those lost.
			k.excused[done] = true
		default:
			k.report("acked-record-lost", detail)
		}
	}
	k.verified[key] = done
}

// leaderBatch holds the leader's data batch checkAcked last decoded.
type leaderBatch struct {
	b  record.Batch
	ok bool
}

// value is the value of the record at offset off in l (found false: no
// record there, compacted away, a marker, or unreadable).
func (h *leaderBatch) value(l *log.Log, off int64) ([]byte, bool) {
	if !h.ok || off < h.b.BaseOffset || off > h.b.LastOffset() {
		h.ok = false
		_ = l.EachBatch(off, l.EndOffset(), func(b *record.Batch) bool {
			if b.IsControl() {
				return true // markers hold no acknowledged record
			}
			h.b, h.ok = *b, true
			return false
		})
		if !h.ok {
			return nil, false
		}
	}
	rs, delta := h.b.Records, off-h.b.BaseOffset
	// A batch no cleaner has thinned holds its records at their offset
	// deltas: the record is looked at directly, without a binary search
	// per acknowledged record (in WASM, a tenth of checking a produce).
	// The deltas only increase, so this is the record the search finds.
	if delta >= 0 && delta < int64(len(rs)) && int64(rs[delta].OffsetDelta) == delta {
		return rs[delta].Value, true
	}
	i, found := slices.BinarySearchFunc(rs, delta, func(r record.Record, delta int64) int {
		return cmp.Compare(int64(r.OffsetDelta), delta)
	})
	if !found {
		return nil, false
	}
	return rs[i].Value, true
}

// newestByKey maps each key of a partition to the newest offset written
// with it: in the replica's log, or acknowledged (a tombstone the cleaner
// has since removed, with every older record of its key, still counts).
func newestByKey(l *log.Log, tp protocol.TopicPartition, acked []AckedRecord) map[string]int64 {
	recs, _ := l.Records(l.StartOffset(), 0)
	m := make(map[string]int64, len(recs))
	for _, rec := range recs {
		m[string(rec.Key)] = rec.Offset
	}
	for _, a := range acked {
		if a.TP == tp && a.Offset > m[string(a.Key)] {
			m[string(a.Key)] = a.Offset
		}
	}
	return m
}

// compactedAway reports whether an acknowledged record missing from a
// compacted log was the cleaner's doing rather than a loss: compaction
// keeps only each key's newest record, and drops a tombstone after
// delete.retention.ms. A produce of the key that failed after this one
// was acknowledged may have been written after it too. The checker and
// the view both ask, so the page never draws as lost what the checker
// calls compaction. The cleaner also removes aborted transactions'
// records (invariants_txn.go).
func (c *Cluster) compactedAway(a AckedRecord, newest map[string]int64) bool {
	return a.Value == nil || newest[string(a.Key)] > a.Offset || c.failedAfter(a) || c.checker.abortedTxnRecord(a.TP, a.Offset)
}

// failedAfter reports whether a produce of a's key to a's partition
// failed after a was acknowledged.
func (c *Cluster) failedAfter(a AckedRecord) bool {
	for _, f := range c.failed {
		if f.TP == a.TP && f.At >= a.At && bytes.Equal(f.Key, a.Key) {
			return true
		}
	}
	return false
}

func (k *Checker) replicasOf(tp protocol.TopicPartition) []int32 {
	p := k.c.controller.Image().Partition(tp.Topic, tp.Partition)
	if p == nil {
		return nil
	}
	return p.Replicas
}

// diskLosses counts the replicas of tp that lost writes in a power cut
// and have not been whole again since.
func (k *Checker) diskLosses(tp protocol.TopicPartition) int {
	n := 0
	for _, id := range k.replicasOf(tp) {
		if _, ok := k.powerLost[replicaKey(tp, id)]; ok {
			n++
		}
	}
	return n
}

// Steps counts the events run since the cluster started.
func (k *Checker) Steps() int { return k.steps }

// epochKey is "topic/p@epoch". The checker runs after every event, so
// its keys are concatenated rather than formatted: fmt.Sprintf and Sscan
// here were a third of a VOPR run's time.
func epochKey(tp protocol.TopicPartition, epoch int32) string {
	return name(tp) + "@" + strconv.Itoa(int(epoch))
}

// powerLostOn is the power-loss mark of tp's replica on broker id; no
// key is built while no broker is marked, the common case.
func (k *Checker) powerLostOn(tp protocol.TopicPartition, id int32) (*broker.Broker, bool) {
	if len(k.powerLost) == 0 {
		return nil, false
	}
	b, ok := k.powerLost[replicaKey(tp, id)]
	return b, ok
}

func replicaKey(tp protocol.TopicPartition, id int32) string {
	return name(tp) + " b" + strconv.Itoa(int(id))
}

// lostPower marks every partition broker b hosts as missing its unsynced
// writes on b (see powerLost).
func (k *Checker) lostPower(b *broker.Broker) {
	for _, r := range b.Replicas() {
		k.powerLost[replicaKey(r.TP, b.ID)] = b
	}
}

// activeLogEnd is where the active controller's metadata log ends: it
// applied every record it wrote, committed or not (Kafka's active
// controller replays its own writes at once).
func (c *Cluster) activeLogEnd() int64 {
	if v := c.voter(c.activeID); v != nil && c.remote == nil {
		return v.node.Log().EndOffset()
	}
	return c.meta.End()
}
