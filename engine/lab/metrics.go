package lab

import (
	"slices"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/view"
)

// metricsBefore is the metrics sample taken before the last command, so
// the panel can show what that command changed; of is the cluster it was
// taken of (a `cluster` command starts another, and nothing compares).
type metricsBefore struct {
	of      *cluster.Cluster
	metrics []view.KafkaMetric
}

// beforeCommand samples the metrics as a command starts.
func (l *Lab) beforeCommand() {
	l.starting = metricsBefore{of: l.cluster, metrics: l.cluster.Metrics()}
}

// afterCommand runs once a command ran, as a success or with a Kafka
// outcome (a refused command changes nothing, the panel included): its
// starting sample becomes the one the deltas compare with, and the charts
// take a sample, so their right edge is the state the command left. A
// Kafka outcome that changed no metric (TOPIC_ALREADY_EXISTS) changed
// nothing, and leaves the panel as the command before it left it.
func (l *Lab) afterCommand(outcome bool) {
	if l.cluster == nil {
		return
	}
	if outcome && slices.EqualFunc(l.starting.metrics, l.cluster.Metrics(), func(a, b view.KafkaMetric) bool { return a == b }) {
		return
	}
	l.before = l.starting
	l.cluster.SampleCharts()
}

// withDeltas fills in v's metric deltas against the sample before the
// last command.
func (l *Lab) withDeltas(v view.Cluster) view.Cluster {
	if l.before.of == l.cluster && l.cluster != nil {
		v.Metrics = view.WithDeltas(v.Metrics, l.before.metrics)
	}
	return v
}
