package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/storage"
)

// labState is everything a command can change, as comparable text: the
// view (without the raft quorum, which runs on real time, see
// commandState), the virtual clock to the nanosecond, and every
// consumer's position in every partition it is assigned.
func labState(t testing.TB, l *Lab) string {
	t.Helper()
	v, err := json.Marshal(commandState(l))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(v)
	if c := l.Cluster(); c != nil {
		fmt.Fprintf(&b, "\nclock %d", c.Elapsed())
		for _, co := range c.Consumers() {
			for _, tp := range co.Assignment() {
				fmt.Fprintf(&b, "\n%s %s/%d at %d", co.ID, tp.Topic, tp.Partition, co.Position(tp))
			}
		}
		fmt.Fprintf(&b, "\nproducers %d consumers %d acked %d", len(c.Producers()), len(c.Consumers()), len(c.Acked()))
	}
	return b.String()
}

// mustRun runs lines that must succeed.
func mustRun(t testing.TB, l *Lab, lines ...string) {
	t.Helper()
	for _, line := range lines {
		if _, err := l.Run(line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
}

// refused runs a line that must fail as a misuse or limit (not a Kafka
// outcome), mentioning each of mentions, and change nothing.
func refused(t *testing.T, l *Lab, line string, mentions ...string) {
	t.Helper()
	before := labState(t, l)
	out, err := l.Run(line)
	if err == nil {
		t.Fatalf("%.200q succeeded with %.300q, want it refused", line, out)
	}
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Outcome {
		t.Errorf("%.200q: error %.500v is not a refusal (outcome %v)", line, err, ce != nil && ce.Outcome)
	}
	for _, m := range mentions {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("%.200q: error %.500q does not mention %q", line, err, m)
		}
	}
	if after := labState(t, l); after != before {
		t.Errorf("%.200q was refused but changed the lab:\nbefore %.3000s\nafter  %.3000s", line, before, after)
	}
}

// Issue 10: `tick 1000h` ran two million events, then failed with the
// clock moved. It is refused before anything runs, naming the limit and
// what would fit, from the rate the cluster measured.
func TestLongTickIsRefusedUpFront(t *testing.T) {
	nativeOnly(t, "it then runs the longest tick the limit allows, about 2,000,000 events: 26 s under node")
	l := setupLab(t)
	mustRun(t, l, "tick 1h")
	refused(t, l, "tick 1000h", "tick 1000h0m0s would run about", "per virtual second lately", "the limit is 2,000,000 events per command: tick at most ", "h at a time")
	// A poll's wait and a paced produce are estimated the same way.
	mustRun(t, l, "consumer create c topics=orders")
	refused(t, l, "poll c timeout=1000h", "timeout=1000h0m0s would run about", "the limit is 2,000,000 events per command: poll with timeout= at most ")
	refused(t, l, "produce orders value=v count=1000 interval=1h", "count=1000 interval=1h0m0s would run about", "the limit is 2,000,000 events per command: send at most ")
	// What it says fits, fits.
	_, err := l.Run("tick 1000h")
	fit := err.Error()[strings.Index(err.Error(), "tick at most ")+len("tick at most "):]
	fit = fit[:strings.Index(fit, " ")]
	mustRun(t, l, "tick "+fit)
}

// Issue 10: `check invariants always=true` then `tick 1000h` froze a
// server for 30 s: each event also ran the checker. Its walk counts.
func TestCheckerAfterEveryEventCountsTowardTheBudget(t *testing.T) {
	nativeOnly(t, "five hours of virtual time with the checker after every event: 8 s under node")
	l := setupLab(t)
	mustRun(t, l, "tick 1h", "check invariants always=true")
	// Five hours fit without the checker (about 90 events a second, the
	// KRaft quorum's fetches included)...
	refused(t, l, "tick 5h", "each weighing", "check invariants always=true", "the limit is 2,000,000 events per command")
	refused(t, l, "tick 1000h", "each weighing")
	mustRun(t, l, "check invariants always=false", "tick 5h")
}

// Issue 10: `produce orders value=<3.9 KB> count=20000` raised the
// server's memory from 21 MB to 965 MB. Records and bytes per produce and
// bytes per cluster are refused up front, and a refused produce does not
// even create the console producer.
func TestProduceLimitsAreRefusedUpFront(t *testing.T) {
	l := New()
	t.Cleanup(func() { l.Close() })
	mustRun(t, l, "cluster brokers=3 seed=42", "topic create orders partitions=3 rf=3")
	big := strings.Repeat("x", 3900)
	refused(t, l, "produce orders value="+big+" count=20000", "count=20000 is past the limit of 10,000 records per produce command")
	refused(t, l, "produce orders value=v count=10001", "past the limit of 10,000 records per produce command")
	refused(t, l, "produce orders value="+big+" count=2000", "are 7,800,000 bytes, past the limit of 1,048,576 bytes per produce command")
	refused(t, l, "produce orders key=k{i} value="+strings.Repeat("y", 100)+"{i} count=10000", "past the limit of 1,048,576 bytes per produce command")
	refused(t, l, "produce orders value=1 producer=nobody", `no producer "nobody"`)
	if len(l.Cluster().Producers()) != 0 {
		t.Fatalf("refused produces created producers: %d", len(l.Cluster().Producers()))
	}
	// The cluster's bytes count every replica: with a limit of 1 MB, about
	// 300 KB of records at rf=3 fill it.
	l.limits.bytesPerCluster = 1 << 20
	mustRun(t, l, "produce orders value="+big+" count=80")
	refused(t, l, "produce orders value="+big+" count=80", "the cluster holds ", "past the limit of 1,048,576 bytes per cluster")
}

func TestExpandedBytesCountsTheIndexDigits(t *testing.T) {
	for _, c := range []struct {
		s     string
		count int
	}{{"v", 1}, {"v{i}", 1}, {"v{i}", 10}, {"v{i}", 11}, {"{i}{i}", 101}, {"a{i}b", 12345}, {"", 5}} {
		want := 0
		for i := range c.count {
			want += len(expandIndex(c.s, i))
		}
		if got := expandedBytes(c.s, c.count); got != int64(want) {
			t.Errorf("expandedBytes(%q, %d) = %d, want %d", c.s, c.count, got, want)
		}
	}
}

// A burst the up-front estimate could not foresee (a produce's records
// are not estimated) runs past the budget midway: the lab undoes it by
// replaying its commands, so the lab is as it was, and what follows prints
// what it prints in a lab that never ran it.
func TestABudgetRunOutIsUndoneByReplay(t *testing.T) {
	// With broker 2 just crashed, the producer retries until the
	// controller moves its leaderships: hundreds of events the estimate
	// does not foresee, where every command of the script runs under 50.
	script := []string{"cluster brokers=3 seed=42", "topic create orders partitions=3 rf=3", "consumer create c topics=orders auto.offset.reset=earliest",
		"produce orders key=a value=1 count=5", "poll c", "tick 100ms", "broker crash 2"}
	after := []string{"tick 2s", "produce orders key=b value=2", "poll c", "show log orders/0", "show isr orders/1"}
	l, twin := New(), New()
	t.Cleanup(func() { l.Close(); twin.Close() })
	l.limits.eventsPerCommand, twin.limits.eventsPerCommand = 300, 300
	mustRun(t, l, script...)
	mustRun(t, twin, script...)

	before := labState(t, l)
	_, err := l.Run("produce orders key=k{i} value=v{i} count=200")
	if err == nil || !strings.Contains(err.Error(), "past the limit of 300 events per command") || !strings.Contains(err.Error(), "the command was undone (the lab replayed its 7 commands since `cluster`) and time is") {
		t.Fatalf("produce: %v, want it undone past the limit", err)
	}
	if got := labState(t, l); got != before {
		t.Fatalf("undone produce changed the lab:\nbefore %s\nafter  %s", before, got)
	}
	if !strings.Contains(err.Error(), " per virtual second: 300 events last about ") || l.burstRate <= 0 {
		t.Errorf("the undo does not say how long the budget lasts at the rate it ran, or does not remember that rate (%v): %v", l.burstRate, err)
	}
	if got, want := labState(t, l), labState(t, twin); got != want {
		t.Fatalf("the replayed lab differs from one that never ran the produce:\n%s\n%s", got, want)
	}
	for i, line := range after {
		got, gotErr := l.Run(line)
		if i == 0 && l.burstRate != 0 {
			t.Errorf("%s measured the rate anew, but the lab still estimates from the burst's (%v)", line, l.burstRate)
		}
		want, wantErr := twin.Run(line)
		if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%s after the undo printed\n%s (%v)\nwhere a lab that never ran it printed\n%s (%v)", line, got, gotErr, want, wantErr)
		}
	}
}

