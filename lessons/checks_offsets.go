package lessons

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/protocol"
)

// Checks for the lessons on committed offsets and delivery semantics (16
// max.poll.interval.ms, 17 commit timing, 18 __consumer_offsets). Kafka
// keeps no record of what an application did with a record; the lab's
// processing ledger does (cluster.TimesProcessed, Reprocessed,
// NeverProcessed), so duplicates and losses are counted, not argued. The
// group's side is asked of its coordinator, as kafka-consumer-groups.sh
// asks it. Every check answers a value (never an error) for a group that
// does not exist yet, so a goal can start out false.
func init() {
	register("coordinator", "coordinator G: the id of the broker leading G's partition of __consumer_offsets (the group's coordinator), `none` while it has no leader or the topic does not exist yet", groupCoordinator)
	register("committed-offset", "committed-offset G TOPIC/P: the offset group G has committed for the partition, as its coordinator serves it (OffsetFetch), `none` when it has none or no coordinator is available", committedOffset)
	register("partition-owner", "partition-owner G TOPIC/P: the client.id (the lab consumer's name) of the member the coordinator's current assignment gives the partition, `none` when no member has it", partitionOwner)
	register("processed-again", "processed-again G: how many distinct records (topic, partition, offset) the applications of group G processed more than once, every process of each consumer included (the ledger's `AGAIN` lines)", processedAgain)
	register("never-processed", "never-processed C: how many records consumer C's application held unprocessed when it crashed or closed (every process of C): handed over by poll, never processed", neverProcessed)
	register("committed-unprocessed", "committed-unprocessed G TOPIC/P: how many offsets from the leader's log start offset up to G's committed offset no application of G ever processed: committed as done, never done (the at-most-once loss); `0` with no commit. Use it for groups that started at the log start (auto.offset.reset=earliest)", committedUnprocessed)
	register("offset-commit-records", "offset-commit-records G TOPIC/P: how many OffsetCommit records (key: group G, topic, partition; tombstones not counted) the leader's log of G's __consumer_offsets partition holds: every commit appends one, compaction leaves the latest", offsetCommitRecords)
	register("last-exception", "last-exception: the Java exception named in the last command's error (e.g. CommitFailedException), `none` if it succeeded, `other` for an error that names none", lastException)
}

// groupPartition reads "G TOPIC/P".
func groupPartition(args []string) (string, protocol.TopicPartition, error) {
	if len(args) != 2 {
		return "", protocol.TopicPartition{}, fmt.Errorf("wants GROUP TOPIC/P")
	}
	topic, idx, ok := strings.Cut(args[1], "/")
	p, err := strconv.Atoi(idx)
	if !ok || err != nil || topic == "" || p < 0 {
		return "", protocol.TopicPartition{}, fmt.Errorf("%q is not TOPIC/PARTITION", args[1])
	}
	return args[0], protocol.TopicPartition{Topic: topic, Partition: int32(p)}, nil
}

func oneArg(args []string, what string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants %s", what)
	}
	return args[0], nil
}

func groupCoordinator(s State, args []string) (string, error) {
	g, err := oneArg(args, "GROUP")
	if err != nil {
		return "", err
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	if gc := s.Lab.Cluster().Coordinator(g); gc.Broker > 0 {
		return strconv.Itoa(gc.Broker), nil
	}
	return "none", nil
}

// committed is G's committed offset of tp as its coordinator serves it;
// false with none (or no coordinator to ask).
func committed(s State, g string, tp protocol.TopicPartition) (int64, bool) {
	d, _, ok := s.Lab.Cluster().DescribeGroup(g)
	if !ok {
		return 0, false
	}
	for _, o := range d.Offsets {
		if o.TP == tp {
			return o.Offset, true
		}
	}
	return 0, false
}

func committedOffset(s State, args []string) (string, error) {
	g, tp, err := groupPartition(args)
	if err != nil {
		return "", err
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	if off, ok := committed(s, g, tp); ok {
		return strconv.FormatInt(off, 10), nil
	}
	return "none", nil
}

func partitionOwner(s State, args []string) (string, error) {
	g, tp, err := groupPartition(args)
	if err != nil {
		return "", err
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	d, _, ok := s.Lab.Cluster().DescribeGroup(g)
	if !ok {
		return "none", nil
	}
	for _, m := range d.Members {
		for _, a := range m.Assigned {
			if a == tp {
				return m.ClientID, nil
			}
		}
	}
	return "none", nil
}

// processedAgain counts from the ledger's re-processings, which name the
// consumer: its group is the scope the ledger counted in (a consumer keeps
// its group.id across restarts).
func processedAgain(s State, args []string) (string, error) {
	g, err := oneArg(args, "GROUP")
	if err != nil {
		return "", err
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	c := s.Lab.Cluster()
	type rec struct {
		tp  protocol.TopicPartition
		off int64
	}
	seen := map[rec]bool{}
	for _, p := range c.Reprocessed() {
		if co := c.Consumer(p.Consumer); co != nil && co.GroupID() == g {
			seen[rec{p.TP, p.Offset}] = true
		}
	}
	return strconv.Itoa(len(seen)), nil
}

func neverProcessed(s State, args []string) (string, error) {
	name, err := oneArg(args, "CONSUMER")
	if err != nil {
		return "", err
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	return strconv.Itoa(s.Lab.Cluster().NeverProcessed(name)), nil
}

func committedUnprocessed(s State, args []string) (string, error) {
	g, tp, err := groupPartition(args)
	if err != nil {
		return "", err
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	c := s.Lab.Cluster()
	upTo, ok := committed(s, g, tp)
	if !ok {
		return "0", nil
	}
	from, ok := c.EarliestOffset(tp)
	if !ok {
		from = 0
	}
	n := 0
	for off := from; off < upTo; off++ {
		if c.TimesProcessed("group "+g, tp, off) == 0 {
			n++
		}
	}
	return strconv.Itoa(n), nil
}

func offsetCommitRecords(s State, args []string) (string, error) {
	g, tp, err := groupPartition(args)
	if err != nil {
		return "", err
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	gc := s.Lab.Cluster().Coordinator(g)
	if gc.Partition < 0 {
		return "0", nil
	}
	r, _, err := s.Lab.Cluster().Replica(broker.OffsetsTopic, int(gc.Partition), 0)
	if err != nil {
		return "", err
	}
	recs, err := r.Log.Records(r.Log.StartOffset(), 0)
	if err != nil {
		return "", err
	}
	n := 0
	for _, rec := range recs {
		d, err := offsets.Decode(rec.Key, rec.Value)
		if err != nil || d.Value == nil {
			continue
		}
		if k, ok := d.Key.(*offsets.OffsetCommitKey); ok && k.Group == g && k.Topic == tp.Topic && k.Partition == tp.Partition {
			n++
		}
	}
	return strconv.Itoa(n), nil
}

// javaException finds an exception's simple name, as the Java client
// throws it (CommitFailedException, RebalanceInProgressException, ...).
var javaException = regexp.MustCompile(`\b[A-Z][A-Za-z]*Exception\b`)

func lastException(s State, args []string) (string, error) {
	if len(args) != 0 {
		return "", fmt.Errorf("takes no arguments")
	}
	if s.LastErr == nil {
		return "none", nil
	}
	if name := javaException.FindString(s.LastErr.Error()); name != "" {
		return name, nil
	}
	return "other", nil
}
