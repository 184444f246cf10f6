package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loglab/loglab/lessons"
)

// The command log is every command a cluster's session executed, in the
// order it executed them, as a lab script: `loglab script commands.log`
// on a fresh lab replays the session. The engine is deterministic (same
// seed, same commands: the same cluster), so the commands are the whole
// record; that is what keeps a cluster driven by the wall clock (the
// real-time driver's ticks, see realtime.go) reproducible: the ticks it
// issued are logged like typed commands, with the virtual time they moved.
//
// What a line is:
//   - a lab command, as typed (or as the API or the driver sent it),
//     whether it succeeded or failed: a failure changed nothing, or it was
//     a Kafka outcome whose time passed, and the replay fails the same way;
//   - a server-only command (`realtime on`, see native_commands.go) as a
//     `# ` comment: the lab does not know it, and it changes the cluster
//     only through the ticks logged after it;
//   - a lesson's rebuild (opening a lesson, going back, reset): a comment
//     naming the lesson and the step, then every command the lesson
//     replayed on its fresh lab. The lesson's replay starts with its own
//     `cluster` command, which replaces the cluster as a fresh lab would
//     have it, so the log never restarts: replaying it whole gives the
//     lesson's lab too. The lesson's later commands (a step's, an answer's,
//     the room's own) follow as lines;
//   - a restart: a server restarted on its data directory resumes the
//     cluster from the files there, and the log says so in a comment and
//     writes the remembered `cluster` command as a comment too, so that a
//     replay goes on with the cluster the earlier lines built. What the
//     server kept only in memory before it stopped (clients, groups' members,
//     the virtual clock) is not on disk, so the log reproduces the session
//     exactly between restarts, not across one.
const commandLogFile = "commands.log"

const (
	// commandLogMemory bounds the commands a session keeps in memory: the
	// log since the cluster last started, about three hours of the
	// real-time driver's ticks (two a second, 12 bytes each) besides what
	// was typed.
	// Past it the oldest are dropped and the memory copy says it is no
	// longer whole; the file keeps everything.
	commandLogMemory = 256 << 10
)

// commandLogFileMax bounds the file on the data directory: days of
// ticks. Past it the file is rotated, as a broker rolls a segment:
// commands.log becomes commands.log.1 (replacing an older one) and a new
// commands.log goes on, so the newest commands are always logged and the
// disk holds at most twice the bound. A variable so that a test can
// rotate a small file.
var commandLogFileMax int64 = 16 << 20

// commandLog is one session's log, with the session's mutex held for
// every call.
type commandLog struct {
	path string // the file on the data directory; empty: in memory only
	// lines are the newest lines since the cluster last started (a
	// `cluster` command that succeeded, a lesson's rebuild); bytes their
	// size; dropped how many older ones went for the memory bound.
	lines   []string
	bytes   int
	dropped int
	// ok[i] says whether lines[i] succeeded when the session ran it (a
	// comment's is true): a replay that goes back in time (rewind.go)
	// expects each command to do again what it did.
	ok []bool
	// unreplayable is the first line since the cluster started whose
	// effect a replay cannot give (a command that panicked, one with a
	// line break inside); empty when there is none.
	unreplayable string
	// restarted: the file held a log before this session began, so the
	// server restarted on its data directory (the memory copy is not
	// whole until a new cluster starts); resuming turns false once the
	// first command (the cluster's resumption) is logged.
	restarted bool
	resuming  bool
	// pending are lines not yet in the file: the file is created only once
	// the session has a cluster, so a server whose first `cluster` failed
	// leaves no file that a restart would take for a cluster's data.
	pending []string
	written int64 // the file's size
	// failed is the error of the last write while writes fail (a full
	// disk); unwritten is what the file lacks meanwhile, written first
	// once it takes writes again (commandlog_write.go).
	failed    error
	unwritten string
	// version counts the changes to the memory copy, so that what is
	// computed from it (the share script, api_timeline.go) is kept until
	// it changes; shared is that script for version sharedAt.
	version  uint64
	shared   sharedScript
	sharedAt uint64
	// checked is a rewind's replay checked in memory outside the
	// session's mutex (rewind.go's precheckRewind), for this version.
	checked checkedReplay
}

