package lab

import (
	"fmt"
	"strings"
)

var showLogCommand = &command{
	name:    "show log",
	usage:   "show log TOPIC/PARTITION [from=OFFSET] [max=N]",
	summary: "print a partition's records as kafka-dump-log --print-data-log does",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		tp, err := onePositional(a, "TOPIC/PARTITION")
		if err != nil {
			return "", err
		}
		from := a.integer("from", -1, 0, 1<<62)
		maxRecords := a.integer("max", 0, 0, maxProduceCount)
		if err := a.finish(); err != nil {
			return "", err
		}
		topic, partition, err := parseTopicPartition(tp)
		if err != nil {
			return "", err
		}
		plog, err := l.cluster.Partition(topic, partition)
		if err != nil {
			return "", err
		}
		start := plog.StartOffset()
		if from >= 0 {
			start = int64(from)
		}
		recs, err := plog.Read(start, maxRecords)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s/%d: log start offset %d, log end offset %d", topic, partition, plog.StartOffset(), plog.EndOffset())
		for _, r := range recs {
			key := "null"
			keySize := -1
			if r.Key != nil {
				key, keySize = string(r.Key), len(r.Key)
			}
			fmt.Fprintf(&b, "\n| offset: %d CreateTime: %d keySize: %d valueSize: %d key: %s payload: %s",
				r.Offset, r.Timestamp, keySize, len(r.Value), key, r.Value)
		}
		return b.String(), nil
	},
}
