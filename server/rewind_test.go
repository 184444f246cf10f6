package server

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/lessons"
	"github.com/loglab/loglab/web"
)

// The commands these tests run after the starter script: records, time,
// a client, a typo (a failure a replay must repeat) and a Kafka outcome
// (a produce refused with NOT_ENOUGH_REPLICAS: it ran, its time passed).
var rewindCommands = []string{
	"produce orders key=k1 value=v1 count=3",
	"tick 500ms",
	"produse orders key=typo value=x",
	"broker crash 2",
	"broker crash 3",
	"produce orders key=k2 value=v2 acks=all",
	"broker restart 2",
	"tick 2s",
	"produce orders key=k3 value=v3",
}

// sessionOn opens a live session on dir ("" in memory) that ran the
// starter script; it is closed when the test ends.
func sessionOn(t *testing.T, dir string) *liveSession {
	t.Helper()
	s, err := newLiveSession(dir, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(s) })
	return s
}

func closeSession(s *liveSession) {
	s.closeAll()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lab.Close()
}

// drawnSession is what a page of the session shows: the view's fragments
// (the controller quorum's included) and the transcript.
type drawnSession struct {
	fragments  []string
	transcript []web.Entry
}

func drawSession(t *testing.T, s *liveSession) drawnSession {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	frags, err := web.RenderFragments(context.Background(), s.lab.View())
	if err != nil {
		t.Fatal(err)
	}
	var d drawnSession
	for _, f := range frags {
		d.fragments = append(d.fragments, f.Key+": "+f.HTML)
	}
	d.transcript = slices.Clone(s.history)
	return d
}

func sameSession(t *testing.T, what string, got, want drawnSession) {
	t.Helper()
	if len(got.transcript) != len(want.transcript) {
		t.Errorf("%s: the transcript has %d entries, the fresh session's %d", what, len(got.transcript), len(want.transcript))
	}
	for i := range min(len(got.transcript), len(want.transcript)) {
		if got.transcript[i] != want.transcript[i] {
			t.Errorf("%s: transcript entry %d is %+v, the fresh session's %+v", what, i, got.transcript[i], want.transcript[i])
		}
	}
	if !slices.Equal(got.fragments, want.fragments) {
		t.Errorf("%s: the view differs from the fresh session's:\n%s", what, firstFragmentDiff(got.fragments, want.fragments))
	}
}

func firstFragmentDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			j := 0
			for j < len(a[i]) && j < len(b[i]) && a[i][j] == b[i][j] {
				j++
			}
			from := max(0, j-120)
			return "got:  …" + a[i][from:min(len(a[i]), j+120)] + "\nwant: …" + b[i][from:min(len(b[i]), j+120)]
		}
	}
	return "a different number of fragments"
}

// freshSession is a new session that ran the starter script and then
// commands, on a directory of its own when onDisk.
func freshSession(t *testing.T, onDisk bool, commands []string) *liveSession {
	t.Helper()
	dir := ""
	if onDisk {
		dir = t.TempDir()
	}
	s := sessionOn(t, dir)
	for _, c := range commands {
		s.run(c)
	}
	return s
}

