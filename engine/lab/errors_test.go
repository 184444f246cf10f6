package lab

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

func setupLab(t testing.TB) *Lab {
	t.Helper()
	l := New()
	t.Cleanup(func() { l.Close() })
	for _, line := range []string{"cluster brokers=3 seed=42", "topic create orders partitions=3 rf=3", "produce orders key=a value=1"} {
		if _, err := l.Run(line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	return l
}

// Every bad command must fail with a message naming the problem and leave
// the cluster as it was. A misuse (bad syntax, an unknown option, a bad
// value) shows the command's usage; a Kafka outcome (the command was fine
// and Kafka answered with an error code) does not, as the usage would
// suggest the learner typed it wrong.
func TestBadCommandsChangeNothing(t *testing.T) {
	const (
		misuse  = false
		outcome = true
	)
	cases := []struct {
		line, mentions string
		outcome        bool
	}{
		{"frobnicate", `unknown command "frobnicate" (help lists every command)`, misuse},
		{"prodcue orders value=1", `unknown command "prodcue"; did you mean "produce"? (help lists every command)`, misuse},
		{"shwo log orders/0", `unknown command "shwo"; did you mean "show log"?`, misuse},
		{"show", "show takes one of: log, isr, segments", misuse},
		{"show lgo orders/0", `show takes one of: log, isr, segments, batch, lookup, metadata, brokers, quorum, network, group, rebalances, producers, txn, side-effects (got "lgo"); did you mean "show log"?`, misuse},
		{"topic delete orders", "topic takes one of: create", misuse},
		{"cluster brokers=0", "brokers=0 is out of range", misuse},
		{"cluster brokers=three", "brokers=three is not a whole number", misuse},
		{"cluster brokers=3 brokers=4", "option brokers is given twice", misuse},
		{"topic create", "missing topic name", misuse},
		{"topic create orders", "TOPIC_ALREADY_EXISTS", outcome},
		{"topic create ../etc partitions=1", "INVALID_TOPIC_EXCEPTION", outcome},
		{"topic create big partitions=1000", "partitions=1000 is out of range", misuse},
		{"topic create wide rf=4", "INVALID_REPLICATION_FACTOR", outcome},
		{"topic create x partitions=2 extra", `"extra" must come before the name=value options`, misuse},
		{"topic create x y", `expected one topic name, got "x y"`, misuse},
		{"produce orders", "missing value=", misuse},
		{"produce orders value=1 tombstone=true", "not both", misuse},
		{"producer create px compression.type=brotli", "compression.type=brotli is not one of: none, gzip, snappy, lz4, zstd", misuse},
		{"producer create px acks=2", "acks=2", misuse},
		{"producer create px enable.idempotence=true acks=1", "Must set acks to all in order to use the idempotent producer", misuse},
		{"producer create px transactional.id=t enable.idempotence=false", "Cannot set a transactional.id without also enabling idempotence", misuse},
		{"producer create px transactional.id=", "transactional.id must not be empty", misuse},
		{"consumer create cx", "missing topics= or assign=", misuse},
		{"consumer create cx topics=nope", "UNKNOWN_TOPIC_OR_PARTITION", outcome},
		{"poll nobody", `no consumer "nobody"`, misuse},
		{"broker crash 7", "no broker 7", misuse},
		{"broker crash 1 power=yes", "power=yes must be true or false", misuse},
		{"broker restart 1", "broker 1 is running", misuse},
		{"net partition (1)", "at least two groups", misuse},
		{"net partition (1,2) (2)", "in two groups", misuse},
		{"net drop from=zz", `no node "zz"`, misuse},
		{"net drop type=Bogus", "type=Bogus is not one of: Produce, ProduceResponse, Fetch, FetchResponse, Metadata", misuse},
		{"show log orders/0 broker=9", "holds no replica", outcome},
		{"topic create t segment.bytes=10", "INVALID_CONFIG", outcome},
		{"topic create t cleanup.policy=forever", "INVALID_CONFIG: cleanup.policy=forever: must be delete, compact or compact,delete", outcome},
		{"topic create t retention.msec=5", "unknown topic config retention.msec", outcome},
		{"topic create t min.insync.replicas=zero", "INVALID_CONFIG", outcome},
		{"show segments orders", "is not TOPIC/PARTITION", misuse},
		{"cluster log.cleaner.backoff.ms=0", "log.cleaner.backoff.ms=0", misuse},
		{"produce nope value=1", "UNKNOWN_TOPIC_OR_PARTITION", outcome},
		{"produce orders value=1 partition=3", "UNKNOWN_TOPIC_OR_PARTITION", outcome},
		{"produce orders value=1 kye=a", "unknown option kye", misuse},
		{`produce orders value="unterminated`, "unterminated quote", misuse},
		{"produce orders value=1 count=0", "count=0 is out of range", misuse},
		{"show log orders", "is not TOPIC/PARTITION", misuse},
		{"show log orders/9", "UNKNOWN_TOPIC_OR_PARTITION", outcome},
		{"show log orders/0 from=5", "OFFSET_OUT_OF_RANGE", outcome},
		{"tick", "missing duration", misuse},
		{"tick soon", "is not a duration", misuse},
		{"tick -5s", `duration "-5s" is negative`, misuse},
		// Issue 10: durations and counts that overflow or are negative are
		// refused up front, naming the value and the limit, and the clock
		// does not move.
		{"tick 2562047h47m16.854775807s", `duration "2562047h47m16.854775807s" is past the virtual clock's maximum of 100 years (876000h0m0s)`, misuse},
		{"tick -4758660480865194781", `duration "-4758660480865194781" is negative`, misuse},
		{"tick -1s", `duration "-1s" is negative`, misuse},
		{"tick 9223372036854775807", `duration "9223372036854775807" is past the virtual clock's maximum of 100 years`, misuse},
		{"tick 876000h1ms", `duration "876000h1ms" is past the virtual clock's maximum of 100 years`, misuse},
		{"tick 200y", `"200y" is not a duration`, misuse},
		{"step abc", `step count "abc" is not a whole number`, misuse},
		{"step 99999999999999999999", `step count 99999999999999999999 is out of range: it must be between 1 and 10000`, misuse},
		{"step -1", `step count -1 is out of range`, misuse},
		{"poll nobody timeout=-1s", `timeout=-1s: duration "-1s" is negative`, misuse},
		{"poll nobody timeout=2562047h", `timeout=2562047h: duration "2562047h" is past the virtual clock's maximum`, misuse},
		{"poll nobody max=-1", "max=-1 is out of range", misuse},
		{"poll nobody timeout=876000h", "timeout=876000h0m0s: cannot move the clock by 876000h0m0s: time is 2.133s and the virtual clock stops at its maximum of 100 years", misuse},
		{"produce orders value=1 count=3 interval=438000h", "count=3 interval=438000h0m0s would take virtual time past its maximum of 100 years", misuse},
		{"tick 876000h", "cannot move the clock by 876000h0m0s: time is 2.133s and the virtual clock stops at its maximum of 100 years (876000h0m0s)", misuse},
		{"net delay from=1 to=2 latency=-1ms", `latency=-1ms: duration "-1ms" is negative`, misuse},
		{"net delay from=1 to=2 latency=900000h", `latency=900000h: duration "900000h" is past the virtual clock's maximum`, misuse},
		{"net drop count=-1", "count=-1 is out of range", misuse},
		{"produce orders value=1 interval=-1s", `interval=-1s: duration "-1s" is negative`, misuse},
		{"produce orders value=1 count=99999999999999999999", "count=99999999999999999999 is out of range", misuse},
		{"producer create px request.timeout.ms=9223372036854775807", "request.timeout.ms=9223372036854775807 is past the virtual clock's maximum of 100 years", misuse},
		{"producer create px linger.ms=-1", "linger.ms=-1 must be a whole number of milliseconds", misuse},
		{"help nothing", `no command "nothing" (help lists every command)`, misuse},
		{"help prodcue", `no command "prodcue"; did you mean "produce"?`, misuse},
	}
	for _, c := range cases {
		l := setupLab(t)
		before := commandState(l)
		out, err := l.Run(c.line)
		if err == nil {
			t.Errorf("%q succeeded with %q, want an error", c.line, out)
			continue
		}
		if !strings.Contains(err.Error(), c.mentions) {
			t.Errorf("%q: error %q does not mention %q", c.line, err, c.mentions)
		}
		if strings.Contains(err.Error(), "commands are:") {
			t.Errorf("%q: error %q lists every command", c.line, err)
		}
		var ce *CommandError
		if !errors.As(err, &ce) {
			t.Errorf("%q: error is a %T, want *CommandError", c.line, err)
		} else {
			showsUsage := strings.Contains(err.Error(), "\nusage: ")
			switch {
			case ce.Outcome != c.outcome:
				t.Errorf("%q: Outcome = %v, want %v (error %q)", c.line, ce.Outcome, c.outcome, err)
			case c.outcome && showsUsage:
				t.Errorf("%q: a Kafka outcome shows the usage, as if the command were misused: %q", c.line, err)
			case !c.outcome && ce.Command != "" && !strings.Contains(err.Error(), "usage: "+ce.Usage):
				t.Errorf("%q: error %q does not show the usage", c.line, err)
			}
		}
		if after := commandState(l); !reflect.DeepEqual(before, after) {
			t.Errorf("%q failed but changed the cluster:\nbefore %+v\nafter  %+v", c.line, before, after)
		}
	}
}

// commandState is the part of the view a command can change. The raft
// quorum under the controllers runs on real time, so on a loaded machine
// (or under WASM) its terms, indexes and leader can move between two views
// whatever the command did; what it commits shows in the metadata records.
func commandState(l *Lab) view.Cluster {
	v := l.View()
	v.Quorum, v.ActiveController = nil, 0
	return v
}

func TestCommandsBeforeAClusterExplainWhatToDo(t *testing.T) {
	for _, line := range []string{"topic create t", "produce t value=1", "show log t/0", "tick 1s"} {
		_, err := New().Run(line)
		if err == nil || !strings.Contains(err.Error(), "cluster brokers=3") {
			t.Errorf("%q without a cluster: error %v, want a hint to run `cluster`", line, err)
		}
	}
}

// FuzzRun feeds arbitrary command lines to a lab with data in it: nothing
// may panic, and a failed command must not change the cluster.
func FuzzRun(f *testing.F) {
	for _, seed := range []string{"produce orders key=a value=b count=3", "show log orders/0 from=0", `produce orders value="a \" b"`, "tick 1h", "topic create x partitions=2", "help show log"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		l := setupLab(t)
		before := commandState(l)
		if _, err := l.Run(line); err != nil && !reflect.DeepEqual(before, commandState(l)) {
			t.Fatalf("%q failed (%v) but changed the cluster", line, err)
		}
	})
}