// A lab on real storage cannot replay its disks: a burst the estimate did
// not foresee stops where it ran out, saying plainly that the cluster
// stayed at the time it reached.
func TestOnStorageABudgetRunOutStopsAndSaysSo(t *testing.T) {
	l := NewWithFS(storage.NewMem())
	t.Cleanup(func() { l.Close() })
	mustRun(t, l, "cluster brokers=3 seed=42", "topic create orders partitions=3 rf=3", "tick 2s")
	l.limits.eventsPerCommand = 400
	l.limits.eventsPerCommand = 30
	_, err := l.Run("produce orders value=v{i} count=200")
	if err == nil || !strings.Contains(err.Error(), "this cluster keeps its data on disk and cannot undo the command: it stayed at the time it reached") {
		t.Fatalf("produce past the budget on storage: %v", err)
	}
}

// Issue 10: a script line over 1 MiB stopped the script with
// "bufio.Scanner: token too long", naming no line. Now any line is read;
// one past the limit fails naming its line number and the script goes on.
func TestScriptRefusesAnOverlongLineByItsNumber(t *testing.T) {
	huge := "produce orders value=" + strings.Repeat("x", 2<<20)
	script := "cluster brokers=1 seed=1\n" + huge + "\ntopic create orders\r\nproduce orders value=" + strings.Repeat("y", 1000) + "\n"
	var out strings.Builder
	l := New()
	t.Cleanup(func() { l.Close() })
	failed, err := l.RunScript(strings.NewReader(script), &out)
	if err != nil {
		t.Fatalf("RunScript: %v", err)
	}
	if failed != 1 {
		t.Errorf("failed = %d, want 1 (the overlong line)\n%s", failed, out.String())
	}
	want := fmt.Sprintf("error: line 2: the command line is %s bytes, past the limit of 65,536 bytes per command line", thousands(int64(len(huge))))
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "created topic orders") || !strings.Contains(out.String(), "produced to orders/0 at offset 0") {
		t.Errorf("transcript lacks %q or the lines after it:\n%.2000s", want, out.String())
	}
	if len(out.String()) > 10_000 {
		t.Errorf("the transcript echoes the overlong line: %d bytes", len(out.String()))
	}
	refused(t, l, "produce orders value="+strings.Repeat("z", MaxCommandLineBytes), "past the limit of 65,536 bytes per command line")
}