// logReplays checks that the command log replayed whole on a fresh lab
// gives the session's cluster: the property commandlog.go promises.
func logReplays(t *testing.T, s *liveSession, what string) {
	t.Helper()
	text, whole := s.commandLogText()
	if !whole {
		t.Fatalf("%s: the command log is not whole:\n%s", what, text)
	}
	replay := lab.New()
	defer replay.Close()
	if _, err := replay.RunScript(strings.NewReader(text), io.Discard); err != nil {
		t.Fatalf("%s: replaying the log: %v\n%s", what, err, text)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	got, want := replay.View(), s.lab.View()
	if got.Elapsed != want.Elapsed || len(got.Topics) != len(want.Topics) {
		t.Errorf("%s: the log's replay is at %v with %d topics, the session at %v with %d", what, got.Elapsed, len(got.Topics), want.Elapsed, len(want.Topics))
	}
	for _, show := range []string{"show log orders/0", "show log orders/1", "show log orders/2", "show isr"} {
		a, aErr := replay.Run(show)
		b, bErr := s.lab.Run(show)
		if a != b || (aErr == nil) != (bErr == nil) {
			t.Errorf("%s: %s: the log's replay prints\n%s%v\nthe session\n%s%v", what, show, a, aErr, b, bErr)
		}
	}
}

// Undo, going back to command N (by number and as the console's
// `rewind N`) and an uploaded script each leave the session, on a data
// directory and in memory, drawn as a fresh session that ran the same
// commands draws it: every fragment of the view and the transcript. And
// the command log still replays to the session's cluster.
func TestRewindMatchesAFreshSession(t *testing.T) {
	starter := len(strings.Split(lab.StarterScript, "\n"))
	for _, onDisk := range []bool{true, false} {
		name := map[bool]string{true: "data directory", false: "memory"}[onDisk]
		t.Run(name, func(t *testing.T) {
			s := freshSession(t, onDisk, rewindCommands)
			if tl := s.timeline(); tl.Why != "" || tl.Length != starter+len(rewindCommands) {
				t.Fatalf("the timeline before: %+v", tl)
			}

			s.mu.Lock()
			out, err := s.undoLocked()
			s.mu.Unlock()
			if err != nil {
				t.Fatalf("undo: %v", err)
			}
			if !strings.Contains(out, "went back to command 10 of 11") {
				t.Errorf("undo says %q", out)
			}
			sameSession(t, "after undo", drawSession(t, s), drawSession(t, freshSession(t, onDisk, rewindCommands[:len(rewindCommands)-1])))
			logReplays(t, s, "after undo")

			s.mu.Lock()
			_, err = s.rewindLocked(starter + 5) // after both brokers crashed
			s.mu.Unlock()
			if err != nil {
				t.Fatalf("rewind: %v", err)
			}
			sameSession(t, "after rewind 7", drawSession(t, s), drawSession(t, freshSession(t, onDisk, rewindCommands[:5])))
			logReplays(t, s, "after rewind 7")
			if tl := s.timeline(); tl.Length != starter+5 || tl.Commands[len(tl.Commands)-1] != "broker crash 3" {
				t.Errorf("the timeline after rewind 7: %+v", tl)
			}

			// The session goes on from there, and back again.
			s.run("produce orders key=after value=rewind")
			e := s.run("rewind 3")
			if !e.OK || !strings.Contains(e.Output, "went back to command 3 of 8") {
				t.Fatalf("`rewind 3`: %+v", e)
			}
			d := drawSession(t, s)
			// The console's command is in the transcript after the
			// replay's, as typed commands are.
			if last := d.transcript[len(d.transcript)-1]; last.Command != "rewind 3" {
				t.Errorf("the transcript ends with %+v", last)
			}
			d.transcript = d.transcript[:len(d.transcript)-1]
			sameSession(t, "after `rewind 3`", d, drawSession(t, freshSession(t, onDisk, rewindCommands[:1])))
			logReplays(t, s, "after `rewind 3`")

			script := "# a saved session\ncluster brokers=3 controllers=3 seed=7\n\ntopic create orders partitions=3 rf=3\nproduce orders key=a value=b count=2\ntick 1s\n"
			s.mu.Lock()
			_, err = s.openScript(script)
			s.mu.Unlock()
			if err != nil {
				t.Fatalf("opening a script: %v", err)
			}
			want := freshSession(t, onDisk, nil)
			want.run("cluster brokers=3 controllers=3 seed=7")
			want.run("topic create orders partitions=3 rf=3")
			want.run("produce orders key=a value=b count=2")
			want.run("tick 1s")
			got, wantDrawn := drawSession(t, s), drawSession(t, want)
			wantDrawn.transcript = wantDrawn.transcript[starter:] // the fresh session's starter, before its own `cluster`
			sameSession(t, "after opening a script", got, wantDrawn)
			logReplays(t, s, "after opening a script")
			if onDisk {
				if cmd, err := os.ReadFile(filepath.Join(s.dataDir, clusterFile)); err != nil || string(cmd) != "cluster brokers=3 controllers=3 seed=7\n" {
					t.Errorf("the data directory remembers %q (%v)", cmd, err)
				}
				for _, aside := range []string{asideDir, asideDoneDir} {
					if _, err := os.Stat(filepath.Join(s.dataDir, aside)); err == nil {
						t.Errorf("%s is left in the data directory", aside)
					}
				}
			}
		})
	}
}

// stateOf is everything a refused move must leave as it was: the view,
// the transcript, the command log and the data directory's files.
type stateOf struct {
	view, log string
	history   []web.Entry
	files     []string
}

func stateNow(t *testing.T, s *liveSession) stateOf {
	t.Helper()
	log, _ := s.commandLogText()
	s.mu.Lock()
	defer s.mu.Unlock()
	html, err := web.RenderString(context.Background(), web.ClusterView(s.lab.View()))
	if err != nil {
		t.Fatal(err)
	}
	st := stateOf{view: html, log: log, history: slices.Clone(s.history)}
	if s.dataDir != "" {
		filepath.WalkDir(s.dataDir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(s.dataDir, path)
				st.files = append(st.files, rel)
			}
			return nil
		})
	}
	return st
}

