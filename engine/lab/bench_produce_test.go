package lab

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// BenchmarkProduceReplicated: the engine's produce path, through the lab,
// as issue 15 measured it: `produce t key=k{i} value=v{i} count=N` on 3
// brokers, rf=3, at N = 20,000 and 100,000 in the same run, each into a
// fresh cluster. It reports replicated records per wall second at each N
// and the ratio of the cost per record at the larger N to the smaller:
// about 1 when the produce path is linear in N, about 5 when it is
// quadratic. The lab's per-command and per-cluster limits are lifted (they
// bound a learner's command, not the engine). No assertion: timings are
// the reader's to judge.
//
// Measured on a shared 2-core machine, -benchtime 2x (records/s at 20k /
// 100k, per-record ratio): natively 67,981 / 16,549 (4.1) before the
// fixes, 126,966-144,058 / 78,783-88,417 (1.6) after; under node (WASM)
// 12,564 / 4,611 (2.7) before, 13,616 / 18,580 (0.7: the first size also
// pays the warm-up) after.
func BenchmarkProduceReplicated(b *testing.B) {
	sizes := []int{20_000, 100_000}
	took, cpu := make([]time.Duration, len(sizes)), make([]time.Duration, len(sizes))
	// A small produce first, not measured: under node the first calls run
	// in V8's baseline tier while the optimizing compiler works on the
	// module in the background, which the first size paid for alone.
	warm := New()
	mustRun(b, warm, "cluster brokers=3 seed=1", "topic create t partitions=1 rf=3", "produce t key=k{i} value=v{i} count=5000")
	warm.Close()
	b.ResetTimer()
	for range b.N {
		for i, n := range sizes {
			l := New()
			l.limits.recordsPerProduce = n
			l.limits.bytesPerProduce = math.MaxInt64
			l.limits.bytesPerCluster = math.MaxInt64
			l.limits.eventsPerCommand = math.MaxInt64
			l.limits.replayEvents, l.limits.replayBytes = 0, 0
			mustRun(b, l, "cluster brokers=3 seed=1", "topic create t partitions=1 rf=3")
			c := cpuTime()
			d, _ := measure(b, l, fmt.Sprintf("produce t key=k{i} value=v{i} count=%d", n))
			took[i] += d
			cpu[i] += cpuTime() - c
			l.Close()
		}
	}
	perRecord := make([]float64, len(sizes))
	for i, n := range sizes {
		perRecord[i] = float64(took[i].Nanoseconds()) / float64(n*b.N)
		b.ReportMetric(1e9/perRecord[i], fmt.Sprintf("records/s@%d", n))
		if cpu[i] > 0 {
			b.ReportMetric(float64(n*b.N)/cpu[i].Seconds(), fmt.Sprintf("records/cpu-s@%d", n))
		}
	}
	b.ReportMetric(perRecord[len(sizes)-1]/perRecord[0], fmt.Sprintf("perrecord-ratio-%d/%d", sizes[len(sizes)-1], sizes[0]))
}
