package cluster

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/metrics"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/view"
)

// controllerMeters are the controller's meters, computed as Kafka's
// ControllerMetricsChanges does from the partition records it replays
// (ControllerMetadataMetricsPublisher): every controller loads the same
// committed records, so one set stands for them all.
type controllerMeters struct {
	// leadership is the leader and ISR each partition had before the
	// record being replayed.
	leadership map[protocol.TopicPartition]leadership
	// UncleanLeaderElectionsPerSec: a partition change whose new leader
	// was not in the previous ISR (PartitionRegistration.electionWasClean).
	unclean metrics.Meter
	// elections counts partition changes that gave a partition a new
	// leader, for LeaderElectionRateAndTimeMs (see controllerMetrics).
	elections metrics.Meter
}

type leadership struct {
	leader int32
	isr    []int32
}

// watchMetadata seeds the controller meters from the metadata the cluster
// starts with and returns what replays each commit into them.
func (c *Cluster) watchMetadata() func([]protocol.MetadataRecord) {
	m := &c.ctlMeters
	m.leadership = map[protocol.TopicPartition]leadership{}
	if c.remote == nil {
		// The simulated quorum: its records arrive as its voters commit them.
		return func(recs []protocol.MetadataRecord) {
			for _, r := range recs {
				c.event("controller: " + r.Describe())
				m.replay(r, c.clock.Elapsed())
			}
		}
	}
	for _, t := range c.controller.Image().Topics {
		for i, p := range t.Partitions {
			if p != nil {
				m.leadership[protocol.TopicPartition{Topic: t.Name, Partition: int32(i)}] = leadership{p.Leader, slices.Clone(p.ISR)}
			}
		}
	}
	return func(recs []protocol.MetadataRecord) {
		for _, r := range recs {
			c.event("controller: " + r.Describe())
			m.replay(r, c.clock.Elapsed())
		}
	}
}

// replay is ControllerMetricsChanges.handlePartitionChange for one record.
func (m *controllerMeters) replay(r protocol.MetadataRecord, now time.Duration) {
	if r.Type != "Partition" && r.Type != "PartitionChange" {
		return
	}
	tp := protocol.TopicPartition{Topic: r.Topic, Partition: r.Partition}
	prev, known := m.leadership[tp]
	m.leadership[tp] = leadership{r.Leader, slices.Clone(r.ISR)}
	prevISR := prev.isr
	if !known {
		// A new partition: its replicas count as the previous ISR, so
		// creating it is no unclean election.
		prevISR = r.Replicas
	}
	if !electionWasClean(r.Leader, prevISR) {
		m.unclean.Mark(now, 1)
	}
	if known && r.Leader != prev.leader && r.Leader != -1 {
		m.elections.Mark(now, 1)
	}
}

// electionWasClean is PartitionRegistration.electionWasClean: no leader,
// or one from the previous ISR.
func electionWasClean(leader int32, prevISR []int32) bool {
	return leader == -1 || slices.Contains(prevISR, leader)
}

// replicaGauges are ReplicaManager's UnderReplicatedPartitions and
// UnderMinIsrPartitionCount for one broker: the partitions it leads whose
// ISR (the committed one the leader holds) is smaller than the replica
// set (Partition.isUnderReplicated), or than the effective
// min.insync.replicas, min(min.insync.replicas, replication factor)
// (Partition.isUnderMinIsr).
func replicaGauges(b *broker.Broker) (underReplicated, underMinISR int) {
	for _, r := range b.Replicas() {
		if !r.IsLeader() {
			continue
		}
		if len(r.ISR) < len(r.Replicas) {
			underReplicated++
		}
		if len(r.ISR) < min(r.MinISR, len(r.Replicas)) {
			underMinISR++
		}
	}
	return underReplicated, underMinISR
}

