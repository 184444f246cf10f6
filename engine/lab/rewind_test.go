package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/storage"
)

// rewindSession is a session that moves every part of the view: brokers
// crash and return, a consumer reads, time passes, an inspector opens, and
// one produce is answered with a Kafka outcome (kept in the history).
var rewindSession = []string{
	"cluster brokers=3 seed=11",
	"topic create orders partitions=3 rf=3",
	"consumer create c topics=orders auto.offset.reset=earliest",
	"produce orders key=a value=1 count=5",
	"poll c",
	"tick 100ms",
	"broker crash 2",
	"step",
	"tick 2s",
	"produce orders key=b value=2 count=3",
	"show log orders/0",
	"broker restart 2",
	"tick 1s",
	"topic create strict partitions=1 rf=3 min.insync.replicas=3",
	"producer create p acks=all",
	"broker crash 3",
	"produce strict key=c value=3 producer=p",
	"tick 500ms",
}

// snapshot is everything a learner sees of a lab: its view (the panels,
// the quorum's epochs and offsets included) as JSON.
func snapshot(t *testing.T, l *Lab) string {
	t.Helper()
	v := l.View()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n" + labState(t, l)
}

// runSession runs lines that must each run: succeed, or be answered
// with a Kafka outcome (the session's produce under min.insync.replicas).
func runSession(t *testing.T, l *Lab, lines ...string) {
	t.Helper()
	for _, line := range lines {
		if _, err := l.Run(line); err != nil {
			var ce *CommandError
			if !errors.As(err, &ce) || !ce.Outcome {
				t.Fatalf("%s: %v", line, err)
			}
		}
	}
}

// transcriptOf runs lines on a fresh lab, as a learner typing them would,
// and returns its transcript.
func transcriptOf(t *testing.T, l *Lab, lines []string) string {
	t.Helper()
	var b strings.Builder
	for _, line := range lines {
		out, err := l.Run(line)
		writeEntry(&b, Replayed{Line: line, Output: out, Err: err})
	}
	return b.String()
}

func writeEntry(b *strings.Builder, r Replayed) {
	fmt.Fprintf(b, "> %s\n%s", r.Line, r.Output)
	if r.Err != nil {
		fmt.Fprintf(b, "error: %v", r.Err)
	}
	b.WriteString("\n")
}

func transcriptOfReplay(ran []Replayed) string {
	var b strings.Builder
	for _, r := range ran {
		writeEntry(&b, r)
	}
	return b.String()
}

func TestHistoryIsTheSessionSinceCluster(t *testing.T) {
	l := New()
	t.Cleanup(func() { l.Close() })
	runSession(t, l, rewindSession...)
	if _, err := l.Run("broker crash 9"); err == nil {
		t.Fatal("crashing a broker that does not exist succeeded")
	}
	got := l.History()
	// The session's produce under min.insync.replicas=3 with a broker down
	// is a Kafka outcome: it ran, so it is history. The misuse is not.
	if strings.Join(got, "\n") != strings.Join(rewindSession, "\n") {
		t.Fatalf("history:\n%s\nwant the session's commands:\n%s", strings.Join(got, "\n"), strings.Join(rewindSession, "\n"))
	}
	got[0] = "changed"
	if l.History()[0] != rewindSession[0] {
		t.Fatal("History hands out the lab's own slice")
	}
}

// Going back to any point gives what a fresh lab shows after the same
// commands: the transcript of the replay, every panel, and what the lab
// prints afterwards.
func TestRewindEqualsAFreshReplayOfThePrefix(t *testing.T) {
	for _, n := range []int{len(rewindSession) - 1, 9, 7, 2, 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			l, fresh := New(), New()
			t.Cleanup(func() { l.Close(); fresh.Close() })
			runSession(t, l, rewindSession...)
			ran, err := l.Rewind(n)
			if err != nil {
				t.Fatal(err)
			}
			want := transcriptOf(t, fresh, rewindSession[:n])
			if got := transcriptOfReplay(ran); got != want {
				t.Fatalf("the rewind's transcript:\n%s\ndiffers from a fresh replay's:\n%s", got, want)
			}
			if got, want := snapshot(t, l), snapshot(t, fresh); got != want {
				t.Fatalf("rewound lab:\n%s\nfresh lab:\n%s", got, want)
			}
			if got := l.History(); strings.Join(got, "\n") != strings.Join(rewindSession[:n], "\n") {
				t.Fatalf("history after rewinding to %d: %q", n, got)
			}
			// And forward again: the same commands print the same.
			for _, line := range rewindSession[n:] {
				got, gotErr := l.Run(line)
				want, wantErr := fresh.Run(line)
				if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Fatalf("%s after the rewind printed\n%s (%v)\nwhere a fresh lab printed\n%s (%v)", line, got, gotErr, want, wantErr)
				}
			}
			if got, want := snapshot(t, l), snapshot(t, fresh); got != want {
				t.Fatalf("replayed forward:\n%s\nfresh lab:\n%s", got, want)
			}
		})
	}
}

func TestRewindToZeroLeavesNoCluster(t *testing.T) {
	l := New()
	t.Cleanup(func() { l.Close() })
	runSession(t, l, rewindSession[:3]...)
	if _, err := l.Rewind(0); err != nil {
		t.Fatal(err)
	}
	if l.Cluster() != nil || len(l.History()) != 0 {
		t.Fatalf("rewound to 0, the lab still has a cluster (%v) or history %q", l.Cluster() != nil, l.History())
	}
	if _, err := l.Run("topic create t"); err == nil || !strings.Contains(err.Error(), "there is no cluster yet") {
		t.Fatalf("topic create with no cluster: %v", err)
	}
}