// A move that cannot be made says why and leaves the session as it was.
func TestRewindRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(s *liveSession) (undo func())
		move   func(s *liveSession) (string, error)
		reason string
	}{
		{name: "rewind to 0", move: func(s *liveSession) (string, error) { return s.rewindLocked(0) }, reason: "cannot go back to command 0: the session has 4 commands"},
		{name: "rewind past the end", move: func(s *liveSession) (string, error) { return s.rewindLocked(5) }, reason: "(1 to 4;"},
		{name: "undo with only the cluster", setup: func(s *liveSession) func() {
			s.mu.Unlock()
			s.run("cluster brokers=1 seed=3")
			s.mu.Lock()
			return nil
		}, move: func(s *liveSession) (string, error) { return s.undoLocked() }, reason: "nothing to undo"},
		{name: "the server restarted", setup: func(s *liveSession) func() {
			s.commands.restarted = true
			return func() { s.commands.restarted = false }
		}, move: func(s *liveSession) (string, error) { return s.undoLocked() }, reason: "the server restarted and resumed this cluster"},
		{name: "lines dropped", setup: func(s *liveSession) func() {
			s.commands.dropped = 7
			return func() { s.commands.dropped = 0 }
		}, move: func(s *liveSession) (string, error) { return s.rewindLocked(2) }, reason: "7 older commands were dropped"},
		{name: "a command panicked", setup: func(s *liveSession) func() {
			s.commands.unreplayable = "produce orders key=boom"
			return func() { s.commands.unreplayable = "" }
		}, move: func(s *liveSession) (string, error) { return s.rewindLocked(2) }, reason: `the command "produce orders key=boom" cannot be replayed`},
		{name: "a lesson is open", setup: func(s *liveSession) func() {
			s.lesson = &lessons.Session{}
			return func() { s.lesson = nil }
		}, move: func(s *liveSession) (string, error) { return s.rewindLocked(2) }, reason: "a lesson is open: its Back and Reset buttons"},
		{name: "a lesson is open, a script", setup: func(s *liveSession) func() {
			s.lesson = &lessons.Session{}
			return func() { s.lesson = nil }
		}, move: func(s *liveSession) (string, error) { return s.openScript("cluster brokers=1 seed=1\n") }, reason: "a lesson is open"},
		{name: "remote controllers", setup: func(s *liveSession) func() {
			s.controllers = []string{"127.0.0.1:1"}
			return func() { s.controllers = nil }
		}, move: func(s *liveSession) (string, error) { return s.undoLocked() }, reason: "controllers run as separate processes"},
		{name: "a script with a bad line", move: func(s *liveSession) (string, error) {
			return s.openScript("cluster brokers=3 seed=1\n# fine\ntopic create t partitions=1 rf=1\nproduce nosuchtopic? key=\"unterminated\n")
		}, reason: "line 4: "},
		{name: "a script's line that needs what is not there", move: func(s *liveSession) (string, error) {
			return s.openScript("cluster brokers=3 seed=1\nconsumer poll nobody\n")
		}, reason: "line 2: consumer poll nobody"},
		{name: "a script with no cluster", move: func(s *liveSession) (string, error) { return s.openScript("help\n") }, reason: "starts no cluster"},
		{name: "a script too large", move: func(s *liveSession) (string, error) {
			return s.openScript("cluster brokers=1 seed=1\n" + strings.Repeat("tick 1ms\n", maxSessionScript/9+1))
		}, reason: "a session opens at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := freshSession(t, true, []string{"produce orders key=k value=v", "tick 1s"})
			if tc.setup != nil {
				s.mu.Lock()
				undo := tc.setup(s)
				s.mu.Unlock()
				if undo != nil {
					defer func() { s.mu.Lock(); undo(); s.mu.Unlock() }()
				}
			}
			before := stateNow(t, s)
			s.mu.Lock()
			out, err := tc.move(s)
			s.mu.Unlock()
			if err == nil || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("got %q, %v; want an error saying %q", out, err, tc.reason)
			}
			after := stateNow(t, s)
			if after.view != before.view || after.log != before.log || !slices.Equal(after.history, before.history) || !slices.Equal(after.files, before.files) {
				t.Errorf("the refused move changed the session:\nlog before:\n%s\nlog after:\n%s\nfiles before %v\nafter %v", before.log, after.log, before.files, after.files)
			}
		})
	}
}