// Metrics are Kafka's metrics now, in the panel's order. Broker metrics
// add up the running brokers, each reporting its own, as a dashboard sums
// them; a crashed broker reports nothing, and a restarted one starts its
// meters from zero.
func (c *Cluster) Metrics() []view.KafkaMetric {
	now := c.clock.Elapsed()
	var urp, umi int
	var sums [3]struct {
		count int64
		rate  float64
	}
	for _, b := range c.brokers {
		if !b.Alive() {
			continue
		}
		u, m := replicaGauges(b)
		urp, umi = urp+u, umi+m
		ms := b.Meters()
		for i, mt := range []metrics.Meter{ms.IsrShrinks, ms.IsrExpands, ms.FailedProduceRequests} {
			sums[i].count += mt.Count()
			sums[i].rate += mt.OneMinuteRate(now)
		}
	}
	offline := 0
	for _, t := range c.controller.Image().Topics {
		for _, p := range t.Partitions {
			if p != nil && p.Leader == -1 {
				offline++
			}
		}
	}
	active := 0
	if c.activeID != 0 {
		active = 1
	}
	gauge := func(name, mbean, scope string, v int) view.KafkaMetric {
		return view.KafkaMetric{Name: name, MBean: mbean, Kind: view.Gauge, Scope: scope, Value: float64(v)}
	}
	meter := func(name, mbean, scope string, count int64, rate float64) view.KafkaMetric {
		return view.KafkaMetric{Name: name, MBean: mbean, Kind: view.Meter, Scope: scope, Value: float64(count), Rate: rate}
	}
	out := []view.KafkaMetric{
		gauge("UnderReplicatedPartitions", "kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions", "brokers", urp),
		gauge("UnderMinIsrPartitionCount", "kafka.server:type=ReplicaManager,name=UnderMinIsrPartitionCount", "brokers", umi),
		gauge("OfflinePartitionsCount", "kafka.controller:type=KafkaController,name=OfflinePartitionsCount", "controller", offline),
		gauge("ActiveControllerCount", "kafka.controller:type=KafkaController,name=ActiveControllerCount", "controllers", active),
		meter("IsrShrinksPerSec", "kafka.server:type=ReplicaManager,name=IsrShrinksPerSec", "brokers", sums[0].count, sums[0].rate),
		meter("IsrExpandsPerSec", "kafka.server:type=ReplicaManager,name=IsrExpandsPerSec", "brokers", sums[1].count, sums[1].rate),
		meter("FailedProduceRequestsPerSec", "kafka.server:type=BrokerTopicMetrics,name=FailedProduceRequestsPerSec", "brokers", sums[2].count, sums[2].rate),
		meter("LeaderElectionRateAndTimeMs", "kafka.controller:type=ControllerStats,name=LeaderElectionRateAndTimeMs", "controller",
			c.ctlMeters.elections.Count(), c.ctlMeters.elections.OneMinuteRate(now)),
		meter("UncleanLeaderElectionsPerSec", "kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec", "controller",
			c.ctlMeters.unclean.Count(), c.ctlMeters.unclean.OneMinuteRate(now)),
	}
	for _, co := range c.consumers {
		m := co.FetchManagerMetrics()
		out = append(out, view.KafkaMetric{Name: "records-lag-max", MBean: "kafka.consumer:type=consumer-fetch-manager-metrics,client-id=" + string(co.ID),
			Kind: view.Max, Scope: "client", Client: string(co.ID), Value: m.RecordsLagMax.Measure(now)})
		out[len(out)-1] = noNaN(out[len(out)-1])
	}
	for _, p := range c.producers {
		m := p.Metrics()
		out = append(out, view.KafkaMetric{Name: "request-latency-avg", MBean: "kafka.producer:type=producer-metrics,client-id=" + string(p.ID),
			Kind: view.Avg, Scope: "client", Client: string(p.ID), Value: m.RequestLatencyAvg.Measure(now)})
		out[len(out)-1] = noNaN(out[len(out)-1])
	}
	return out
}

// noNaN moves Kafka's NaN out of the value, which a view (plain JSON)
// cannot carry, into the metric's NaN flag.
func noNaN(m view.KafkaMetric) view.KafkaMetric {
	if math.IsNaN(m.Value) {
		m.Value, m.NaN = 0, true
	}
	return m
}

// chartedTopic: Kafka's internal topics stay out of the charts, as they
// stay out of the topic panels unless they hold data.
func chartedTopic(name string) bool { return !strings.HasPrefix(name, "__") }
