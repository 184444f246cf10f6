package lab

import (
	"fmt"
	"math"
	"strings"

	brokers "github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/dumplog"
	"github.com/loglab/loglab/engine/log"
)

// partitionArg reads the TOPIC/PARTITION word of a show command and finds
// the replica it shows: the broker= option's, or the leader's.
func (l *Lab) partitionArg(a *args, broker int) (string, int, *log.Log, error) {
	tp, err := onePositional(a, "TOPIC/PARTITION")
	if err != nil {
		return "", 0, nil, err
	}
	topic, partition, err := parseTopicPartition(tp)
	if err != nil {
		return "", 0, nil, err
	}
	r, _, err := l.cluster.Replica(topic, partition, broker)
	if err != nil {
		return "", 0, nil, err
	}
	return topic, partition, r.Log, nil
}

var showLogCommand = &command{
	name:    "show log",
	usage:   "show log TOPIC/PARTITION [from=OFFSET] [max=BATCHES] [broker=ID]",
	summary: "print a partition's batches and records as kafka-dump-log --print-data-log does, segment by segment (__consumer_offsets with --offsets-decoder, __transaction_state with --transaction-log-decoder)",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		from := a.integer("from", -1, 0, 1<<62)
		maxBatches := a.integer("max", 0, 0, math.MaxInt32)
		broker := a.integer("broker", 0, 1, 1000)
		if err := a.finish(); err != nil {
			return "", err
		}
		topic, partition, plog, err := l.partitionArg(a, broker)
		if err != nil {
			return "", err
		}
		start := plog.StartOffset()
		if from >= 0 {
			start = int64(from)
		}
		if start < plog.StartOffset() || start > plog.EndOffset() {
			return "", fmt.Errorf("%w: offset %d is outside the log [%d, %d]", log.ErrOffsetOutOfRange, start, plog.StartOffset(), plog.EndOffset())
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s/%d: log start offset %d, log end offset %d", topic, partition, plog.StartOffset(), plog.EndOffset())
		printed := 0
		for _, seg := range plog.Segments() {
			if seg.NextOffset <= start || (maxBatches > 0 && printed >= maxBatches) {
				continue
			}
			batches, err := plog.BatchesIn(seg.BaseOffset)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "\nDumping %s/%s\n", plog.Dir(), log.FileName(seg.BaseOffset, log.LogSuffix))
			for _, bi := range batches {
				if bi.Header.LastOffset() < start || (maxBatches > 0 && printed >= maxBatches) {
					continue
				}
				raw, err := plog.RawBatch(seg.BaseOffset, bi.Position)
				if err != nil {
					return "", err
				}
				// The coordinators' topics are printed as kafka-dump-log
				// --offsets-decoder and --transaction-log-decoder print
				// them: their records are binary.
				opts := dumplog.Options{PrintDataLog: true, OffsetsDecoder: topic == brokers.OffsetsTopic, TransactionLogDecoder: topic == brokers.TransactionStateTopic}
				if err := dumplog.BatchWith(&b, bi.Position, raw, opts); err != nil {
					return "", err
				}
				printed++
			}
		}
		return strings.TrimRight(strings.ReplaceAll(b.String(), "\n\n", "\n"), "\n"), nil
	},
}

var showSegmentsCommand = &command{
	name:    "show segments",
	usage:   "show segments TOPIC/PARTITION [broker=ID]",
	summary: "list a partition's segment files with their sizes and sparse index entries",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		broker := a.integer("broker", 0, 1, 1000)
		if err := a.finish(); err != nil {
			return "", err
		}
		topic, partition, plog, err := l.partitionArg(a, broker)
		if err != nil {
			return "", err
		}
		segs := plog.Segments()
		var b strings.Builder
		fmt.Fprintf(&b, "%s/%d (%s): %d segments, %d bytes, log start offset %d, log end offset %d",
			topic, partition, plog.Dir(), len(segs), plog.Size(), plog.StartOffset(), plog.EndOffset())
		for _, s := range segs {
			state := ""
			if s.Active {
				state = " (active)"
			}
			offsets := "empty"
			if s.NextOffset > s.BaseOffset {
				offsets = fmt.Sprintf("offsets %d-%d", s.BaseOffset, s.NextOffset-1)
			}
			fmt.Fprintf(&b, "\n  %s  %s, %d bytes%s", log.FileName(s.BaseOffset, log.LogSuffix), offsets, s.Size, state)
			fmt.Fprintf(&b, "\n    .index: %d entries", len(s.Index))
			for _, e := range s.Index {
				fmt.Fprintf(&b, " %d@%d", e.Offset, e.Position)
			}
			fmt.Fprintf(&b, "\n    .timeindex: %d entries", len(s.TimeIndex))
			for _, e := range s.TimeIndex {
				fmt.Fprintf(&b, " %d@%d", e.Timestamp, e.Offset)
			}
		}
		return b.String(), nil
	},
}
