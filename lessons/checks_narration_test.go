package lessons

import "testing"

// TestNarrationChecks runs the checks narration quotes on lesson 1's log,
// whose transcript (`show segments`, `show log`) prints the same values:
// three 76-byte batches (signup-0..2) and twelve of 75 or 76 bytes rolled
// at 600 bytes into segments 0-6 (528 bytes), 7-13 (526) and 14.
func TestNarrationChecks(t *testing.T) {
	p := NewPlayer()
	defer p.Close()
	for _, c := range []string{
		"cluster brokers=1 seed=3",
		"topic create events segment.bytes=600 index.interval.bytes=150",
		"producer create app",
		"producer create plain enable.idempotence=false",
		"tick 200ms",
		"produce events value=signup-{i} count=3 interval=10ms producer=app",
		"produce events value=click-{i} count=12 interval=10ms producer=app",
		"produce events value=plain producer=plain",
	} {
		if out := p.Run(c); len(out) > 6 && out[:6] == "error:" {
			t.Fatalf("%s: %s", c, out)
		}
	}
	cases := []struct {
		check string
		args  []string
		want  string
	}{
		{"segment-bytes", []string{"events/0", "1", "0"}, "528"},
		{"segment-bytes", []string{"events/0", "1", "7"}, "526"},
		{"segment-bytes-with-next", []string{"events/0", "1", "0"}, "603"}, // 528 + click-4's 75: past 600, so it rolled
		{"segment-bytes-with-next", []string{"events/0", "1", "7"}, "602"}, // 526 + click-11's 76
		{"clean-bytes", []string{"events/0"}, "0"},                         // never cleaned: all dirty
		{"dirty-bytes", []string{"events/0"}, "1054"},
		{"dirty-ratio", []string{"events/0"}, "1.00"},
		{"index-entries", []string{"events/0", "1", "0"}, "2,4"},
		{"index-entries", []string{"events/0", "1", "7"}, "10,13"},
		{"batch-bytes", []string{"events/0", "0"}, "76"},  // signup-0
		{"batch-bytes", []string{"events/0", "7"}, "75"},  // click-4
		{"batch-bytes", []string{"events/0", "13"}, "76"}, // click-10
		{"batch-field", []string{"events/0", "5", "baseOffset"}, "5"},
		{"batch-field", []string{"events/0", "5", "producerId"}, "0"},
		{"batch-field", []string{"events/0", "5", "producerEpoch"}, "0"},
		{"batch-field", []string{"events/0", "5", "baseSequence"}, "5"}, // app's sixth record on events/0
		{"batch-field", []string{"events/0", "5", "recordCount"}, "1"},
		{"batch-field", []string{"events/0", "15", "producerId"}, "-1"}, // without idempotence
		{"batch-field", []string{"events/0", "15", "baseSequence"}, "-1"},
		{"offset-of", []string{"events/0", "0", "click-0"}, "3"},
		{"offset-of", []string{"events/0", "1", "plain"}, "15"},
		{"offset-of", []string{"events/0", "1", "nothing"}, "none"},
		{"producer-id", []string{"app"}, "0"},
		{"producer-epoch", []string{"app"}, "0"},
		{"producer-id", []string{"plain"}, "none"},
	}
	for _, c := range cases {
		if got, err := p.Evaluate(c.check, c.args); err != nil || got != c.want {
			t.Errorf("%s %v = %q (err %v), want %q", c.check, c.args, got, err, c.want)
		}
	}
	for _, bad := range [][]string{
		{"segment-bytes", "events/0", "1", "3"}, {"segment-bytes", "events/0", "1"},
		{"index-entries", "events/0", "2", "0"}, {"batch-bytes", "events/0", "99"},
		{"batch-field", "events/0", "0", "crc"}, {"offset-of", "events/0", "x", "plain"},
		{"producer-id", "nobody"}, {"segment-bytes-with-next", "events/0", "1", "15"},
	} {
		if got, err := p.Evaluate(bad[0], bad[1:]); err == nil {
			t.Errorf("%v: no error (got %q)", bad, got)
		}
	}
}
