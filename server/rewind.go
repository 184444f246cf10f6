package server

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/web"
)

// Time travel on the server's clusters. The engine is deterministic (same
// seed, same commands: the same cluster), and the session's command log
// (commandlog.go) holds every command since the cluster started, so going
// back to command N is replaying the first N on a fresh cluster, undo is
// replaying all but the last, and opening a saved session is replaying
// its script: what the browser lab does (engine/lab/rewind.go), with the
// log as the source of truth instead of the lab's own history, which a
// cluster on disk does not keep.
//
// A replay replaces the cluster only once every line did again what it
// did when the session ran it (a Kafka outcome counts as having run). It
// is tried first on a lab in memory, which costs no disk and leaves the
// session untouched when it fails; then the cluster is closed, its files
// are moved aside (rewind_aside.go), the replay runs on a fresh cluster on
// the same data directory, and the aside copy is dropped. The transcript
// starts over with the replayed commands and the command log logs the
// rebuild, so both, and every panel, are what a fresh session that ran
// the same commands shows.

// maxSessionScript bounds an uploaded script: the command log's memory
// copy, so a session opened from one can still travel in time.
const maxSessionScript = commandLogMemory

func init() {
	registerNativeCommand(&nativeCommand{
		name:    "undo",
		usage:   "undo",
		summary: "take back the session's last command: the server replays all its other commands since `cluster` on a fresh cluster",
		run: func(s *liveSession, args []string) (string, error) {
			if len(args) > 0 {
				return "", errors.New("undo takes no arguments; usage: undo")
			}
			return s.undoLocked()
		},
	})
	registerNativeCommand(&nativeCommand{
		name:    "rewind",
		usage:   "rewind [N]",
		summary: "go back to the session's command N (1 is its `cluster`) by replaying the first N on a fresh cluster; alone, lists the commands",
		run: func(s *liveSession, args []string) (string, error) {
			switch len(args) {
			case 0:
				return s.listCommandsLocked()
			case 1:
				n, err := strconv.Atoi(args[0])
				if err != nil {
					return "", fmt.Errorf("rewind takes a command's number, not %.40q; usage: rewind [N]", args[0])
				}
				return s.rewindLocked(n)
			}
			return "", errors.New("rewind takes one number; usage: rewind [N]")
		},
	})
}

// timelineState is what a page's time bar draws: the session's commands
// since `cluster` (the cluster is after the last one: a replay drops what
// was ahead of it), the last of them (Now), or why it cannot travel in
// time. Commands is left out of what a page reads after every change
// (GET .../timeline without ?commands=1): a real-time session's ticks
// make it long, and the bar needs it only when the learner uses the
// slider.
type timelineState struct {
	At       int      `json:"at"`
	Length   int      `json:"length"`
	Now      string   `json:"now"`
	Commands []string `json:"commands,omitempty"`
	Why      string   `json:"why"`
	Lesson   bool     `json:"lesson"`
}

// cannotReplay says why the session cannot be rebuilt by replay at all
// (whatever its log holds), with s.mu held; "" when it can.
func (s *liveSession) cannotReplay() string {
	switch {
	case s.closedLocked():
		return strings.TrimPrefix(errClusterClosed, "error: ")
	case s.broken != "":
		return s.broken
	case s.lesson != nil:
		return "a lesson is open: its Back and Reset buttons move in its time; close it to travel in the session's"
	case len(s.controllers) > 0:
		return "this cluster's controllers run as separate processes (serve -controllers): they keep the metadata log, which a replay here cannot rebuild"
	}
	return ""
}

// replayableLocked is the session's commands and whether each succeeded,
// or why they cannot rebuild it, with s.mu held.
func (s *liveSession) replayableLocked() ([]string, []bool, string) {
	if why := s.cannotReplay(); why != "" {
		return nil, nil, why
	}
	return s.commandLog().replayable()
}

// timeline is the session's timeline state, for a page.
func (s *liveSession) timeline() timelineState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.timelineLocked()
}

func (s *liveSession) timelineLocked() timelineState {
	lines, _, why := s.replayableLocked()
	now := ""
	if len(lines) > 0 {
		now = lines[len(lines)-1]
	}
	return timelineState{At: len(lines), Length: len(lines), Now: now, Commands: lines, Why: why, Lesson: s.lesson != nil}
}

