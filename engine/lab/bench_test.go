package lab

import (
	"fmt"
	"testing"
	"time"
)

// Command cost against output size (issue 10: `step 10000` built its
// output with string +=, quadratic in it). Each benchmark runs the same
// command at sizes ten times apart in the same run and reports its cost
// per output byte at each size and the ratio of the largest to the
// smallest: about 1 when the command is linear in its output, about the
// size ratio (10, 100) when it is quadratic. No assertion: timings are
// the reader's to judge, on a loaded machine too.

// measure runs line and returns its wall time and output size.
func measure(b *testing.B, l *Lab, line string) (time.Duration, int) {
	b.Helper()
	start := time.Now()
	out, err := l.Run(line)
	took := time.Since(start)
	if err != nil {
		b.Fatalf("%s: %v", line, err)
	}
	return took, len(out)
}

// reportPerByte reports ns per output byte for each size and the ratio of
// the last size's to the first's.
func reportPerByte(b *testing.B, sizes []int, took []time.Duration, bytes []int) {
	perByte := make([]float64, len(sizes))
	for i, n := range sizes {
		perByte[i] = float64(took[i].Nanoseconds()) / float64(bytes[i])
		b.ReportMetric(perByte[i], fmt.Sprintf("ns/byte@%d", n))
	}
	b.ReportMetric(perByte[len(sizes)-1]/perByte[0], fmt.Sprintf("perbyte-ratio-%d/%d", sizes[len(sizes)-1], sizes[0]))
}

// BenchmarkStepOutput: `step N` for N = 100, 1,000 and 10,000 (the most a
// command may step) on an idle 3-broker cluster.
func BenchmarkStepOutput(b *testing.B) {
	sizes := []int{100, 1000, MaxStepCount}
	l := setupLab(b)
	measureSizes(b, l, sizes, "step %d")
}

// BenchmarkShowLogOutput: `show log` of a partition holding 100, 1,000
// and 10,000 batches (one record each, as acks=all with linger.ms=0
// sends them one by one).
func BenchmarkShowLogOutput(b *testing.B) {
	sizes := []int{100, 1000, 10000}
	l := New()
	b.Cleanup(func() { l.Close() })
	mustRun(b, l, "cluster brokers=1 seed=1")
	for _, n := range sizes {
		mustRun(b, l, fmt.Sprintf("topic create t%d partitions=1 rf=1", n), fmt.Sprintf("produce t%d value=record-{i} count=%d interval=1ms", n, n))
	}
	measureSizes(b, l, sizes, "show log t%d/0")
}

// measureSizes runs the command format names for each size, b.N times,
// and reports its cost per output byte at each size.
func measureSizes(b *testing.B, l *Lab, sizes []int, format string) {
	took, bytes := make([]time.Duration, len(sizes)), make([]int, len(sizes))
	b.ResetTimer()
	for range b.N {
		for i, n := range sizes {
			d, size := measure(b, l, fmt.Sprintf(format, n))
			took[i] += d
			bytes[i] += size
		}
	}
	b.StopTimer()
	reportPerByte(b, sizes, took, bytes)
}
