package lab

import "testing"

// A driver that keeps every segment's files open asks how many segments
// a produce may roll before running it: a single produce of 10,000
// records on a topic with segment.bytes at its minimum rolls one per
// record on every replica.
func TestSegmentsAProduceMayRoll(t *testing.T) {
	l := New()
	t.Cleanup(func() { l.Close() })
	if got := l.SegmentsAProduceMayRoll("produce orders value=x count=10000"); got != 0 {
		t.Fatalf("with no cluster: %d, want 0", got)
	}
	runAll(t, l, "cluster brokers=3 seed=7",
		"topic create big partitions=2 rf=3",
		"topic create tiny partitions=2 rf=3 segment.bytes=61",
		"topic create small partitions=1 rf=2 segment.bytes=100000")
	for _, c := range []struct {
		line string
		want int
	}{
		{"produce big value=x count=10000", 0},                // 810,000 bytes: within one 1 GiB segment
		{"produce tiny value=x", 3},                           // one record past segment.bytes: a roll on each of 3 replicas
		{"produce tiny value=x count=2", 2 * 3},               // 162 bytes past 61: a segment a record, on 3 replicas
		{"produce tiny key=k value=x count=10000", 10000 * 3}, // bounded by the records, not the bytes
		{"produce small value={i}-xxxxxxxxxxxxxxxxxxxxxxx count=10000", (10000*80+10000*24+38890)/100000*2 + 2},
		{"produce nosuch value=x count=100", 0},
		{"produce tiny value=x count=abc", 0},
		{"produce tiny value=x count=20000", 0}, // the lab refuses it: past the records per produce
		{"topic describe tiny", 0},
		{"produce tiny value=\"unterminated count=5", 0},
	} {
		if got := l.SegmentsAProduceMayRoll(c.line); got != c.want {
			t.Errorf("%s: %d, want %d", c.line, got, c.want)
		}
	}
}
