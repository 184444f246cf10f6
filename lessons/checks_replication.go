package lessons

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/view"
)

// Checks for the lessons on replication and retention: the high watermark,
// leader epochs and truncation, unclean election, a consumer behind
// retention. Each reads the state the learner sees drawn (View) or, where
// the view carries no such number, the engine (Cluster).
func init() {
	register("isr", "isr TOPIC/P: the partition's ISR as the controller committed it, in its order, e.g. 2,3,1", isrCheck)
	register("epoch", "epoch TOPIC/P: the partition's leader epoch in the metadata", epochCheck)
	register("leo", "leo TOPIC/P BROKER: that broker's replica's log end offset", replicaLEO)
	register("log-start", "log-start TOPIC/P: the partition's log start offset (the leader's, or the replica the view shows)", logStartCheck)
	register("value", "value TOPIC/P BROKER OFFSET: the value of the record at OFFSET in that broker's log, or none when its log does not hold the offset", valueCheck)
	register("records-skipped", "records-skipped CONSUMER TOPIC/P: records the leader still held that auto.offset.reset, after OFFSET_OUT_OF_RANGE, moved the consumer past unread", recordsSkipped)
}

func isrCheck(s State, args []string) (string, error) {
	p, err := partitionArg(s, args, 1)
	if err != nil {
		return "", err
	}
	ids := make([]string, len(p.ISR))
	for i, id := range p.ISR {
		ids[i] = strconv.Itoa(id)
	}
	return strings.Join(ids, ","), nil
}

func epochCheck(s State, args []string) (string, error) {
	p, err := partitionArg(s, args, 1)
	if err != nil {
		return "", err
	}
	return strconv.Itoa(p.LeaderEpoch), nil
}

// replicaArg finds TOPIC/P BROKER's replica in the view.
func replicaArg(s State, args []string, want int) (view.Partition, view.Replica, error) {
	if len(args) != want {
		return view.Partition{}, view.Replica{}, fmt.Errorf("wants %d arguments, got %d", want, len(args))
	}
	p, err := partitionArg(s, args[:1], 1)
	if err != nil {
		return p, view.Replica{}, err
	}
	for _, r := range p.Replicas {
		if strconv.Itoa(r.Broker) == args[1] {
			return p, r, nil
		}
	}
	return p, view.Replica{}, fmt.Errorf("broker %s holds no replica of %s", args[1], args[0])
}

func replicaLEO(s State, args []string) (string, error) {
	_, r, err := replicaArg(s, args, 2)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(r.LEO, 10), nil
}

func logStartCheck(s State, args []string) (string, error) {
	p, err := partitionArg(s, args, 1)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(p.LogStartOffset, 10), nil
}

// valueCheck reads the batch holding the offset from the broker's own log:
// after a truncation the same offset may hold another record than it did.
func valueCheck(s State, args []string) (string, error) {
	p, _, err := replicaArg(s, args, 3)
	if err != nil {
		return "", err
	}
	offset, err := strconv.ParseInt(args[2], 10, 64)
	if err != nil || offset < 0 {
		return "", fmt.Errorf("%q is not an offset", args[2])
	}
	broker, _ := strconv.Atoi(args[1])
	b := s.Lab.Cluster().Broker(broker)
	if b == nil || !b.Alive() {
		return "", fmt.Errorf("broker %d is down: its log cannot be read", broker)
	}
	r := b.Replica(protocol.TopicPartition{Topic: p.Topic, Partition: int32(p.Index)})
	if r == nil || r.Log == nil {
		return "", fmt.Errorf("broker %d has no replica of %s open", broker, args[0])
	}
	if offset < r.Log.StartOffset() || offset >= r.Log.EndOffset() {
		return "none", nil
	}
	batches, err := r.Log.BatchesFrom(offset)
	if err != nil || len(batches) == 0 {
		return "", fmt.Errorf("reading %s at %d on broker %d: %v", args[0], offset, broker, err)
	}
	raw, err := r.Log.RawBatch(batches[0].Segment, batches[0].Position)
	if err != nil {
		return "", err
	}
	batch, _, err := record.Decode(raw)
	if err != nil {
		return "", err
	}
	for _, rec := range batch.Records {
		if batch.Offset(rec) == offset {
			if rec.Value == nil {
				return "null", nil
			}
			return string(rec.Value), nil
		}
	}
	return "none", nil
}

// consumerArg finds CONSUMER and TOPIC/P.
func consumerArg(s State, args []string) (string, protocol.TopicPartition, error) {
	if len(args) != 2 {
		return "", protocol.TopicPartition{}, fmt.Errorf("wants CONSUMER TOPIC/P")
	}
	p, err := partitionArg(s, args[1:], 1)
	if err != nil {
		return "", protocol.TopicPartition{}, err
	}
	tp := protocol.TopicPartition{Topic: p.Topic, Partition: int32(p.Index)}
	co := s.Lab.Cluster().Consumer(args[0])
	if co == nil {
		return "", tp, fmt.Errorf("no consumer %q", args[0])
	}
	for _, a := range co.Assignment() {
		if a == tp {
			return args[0], tp, nil
		}
	}
	return "", tp, fmt.Errorf("consumer %s is not assigned %s", args[0], args[1])
}

func recordsSkipped(s State, args []string) (string, error) {
	name, tp, err := consumerArg(s, args)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(s.Lab.Cluster().Consumer(name).SkippedByReset(tp), 10), nil
}
