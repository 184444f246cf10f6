package metrics

import (
	"math"
	"testing"
	"time"
)

// TestMeter mirrors com.yammer.metrics.core.Meter with EWMA.oneMinuteEWMA:
// Count is cumulative; OneMinuteRate is 0 until the first 5 s tick, then
// the rate of that tick, then decays by e^(-5/60) per tick with no events.
func TestMeter(t *testing.T) {
	if want := 1 - math.Exp(-5.0/60); math.Abs(oneMinuteAlpha-want) > 1e-15 {
		t.Fatalf("oneMinuteAlpha = %v, want 1 - e^(-5/60) = %v", oneMinuteAlpha, want)
	}
	s := time.Second
	decay := math.Exp(-5.0 / 60)
	for _, tc := range []struct {
		name  string
		marks []time.Duration
		at    time.Duration
		count int64
		rate  float64
	}{
		{"Meter.count with no mark", nil, 10 * s, 0, 0},
		{"Meter.mark before the first tick: rate still 0", []time.Duration{s}, 4 * s, 1, 0},
		{"EWMA.tick: first tick initialises to the instant rate", []time.Duration{s}, 5 * s, 1, 0.2},
		{"EWMA.tick: later ticks decay", []time.Duration{s}, 15 * s, 1, 0.2 * decay * decay},
		{"Meter.mark on a tick boundary counts in the next tick", []time.Duration{5 * s}, 5 * s, 1, 0},
		{"EWMA.tick: blend of instant and old rate", []time.Duration{s, 6 * s, 7 * s}, 10 * s, 3, 0.2 + (1-decay)*(0.4-0.2)},
		{"an hour idle decays to almost nothing", []time.Duration{s}, time.Hour, 1, 0.2 * math.Pow(decay, 719)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m Meter
			for _, at := range tc.marks {
				m.Mark(at, 1)
			}
			if m.Count() != tc.count {
				t.Errorf("Count = %d, want %d", m.Count(), tc.count)
			}
			if got := m.OneMinuteRate(tc.at); math.Abs(got-tc.rate) > 1e-12 {
				t.Errorf("OneMinuteRate(%v) = %v, want %v", tc.at, got, tc.rate)
			}
			// Reading the rate is a copy: a second read agrees.
			if a, b := m.OneMinuteRate(tc.at), m.OneMinuteRate(tc.at); a != b {
				t.Errorf("reading changed the meter: %v then %v", a, b)
			}
		})
	}
}

type rec struct {
	at time.Duration
	v  float64
}

// TestSampledStat mirrors Kafka's SampledStat with Avg and Max over the
// default MetricConfig (2 samples of 30 s).
func TestSampledStat(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name string
		stat SampledStat
		recs []rec
		at   time.Duration
		want float64 // NaN: Kafka reports NaN
	}{
		{"Avg.combine with no event is NaN", NewAvg(), nil, 0, math.NaN()},
		{"Max.combine with no event is NaN", NewMax(), nil, 0, math.NaN()},
		{"Avg.combine: total / count", NewAvg(), []rec{{s, 10}, {2 * s, 20}}, 3 * s, 15},
		{"Max.combine: largest", NewMax(), []rec{{s, 10}, {2 * s, 30}, {3 * s, 20}}, 3 * s, 30},
		{"SampledStat.record: a new sample after the window, both combined", NewAvg(), []rec{{s, 10}, {40 * s, 30}}, 40 * s, 20},
		{"purgeObsoleteSamples: a sample idle for 2 windows is dropped", NewMax(), []rec{{s, 100}, {50 * s, 5}}, 62 * s, 5},
		{"purgeObsoleteSamples: everything expired is NaN", NewMax(), []rec{{s, 100}}, 61 * s, math.NaN()},
		{"the ring of 3 slots reuses the oldest", NewMax(), []rec{{0, 9}, {30 * s, 1}, {60 * s, 2}, {90 * s, 3}}, 90 * s, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.stat
			for _, r := range tc.recs {
				st.Record(r.at, r.v)
			}
			got := st.Measure(tc.at)
			if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && got != tc.want {
				t.Errorf("Measure(%v) = %v, want %v", tc.at, got, tc.want)
			}
		})
	}
}