// newCommandLog is the log of a session on dataDir ("" in memory).
func newCommandLog(dataDir string) *commandLog {
	l := &commandLog{}
	if dataDir == "" {
		return l
	}
	l.path = filepath.Join(dataDir, commandLogFile)
	if st, err := os.Stat(l.path); err == nil && st.Size() > 0 {
		l.restarted, l.resuming, l.written = true, true, st.Size()
		l.pending = append(l.pending, fmt.Sprintf("# the server restarted (%s): the cluster resumes from the data directory's files; "+
			"what it kept only in memory (clients, group members, the virtual clock) starts afresh, so a replay of this log differs from here on",
			time.Now().UTC().Format(time.RFC3339)))
	}
	return l
}

// commandLine is how a command executed in the session is written in the
// log: one line the lab script runner reads back as the same command.
func commandLine(command string, native bool) string {
	command = strings.TrimSpace(command)
	switch {
	case command == "" || strings.HasPrefix(command, "#"):
		return command
	case strings.ContainsAny(command, "\r\n"):
		// A line break inside a command (possible only through the API)
		// cannot be one line of a script: the replay would run two
		// commands. Kept visible, so a replay that differs says why.
		return fmt.Sprintf("# not replayable, a line break inside: %q", command)
	case native:
		return "# " + command
	}
	return command
}

// commandLog is the session's log, made on first use, with s.mu held.
func (s *liveSession) commandLog() *commandLog {
	if s.commands == nil {
		s.commands = newCommandLog(s.dataDir)
	}
	return s.commands
}

// logCommand appends a command the session executed to its log, with
// s.mu held. ok says whether it succeeded: a `cluster` command that did
// starts the memory copy afresh, since a replay needs nothing before it.
// A command that panicked is logged as a comment: what it changed before
// it panicked stays changed, so the replay differs from there, and
// running it again would only panic the replay.
func (s *liveSession) logCommand(command string, native, ok, panicked bool) {
	line := commandLine(command, native)
	if line == "" {
		return
	}
	l := s.commandLog()
	if panicked && !strings.HasPrefix(line, "#") {
		line = "# panicked, so a replay differs from here: " + line
	}
	if strings.HasPrefix(line, "# panicked") || strings.HasPrefix(line, "# not replayable") {
		defer func() {
			if l.unreplayable == "" {
				l.unreplayable = strings.TrimSpace(command)
			}
		}()
	}
	if l.resuming && !native {
		l.resuming = false
		if first, _, _ := strings.Cut(line, " "); first == "cluster" {
			line = "# resumed from the data directory: " + line
		}
	} else if ok && !native && isClusterCommand(line) {
		l.restart()
	}
	l.addRan(line, ok || native)
	s.flushCommandLog()
}

// logLessonChange logs what a lesson action ran, with s.mu held: a
// rebuild is a comment naming the lesson and step, then the whole replay.
func (s *liveSession) logLessonChange(action string, ch lessons.Change) {
	l := s.commandLog()
	if ch.Rebuilt && s.lesson != nil {
		st := s.lesson.Status()
		l.restart()
		l.add(fmt.Sprintf("# lesson %s, step %d of %d (%s): the lesson rebuilt the lab (%s); its replay follows, starting with its own `cluster`",
			st.Lesson, st.Step+1, st.Steps, st.Name, action))
	}
	for _, r := range ch.Ran {
		if line := commandLine(r.Command, false); line != "" {
			l.addRan(line, r.OK)
		}
	}
	if action == "close" {
		l.add("# the lesson closed: free play goes on with the lesson's cluster")
	}
	s.flushCommandLog()
}

// isClusterCommand: the line starts a new cluster.
func isClusterCommand(line string) bool {
	first, _, _ := strings.Cut(line, " ")
	return first == "cluster"
}

// restart empties the memory copy: a new cluster needs no earlier line.
func (l *commandLog) restart() {
	l.lines, l.ok, l.bytes, l.dropped, l.restarted, l.unreplayable = nil, nil, 0, 0, false, ""
	l.version++
}

