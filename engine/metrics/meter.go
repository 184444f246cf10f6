// Package metrics holds the two kinds of measurement Kafka exposes, run on
// virtual time so that the same session gives the same numbers: the
// broker's Yammer Meter (the *PerSec MBeans: a cumulative count and
// exponentially weighted rates) and the clients' sampled statistics
// (request-latency-avg, records-lag-max: a value over a sliding window of
// samples). Kafka reads them on demand; reading one here never changes it.
package metrics

import (
	"math"
	"time"
)

// meterTick is how often Yammer's Meter folds what was marked into its
// moving averages (EWMA.INTERVAL, 5 seconds).
const meterTick = 5 * time.Second

// oneMinuteAlpha is EWMA.oneMinuteEWMA's smoothing factor: each 5 s tick
// weighs the last interval's rate by 1 - e^(-5/60). Written out rather
// than computed: math.Exp has an assembly version on amd64 and not in
// WASM, and the two may differ in the last bit.
const oneMinuteAlpha = 0.07995558537067671

// Meter is com.yammer.metrics.core.Meter, the type behind Kafka's *PerSec
// MBeans (ReplicaManager's IsrShrinksPerSec, BrokerTopicMetrics'
// FailedProduceRequestsPerSec, ControllerStats' UncleanLeaderElectionsPerSec):
// Count is cumulative since the meter was created (the process started),
// OneMinuteRate the JMX attribute of that name. Its ticks fall every 5 s
// of virtual time since time zero (the cluster's start). The zero Meter is
// ready to use.
type Meter struct {
	count     int64
	uncounted int64
	lastTick  time.Duration
	rate      float64 // events per second, after the last tick
	ticked    bool    // EWMA.initialized
}

// Mark records n events at virtual time now (Meter.mark): ticks that fell
// due before now are taken first, so the events count in the next one.
func (m *Meter) Mark(now time.Duration, n int64) {
	m.tickTo(now)
	m.count += n
	m.uncounted += n
}

// Count is the events marked since the meter was created.
func (m Meter) Count() int64 { return m.count }

// OneMinuteRate is the one-minute exponentially weighted moving average
// of the event rate at virtual time now, in events per second. The meter
// itself is left as it was (m is a copy).
func (m Meter) OneMinuteRate(now time.Duration) float64 {
	m.tickTo(now)
	return m.rate
}

// tickTo runs the ticks due by now. After the first, every further tick
// has nothing uncounted and only decays the rate, so k of them multiply it
// by (1-alpha)^k: an hour of idle virtual time costs one step, not 720.
func (m *Meter) tickTo(now time.Duration) {
	if now < m.lastTick+meterTick {
		return
	}
	k := int64((now - m.lastTick) / meterTick)
	m.lastTick += time.Duration(k) * meterTick
	instant := float64(m.uncounted) / meterTick.Seconds()
	m.uncounted = 0
	if m.ticked {
		// The explicit conversion keeps the compiler from fusing the
		// multiply and add into one FMA (arm64 and others do; WASM never
		// does), so native and browser rates agree to the bit.
		m.rate += float64(oneMinuteAlpha * (instant - m.rate))
	} else {
		m.rate, m.ticked = instant, true
	}
	if k > 1 {
		m.rate *= math.Pow(1-oneMinuteAlpha, float64(k-1))
	}
}
