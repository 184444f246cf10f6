package client

import (
	"time"

	"github.com/loglab/loglab/engine/metrics"
)

// ProducerMetrics are the producer-metrics the metrics panel shows.
type ProducerMetrics struct {
	// RequestLatencyAvg is request-latency-avg: Sender.handleProduceResponse
	// records each produce request's latency (sent to answered, in ms)
	// when an answer arrives, whatever its error; a request that timed out
	// or whose connection broke records nothing.
	RequestLatencyAvg metrics.SampledStat
	initialised       bool
}

// ConsumerMetrics are the consumer-fetch-manager-metrics the panel and
// the charts show.
type ConsumerMetrics struct {
	// RecordsLagMax is records-lag-max: FetchCollector.fetchRecords
	// records a partition's lag (its high watermark, or last stable offset
	// for read_committed, as the last fetch response told it, minus the
	// position) each time poll returns records of it.
	RecordsLagMax metrics.SampledStat
	// RecordsConsumedTotal is records-consumed-total: records poll returned.
	RecordsConsumedTotal int64
	initialised          bool
}

// Metrics returns the producer's metrics (a copy).
func (p *Producer) Metrics() ProducerMetrics {
	if !p.stats.initialised {
		return ProducerMetrics{RequestLatencyAvg: metrics.NewAvg()}
	}
	return p.stats
}

// answered records a produce request's latency as its answer arrives.
func (p *Producer) answered(b *producerBatch) {
	if !p.stats.initialised {
		p.stats = ProducerMetrics{RequestLatencyAvg: metrics.NewAvg(), initialised: true}
	}
	now := p.sched.Clock.Elapsed()
	p.stats.RequestLatencyAvg.Record(now, float64(now-b.sentAt)/float64(time.Millisecond))
}

// FetchManagerMetrics returns the consumer-fetch-manager-metrics the panel
// shows (a copy); Metrics (group_log.go) has the group ones.
func (c *Consumer) FetchManagerMetrics() ConsumerMetrics {
	if !c.stats.initialised {
		return ConsumerMetrics{RecordsLagMax: metrics.NewMax()}
	}
	return c.stats
}

// returned records what poll returned of one partition: n records, and
// its lag once the position moved past them. Kafka records the lag each
// time poll takes from a fetch answer in line, even one with no records
// (a caught-up consumer reports lag 0), not when the partition had none.
func (c *Consumer) returned(a *assignment, n int) {
	if n == 0 && !a.inLine {
		return
	}
	a.inLine = len(a.buffered) > 0
	if !c.stats.initialised {
		c.stats = ConsumerMetrics{RecordsLagMax: metrics.NewMax(), initialised: true}
	}
	c.stats.RecordsConsumedTotal += int64(n)
	if a.hw >= 0 && a.position >= 0 {
		c.stats.RecordsLagMax.Record(c.sched.Clock.Elapsed(), float64(a.hw-a.position))
	}
}

// RecordsLag is the sum over the assigned partitions of records-lag, the
// per-partition gauge: the high watermark (last stable offset for
// read_committed) the last fetch response told, minus the position.
// Partitions with no position or no fetch answer yet count nothing.
func (c *Consumer) RecordsLag() int64 {
	var lag int64
	for _, a := range c.assign {
		if a.hw >= 0 && a.position >= 0 && a.hw > a.position {
			lag += a.hw - a.position
		}
	}
	return lag
}
