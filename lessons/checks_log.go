package lessons

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
)

// Checks for the lessons on the log itself (01-03): offsets, segments, the
// sparse index, consumers reading without removing, where keys land, and
// what a producer batch holds. Each reads a broker's log as it is on disk,
// never what a command printed, so a lesson cannot outlive the engine.
func init() {
	register("log-end", "log-end TOPIC/P: the leader's log end offset, the offset the next record will get", logEnd)
	register("segments", "segments TOPIC/P BROKER: how many segment files that broker's replica has", segmentCount)
	register("lookup-start", "lookup-start TOPIC/P OFFSET: the offset of the sparse index entry a read of OFFSET starts scanning from on the leader (the segment's base offset when no entry is at or below it)", lookupStart)
	register("holds-offset", "holds-offset TOPIC/P OFFSET: yes if the leader's log still holds OFFSET (log start offset <= OFFSET < log end offset), else no", holdsOffset)
	register("position", "position CONSUMER TOPIC/P: the offset that consumer will read next from the partition", consumerPosition)
	register("partition-of", "partition-of TOPIC KEY: the partitions whose leader holds records with that key, ascending and comma-separated, or none; KEY null means a null key", partitionOf)
	register("partitions-holding", "partitions-holding TOPIC KEY: how many partitions hold records with that key (KEY null: a null key)", partitionsHolding)
	register("batch-records", "batch-records TOPIC/P OFFSET: how many records the leader's batch holding OFFSET has", batchRecords)
	register("last-batch-records", "last-batch-records TOPIC/P: how many records the last batch of the leader's log has", lastBatchRecords)
	register("batch-compression", "batch-compression TOPIC/P OFFSET BROKER: the compression codec (none, gzip, snappy, lz4, zstd) of the batch holding OFFSET in that broker's log", batchCompression)
}

// replicaLog is a broker's log of TOPIC/P; broker 0 is the current leader.
func replicaLog(s State, tp string, broker int) (*log.Log, error) {
	topic, idx, ok := strings.Cut(tp, "/")
	n, err := strconv.Atoi(idx)
	if !ok || err != nil {
		return nil, fmt.Errorf("%q is not TOPIC/PARTITION", tp)
	}
	r, _, err := s.Lab.Cluster().Replica(topic, n, broker)
	if err != nil {
		return nil, err
	}
	return r.Log, nil
}

func offsetArg(arg string) (int64, error) {
	n, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not an offset", arg)
	}
	return n, nil
}

func brokerArg(arg string) (int, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a broker id", arg)
	}
	return n, nil
}

func logEnd(s State, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants TOPIC/P")
	}
	l, err := replicaLog(s, args[0], 0)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(l.EndOffset(), 10), nil
}

func segmentCount(s State, args []string) (string, error) {
	if len(args) != 2 {
		return "", fmt.Errorf("wants TOPIC/P BROKER")
	}
	b, err := brokerArg(args[1])
	if err != nil {
		return "", err
	}
	l, err := replicaLog(s, args[0], b)
	if err != nil {
		return "", err
	}
	return strconv.Itoa(len(l.Segments())), nil
}

// lookupArgs reads TOPIC/P OFFSET and traces the leader's lookup of OFFSET,
// as a fetch from it would do.
func lookupArgs(s State, args []string) (*log.Log, log.Lookup, error) {
	if len(args) != 2 {
		return nil, log.Lookup{}, fmt.Errorf("wants TOPIC/P OFFSET")
	}
	off, err := offsetArg(args[1])
	if err != nil {
		return nil, log.Lookup{}, err
	}
	l, err := replicaLog(s, args[0], 0)
	if err != nil {
		return nil, log.Lookup{}, err
	}
	lk, err := l.TraceLookup(off)
	if err != nil {
		return nil, log.Lookup{}, err
	}
	if !lk.Found {
		return nil, log.Lookup{}, fmt.Errorf("no batch of %s holds offset %d", args[0], off)
	}
	return l, lk, nil
}

func lookupStart(s State, args []string) (string, error) {
	_, lk, err := lookupArgs(s, args)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(lk.Start.Offset, 10), nil
}

