package metrics

import (
	"math"
	"time"
)

// The Kafka clients' MetricConfig defaults: metrics.sample.window.ms
// (30 s) and metrics.num.samples (2).
const (
	SampleWindow = 30 * time.Second
	NumSamples   = 2
)

// statKind is how a SampledStat folds its values: Kafka's Avg or Max.
type statKind int

const (
	avg statKind = iota
	maxOf
)

// SampledStat is org.apache.kafka.common.metrics.stats.SampledStat as the
// clients' Avg (request-latency-avg) and Max (records-lag-max) use it: a
// ring of NumSamples+1 samples, each SampleWindow long, and a value that
// combines those not expired. With nothing recorded in the last
// NumSamples windows the value is NaN, as Kafka reports it.
type SampledStat struct {
	kind    statKind
	samples []sample
	current int
}

type sample struct {
	value       float64
	events      int64
	start, last time.Duration
}

// NewAvg is Kafka's Avg: the mean of the values recorded in the window.
func NewAvg() SampledStat { return SampledStat{kind: avg} }

// NewMax is Kafka's Max: the largest value recorded in the window.
func NewMax() SampledStat { return SampledStat{kind: maxOf} }

func (s *SampledStat) initial() float64 {
	if s.kind == maxOf {
		return math.Inf(-1)
	}
	return 0
}

// Record adds a value at virtual time now (SampledStat.record): a sample
// older than the window is complete, and the next slot of the ring is
// reset to take the value.
func (s *SampledStat) Record(now time.Duration, v float64) {
	if len(s.samples) == 0 {
		s.samples = append(s.samples, sample{value: s.initial(), start: now, last: now})
	}
	cur := &s.samples[s.current]
	if now-cur.start >= SampleWindow {
		s.current = (s.current + 1) % (NumSamples + 1)
		if s.current >= len(s.samples) {
			s.samples = append(s.samples, sample{})
		}
		cur = &s.samples[s.current]
		*cur = sample{value: s.initial(), start: now, last: now}
	}
	switch s.kind {
	case avg:
		cur.value += v
	case maxOf:
		cur.value = math.Max(cur.value, v)
	}
	cur.events++
	cur.last = now
}

// Measure is the stat's value at virtual time now (SampledStat.measure):
// samples without an event in the last NumSamples windows are left out
// (purgeObsoleteSamples), the rest combined; NaN when none had an event.
// Kafka's measure resets the expired samples in place; this one leaves
// the stat untouched, so that how often a page is drawn never changes
// what a later command records.
func (s SampledStat) Measure(now time.Duration) float64 {
	expire := NumSamples * SampleWindow
	total, best := 0.0, math.Inf(-1)
	var events int64
	for _, x := range s.samples {
		if now-x.last >= expire {
			continue
		}
		total += x.value
		best = math.Max(best, x.value)
		events += x.events
	}
	if events == 0 {
		return math.NaN()
	}
	if s.kind == maxOf {
		return best
	}
	return total / float64(events)
}