// consumerPositions is a sanity check of labState: a poll moves them.
func TestLabStateSeesConsumerPositions(t *testing.T) {
	l := setupLab(t)
	mustRun(t, l, "consumer create c topics=orders auto.offset.reset=earliest")
	before := labState(t, l)
	mustRun(t, l, "poll c", "poll c")
	co := l.Cluster().Consumer("c")
	moved := false
	for _, tp := range co.Assignment() {
		moved = moved || co.Position(tp) > 0
	}
	if !moved || labState(t, l) == before {
		t.Fatalf("poll moved no position, or labState missed it:\n%s", labState(t, l))
	}
}

// A session whose replay would cost more than MaxReplayEvents stops
// keeping its history: it then refuses on a conservative estimate, as a
// lab on storage does, and says why it cannot undo.
func TestALongSessionStopsKeepingItsReplay(t *testing.T) {
	l := New()
	t.Cleanup(func() { l.Close() })
	// 300: more than a one-broker cluster's start (its quorum elects, ~100
	// events), less than this session (~600).
	l.limits.replayEvents = 300
	mustRun(t, l, "cluster brokers=3 seed=42", "topic create orders partitions=3 rf=3", "tick 5s")
	if !l.noReplay || l.history != nil {
		t.Fatalf("after %d events of history past a replay limit of 300, the lab still keeps %d lines", l.historyEvents, len(l.history))
	}
	l.limits.eventsPerCommand = 5
	_, err := l.Run("produce orders value=v{i} count=200")
	if err == nil || !strings.Contains(err.Error(), "this session is too long to replay and cannot undo the command: it stayed at the time it reached") {
		t.Fatalf("produce past the budget with no replay: %v", err)
	}
	// A new cluster starts a new history.
	mustRun(t, l, "cluster brokers=1 seed=1")
	if l.noReplay || len(l.history) != 1 {
		t.Fatalf("a new cluster did not start a new history: noReplay %v, %d lines", l.noReplay, len(l.history))
	}
}

// The server fuzzer found a cluster busy enough never to go quiet: each
// stabilize ran out of its events (about 2 s) and was then undone by
// replaying the session, seconds more on a shared server, at every retry.
// Running out is stabilize's answer now, as running out of its ten
// virtual minutes is: the time it ran stays, it says so, and no liveness
// violation is recorded for a cluster not given its ten minutes.
func TestStabilizeThatRunsOutOfEventsSaysSo(t *testing.T) {
	for _, c := range []struct {
		name string
		lab  *Lab
	}{{"in memory", New()}, {"on storage", NewWithFS(storage.NewMem())}} {
		l := c.lab
		t.Run(c.name, func(t *testing.T) {
			t.Cleanup(func() { l.Close() })
			mustRun(t, l, "cluster brokers=3 seed=42", "topic create orders partitions=3 rf=3", "tick 2s", "broker crash 2")
			l.limits.eventsPerCommand = 100
			before := l.Cluster().Elapsed()
			out, err := l.Run("stabilize")
			if err != nil || !strings.Contains(out, "stabilize ran the 100 simulation events a command may run") {
				t.Fatalf("stabilize past the budget: %q, %v", out, err)
			}
			if l.Cluster().Elapsed() == before {
				t.Error("the time stabilize ran was undone")
			}
			if out, _ := l.Run("check invariants"); !strings.Contains(out, "all invariants hold") {
				t.Errorf("running out of events was taken for a liveness violation: %s", out)
			}
		})
	}
}