// A replay that fails on the data directory though it passed in memory
// (here: told to expect a failure where the session succeeded) puts the
// cluster's files back and resumes from them, losing no record, and the
// log says it is no longer whole.
func TestRewindThatFailsOnDiskPutsTheFilesBack(t *testing.T) {
	s := freshSession(t, true, []string{"produce orders key=k value=kept count=4"})
	before, _ := s.lab.Run("show log orders/0")
	s.mu.Lock()
	lines, ok, _ := s.commands.replayable()
	ok[len(ok)-1] = false
	_, err := s.rebuild(lines, ok, true, "a test")
	after, _ := s.lab.Run("show log orders/0")
	s.mu.Unlock()
	if err == nil || !strings.Contains(err.Error(), "files were put back and it resumed from them") {
		t.Fatalf("the failed replay says %v", err)
	}
	if after != before {
		t.Errorf("after the failed replay orders/0 holds\n%s\nbefore\n%s", after, before)
	}
	if _, err := os.Stat(filepath.Join(s.dataDir, asideDir)); err == nil {
		t.Error("the aside copy is left")
	}
	if tl := s.timeline(); !strings.Contains(tl.Why, "restarted") && !strings.Contains(tl.Why, "resumed") {
		t.Errorf("the timeline after a failed replay: %+v", tl)
	}
}

// A server that stopped in the middle of a rewind (the cluster's files
// aside, a half-replayed cluster in their place) finds the aside copy at
// start-up and puts it back: the cluster resumes with every record. One
// that stopped as it dropped the aside copy after a rewind that finished
// keeps the rewound cluster.
func TestACrashMidRewindIsRecoveredAtStartUp(t *testing.T) {
	dir := t.TempDir()
	s := sessionOn(t, dir)
	s.run("produce orders key=k value=precious count=5")
	want, err := s.lab.Run("show log orders/0")
	if err != nil {
		t.Fatal(err)
	}
	// The rewind's first half, then the crash: the lab closed, its files
	// aside, a fresh cluster replaying on the emptied directory.
	closeSession(s)
	if err := moveAside(dir); err != nil {
		t.Fatal(err)
	}
	half := newLab(dir, nil)
	if _, err := half.Run("cluster brokers=3 controllers=3 seed=42"); err != nil {
		t.Fatal(err)
	}
	half.Close()
	if err := rememberCluster(dir, "cluster brokers=3 controllers=3 seed=42"); err != nil {
		t.Fatal(err)
	}

	s2 := sessionOn(t, dir)
	got, err := s2.lab.Run("show log orders/0")
	if err != nil || got != want {
		t.Errorf("after the restart orders/0 holds (%v)\n%s\nbefore the crash\n%s", err, got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, asideDir)); err == nil {
		t.Error("the aside copy is left after the restart")
	}
	if tl := s2.timeline(); !strings.Contains(tl.Why, "the server restarted") {
		t.Errorf("the timeline after the restart: %+v", tl)
	}
	closeSession(s2)

	// Crashed as it dropped the aside copy of a finished rewind: the
	// directory holds the rewound cluster, which stays.
	if err := os.MkdirAll(filepath.Join(dir, asideDoneDir, "orders-0"), 0o755); err != nil {
		t.Fatal(err)
	}
	s3 := sessionOn(t, dir)
	if got, err := s3.lab.Run("show log orders/0"); err != nil || got != want {
		t.Errorf("after the second restart orders/0 holds (%v)\n%s", err, got)
	}
	if _, err := os.Stat(filepath.Join(dir, asideDoneDir)); err == nil {
		t.Error("the finished rewind's aside copy is left after the restart")
	}
}

// A rewind stops the real-time driver (its ticks would go on from a
// cluster that no longer is) and says so; the ticks it issued are
// commands of the session like any other, replayed with the rest.
func TestRewindTurnsRealTimeOff(t *testing.T) {
	s := sessionOn(t, t.TempDir())
	fc := newFakeWallClock()
	s.realtime = &realtimeDriver{clock: fc.clock()}
	s.run("produce orders key=k value=v")
	if e := s.run("realtime on"); !e.OK {
		t.Fatal(e.Output)
	}
	wake(s, 500)
	e := s.run("undo")
	if !e.OK || !strings.Contains(e.Output, "real time was on and is off now") {
		t.Fatalf("undo with real time on: %+v", e)
	}
	s.mu.Lock()
	phase := s.realtime.state.phase()
	s.mu.Unlock()
	if phase != "off" {
		t.Errorf("after the undo real time is %s", phase)
	}
	// The undo took back the tick, the last command: the produce stays.
	if tl := s.timeline(); tl.Length != 3 || tl.Commands[2] != "produce orders key=k value=v" {
		t.Errorf("the timeline after the undo: %+v", tl)
	}
	logReplays(t, s, "after undoing a real-time tick")
}

