package view

// MetricKind is how Kafka measures a metric, which says how to read it.
type MetricKind string

const (
	// Gauge is a value read now (UnderReplicatedPartitions).
	Gauge MetricKind = "gauge"
	// Meter is a Yammer meter (*PerSec): Value is its Count since the
	// process started, Rate its OneMinuteRate in events per second.
	Meter MetricKind = "meter"
	// Avg and Max are the clients' sampled statistics over the last two
	// 30 s windows (request-latency-avg, records-lag-max); Kafka reports
	// NaN when nothing was recorded in them (KafkaMetric.NaN).
	Avg MetricKind = "avg"
	Max MetricKind = "max"
)

// KafkaMetric is one of Kafka's metrics as a dashboard shows it.
type KafkaMetric struct {
	Name  string     // as Kafka names it: UnderReplicatedPartitions, records-lag-max
	MBean string     // the JMX name it is read under
	Kind  MetricKind // see MetricKind
	// Scope says what Value adds up: "brokers" (the sum over the running
	// brokers, each reporting its own), "controller" (what the
	// controllers report from the metadata), "client" (one client's).
	Scope  string
	Client string // the client, for Scope "client"
	Value  float64
	// NaN: the stat had nothing in its window, which Kafka reports as NaN
	// (Value is then 0: a view is plain JSON, which has no NaN).
	NaN  bool
	Rate float64 // Meter only
	// Delta is how much Value changed in the last command (HasDelta false
	// when there is nothing to compare: the first command of a cluster,
	// a client the command created, or a stat without a value).
	Delta    float64
	HasDelta bool
}

// Key identifies a metric across samples: its name and client.
func (m KafkaMetric) Key() string { return m.Name + "/" + m.Client }

// WithDeltas fills the deltas of now against before, the sample taken
// before the last command, matching metrics by Key.
func WithDeltas(now, before []KafkaMetric) []KafkaMetric {
	out := make([]KafkaMetric, len(now))
	for i, m := range now {
		m.Delta, m.HasDelta = 0, false
		for _, b := range before {
			if b.Key() == m.Key() && !b.NaN && !m.NaN {
				m.Delta, m.HasDelta = m.Value-b.Value, true
				break
			}
		}
		out[i] = m
	}
	return out
}

// Charts are the session's numbers over virtual time, sampled by the
// engine: TimesMs are the sample times, each series has one value per
// time, -1 where it had none (before the partition existed, while its
// leader was down). Every charted number is otherwise at least 0.
type Charts struct {
	TimesMs []int64
	Series  []Series
}

// Series is one line of one chart.
type Series struct {
	// Chart is which chart it belongs to: "hw-leo/<topic>/<partition>",
	// "isr", "throughput" or "lag".
	Chart string
	// Name is the line's label: "HW", "LEO", a partition "orders/0",
	// "produced" or "consumed", a consumer.
	Name   string
	Values []float64
}
