package view

import "testing"

func TestWithDeltas(t *testing.T) {
	before := []KafkaMetric{
		{Name: "UnderReplicatedPartitions", Value: 0},
		{Name: "records-lag-max", Client: "c1", NaN: true},
		{Name: "IsrShrinksPerSec", Value: 2},
	}
	now := []KafkaMetric{
		{Name: "UnderReplicatedPartitions", Value: 1},
		{Name: "records-lag-max", Client: "c1", Value: 5},
		{Name: "IsrShrinksPerSec", Value: 2},
		{Name: "request-latency-avg", Client: "p1", Value: 3},
	}
	got := WithDeltas(now, before)
	want := []struct {
		delta float64
		has   bool
	}{{1, true}, {0, false}, {0, true}, {0, false}}
	for i, w := range want {
		if got[i].Delta != w.delta || got[i].HasDelta != w.has {
			t.Errorf("%s: delta %v (has %v), want %v (has %v)", got[i].Key(), got[i].Delta, got[i].HasDelta, w.delta, w.has)
		}
	}
}