// countReplays counts the labs in memory that replays check the
// session's commands on, for the rest of the test.
func countReplays(t *testing.T) *int {
	t.Helper()
	n := 0
	newReplayLab = func() *lab.Lab { n++; return lab.New() }
	t.Cleanup(func() { newReplayLab = lab.New })
	return &n
}

// A session in memory builds its fresh lab beside the old one: the
// replay runs once. On a data directory it is checked in memory first,
// so that a replay that fails never closes the cluster.
func TestARewindReplaysInMemoryOnce(t *testing.T) {
	for _, tc := range []struct {
		onDisk bool
		checks int
	}{{false, 0}, {true, 1}} {
		s := freshSession(t, tc.onDisk, rewindCommands)
		n := countReplays(t)
		if e := s.run("undo"); !e.OK {
			t.Fatalf("undo: %+v", e)
		}
		if *n != tc.checks {
			t.Errorf("on disk %v: the undo checked its replay on %d labs in memory, want %d", tc.onDisk, *n, tc.checks)
		}
	}
}

// A replay that would run past the replay bound (the browser lab's,
// lab.MaxReplayEvents) is refused as the browser lab refuses it, and
// leaves the session as it was.
func TestATravelPastTheReplayBoundIsRefused(t *testing.T) {
	for _, onDisk := range []bool{false, true} {
		s := freshSession(t, onDisk, []string{"produce orders key=k value=v count=20", "tick 1s", "tick 1s"})
		saved := maxReplayEvents
		maxReplayEvents = 1
		before := stateNow(t, s)
		e := s.run("rewind 3")
		maxReplayEvents = saved
		if e.OK || !strings.Contains(e.Output, "this session is too long to replay") {
			t.Fatalf("on disk %v: rewind past the bound: %+v", onDisk, e)
		}
		after := stateNow(t, s)
		if after.view != before.view || !slices.Equal(after.files, before.files) {
			t.Errorf("on disk %v: the refused rewind changed the cluster", onDisk)
		}
		if e := s.run("rewind 3"); !e.OK {
			t.Errorf("on disk %v: rewind within the bound: %+v", onDisk, e)
		}
	}
}

// A replay that fails leaves real time as it was: on, ticking the
// cluster it did not replace.
func TestAFailedRewindLeavesRealTimeOn(t *testing.T) {
	for _, onDisk := range []bool{false, true} {
		dir := ""
		if onDisk {
			dir = t.TempDir()
		}
		s := sessionOn(t, dir)
		fc := newFakeWallClock()
		s.realtime = &realtimeDriver{clock: fc.clock()}
		s.run("produce orders key=k value=v")
		if e := s.run("realtime on"); !e.OK {
			t.Fatal(e.Output)
		}
		wake(s, 500)
		s.mu.Lock()
		lines, ok, _ := s.commands.replayable()
		ok[len(ok)-1] = !ok[len(ok)-1] // the replay cannot do what the session did
		_, err := s.rebuild(lines, ok, false, "a test")
		phase := s.realtime.state.phase()
		s.mu.Unlock()
		if err == nil {
			t.Fatal("the replay that cannot match succeeded")
		}
		if phase == "off" {
			t.Errorf("on disk %v: after a failed replay real time is %s", onDisk, phase)
		}
	}
}

// An uploaded script is bounded as every replay is: one that runs past
// the bound is refused before it replaces anything.
func TestAScriptPastTheReplayBoundIsRefused(t *testing.T) {
	s := freshSession(t, true, []string{"produce orders key=k value=v"})
	saved := maxReplayEvents
	maxReplayEvents = 1
	t.Cleanup(func() { maxReplayEvents = saved })
	before := stateNow(t, s)
	s.mu.Lock()
	_, err := s.openScript("cluster brokers=3 seed=1\ntopic create t partitions=1 rf=3\ntick 10s\n")
	s.mu.Unlock()
	if err == nil || !strings.Contains(err.Error(), "the script is too long to replay") {
		t.Fatalf("a script past the bound: %v", err)
	}
	if after := stateNow(t, s); after.view != before.view || after.log != before.log || !slices.Equal(after.files, before.files) {
		t.Error("the refused script changed the session")
	}
}
