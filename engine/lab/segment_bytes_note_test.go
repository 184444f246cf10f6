package lab

import (
	"strings"
	"testing"
)

// A command that gives a topic segments Kafka 4.x would refuse (below
// 1 MiB, KIP-1030) says so once, in its own output; at or above the
// minimum, or without the setting, it says nothing.
func TestSegmentBytesBelowKafkasMinimumIsNoted(t *testing.T) {
	const note = "note: Kafka 4.x refuses segment.bytes"
	l := New()
	t.Cleanup(func() { l.Close() })
	run := func(line string) string {
		t.Helper()
		out, err := l.Run(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return out
	}
	for _, c := range []struct {
		line  string
		notes int
	}{
		{"cluster brokers=1 seed=3", 0},
		{"topic create plain", 0},
		{"topic create tiny segment.bytes=600 retention.ms=20000", 1},
		{"topic create edge segment.bytes=1048575", 1},
		{"topic create least segment.bytes=1048576", 0},
		{"topic create big segment.bytes=1073741824", 0},
		{"cluster brokers=1 seed=3 offsets.topic.segment.bytes=600", 1},
		{"cluster brokers=1 seed=3 offsets.topic.segment.bytes=1048576", 0},
	} {
		out := run(c.line)
		if got := strings.Count(out, note); got != c.notes {
			t.Errorf("%s: %d notes, want %d:\n%s", c.line, got, c.notes, out)
		}
		if c.notes == 1 && !strings.Contains(out, "below 1048576 (1 MiB, KIP-1030); the lab allows smaller segments") {
			t.Errorf("%s: the note does not name Kafka's minimum and why the lab differs:\n%s", c.line, out)
		}
	}
	// The cluster's note names where __consumer_offsets' segment.bytes
	// comes from: the broker setting itself has no such bound in Kafka.
	out := run("cluster brokers=1 seed=3 offsets.topic.segment.bytes=600")
	if !strings.Contains(out, "from offsets.topic.segment.bytes") {
		t.Errorf("the cluster's note does not name offsets.topic.segment.bytes:\n%s", out)
	}
}
