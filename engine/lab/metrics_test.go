package lab

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// metricAfter runs script (a line "! cmd" must be refused) and returns the named metric (client "" for a
// broker or controller metric) as the view shows it after the last line.
func metricAfter(t *testing.T, script, name, client string) view.KafkaMetric {
	t.Helper()
	l := New()
	defer l.Close()
	for _, line := range strings.Split(script, "\n") {
		if refused, ok := strings.CutPrefix(line, "! "); ok {
			if _, err := l.Run(refused); err == nil {
				t.Fatalf("%s was not refused", refused)
			}
			continue
		}
		if _, err := l.Run(line); err != nil {
			var ce *CommandError
			if !errors.As(err, &ce) || !ce.Outcome {
				t.Fatalf("%s: %v", line, err)
			}
		}
	}
	for _, m := range l.View().Metrics {
		if m.Name == name && m.Client == client {
			return m
		}
	}
	t.Fatalf("no metric %s (client %q) in the view", name, client)
	return view.KafkaMetric{}
}

// TestMetrics checks each metric against the Kafka code that computes it,
// in a session that makes it move, and the delta the last command caused.
func TestMetrics(t *testing.T) {
	// Broker 2 leads t/0 (replicas 2,3,1).
	const defaults = "cluster brokers=3 seed=7\ntopic create t rf=3 min.insync.replicas=2\nproducer create p acks=1"
	const three = "cluster brokers=3 seed=7 replica.lag.time.max.ms=4000\ntopic create t rf=3 min.insync.replicas=2\nproducer create p acks=1"
	for _, tc := range []struct {
		name, script, metric, client string
		value, delta                 float64 // NaN value: Kafka's NaN
		hasDelta                     bool
	}{
		{"Partition.isUnderReplicated: healthy", three, "UnderReplicatedPartitions", "", 0, 0, true},
		// The leader takes writes the crashed follower cannot fetch; after
		// replica.lag.time.max.ms (4 s, under the 9 s session timeout) the
		// leader's isr-expiration shrinks the ISR (Partition.maybeShrinkIsr).
		{"Partition.isUnderReplicated: leader shrank the ISR", three + "\nbroker crash 3\nproduce t value=v producer=p\ntick 7s",
			"UnderReplicatedPartitions", "", 1, 1, true},
		{"ReplicaManager.isrShrinkRate: marked when the controller accepts the shrink", three + "\nbroker crash 3\nproduce t value=v producer=p\ntick 7s",
			"IsrShrinksPerSec", "", 1, 1, true},
		// With nothing written, the crashed follower has the whole log and
		// is not out of sync; the controller fences it after
		// broker.session.timeout.ms and removes it from the ISR itself
		// (ReplicationControlManager.handleBrokerFenced): under-replicated,
		// yet no broker marks IsrShrinksPerSec.
		{"handleBrokerFenced shrinks the ISR: UnderReplicatedPartitions", defaults + "\nbroker crash 3\ntick 10s",
			"UnderReplicatedPartitions", "", 1, 1, true},
		{"handleBrokerFenced shrinks the ISR: no IsrShrinksPerSec", defaults + "\nbroker crash 3\ntick 10s",
			"IsrShrinksPerSec", "", 0, 0, true},
		{"a refused command changes nothing, the last delta included", three + "\nbroker crash 3\nproduce t value=v producer=p\ntick 7s\n! tick -1s\n! broker crash 3",
			"UnderReplicatedPartitions", "", 1, 1, true},
		{"a show command ran and changed nothing: delta 0", three + "\nbroker crash 3\nproduce t value=v producer=p\ntick 7s\nshow isr t/0",
			"UnderReplicatedPartitions", "", 1, 0, true},
		{"ReplicaManager.isrExpandRate: the follower comes back", three + "\nbroker crash 3\ntick 10s\nbroker restart 3\ntick 5s",
			"IsrExpandsPerSec", "", 1, 1, true},
		{"Partition.isUnderMinIsr: ISR 1 < min.insync.replicas 2", three + "\nbroker crash 2\nbroker crash 3\ntick 10s",
			"UnderMinIsrPartitionCount", "", 1, 1, true},
		// Partition.appendRecordsToLeader throws NotEnoughReplicasException,
		// which appendToLocalLog counts; each retry is another request.
		{"BrokerTopicMetrics.failedProduceRequestRate: NOT_ENOUGH_REPLICAS", three +
			"\nbroker crash 2\nbroker crash 3\ntick 10s\nproducer create safe acks=all enable.idempotence=false delivery.timeout.ms=1000 request.timeout.ms=500 retry.backoff.ms=1000 retry.backoff.max.ms=1000\nproduce t value=refused producer=safe",
			"FailedProduceRequestsPerSec", "", 1, 1, true},
		{"failedProduceRequestRate: NOT_LEADER_OR_FOLLOWER is a known exception, not counted", three +
			"\nbroker crash 1\nbroker crash 2\nbroker crash 3\ntick 10s",
			"FailedProduceRequestsPerSec", "", 0, 0, true},
		{"ControllerMetadataMetrics.offlinePartitionCount: no leader", three + "\nbroker crash 1\nbroker crash 2\nbroker crash 3\ntick 10s",
			"OfflinePartitionsCount", "", 1, 1, true},
		{"QuorumControllerMetrics.ActiveControllerCount", three, "ActiveControllerCount", "", 1, 0, true},
		{"ControllerMetricsChanges.uncleanLeaderElection: clean topic", uncleanScript("false"), "UncleanLeaderElectionsPerSec", "", 0, 0, true},
		{"ControllerMetricsChanges.uncleanLeaderElection: out-of-sync replica elected", uncleanScript("true"), "UncleanLeaderElectionsPerSec", "", 1, 1, true},
		{"LeaderElectionRateAndTimeMs: the leader's broker is fenced", three + "\nbroker crash 2\ntick 10s", "LeaderElectionRateAndTimeMs", "", 1, 1, true},
		{"request-latency-avg: NaN before any request", three, "request-latency-avg", "p", math.NaN(), 0, false},
		{"Sender.recordLatency: request-latency-avg", three + "\nproduce t value=v producer=p", "request-latency-avg", "p", 2, 0, false},
		{"FetchCollector.recordPartitionLag: records-lag-max", three +
			"\nproduce t value=v{i} count=10 producer=p\nconsumer create c assign=t/0 auto.offset.reset=earliest max.poll.records=3\npoll c timeout=1s",
			"records-lag-max", "c", 7, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := metricAfter(t, tc.script, tc.metric, tc.client)
			if math.IsNaN(tc.value) != m.NaN || !m.NaN && m.Value != tc.value {
				t.Errorf("%s = %v, want %v", tc.metric, m.Value, tc.value)
			}
			if m.HasDelta != tc.hasDelta || m.Delta != tc.delta {
				t.Errorf("%s delta = %v (has %v), want %v (has %v)", tc.metric, m.Delta, m.HasDelta, tc.delta, tc.hasDelta)
			}
		})
	}
}

