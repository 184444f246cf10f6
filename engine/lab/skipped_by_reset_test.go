package lab

import (
	"testing"

	"github.com/loglab/loglab/engine/protocol"
)

// TestSkippedByReset: after retention deleted what a consumer had not
// read, auto.offset.reset=latest jumps over records the log still holds
// without a word to the application; the lab counts them so a lesson can
// show how many. earliest jumps over none, and a seek forgets the reset.
func TestSkippedByReset(t *testing.T) {
	l := New()
	defer l.Close()
	for _, cmd := range []string{
		"cluster brokers=1 seed=21",
		"topic create events segment.bytes=200 retention.ms=60000",
		"producer create one batch.size=0 linger.ms=0",
		"produce events key=k value=old-{i} count=6 producer=one",
		"tick 5m",
		"produce events key=k value=new-{i} count=3 producer=one",
		"consumer create skipper topics=events auto.offset.reset=latest",
		"consumer create rewinder topics=events auto.offset.reset=earliest",
		"seek skipper events/0 offset=2",
		"seek rewinder events/0 offset=2",
		"poll skipper",
		"poll rewinder",
	} {
		if _, err := l.Run(cmd); err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
	}
	tp := protocol.TopicPartition{Topic: "events", Partition: 0}
	// The log is [6, 9): offsets 2-5 expired unread, 6-8 are still there.
	if got := l.Cluster().Consumer("skipper").SkippedByReset(tp); got != 3 {
		t.Errorf("latest skipped %d records the log still held, want 3", got)
	}
	if got := l.Cluster().Consumer("rewinder").SkippedByReset(tp); got != 0 {
		t.Errorf("earliest skipped %d records the log still held, want 0", got)
	}
	if got := l.Cluster().Consumer("skipper").Position(tp); got != 9 {
		t.Errorf("skipper's position is %d, want the log end 9", got)
	}
}
