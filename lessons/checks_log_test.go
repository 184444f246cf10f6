package lessons

import "testing"

// TestLogChecks runs the log checks on a lab driven into a known state:
// keys spread by murmur2 over three partitions, orders/2 with one record
// per batch (batch.size=0) rolled into two 300-byte segments, then a gzip
// batch of four records, replicated to broker 2; a consumer that read
// orders/1.
func TestLogChecks(t *testing.T) {
	p := NewPlayer()
	defer p.Close()
	for _, c := range []string{
		"cluster brokers=3 seed=42",
		"topic create orders partitions=3 rf=2 segment.bytes=300 index.interval.bytes=100",
		"produce orders key=order-1 value=created", // murmur2: orders/1
		"produce orders key=order-1 value=paid",
		"produce orders key=order-2 value=created", // orders/0
		"producer create one linger.ms=0 batch.size=0",
		"produce orders key=k value=v{i} count=5 partition=2 producer=one", // offsets 0-4, one batch each
		"producer create zipped compression.type=gzip",
		"produce orders key=k value=zipped-{i} count=4 partition=2 producer=zipped", // offsets 5-8, one batch
		"tick 1s", // broker 2 replicates orders/2
		"consumer create c assign=orders/1 auto.offset.reset=earliest",
		"poll c",
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
		{"log-end", []string{"orders/1"}, "2"},
		{"log-end", []string{"orders/2"}, "9"},
		// 284 bytes hold offsets 0-3; the fifth batch rolled a segment.
		{"segments", []string{"orders/2", "1"}, "2"},
		{"segments", []string{"orders/2", "2"}, "2"}, // the follower rolls where the leader did
		// The index of segment 0 has one entry, for offset 2 (after 142 bytes > 100).
		{"lookup-start", []string{"orders/2", "3"}, "2"},
		{"lookup-start", []string{"orders/2", "1"}, "0"}, // no entry at or below 1: the segment's start
		{"lookup-start", []string{"orders/2", "6"}, "4"}, // segment 4 has no entry yet
		{"holds-offset", []string{"orders/2", "0"}, "yes"},
		{"holds-offset", []string{"orders/2", "9"}, "no"}, // the log end offset is not a record yet
		{"position", []string{"c", "orders/1"}, "2"},
		{"partition-of", []string{"orders", "order-1"}, "1"},
		{"partition-of", []string{"orders", "order-2"}, "0"},
		{"partition-of", []string{"orders", "k"}, "2"},
		{"partition-of", []string{"orders", "nobody"}, "none"},
		{"partition-of", []string{"orders", "null"}, "none"}, // every record here has a key
		{"partitions-holding", []string{"orders", "order-1"}, "1"},
		{"partitions-holding", []string{"orders", "null"}, "0"},
		{"batch-records", []string{"orders/2", "4"}, "1"},
		{"batch-records", []string{"orders/2", "6"}, "4"},
		{"last-batch-records", []string{"orders/2"}, "4"},
		{"last-batch-records", []string{"orders/0"}, "1"},
		{"batch-compression", []string{"orders/2", "0", "1"}, "none"},
		{"batch-compression", []string{"orders/2", "6", "1"}, "gzip"},
		{"batch-compression", []string{"orders/2", "6", "2"}, "gzip"}, // the follower copied the producer's bytes
	}
	for _, c := range cases {
		if got, err := p.Evaluate(c.check, c.args); err != nil || got != c.want {
			t.Errorf("%s %v = %q (err %v), want %q", c.check, c.args, got, err, c.want)
		}
	}
	for _, bad := range [][]string{
		{"log-end", "orders"}, {"segments", "orders/2", "3"}, {"segments", "orders/2"},
		{"lookup-start", "orders/2", "9"}, {"holds-offset", "orders/2", "-1"},
		{"position", "c", "orders/0"}, {"position", "nobody", "orders/1"},
		{"partition-of", "nope", "k"}, {"partitions-holding", "orders"}, {"batch-records", "orders/9", "0"},
		{"batch-compression", "orders/2", "6"},
	} {
		if got, err := p.Evaluate(bad[0], bad[1:]); err == nil {
			t.Errorf("%v: no error (got %q)", bad, got)
		}
	}
}