// listCommandsLocked is `rewind` alone: the commands it goes back to.
func (s *liveSession) listCommandsLocked() (string, error) {
	lines, _, why := s.replayableLocked()
	if why != "" {
		return "", errors.New(why)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the session's %d commands since its `cluster` (`rewind N` goes back to command N):", len(lines))
	for i, line := range lines {
		fmt.Fprintf(&b, "\n%4d  %s", i+1, line)
	}
	return b.String(), nil
}

// undoLocked takes back the last command, with s.mu held.
func (s *liveSession) undoLocked() (string, error) {
	lines, _, why := s.replayableLocked()
	if why != "" {
		return "", errors.New("cannot undo: " + why)
	}
	if len(lines) < 2 {
		return "", errors.New("nothing to undo: the only command since the cluster started is its `cluster`")
	}
	return s.rewindLocked(len(lines) - 1)
}

// rewindLocked goes back to command n, with s.mu held.
func (s *liveSession) rewindLocked(n int) (string, error) {
	lines, ok, why := s.replayableLocked()
	switch {
	case why != "":
		return "", errors.New("cannot go back in time: " + why)
	case n < 1 || n > len(lines):
		return "", fmt.Errorf("cannot go back to command %d: the session has %d commands since its `cluster` (1 to %d; 1 is the `cluster` that started it)", n, len(lines), len(lines))
	case n == len(lines):
		return fmt.Sprintf("the cluster is at command %d already: nothing to replay", n), nil
	}
	note, err := s.rebuild(lines[:n], ok[:n], false, fmt.Sprintf("went back to command %d of %d", n, len(lines)))
	if err != nil {
		return "", fmt.Errorf("cannot go back to command %d: %w", n, err)
	}
	return fmt.Sprintf("went back to command %d of %d (%s): the server replayed the first %d on a fresh cluster%s", n, len(lines), lines[n-1], n, note), nil
}

// openScript replaces the session by a script's (an uploaded session),
// with s.mu held: the lab reads it as the browser lab opens one
// (lab.ReplayScript: comments and blank lines skipped, a line that fails
// other than with a Kafka outcome stops it, naming the line), and the
// session is left as it was unless every line ran.
func (s *liveSession) openScript(script string) (string, error) {
	if why := s.cannotReplay(); why != "" {
		return "", errors.New(why)
	}
	if len(script) > maxSessionScript {
		return "", fmt.Errorf("the script is %d bytes; a session opens at most %d", len(script), maxSessionScript)
	}
	lines, numbers := scriptLines(script)
	if len(lines) == 0 {
		return "", errors.New("the script has no commands")
	}
	// Replayed in memory as lab.ReplayScript does (a line that fails other
	// than with a Kafka outcome stops it), bounded as every replay is.
	check := newReplayLab()
	entries, err := replayLines(check, lines, "the script", func(i int, _ web.Entry, err error) error {
		var ce *lab.CommandError
		if err != nil && !(errors.As(err, &ce) && ce.Outcome) {
			return fmt.Errorf("line %d: %s: %v; the session was left as it was", numbers[i], lines[i], err)
		}
		return nil
	})
	check.Close()
	if err != nil {
		return "", err
	}
	ok := make([]bool, len(entries))
	starts := false
	for i, e := range entries {
		ok[i] = e.OK
		starts = starts || (ok[i] && isClusterCommand(lines[i]))
	}
	if !starts {
		return "", errors.New("the script starts no cluster: a session's script begins with its `cluster` command (such as `cluster brokers=3 seed=42`)")
	}
	note, err := s.rebuild(lines, ok, true, "opened an uploaded script")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("opened the script: the server replayed its %d commands on a fresh cluster%s", len(lines), note), nil
}

// rebuild replaces the cluster by a fresh one that ran lines, each
// expected to succeed or fail as ok says, with s.mu held; checked says
// the lines were replayed in memory already. It returns a note for the
// output (the real-time driver stopped), and the transcript, the log and
// every page follow.
func (s *liveSession) rebuild(lines []string, ok []bool, checked bool, why string) (string, error) {
	// On a data directory the replay is tried in memory first: one that
	// fails there leaves the cluster open and its files untouched. In
	// memory replaceLab builds the fresh lab beside the old one anyway,
	// so a second replay would only double the cost.
	if !checked && s.dataDir != "" {
		if c := s.commandLog().checked; c.version == s.commandLog().version && c.n == len(lines) && c.version != 0 {
			if c.err != nil {
				return "", c.err
			}
		} else {
			check := newReplayLab()
			_, err := replayOn(check, lines, ok)
			check.Close()
			if err != nil {
				return "", err
			}
		}
	}
	entries, err := s.replaceLab(lines, ok)
	if err != nil {
		return "", err
	}
	// The real-time driver's ticks would go on from a cluster that no
	// longer is; it stops only now, so a replay that failed leaves it
	// running on the cluster it left as it was.
	note := ""
	if d := s.realtime; d != nil && d.state.phase() != "off" {
		if _, err := runRealtime(s, []string{"off"}); err == nil {
			note = "; real time was on and is off now (`realtime on` starts it again)"
		}
	}
	s.logRebuild(why, lines, ok)
	shown := make([]web.Entry, len(entries))
	for i, e := range entries {
		logStorageAlarms(s.logger, s.dataDir, e.Output)
		shown[i] = shownEntry(e)
	}
	s.history = trimHistory(shown)
	if err := s.publishView(shown[len(shown)-len(s.history):], true); err != nil {
		s.logger.Error("rendering the view after a rebuild", "error", err)
	}
	return note, nil
}

// checkedReplay is the outcome of replaying the log's first n commands
// in memory when the log was at version.
type checkedReplay struct {
	version uint64
	n       int
	err     error
}

// precheckRewind runs, without the session's mutex, the check a rewind
// to command to (undo: the last but one) makes in memory before it closes
// a cluster on a data directory, so that the mutex (every page's
// commands) waits for the replay on disk only. The log's version says
// whether the locked rewind that follows may use it: any command in
// between makes it check again.
func (s *liveSession) precheckRewind(undo bool, to int) {
	s.mu.Lock()
	lines, ok, why := s.replayableLocked()
	version := s.commandLog().version
	s.mu.Unlock()
	n := to
	if undo {
		n = len(lines) - 1
	}
	if s.dataDir == "" || why != "" || n < 1 || n >= len(lines) {
		return
	}
	check := newReplayLab()
	_, err := replayOn(check, lines[:n], ok[:n])
	check.Close()
	s.mu.Lock()
	if l := s.commandLog(); l.version == version {
		l.checked = checkedReplay{version: version, n: n, err: err}
	}
	s.mu.Unlock()
}

// replaceLab swaps in a fresh lab that ran lines, with s.mu held. In
// memory the fresh lab is built beside the old one; on a data directory
// the old one's files go aside while the fresh one replays there
// (rewind_aside.go), and come back if anything fails before the aside
// copy is dropped.
func (s *liveSession) replaceLab(lines []string, ok []bool) ([]web.Entry, error) {
	if s.dataDir == "" {
		fresh := newLab("", nil)
		entries, err := replayOn(fresh, lines, ok)
		if err != nil {
			fresh.Close()
			return nil, err
		}
		old := s.lab
		s.lab = fresh
		old.Close()
		return entries, nil
	}
	// Refused before the cluster closes: what an earlier rewind left
	// aside is a cluster's files, which this one must not mix with.
	if err := readyToMoveAside(s.dataDir); err != nil {
		return nil, fmt.Errorf("nothing changed: %w", err)
	}
	if err := s.lab.Close(); err != nil {
		s.logger.Warn("closing the cluster before a replay", "dataDir", s.dataDir, "error", err)
	}
	if err := moveAside(s.dataDir); err != nil {
		cause := fmt.Errorf("its files could not be moved aside: %w", err)
		if left, _ := leftAside(s.dataDir); errors.Is(err, errNotPutBack) || len(left) > 0 {
			return nil, s.breakLocked(cause)
		}
		return nil, s.resumeFromFiles(cause)
	}
	fresh := newLab(s.dataDir, nil)
	s.lab = fresh
	entries, err := replayOn(fresh, lines, ok)
	if err == nil {
		if rememberErr := rememberCluster(s.dataDir, clusterLine(lines, ok)); rememberErr != nil {
			err = fmt.Errorf("the data directory could not remember the replayed cluster, so a restart would not resume it: %w", rememberErr)
		}
	}
	if err == nil {
		renamed, dropErr := dropAside(s.dataDir)
		if renamed {
			if dropErr != nil {
				// The replayed cluster is the session's now; the old
				// files are only deleted, by the next rewind or start-up.
				s.logger.Warn("removing the files of the cluster before a replay", "dir", filepath.Join(s.dataDir, asideDoneDir), "error", dropErr)
			}
			return entries, nil
		}
		err = fmt.Errorf("its old files could not be dropped: %w", dropErr)
	}
	fresh.Close()
	if backErr := putBack(s.dataDir); backErr != nil {
		return nil, s.breakLocked(fmt.Errorf("%w; and its files could not be put back (%v)", err, backErr))
	}
	return nil, s.resumeFromFiles(err)
}

// resumeFromFiles reopens the cluster from the data directory's files
// after a replay that failed, with s.mu held, as a restarted server
// would (every file back in place: no rewind directory is left); it
// returns the replay's error, said whole.
func (s *liveSession) resumeFromFiles(cause error) error {
	l, start, err := openFiles(s.dataDir, s.logger)
	if err == nil {
		s.lab = l
		for _, line := range start {
			if _, runErr := l.Run(line); runErr != nil && err == nil {
				err = runErr
			}
		}
	}
	if err != nil {
		return s.breakLocked(fmt.Errorf("%w; the cluster's files were put back but it did not resume from them (%v)", cause, err))
	}
	s.logResumed("a replay failed (" + firstLine(cause.Error()) + "): the cluster's files were put back and it resumed from them, as after a restart")
	if err := s.publishView(nil, false); err != nil {
		s.logger.Error("rendering the view after a failed replay", "error", err)
	}
	return fmt.Errorf("%w; the cluster's files were put back and it resumed from them, as after a server restart (what it kept only in memory, such as clients, started afresh)", cause)
}

// breakLocked takes the session out of service after a replay that
// failed and left no cluster to run on (its files not all back in place,
// or not reopened), with s.mu held: every command, lesson action and
// move in time is then refused with why (see cannotReplay, runFrom), the
// real-time driver stops, and the pages show no cluster. A restart puts
// the files back (recoverRewind) and resumes.
func (s *liveSession) breakLocked(cause error) error {
	s.logger.Error("a failed replay left the cluster out of service until the server restarts", "dataDir", s.dataDir, "error", cause)
	s.broken = "this cluster is out of service: a replay failed and its files could not be brought back while the server runs; " +
		"restart the server, which puts them back and resumes it; nothing ran"
	if d := s.realtime; d != nil && d.state.phase() != "off" {
		runRealtime(s, []string{"off"})
	}
	s.lab = lab.New() // no cluster: nothing runs on the closed one
	s.logResumed("a replay failed (" + firstLine(cause.Error()) + ") and left the cluster out of service until the server restarts")
	if err := s.publishView(nil, false); err != nil {
		s.logger.Error("rendering the view after a failed replay", "error", err)
	}
	return fmt.Errorf("%w: %s", cause, s.broken)
}

// maxReplayEvents bounds the events one replay runs: the browser lab's
// bound on what it replays (lab.MaxReplayEvents, a few seconds of one
// core), so that going back in a long real-time session is refused as
// the browser lab refuses it rather than holding the session for
// minutes. A variable so that a test reaches it cheaply.
var maxReplayEvents int64 = lab.MaxReplayEvents

// replayOn runs lines on l as the session runs typed commands (the same
// entries execute makes), expecting each to succeed or fail as ok says,
// and stops once they ran past maxReplayEvents.
func replayOn(l *lab.Lab, lines []string, ok []bool) ([]web.Entry, error) {
	return replayLines(l, lines, "this session", func(i int, e web.Entry, _ error) error {
		if e.OK == ok[i] {
			return nil
		}
		was, now := "succeeded", "failed: "+firstLine(e.Output)
		if !ok[i] {
			was, now = "failed", "succeeded"
		}
		return fmt.Errorf("command %d (%s) %s when the session ran it but %s on replay, so the replay would not give the session's cluster; nothing changed", i+1, lines[i], was, now)
	})
}

// replayLines runs lines on l, each as a typed command's entry, until
// judge refuses one (its error is the replay's) or they ran past
// maxReplayEvents (what, "this session" or "the script", is then too
// long to replay).
func replayLines(l *lab.Lab, lines []string, what string, judge func(i int, e web.Entry, err error) error) ([]web.Entry, error) {
	entries := make([]web.Entry, 0, len(lines))
	var events int64
	for i, line := range lines {
		e := web.Entry{Command: strings.TrimSpace(line)}
		out, err := runRecovered(l, line)
		var ce *lab.CommandError
		if c := l.Cluster(); c != nil && (err == nil || errors.As(err, &ce) && ce.Outcome) {
			events += c.Spent() // what the command ran (misuse runs nothing)
		}
		if events > maxReplayEvents {
			return nil, fmt.Errorf("%s is too long to replay: its first %d commands ran past %s events, what one replay may run (the browser lab's bound too); "+
				"start a new cluster to travel in time again; nothing changed", what, i+1, cluster.Thousands(maxReplayEvents))
		}
		e.Output, e.OK = out, err == nil
		if err != nil {
			e.Output = "error: " + err.Error()
		} else if e.Command == "help" {
			e.Output += nativeHelp()
		}
		if err := judge(i, e, err); err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// scriptLines are a script's commands, read as the lab reads a script
// (lab.ReplayScript: comments and blank lines skipped), and the line
// number of each.
func scriptLines(script string) (lines []string, numbers []int) {
	for i, raw := range strings.Split(script, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lines, numbers = append(lines, line), append(numbers, i+1)
	}
	return lines, numbers
}

// runRecovered runs one line, a panic answered as its error.
func runRecovered(l *lab.Lab, line string) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = "", fmt.Errorf("internal error: the command panicked (%v)", p)
		}
	}()
	return l.Run(line)
}

// clusterLine is the last `cluster` command among lines that succeeded:
// the one that started the replayed cluster ("" for none).
func clusterLine(lines []string, ok []bool) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if ok[i] && isClusterCommand(lines[i]) {
			return lines[i]
		}
	}
	return ""
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
