package lab

import (
	"errors"
	"fmt"
	"strings"
)

// Time controls. The lab keeps the lines of the commands that changed
// its cluster since `cluster` (see remember): same seed, same commands,
// the same cluster. So going back in time is replaying a prefix of them
// on a fresh lab, undo is replaying all but the last, and a session saved
// as a script is opened by replaying it. Each builds the new lab aside
// and swaps it in only once every line ran: a replay that fails leaves
// the session as it was.

// Replayed is one command a replay ran, as the transcript shows it: its
// line, its output, and its error (a Kafka outcome; a replay stops at
// any other).
type Replayed struct {
	Line   string
	Output string
	Err    error
}

// History returns the session's commands: the lines that changed the
// cluster since `cluster`, the `cluster` line first. Replaying them on a
// fresh lab gives this lab. Empty before `cluster`, and once the session
// is not replayable (see CanReplay).
func (l *Lab) History() []string {
	return append([]string(nil), l.history...)
}

// CanReplay says why the lab cannot be rebuilt by replay, nil when it can:
// a cluster on real storage keeps on disk what its commands did (replaying
// them on a fresh lab would not undo that), and a session past
// MaxReplayEvents or MaxReplayBytes no longer keeps its commands.
func (l *Lab) CanReplay() error {
	switch {
	case l.fs != nil || l.metadataDir != "" || l.openQuorum != nil:
		return errors.New("this cluster keeps its data on disk: it cannot go back in time, only forward")
	case l.noReplay:
		return fmt.Errorf("this session is too long to replay (past %s events or %s bytes of commands since `cluster`): it can no longer go back in time; save what matters and start a new cluster",
			thousands(l.limits.replayEvents), thousands(l.limits.replayBytes))
	}
	return nil
}

// Rewind makes the lab what a fresh lab is after the session's first n
// commands, by replaying them: the commands after them are dropped (the
// caller keeps them to go forward again). n is 0 (no cluster yet) to
// len(History()).
func (l *Lab) Rewind(n int) ([]Replayed, error) {
	if err := l.CanReplay(); err != nil {
		return nil, err
	}
	if n < 0 || n > len(l.history) {
		return nil, fmt.Errorf("cannot rewind to command %d: the session has %d commands since `cluster` (0 to %d)", n, len(l.history), len(l.history))
	}
	return l.replace(l.history[:n])
}

// Undo takes back the session's last command by replaying all the others.
func (l *Lab) Undo() ([]Replayed, error) {
	if err := l.CanReplay(); err != nil {
		return nil, err
	}
	if len(l.history) == 0 {
		return nil, errors.New("nothing to undo: no command changed the cluster since `cluster`")
	}
	return l.replace(l.history[:len(l.history)-1])
}

// ReplayScript replaces the session by a script's (a saved session, a
// shared link): its commands run on a fresh lab, which takes this one's
// place once every line ran. A line that fails (a Kafka outcome aside)
// stops it, naming the line, and the session stays as it was. Comments
// and blank lines are skipped, as RunScript does.
func (l *Lab) ReplayScript(script string) ([]Replayed, error) {
	if err := l.CanReplay(); err != nil {
		return nil, err
	}
	if int64(len(script)) > l.limits.replayBytes {
		return nil, fmt.Errorf("the script is %s bytes; a session replays at most %s", thousands(int64(len(script))), thousands(l.limits.replayBytes))
	}
	var lines []string
	var numbers []int
	for i, raw := range strings.Split(script, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lines, numbers = append(lines, line), append(numbers, i+1)
	}
	if len(lines) == 0 {
		return nil, errors.New("the script has no commands")
	}
	ran, err := l.replace(lines)
	var failed *replayFailed
	if errors.As(err, &failed) {
		return nil, fmt.Errorf("line %d: %s: %v; the session was left as it was", numbers[failed.index], failed.line, failed.err)
	}
	return ran, err
}

// replayFailed is a line of a replay that failed other than with a Kafka
// outcome.
type replayFailed struct {
	index int
	line  string
	err   error
}

func (e *replayFailed) Error() string {
	return fmt.Sprintf("replaying command %d (%s) failed: %v", e.index+1, e.line, e.err)
}

// replace runs lines on a fresh lab, paced and limited as this one, and
// swaps it in if every line ran (Kafka outcomes included: they ran the
// first time too). Otherwise the fresh lab is closed and this one stays.
func (l *Lab) replace(lines []string) ([]Replayed, error) {
	fresh := &Lab{pace: l.pace, limits: l.limits}
	ran := make([]Replayed, 0, len(lines))
	for i, line := range lines {
		out, err := fresh.Run(line)
		if err != nil {
			var ce *CommandError
			if !errors.As(err, &ce) || !ce.Outcome {
				fresh.Close()
				return nil, &replayFailed{index: i, line: line, err: err}
			}
		}
		ran = append(ran, Replayed{Line: line, Output: out, Err: err})
	}
	old := l.cluster
	*l = *fresh
	if old != nil {
		old.Close()
	}
	return ran, nil
}
