package check

import (
	"fmt"
	"strconv"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/protocol"
)

// The checker: what it remembers between checks, the order Check runs
// the invariants in (replicas.go, acked.go, quorum.go, groups.go,
// txn.go), and the violations it reports, each once.

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
//   - the consumer groups' invariants (groups.go): one owner
//     per partition, committed offsets never going back;
//   - the producers' and transactions' invariants (txn.go): no
//     duplicate or reordered idempotent batch, no write from a fenced
//     producer, all-or-nothing transactions, read_committed isolation.
type Checker struct {
	c          Cluster
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
	// excused holds acknowledged records (indexes into Cluster.AckedRecords) lost
	// while more replicas had lost their disks than acks=all covers: the
	// loss stays excused when a later leader epoch verifies them again,
	// after the power-loss marks are gone.
	excused  map[int]bool
	unclean  map[protocol.TopicPartition]bool
	metaRead int64 // metadata records scanned for unclean elections
	// quorumLeaders is who led each KRaft epoch (quorum.go).
	quorumLeaders map[int32]int
	steps         int
	groups        *groupWatch // the consumer groups' invariants (groups.go)
	txns          *txnWatch   // the producers' and transactions' invariants (txn.go)
}

// New is a checker of cluster c, which calls it.
func New(c Cluster) *Checker {
	return &Checker{c: c, leaders: map[string]int32{}, hws: map[string]int64{}, agreed: map[string]int64{},
		verified: map[string]int{}, dense: map[string]int64{}, denseEnd: map[string]int64{}, seen: map[string]bool{}, powerLost: map[string]*broker.Broker{}, excused: map[int]bool{}, unclean: map[protocol.TopicPartition]bool{}}
}

// AfterEvent counts an event the cluster ran, and checks every invariant
// after it when EveryStep is set.
func (k *Checker) AfterEvent() {
	k.steps++
	if k.EveryStep {
		k.Check()
	}
}

// Report records a violation of invariant the cluster found itself (a
// liveness property Stabilize checks), once per invariant and detail.
func (k *Checker) Report(invariant, detail string) { k.report(invariant, detail) }

// UncleanElected reports whether tp has had an unclean election since
// the cluster started: its log no longer tells who wrote what.
func (k *Checker) UncleanElected(tp protocol.TopicPartition) bool {
	k.noteUncleanElections()
	return k.unclean[tp]
}

// Violations lists every violation found so far, in order.
func (k *Checker) Violations() []Violation { return k.violations }

func (k *Checker) report(invariant, detail string) {
	key := invariant + detail
	if k.seen[key] {
		return
	}
	k.seen[key] = true
	k.violations = append(k.violations, Violation{At: k.c.Elapsed(), Step: k.steps, Invariant: invariant, Detail: detail})
}

// Check runs every invariant now and returns the violations it found.
func (k *Checker) Check() []Violation {
	before := len(k.violations)
	k.noteUncleanElections()
	if k.c.MetadataImage() == nil {
		return nil
	}
	if img, end := k.c.MetadataImage(), k.c.ActiveLogEnd(); k.c.ActiveController() != 0 && img.Offset != end-1 {
		k.report("controller-image", fmt.Sprintf("the controller's image is at metadata offset %d, its log ends at %d", img.Offset, end-1))
	}
	k.checkQuorum()
	for _, t := range k.c.MetadataImage().Topics {
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
	m := k.c.CommittedMetadata()
	if k.metaRead < m.First {
		k.metaRead = m.First // committed before this cluster started
	}
	for _, r := range m.From(k.metaRead) {
		if r.Offset != k.metaRead {
			k.report("metadata-offsets", fmt.Sprintf("metadata record %s at offset %d, expected offset %d", r.Type, r.Offset, k.metaRead))
		}
		k.metaRead = r.Offset + 1
		if r.Unclean {
			k.unclean[protocol.TopicPartition{Topic: r.Topic, Partition: r.Partition}] = true
		}
	}
}

// name is a partition as the violations write it: "topic/p".
func name(tp protocol.TopicPartition) string { return tp.Topic + "/" + strconv.Itoa(int(tp.Partition)) }

// Steps counts the events run since the cluster started.
func (k *Checker) Steps() int { return k.steps }

// epochKey is "topic/p@epoch". The checker runs after every event, so
// its keys are concatenated rather than formatted: fmt.Sprintf and Sscan
// here were a third of a VOPR run's time.
func epochKey(tp protocol.TopicPartition, epoch int32) string {
	return name(tp) + "@" + strconv.Itoa(int(epoch))
}

// replicaKey is "topic/p b<id>", concatenated as epochKey is.
func replicaKey(tp protocol.TopicPartition, id int32) string {
	return name(tp) + " b" + strconv.Itoa(int(id))
}