func TestUndoTakesBackTheLastCommand(t *testing.T) {
	l, twin := New(), New()
	t.Cleanup(func() { l.Close(); twin.Close() })
	runSession(t, l, rewindSession...)
	runSession(t, twin, rewindSession[:len(rewindSession)-2]...)
	for range 2 {
		if _, err := l.Undo(); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := snapshot(t, l), snapshot(t, twin); got != want {
		t.Fatalf("after two undos:\n%s\nwant the lab before the last two commands:\n%s", got, want)
	}
	if n := len(l.History()); n != len(rewindSession)-2 {
		t.Fatalf("after two undos the history has %d commands, want %d", n, len(rewindSession)-2)
	}
}

func TestUndoWithNothingToUndo(t *testing.T) {
	l := New()
	t.Cleanup(func() { l.Close() })
	if _, err := l.Undo(); err == nil || !strings.Contains(err.Error(), "nothing to undo") {
		t.Fatalf("undo on a new lab: %v", err)
	}
}

func TestRewindOutOfRange(t *testing.T) {
	l := New()
	t.Cleanup(func() { l.Close() })
	runSession(t, l, rewindSession[:2]...)
	before := snapshot(t, l)
	for _, n := range []int{-1, 3} {
		if _, err := l.Rewind(n); err == nil || !strings.Contains(err.Error(), "the session has 2 commands since `cluster` (0 to 2)") {
			t.Errorf("Rewind(%d): %v", n, err)
		}
	}
	if snapshot(t, l) != before {
		t.Fatal("a refused rewind changed the lab")
	}
}

// A saved session opened again is the session: the same transcript and
// the same panels as the lab it was saved from.
func TestReplayScriptReproducesTheSession(t *testing.T) {
	l, opened := New(), New()
	t.Cleanup(func() { l.Close(); opened.Close() })
	want := transcriptOf(t, l, rewindSession)
	mustRun(t, opened, "cluster brokers=1 seed=1", "topic create other")
	script := "# saved from a lab\n\n" + strings.Join(l.History(), "\n") + "\n"
	ran, err := opened.ReplayScript(script)
	if err != nil {
		t.Fatal(err)
	}
	if got := transcriptOfReplay(ran); got != want {
		t.Fatalf("opened session's transcript:\n%s\nwant:\n%s", got, want)
	}
	if got, want := snapshot(t, opened), snapshot(t, l); got != want {
		t.Fatalf("opened session:\n%s\nwant:\n%s", got, want)
	}
}

// A script whose line fails is refused naming the line (counting comments
// and blank lines, as an editor does), and the session stays.
func TestReplayScriptFailingLineKeepsTheSession(t *testing.T) {
	l := New()
	t.Cleanup(func() { l.Close() })
	runSession(t, l, rewindSession[:4]...)
	before, history := snapshot(t, l), l.History()
	cases := []struct{ script, mention string }{
		{"cluster brokers=3 seed=1\n# a comment\n\nbroker crash 9\n", "line 4: broker crash 9: broker crash: "},
		{"topic create t\n", "line 1: topic create t: topic create: there is no cluster yet"},
		{"cluster brokers=3 seed=1\nfrobnicate\n", `line 2: frobnicate: unknown command "frobnicate"`},
		{"# only comments\n\n", "the script has no commands"},
	}
	for _, c := range cases {
		_, err := l.ReplayScript(c.script)
		if err == nil || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("ReplayScript(%q): %v, want it to mention %q", c.script, err, c.mention)
		}
		if snapshot(t, l) != before || strings.Join(l.History(), "\n") != strings.Join(history, "\n") {
			t.Fatalf("a refused script changed the session")
		}
	}
	if _, err := l.Run("produce orders key=z value=9"); err != nil {
		t.Fatalf("the session kept after a refused script does not run commands: %v", err)
	}
}

func TestRewindRefusedWhenNotReplayable(t *testing.T) {
	disk := NewWithFS(storage.NewMem())
	t.Cleanup(func() { disk.Close() })
	mustRun(t, disk, "cluster brokers=1 seed=1", "topic create t")
	long := New()
	t.Cleanup(func() { long.Close() })
	long.limits.replayEvents = 100
	mustRun(t, long, "cluster brokers=3 seed=1", "topic create t partitions=3 rf=3", "produce t value=v count=50", "tick 1s")
	cases := []struct {
		name    string
		l       *Lab
		mention string
	}{
		{"on disk", disk, "this cluster keeps its data on disk"},
		{"too long", long, "this session is too long to replay"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, c.l)
			if err := c.l.CanReplay(); err == nil || !strings.Contains(err.Error(), c.mention) {
				t.Errorf("CanReplay: %v", err)
			}
			for what, try := range map[string]func() error{
				"rewind": func() error { _, err := c.l.Rewind(0); return err },
				"undo":   func() error { _, err := c.l.Undo(); return err },
				"script": func() error { _, err := c.l.ReplayScript("cluster brokers=1 seed=1"); return err },
			} {
				if err := try(); err == nil || !strings.Contains(err.Error(), c.mention) {
					t.Errorf("%s: %v, want it refused: %s", what, err, c.mention)
				}
			}
			if snapshot(t, c.l) != before {
				t.Fatal("a refused rewind changed the lab")
			}
		})
	}
}

func TestReplayScriptTooLarge(t *testing.T) {
	l := New()
	t.Cleanup(func() { l.Close() })
	l.limits.replayBytes = 10
	if _, err := l.ReplayScript("cluster brokers=1 seed=1"); err == nil || !strings.Contains(err.Error(), "a session replays at most 10") {
		t.Fatalf("oversized script: %v", err)
	}
}
