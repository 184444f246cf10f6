package client

import (
	"testing"

	"github.com/loglab/loglab/engine/sim"
)

// A member that rebalances all session long keeps only its newest
// maxRebalanceLog entries, so every view of it stays cheap, while
// rebalance-total still counts them all.
func TestRebalanceLogIsTrimmedButCountsEveryRebalance(t *testing.T) {
	sched := sim.NewScheduler(&sim.Clock{})
	cfg := DefaultConsumerConfig()
	cfg.GroupID = "g"
	c := NewConsumer("c1", cfg, []int32{1}, sim.NewNetwork(sched), sched, sim.NewRand(1), func(string) {})
	const n = maxRebalanceLog + 50
	for i := range n {
		c.group.startRebalance("test")
		c.group.endRebalance(int32(i+1), nil)
	}
	if got := len(c.RebalanceLog()); got != maxRebalanceLog {
		t.Fatalf("RebalanceLog holds %d entries, want the newest %d", got, maxRebalanceLog)
	}
	if last := c.RebalanceLog()[maxRebalanceLog-1].Generation; last != n {
		t.Fatalf("the newest entry is generation %d, want %d", last, n)
	}
	if m := c.Metrics(); m.RebalanceTotal != n {
		t.Fatalf("rebalance-total = %d, want %d", m.RebalanceTotal, n)
	}
}