// add appends a comment, or a line that succeeded.
func (l *commandLog) add(line string) { l.addRan(line, true) }

// addRan appends a line and whether it succeeded.
func (l *commandLog) addRan(line string, ok bool) {
	l.version++
	l.lines = append(l.lines, line)
	l.ok = append(l.ok, ok)
	l.bytes += len(line) + 1
	n := 0
	for l.bytes > commandLogMemory && n < len(l.lines)-1 {
		l.bytes -= len(l.lines[n]) + 1
		n++
	}
	if n > 0 {
		l.dropped += n
		l.lines = append([]string(nil), l.lines[n:]...)
		l.ok = append([]bool(nil), l.ok[n:]...)
	}
	if l.path != "" {
		l.pending = append(l.pending, line)
	}
}

// text is the memory copy as a script, and whether it is whole (a replay
// of it on a fresh lab gives the session's cluster).
func (l *commandLog) text() (string, bool) {
	var b strings.Builder
	if l.restarted {
		fmt.Fprintf(&b, "# the server restarted and resumed this cluster from its data directory: its %s has the commands before\n", commandLogFile)
	}
	if l.dropped > 0 {
		fmt.Fprintf(&b, "# %d older commands were dropped from the server's memory; the data directory's %s has them all\n", l.dropped, commandLogFile)
	}
	for _, line := range l.lines {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String(), l.dropped == 0 && !l.restarted
}

// commandLogText is the session's command log since its cluster last
// started, for a page or an API to offer, and whether it is whole.
func (s *liveSession) commandLogText() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commandLog().text()
}

// replayable is the memory copy's commands (its lines less comments and
// blank ones) and whether each succeeded when the session ran it, or why
// they do not give the session's cluster: what rewind.go replays.
func (l *commandLog) replayable() (lines []string, ok []bool, why string) {
	switch {
	case l.restarted:
		return nil, nil, "the server restarted and resumed this cluster from its data directory: the commands before the restart are not in its memory, " +
			"and what it kept only in memory (clients, group members, the virtual clock) started afresh, so no replay gives this cluster; " +
			"start a new cluster (`cluster brokers=3 seed=42`) to travel in time again"
	case l.dropped > 0:
		return nil, nil, fmt.Sprintf("this session is longer than the server keeps in memory (%d older commands were dropped; the data directory's %s has them): "+
			"it can no longer go back in time; start a new cluster to travel in time again", l.dropped, commandLogFile)
	case l.unreplayable != "":
		return nil, nil, fmt.Sprintf("the command %q cannot be replayed (it panicked, or holds a line break): a replay would not give this cluster; "+
			"start a new cluster to travel in time again", l.unreplayable)
	}
	for i, line := range l.lines {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lines, ok = append(lines, line), append(ok, l.ok[i])
	}
	if len(lines) == 0 || !isClusterCommand(lines[0]) {
		return nil, nil, "there is no cluster to go back in: start one with `cluster brokers=3 seed=42`"
	}
	return lines, ok, ""
}

// logRebuild logs a session the server rebuilt by replay (a rewind, an
// undo, an uploaded script), with s.mu held, as logLessonChange logs a
// lesson's: a comment saying why, then every replayed line, so that
// replaying the whole file still gives the session. The memory copy
// starts over with them: the replay starts with its own `cluster`.
func (s *liveSession) logRebuild(why string, lines []string, ok []bool) {
	l := s.commandLog()
	l.restart()
	l.add("# " + why + ": the server rebuilt the cluster by replaying the commands that follow, starting with their own `cluster`")
	for i, line := range lines {
		l.addRan(line, ok[i])
	}
	s.flushCommandLog()
}

// logResumed logs that a failed rebuild did not give the replayed
// cluster (why says what came instead: the files put back and resumed,
// or the cluster out of service), with s.mu held: as after a restart,
// what the cluster kept only in memory is gone, so the memory copy is no
// longer whole.
func (s *liveSession) logResumed(why string) {
	l := s.commandLog()
	l.add("# " + why + "; a replay of this log differs from here on")
	l.restarted = true
	s.flushCommandLog()
}