func holdsOffset(s State, args []string) (string, error) {
	if len(args) != 2 {
		return "", fmt.Errorf("wants TOPIC/P OFFSET")
	}
	off, err := offsetArg(args[1])
	if err != nil {
		return "", err
	}
	l, err := replicaLog(s, args[0], 0)
	if err != nil {
		return "", err
	}
	if off >= l.StartOffset() && off < l.EndOffset() {
		return "yes", nil
	}
	return "no", nil
}

func consumerPosition(s State, args []string) (string, error) {
	if len(args) != 2 {
		return "", fmt.Errorf("wants CONSUMER TOPIC/P")
	}
	co := s.Lab.Cluster().Consumer(args[0])
	if co == nil {
		return "", fmt.Errorf("no consumer %q", args[0])
	}
	topic, idx, ok := strings.Cut(args[1], "/")
	n, err := strconv.Atoi(idx)
	if !ok || err != nil {
		return "", fmt.Errorf("%q is not TOPIC/PARTITION", args[1])
	}
	tp := protocol.TopicPartition{Topic: topic, Partition: int32(n)}
	if !slices.Contains(co.Assignment(), tp) {
		return "", fmt.Errorf("consumer %s is not assigned %s", args[0], args[1])
	}
	return strconv.FormatInt(co.Position(tp), 10), nil
}

func partitionOf(s State, args []string) (string, error) {
	found, err := partitionsWithKey(s, args)
	if err != nil || len(found) == 0 {
		return "none", err
	}
	return strings.Join(found, ","), nil
}

func partitionsHolding(s State, args []string) (string, error) {
	found, err := partitionsWithKey(s, args)
	return strconv.Itoa(len(found)), err
}

// partitionsWithKey reads every partition's leader log rather than
// recomputing murmur2: the checks must show where the producer really put
// the records, including the sticky partitioner's choices for null keys.
func partitionsWithKey(s State, args []string) ([]string, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("wants TOPIC KEY")
	}
	info := s.Lab.Cluster().Controller().Image().Topic(args[0])
	if info == nil {
		return nil, fmt.Errorf("no topic %q", args[0])
	}
	nullKey := args[1] == "null"
	var found []string
	for p := range info.Partitions {
		l, err := replicaLog(s, fmt.Sprintf("%s/%d", args[0], p), 0)
		if err != nil {
			return nil, err
		}
		recs, err := l.Records(l.StartOffset(), 0)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(recs, func(r log.RecordAt) bool {
			if nullKey {
				return r.Key == nil
			}
			return r.Key != nil && string(r.Key) == args[1]
		}) {
			found = append(found, strconv.Itoa(p))
		}
	}
	return found, nil
}

func batchRecords(s State, args []string) (string, error) {
	l, lk, err := lookupArgs(s, args)
	if err != nil {
		return "", err
	}
	return recordCount(l, lk.Segment, lk.Position)
}

func recordCount(l *log.Log, segment, position int64) (string, error) {
	bs, err := l.BatchesIn(segment)
	if err != nil {
		return "", err
	}
	for _, b := range bs {
		if b.Position == position {
			return strconv.Itoa(int(b.Header.RecordCount)), nil
		}
	}
	return "", fmt.Errorf("no batch at position %d", position)
}

func lastBatchRecords(s State, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants TOPIC/P")
	}
	l, err := replicaLog(s, args[0], 0)
	if err != nil {
		return "", err
	}
	if l.EndOffset() == l.StartOffset() {
		return "0", nil
	}
	lk, err := l.TraceLookup(l.EndOffset() - 1)
	if err != nil {
		return "", err
	}
	return recordCount(l, lk.Segment, lk.Position)
}

func batchCompression(s State, args []string) (string, error) {
	if len(args) != 3 {
		return "", fmt.Errorf("wants TOPIC/P OFFSET BROKER")
	}
	off, err := offsetArg(args[1])
	if err != nil {
		return "", err
	}
	b, err := brokerArg(args[2])
	if err != nil {
		return "", err
	}
	l, err := replicaLog(s, args[0], b)
	if err != nil {
		return "", err
	}
	lk, err := l.TraceLookup(off)
	if err != nil {
		return "", err
	}
	raw, err := l.RawBatch(lk.Segment, lk.Position)
	if err != nil {
		return "", err
	}
	h, err := record.ReadHeader(raw)
	if err != nil {
		return "", err
	}
	return h.Compression().String(), nil
}