// uncleanScript: broker 2 falls out of the ISR of topic d while broker 1
// leads, then broker 1 dies; with unclean.leader.election.enable the
// controller elects broker 2 anyway.
func uncleanScript(unclean string) string {
	return "cluster brokers=2 seed=5 replica.lag.time.max.ms=1000\n" +
		"topic create d rf=2 unclean.leader.election.enable=" + unclean + "\n" +
		"producer create p acks=1\nproduce d value=a producer=p\ntick 1s\nnet partition (1) (2)\n" +
		"produce d value=b producer=p\ntick 2s\nnet heal\nbroker crash 1\ntick 10s"
}

// The charts keep a bounded number of samples however long the session:
// a full ring drops every other sample and doubles the interval, so the
// samples still span the whole session.
func TestChartSamplesBounded(t *testing.T) {
	l := New()
	defer l.Close()
	for _, line := range []string{"cluster brokers=1 controllers=1 seed=1", "topic create t rf=1", "tick 10m", "tick 10m"} {
		if _, err := l.Run(line); err != nil {
			t.Fatal(err)
		}
	}
	times := l.View().Charts.TimesMs
	if len(times) == 0 || len(times) >= 120 {
		t.Fatalf("%d samples, want 1..119", len(times))
	}
	if first, last := times[0], times[len(times)-1]; first > 1000 || last < 20*60*1000 {
		t.Errorf("samples span %dms..%dms, want the whole 20 minutes", first, last)
	}
}
