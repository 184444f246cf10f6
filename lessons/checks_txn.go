package lessons

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
)

// Checks for the lessons on idempotent and transactional producers (19-23).
// They read the partition leader's log batch by batch, as a fetch does, so
// that markers, aborted and open records are told apart by what the log
// holds (control batches, the .txnindex, the producer state behind the LSO),
// and the transaction coordinator's metadata as DescribeTransactions serves
// it. None reads what a command printed.
func init() {
	register("values", "values TOPIC/P PREFIX: the values of the leader's data records (markers left out; aborted and open ones included) starting with PREFIX, in offset order, comma-separated; `none` if none", txnValues)
	register("record-state", "record-state TOPIC/P OFFSET: the leader's record at OFFSET: `control` (a marker), `aborted` (the .txnindex lists it), `open` (transactional, no marker of its producer after it yet), `uncommitted` (at or above the high watermark), `committed`, or `none` outside the log", recordState)
	register("control-type", "control-type TOPIC/P OFFSET: `COMMIT` or `ABORT` if the leader's record at OFFSET is a transaction marker of that type, else `none`", controlType)
	register("txn-state", "txn-state ID: the transaction coordinator's state of transactional.id ID as kafka-transactions.sh describe prints it (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, PrepareEpochFence, Dead); `none` for an unknown id or no coordinator", txnState)
	register("txn-partitions", "txn-partitions ID: the partitions of ID's current transaction in the coordinator's metadata, T/P sorted and comma-separated; `none` when empty or unknown", txnPartitions)
	register("lso", "lso TOPIC/P: the leader's last stable offset (the first offset of the oldest undecided transaction, else the high watermark); `no leader` while none serves", lastStable)
	register("received", "received CONSUMER TOPIC/P: how many records of TOPIC/P polls handed to the application of CONSUMER's processing scope (its group, or itself without one), every process counted, markers never (no poll returns one)", received)
	register("committed-values", "committed-values TOPIC/P PREFIX: what a read_committed reader from the log start receives, restricted to values starting with PREFIX: the leader's data records below its LSO that no aborted transaction holds, in offset order, comma-separated; `none` if none", committedValues)
	register("side-effects-again", "side-effects-again CONSUMER: how many distinct input records (topic, partition, offset) the `eos` iterations of CONSUMER performed the external side effect for more than once (`show side-effects`)", sideEffectsAgain)
}

// leaderReplica is the replica leading TOPIC/P.
func leaderReplica(s State, tp string) (*broker.Replica, error) {
	topic, idx, ok := strings.Cut(tp, "/")
	n, err := strconv.Atoi(idx)
	if !ok || err != nil {
		return nil, fmt.Errorf("%q is not TOPIC/PARTITION", tp)
	}
	if err := needCluster(s); err != nil {
		return nil, err
	}
	r, _, err := s.Lab.Cluster().Replica(topic, n, 0)
	return r, err
}

// txnRecord is one record of the leader's log and what decides its fate.
type txnRecord struct {
	offset  int64
	value   []byte
	pid     int64
	control string // "COMMIT"/"ABORT" for a marker
	txn     bool   // written inside a transaction (or a marker)
	decided bool   // a marker of its producer follows it
}

// txnRecords is the whole log with each record's fate, as the view draws it.
func txnRecords(l *log.Log) ([]txnRecord, error) {
	recs, err := cluster.TxnRecords(l, l.StartOffset())
	out := make([]txnRecord, 0, len(recs))
	for _, r := range recs {
		out = append(out, txnRecord{offset: r.Offset, value: r.Value, pid: r.ProducerID, control: r.Control,
			txn: r.Txn != "" || r.Control != "", decided: r.Txn != "open"})
	}
	return out, err
}

// aborted says whether the partition's aborted-transaction index lists the
// record: Kafka's read_committed filter (collectAbortedTransactions).
func aborted(l *log.Log, r txnRecord) bool {
	if !r.txn || r.control != "" {
		return false
	}
	for _, a := range l.AbortedTxns() {
		if a.ProducerID == r.pid && a.FirstOffset <= r.offset && r.offset <= a.LastOffset {
			return true
		}
	}
	return false
}

func joinValues(vs []string) string {
	if len(vs) == 0 {
		return "none"
	}
	return strings.Join(vs, ",")
}

func tpPrefixArgs(args []string) (string, string, error) {
	if len(args) != 2 {
		return "", "", fmt.Errorf("wants TOPIC/P PREFIX")
	}
	return args[0], args[1], nil
}

func txnValues(s State, args []string) (string, error) {
	tp, prefix, err := tpPrefixArgs(args)
	if err != nil {
		return "", err
	}
	r, err := leaderReplica(s, tp)
	if err != nil {
		return "", err
	}
	recs, err := txnRecords(r.Log)
	if err != nil {
		return "", err
	}
	var vs []string
	for _, rec := range recs {
		if rec.control == "" && strings.HasPrefix(string(rec.value), prefix) {
			vs = append(vs, string(rec.value))
		}
	}
	return joinValues(vs), nil
}

