package lab

import (
	"errors"
	"reflect"
	"strings"
	"testing"
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

// Every bad command must fail with a message naming the problem and, when
// the command was recognised, its usage; and must leave the cluster as it was.
func TestBadCommandsChangeNothing(t *testing.T) {
	cases := []struct{ line, mentions string }{
		{"frobnicate", `unknown command "frobnicate"`},
		{"show", "show takes one of: log, isr, segments"},
		{"topic delete orders", "topic takes one of: create"},
		{"cluster brokers=0", "brokers=0 is out of range"},
		{"cluster brokers=three", "brokers=three is not a whole number"},
		{"cluster brokers=3 brokers=4", "option brokers is given twice"},
		{"topic create", "missing topic name"},
		{"topic create orders", "TOPIC_ALREADY_EXISTS"},
		{"topic create ../etc partitions=1", "INVALID_TOPIC_EXCEPTION"},
		{"topic create big partitions=1000", "partitions=1000 is out of range"},
		{"topic create wide rf=4", "INVALID_REPLICATION_FACTOR"},
		{"topic create x partitions=2 extra", `"extra" must come before the name=value options`},
		{"topic create x y", `expected one topic name, got "x y"`},
		{"produce orders", "missing value="},
		{"produce orders value=1 tombstone=true", "not both"},
		{"producer create px compression.type=brotli", "brotli"},
		{"producer create px acks=2", "acks=2"},
		{"producer create px enable.idempotence=true", "not modelled yet"},
		{"consumer create cx", "missing topics= or assign="},
		{"consumer create cx topics=nope", "UNKNOWN_TOPIC_OR_PARTITION"},
		{"poll nobody", `no consumer "nobody"`},
		{"broker crash 7", "no broker 7"},
		{"broker restart 1", "broker 1 is running"},
		{"net partition (1)", "at least two groups"},
		{"net partition (1,2) (2)", "in two groups"},
		{"net drop from=zz", `no node "zz"`},
		{"show log orders/0 broker=9", "holds no replica"},
		{"topic create t segment.bytes=10", "INVALID_CONFIG"},
		{"topic create t cleanup.policy=forever", "INVALID_CONFIG"},
		{"topic create t retention.msec=5", "unknown topic config retention.msec"},
		{"topic create t min.insync.replicas=zero", "INVALID_CONFIG"},
		{"show segments orders", "is not TOPIC/PARTITION"},
		{"cluster log.cleaner.backoff.ms=0", "log.cleaner.backoff.ms=0"},
		{"produce nope value=1", "UNKNOWN_TOPIC_OR_PARTITION"},
		{"produce orders value=1 partition=3", "UNKNOWN_TOPIC_OR_PARTITION"},
		{"produce orders value=1 kye=a", "unknown option kye"},
		{`produce orders value="unterminated`, "unterminated quote"},
		{"produce orders value=1 count=0", "count=0 is out of range"},
		{"show log orders", "is not TOPIC/PARTITION"},
		{"show log orders/9", "UNKNOWN_TOPIC_OR_PARTITION"},
		{"show log orders/0 from=5", "OFFSET_OUT_OF_RANGE"},
		{"tick", "missing duration"},
		{"tick soon", "is not a duration"},
		{"tick -5s", "cannot move the clock backwards"},
		{"help nothing", `no command "nothing"`},
	}
	for _, c := range cases {
		l := setupLab(t)
		before := l.View()
		out, err := l.Run(c.line)
		if err == nil {
			t.Errorf("%q succeeded with %q, want an error", c.line, out)
			continue
		}
		if !strings.Contains(err.Error(), c.mentions) {
			t.Errorf("%q: error %q does not mention %q", c.line, err, c.mentions)
		}
		var ce *CommandError
		if !errors.As(err, &ce) {
			t.Errorf("%q: error is a %T, want *CommandError", c.line, err)
		} else if ce.Command != "" && !strings.Contains(err.Error(), "usage: "+ce.Usage) {
			t.Errorf("%q: error %q does not show the usage", c.line, err)
		}
		if after := l.View(); !reflect.DeepEqual(before, after) {
			t.Errorf("%q failed but changed the cluster:\nbefore %+v\nafter  %+v", c.line, before, after)
		}
	}
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
		before := l.View()
		if _, err := l.Run(line); err != nil && !reflect.DeepEqual(before, l.View()) {
			t.Fatalf("%q failed (%v) but changed the cluster", line, err)
		}
	})
}
