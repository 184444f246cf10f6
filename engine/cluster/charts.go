package cluster

import (
	"math"
	"strconv"
	"time"

	"github.com/loglab/loglab/engine/view"
)

// Chart sampling: the engine samples the cluster at points of virtual time
// (and the lab at the end of each command), so a replay of the same
// commands draws the same charts. The memory is bounded: when the ring is
// full, every other sample goes and the interval doubles, so the charts
// always span the whole session at a resolution that halves as it grows.
const (
	chartCapacity      = 120
	chartFirstInterval = int64(100 * time.Millisecond)
	chartMaxPartitions = 16 // partitions charted (HW/LEO and ISR size), in topic order
	throughputSeries   = "throughput"
	hwLeoChartPrefix   = "hw-leo/"
	isrChart           = "isr"
	lagChart           = "lag"
	producedName       = "produced"
	consumedName       = "consumed"
)

// chartRecorder holds the samples: one time per sample and, per series,
// one value per time (NaN where the series had none).
type chartRecorder struct {
	times    []int64 // ms
	series   []*chartSeries
	interval int64 // ns between periodic samples (0: not started)
	next     int64 // ns: the next periodic sample is due at or after it
	// Cumulative counts that survive restarts, for the throughput chart:
	// a restarted broker's or client's counter starts from zero again,
	// so what it counted before is kept here (by position: brokers by id,
	// clients in creation order).
	brokerIn, brokerInBase   []int64
	clientOut, clientOutBase []int64
}

type chartSeries struct {
	chart, name string
	values      []float64
}

// maybeSampleCharts takes a periodic sample if one is due: called after
// every event, it costs a comparison until then.
func (c *Cluster) maybeSampleCharts() {
	if int64(c.clock.Elapsed()) >= c.charts.next {
		c.SampleCharts()
	}
}

// SampleCharts takes a sample now (the lab calls it after each command).
func (c *Cluster) SampleCharts() {
	r := &c.charts
	now := int64(c.clock.Elapsed())
	if r.interval == 0 {
		r.interval = chartFirstInterval
	}
	r.next = (now/r.interval + 1) * r.interval
	ms := now / 1e6
	if n := len(r.times); n > 0 && r.times[n-1] == ms {
		// Same millisecond: the newer state replaces the sample.
		r.times = r.times[:n-1]
		for _, s := range r.series {
			if len(s.values) > n-1 {
				s.values = s.values[:n-1]
			}
		}
	}
	r.times = append(r.times, ms)
	c.sampleInto(r)
	n := len(r.times)
	for _, s := range r.series {
		for len(s.values) < n {
			s.values = append(s.values, math.NaN())
		}
	}
	if n >= chartCapacity {
		r.decimate()
	}
}

// sampleInto records the current values of every series.
func (c *Cluster) sampleInto(r *chartRecorder) {
	charted := 0
	for _, t := range c.controller.Image().Topics {
		if !chartedTopic(t.Name) {
			continue
		}
		for i, p := range t.Partitions {
			if p == nil || charted >= chartMaxPartitions {
				continue
			}
			charted++
			name := t.Name + "/" + strconv.Itoa(i)
			hw, leo := math.NaN(), math.NaN()
			if b := c.Broker(int(p.Leader)); b != nil && b.Alive() {
				for _, rep := range b.Replicas() {
					if rep.TP.Topic == t.Name && int(rep.TP.Partition) == i && rep.IsLeader() {
						hw, leo = float64(rep.HW), float64(rep.Log.EndOffset())
					}
				}
			}
			r.set(hwLeoChartPrefix+name, "HW", hw)
			r.set(hwLeoChartPrefix+name, "LEO", leo)
			r.set(isrChart, name, float64(len(p.ISR)))
		}
	}
	for len(r.brokerIn) < len(c.brokers) {
		r.brokerIn, r.brokerInBase = append(r.brokerIn, 0), append(r.brokerInBase, 0)
	}
	var produced int64
	for i, b := range c.brokers {
		n := b.Meters().MessagesIn.Count()
		if n < r.brokerIn[i] {
			r.brokerInBase[i] += r.brokerIn[i] // restarted: its count began again
		}
		r.brokerIn[i] = n
		produced += r.brokerInBase[i] + n
	}
	for len(r.clientOut) < len(c.consumers) {
		r.clientOut, r.clientOutBase = append(r.clientOut, 0), append(r.clientOutBase, 0)
	}
	var consumed int64
	for i, co := range c.consumers {
		n := co.FetchManagerMetrics().RecordsConsumedTotal
		if n < r.clientOut[i] {
			r.clientOutBase[i] += r.clientOut[i]
		}
		r.clientOut[i] = n
		consumed += r.clientOutBase[i] + n
		r.set(lagChart, string(co.ID), float64(co.RecordsLag()))
	}
	r.set(throughputSeries, producedName, float64(produced))
	r.set(throughputSeries, consumedName, float64(consumed))
}

// set gives series (chart, name) its value for the newest sample.
func (r *chartRecorder) set(chart, name string, v float64) {
	n := len(r.times)
	var s *chartSeries
	for _, x := range r.series {
		if x.chart == chart && x.name == name {
			s = x
			break
		}
	}
	if s == nil {
		s = &chartSeries{chart: chart, name: name}
		r.series = append(r.series, s)
	}
	for len(s.values) < n-1 {
		s.values = append(s.values, math.NaN())
	}
	s.values = append(s.values[:n-1], v)
}

// decimate keeps every other sample, the first and the newest always,
// and doubles the interval. Cumulative series (the throughput counts) lose nothing by
// it: a rate between two kept samples is still exact on average.
func (r *chartRecorder) decimate() {
	n := len(r.times)
	keep := func(i int) bool { return i%2 == 0 || i == n-1 }
	times := r.times[:0]
	for i, t := range r.times {
		if keep(i) {
			times = append(times, t)
		}
	}
	for _, s := range r.series {
		vals := s.values[:0]
		for i, v := range s.values {
			if keep(i) {
				vals = append(vals, v)
			}
		}
		s.values = vals
	}
	r.times = times
	r.interval *= 2
}

// Charts are the samples as the view draws them. The throughput series
// become rates: records per second between a sample and the one before.
func (c *Cluster) Charts() view.Charts {
	r := &c.charts
	out := view.Charts{TimesMs: append([]int64(nil), r.times...)}
	for _, s := range r.series {
		vals := append([]float64(nil), s.values...)
		if s.chart == throughputSeries {
			vals = perSecond(r.times, s.values)
		}
		for i, v := range vals {
			if math.IsNaN(v) {
				vals[i] = -1 // a view is JSON, which has no NaN
			}
		}
		out.Series = append(out.Series, view.Series{Chart: s.chart, Name: s.name, Values: vals})
	}
	return out
}

// perSecond turns a cumulative count into the rate between samples (the
// first sample has none).
func perSecond(timesMs []int64, counts []float64) []float64 {
	out := make([]float64, len(counts))
	for i := range counts {
		out[i] = math.NaN()
		if i == 0 || math.IsNaN(counts[i]) || math.IsNaN(counts[i-1]) || timesMs[i] <= timesMs[i-1] {
			continue
		}
		out[i] = math.Max(0, counts[i]-counts[i-1]) * 1000 / float64(timesMs[i]-timesMs[i-1])
	}
	return out
}