func committedValues(s State, args []string) (string, error) {
	tp, prefix, err := tpPrefixArgs(args)
	if err != nil {
		return "", err
	}
	r, err := leaderReplica(s, tp)
	if err != nil {
		return "", err
	}
	recs, err := txnRecords(r.Log)
	if err != nil {
		return "", err
	}
	lso := r.LastStableOffset()
	var vs []string
	for _, rec := range recs {
		if rec.offset >= lso || rec.control != "" || aborted(r.Log, rec) {
			continue
		}
		if strings.HasPrefix(string(rec.value), prefix) {
			vs = append(vs, string(rec.value))
		}
	}
	return joinValues(vs), nil
}

// recordAt finds the record at offset in the leader's log.
func recordAt(s State, args []string) (*broker.Replica, *txnRecord, error) {
	if len(args) != 2 {
		return nil, nil, fmt.Errorf("wants TOPIC/P OFFSET")
	}
	off, err := offsetArg(args[1])
	if err != nil {
		return nil, nil, err
	}
	r, err := leaderReplica(s, args[0])
	if err != nil {
		return nil, nil, err
	}
	recs, err := txnRecords(r.Log)
	if err != nil {
		return nil, nil, err
	}
	i, found := slices.BinarySearchFunc(recs, off, func(t txnRecord, o int64) int { return int(t.offset - o) })
	if !found {
		return r, nil, nil
	}
	return r, &recs[i], nil
}

func recordState(s State, args []string) (string, error) {
	r, rec, err := recordAt(s, args)
	if err != nil || rec == nil {
		return "none", err
	}
	switch {
	case rec.control != "":
		return "control", nil
	case aborted(r.Log, *rec):
		return "aborted", nil
	case rec.txn && !rec.decided:
		return "open", nil
	case rec.offset >= r.HW:
		return "uncommitted", nil
	}
	return "committed", nil
}

func controlType(s State, args []string) (string, error) {
	_, rec, err := recordAt(s, args)
	if err != nil || rec == nil || rec.control == "" {
		return "none", err
	}
	return rec.control, nil
}

func txnState(s State, args []string) (string, error) {
	id, err := oneArg(args, "TRANSACTIONAL_ID")
	if err != nil {
		return "", err
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	d, code := s.Lab.Cluster().DescribeTransaction(id)
	if code != protocol.None {
		return "none", nil
	}
	return d.State.String(), nil
}

func txnPartitions(s State, args []string) (string, error) {
	id, err := oneArg(args, "TRANSACTIONAL_ID")
	if err != nil {
		return "", err
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	d, code := s.Lab.Cluster().DescribeTransaction(id)
	if code != protocol.None {
		return "none", nil
	}
	tps := slices.Clone(d.Partitions)
	slices.SortFunc(tps, func(a, b protocol.TopicPartition) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return int(a.Partition - b.Partition)
	})
	var out []string
	for _, tp := range tps {
		out = append(out, fmt.Sprintf("%s/%d", tp.Topic, tp.Partition))
	}
	return joinValues(out), nil
}

func lastStable(s State, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants TOPIC/P")
	}
	r, err := leaderReplica(s, args[0])
	if err != nil {
		if errors.Is(err, cluster.ErrLeaderNotAvailable) {
			return "no leader", nil
		}
		return "", err
	}
	return strconv.FormatInt(r.LastStableOffset(), 10), nil
}

// received counts, from the lab's processing ledger, the records of tp the
// consumer's scope was handed: processed (each processing counted) or still
// held.
func received(s State, args []string) (string, error) {
	if len(args) != 2 {
		return "", fmt.Errorf("wants CONSUMER TOPIC/P")
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	c := s.Lab.Cluster()
	co := c.Consumer(args[0])
	if co == nil {
		return "", fmt.Errorf("no consumer %q", args[0])
	}
	r, err := leaderReplica(s, args[1])
	if err != nil {
		return "", err
	}
	tp := r.TP
	scope := "consumer " + args[0]
	if g := co.GroupID(); g != "" {
		scope = "group " + g
	}
	n := 0
	for off := int64(0); off < r.Log.EndOffset(); off++ {
		n += c.TimesProcessed(scope, tp, off)
	}
	for _, h := range c.InHand(args[0]) {
		if h.TP == tp {
			n++
		}
	}
	return strconv.Itoa(n), nil
}

func sideEffectsAgain(s State, args []string) (string, error) {
	name, err := oneArg(args, "CONSUMER")
	if err != nil {
		return "", err
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	n := 0
	for _, e := range s.Lab.Cluster().SideEffects() {
		if e.Consumer == name && e.Times > 1 {
			n++
		}
	}
	return strconv.Itoa(n), nil
}
