package main

import (
	"fmt"
	"testing"

	"github.com/loglab/loglab/web"
)

// BenchmarkPlayStepDrawing is TestBudgets' frame measure's cluster (3
// brokers, a topic of 12 partitions, 120 records) playing, natively: each
// iteration a keyed produce of 12 records and a 200 ms tick, each drawn
// as the browser lab draws it. "cached" keeps the session's RenderCache,
// "uncached" draws every fragment each time.
func BenchmarkPlayStepDrawing(b *testing.B) {
	for _, cached := range []bool{true, false} {
		name := map[bool]string{true: "cached", false: "uncached"}[cached]
		b.Run(name, func(b *testing.B) {
			s := newSession()
			s.pace = func() func() { return func() {} }
			s.lab = s.newLab()
			b.Cleanup(func() { s.lab.Close() })
			for _, c := range []string{"cluster brokers=3 seed=7", "topic create bench partitions=12 rf=3", "produce bench key=k{i} value=v{i} count=120"} {
				s.run(c)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if !cached {
					s.drawn = web.RenderCache{}
				}
				s.run(fmt.Sprintf("produce bench key=k{i} value=s%d-{i} count=12", i))
				s.run("tick 200ms")
			}
		})
	}
}
