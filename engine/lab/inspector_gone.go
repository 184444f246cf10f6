package lab

import (
	"errors"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/view"
)

// inspectorNow is what `show batch` or `show lookup` opened, marked Gone
// when the segment it names no longer exists on the broker it read:
// retention (or a truncation, or the topic's deletion) removed the file
// since, and the panel must not go on describing it as if it were there.
// The opened value itself is kept as it was (undo copies it), only the
// view's copy is marked.
func (l *Lab) inspectorNow() view.Inspector {
	in := l.inspector
	if b := in.Batch; b != nil && l.segmentGone(b.Partition, b.Broker, b.File) {
		d := *b
		d.Gone = true
		in.Batch = &d
	}
	if tr := in.Lookup; tr != nil && l.segmentGone(tr.Partition, tr.Broker, tr.Segment) {
		t := *tr
		t.Gone = true
		in.Lookup = &t
	}
	return in
}

// segmentGone: the partition "T/P" no longer exists, or broker's replica
// of it has no segment file named file. A replica the lab cannot read
// now (its broker down, not opened yet) is not said to have lost it.
func (l *Lab) segmentGone(partition string, broker int, file string) bool {
	base, err := strconv.ParseInt(strings.TrimSuffix(file, log.LogSuffix), 10, 64)
	topic, p, err2 := parseTopicPartition(partition)
	if err != nil || err2 != nil || broker <= 0 {
		return false
	}
	r, _, err := l.cluster.Replica(topic, p, broker)
	switch {
	case errors.Is(err, cluster.ErrUnknownTopicOrPartition) && !l.partitionExists(topic, p):
		return true
	case err != nil || r == nil || r.Log == nil:
		return false
	}
	return !r.Log.HasSegment(base)
}

func (l *Lab) partitionExists(topic string, partition int) bool {
	_, err := l.cluster.PartitionInfo(topic, partition)
	return err == nil
}
