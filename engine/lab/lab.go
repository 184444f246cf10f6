// Package lab is the lab language: one command line in, one piece of
// transcript out. The UI's buttons emit it, learners type it, lessons are
// written in it and tests replay it, so a session's history is a script and
// rewinding is replaying a prefix of it.
//
// A command either succeeds and changes the cluster, or fails having
// changed nothing, with an error that names the problem. A misuse of the
// command (bad syntax, an unknown option, a bad value) also shows its usage;
// so does a limit it would exceed (limits.go: the end of virtual time, the
// events one command may run, the records and bytes one produce may send).
// Both are refused up front: every argument and limit is checked before
// anything moves, the clock included.
//
// A Kafka outcome is different: the command was fine and Kafka answered
// with an error code (produce: NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT, a
// TimeoutException; poll: OFFSET_OUT_OF_RANGE; NOT_CONTROLLER). That is
// the command's result, not a failure of it: the virtual time that passed
// and what the brokers did meanwhile (a leader that appended the records
// before the request timed out keeps them, as Kafka's does) are real and
// stay. Its message leaves the usage out.
//
// The one failure found only after events ran is a burst the up-front
// estimate did not foresee running past MaxEventsPerCommand. A lab in
// memory undoes it by replay: it keeps the lines of the commands that
// changed the cluster since `cluster` and rebuilds the cluster from them
// (same seed, same commands: the same state). A lab on real storage
// (NewWithFS, NewWithStorage, SetQuorum) cannot replay its disks; it
// estimates conservatively and, should a burst still run out, stops
// there and says so.
package lab

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/storage"
	"github.com/loglab/loglab/engine/view"
)

// Lab runs lab commands against one cluster.
type Lab struct {
	cluster   *cluster.Cluster // nil until the `cluster` command ran
	fs        storage.FS       // where the cluster keeps its partition logs; nil: in memory
	inspector view.Inspector   // what `show batch` or `show lookup` opened
	pace      func()           // see SetPace
	// openQuorum supplies the controller quorum; nil starts one in process.
	openQuorum func(controllers int) (kraft.Quorum, error)
	// metadataDir keeps the controllers' files; empty keeps them in memory.
	metadataDir string
	limits      limits
	// history holds the lines of the commands that changed the cluster
	// since `cluster` (successes and Kafka outcomes), its first line the
	// `cluster` command: replaying them rebuilds the cluster (undo).
	history []string
	// historyBytes and historyEvents are what replaying the history
	// would read and run; noReplay is set once they grew past the limits.
	historyBytes, historyEvents int64
	noReplay                    bool
	// burstRate is the events per virtual second of the last command
	// that ran out of its budget, until a command measures the rate anew.
	burstRate float64
	// before is the metrics sample taken before the last command that ran,
	// starting the one before the command running (metrics.go).
	before, starting metricsBefore
}

// New returns a lab with no cluster yet. Its brokers keep their logs on
// in-memory disks, one each, which lose in a power cut what their page
// cache had not written back.
func New() *Lab { return &Lab{limits: defaultLimits()} }

// NewWithFS returns a lab whose cluster writes its partition directories
// ("<topic>-<partition>") into fs, e.g. real files under a data directory.
func NewWithFS(fs storage.FS) *Lab { return &Lab{fs: fs, limits: defaultLimits()} }

// NewWithStorage keeps partition logs on fs and the controllers' raft logs,
// state and snapshots under metadataDir (a real directory: raft's snapshot
// store writes files itself). A cluster started on storage that already
// holds a cluster's data resumes it.
func NewWithStorage(fs storage.FS, metadataDir string) *Lab {
	return &Lab{fs: fs, metadataDir: metadataDir, limits: defaultLimits()}
}

// SetQuorum makes every cluster this lab starts use the quorum open
// returns instead of starting one in this process (cluster.Config.OpenQuorum):
// the server's controllers may run as separate processes.
func (l *Lab) SetQuorum(open func(controllers int) (kraft.Quorum, error)) { l.openQuorum = open }

// SetPace makes every cluster this lab starts call pace every few hundred
// simulation events (cluster.Config.Pace): the WASM driver yields there.
func (l *Lab) SetPace(pace func()) { l.pace = pace }

// CommandError is a command that failed. Usage is the failing command's
// usage line, empty when the command itself was not recognised. Outcome
// marks Kafka's answer (an error code) as opposed to a misuse: its message
// leaves the usage out, since nothing about the command was wrong.
type CommandError struct {
	Command string
	Err     error
	Usage   string
	Outcome bool
}

func (e *CommandError) Error() string {
	msg := e.Err.Error()
	if e.Command != "" {
		msg = e.Command + ": " + msg
	}
	if e.Usage != "" && !e.Outcome {
		msg += "\nusage: " + e.Usage
	}
	return msg
}

func (e *CommandError) Unwrap() error { return e.Err }

// errNoCluster is returned by commands that need a cluster before one exists.
var errNoCluster = errors.New("there is no cluster yet; start one with `cluster brokers=3 seed=42`")

// Run executes one command line and returns its output. Blank lines and
// comments (starting with #) do nothing and print nothing.
func (l *Lab) Run(line string) (string, error) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return "", nil
	}
	if len(line) > l.limits.commandLineBytes {
		return "", &CommandError{Err: errLineTooLong(len(line), l.limits.commandLineBytes)}
	}
	tokens, err := tokenize(line)
	if err != nil {
		return "", &CommandError{Err: err}
	}
	cmd, rest, err := lookup(tokens)
	if err != nil {
		return "", &CommandError{Err: err}
	}
	a, err := parseArgs(rest)
	if err != nil {
		return "", &CommandError{Command: cmd.name, Err: err, Usage: cmd.usage}
	}
	if l.cluster != nil {
		l.cluster.FollowRemoteQuorum()
		l.cluster.BeginCommand(l.limits.eventsPerCommand)
		l.beforeCommand()
	}
	out, err := cmd.run(l, a)
	var over *cluster.BudgetExceeded
	if errors.As(err, &over) {
		return "", &CommandError{Command: cmd.name, Err: l.undo(over), Usage: cmd.usage}
	}
	events := l.drainEvents(cmd) + l.newViolations()
	if err != nil {
		if events != "" {
			err = fmt.Errorf("%w%s", err, events)
		}
		outcome := isKafkaOutcome(err)
		if outcome {
			l.afterCommand(true)
			l.remember(cmd, line)
		}
		return "", &CommandError{Command: cmd.name, Err: err, Usage: cmd.usage, Outcome: outcome}
	}
	l.afterCommand(false)
	l.remember(cmd, line)
	return out + events, nil
}

// remember keeps the line of a command that ran, for undo by replay. A
// history past MaxReplayBytes or MaxReplayEvents would make an undo too
// dear: the lab then drops it and, like a lab on storage, estimates
// conservatively and stops where a burst runs out (see undo).
func (l *Lab) remember(cmd *command, line string) {
	if l.cluster == nil || cmd == clusterCommand || l.cluster.CommandRan() >= time.Second {
		l.burstRate = 0 // a new cluster, or a new measure of this one's rate
	}
	switch {
	case l.cluster == nil:
		l.history, l.historyBytes, l.historyEvents, l.noReplay = nil, 0, 0, false
		return
	case cmd == clusterCommand:
		l.history, l.historyBytes, l.historyEvents, l.noReplay = nil, 0, 0, false
	case l.noReplay || !l.replayable():
		return
	}
	l.history = append(l.history, line)
	l.historyBytes += int64(len(line))
	l.historyEvents += l.cluster.Spent()
	if l.historyBytes > l.limits.replayBytes || l.historyEvents > l.limits.replayEvents {
		l.history, l.noReplay = nil, true
	}
}

// View snapshots the lab's cluster for the UI.
func (l *Lab) View() view.Cluster {
	if l.cluster == nil {
		return view.Cluster{}
	}
	v := l.cluster.View()
	v.Inspector = l.inspectorNow()
	return l.withDeltas(v)
}

// requireCluster is the first check of every command that needs a cluster.
func (l *Lab) requireCluster() error {
	if l.cluster == nil {
		return errNoCluster
	}
	return nil
}

// lookup finds the command a line starts with: two-word commands
// ("topic create") first, then one-word ones.
func lookup(tokens []string) (*command, []string, error) {
	if len(tokens) == 0 {
		return nil, nil, errors.New("empty command")
	}
	if len(tokens) >= 2 {
		if c := findCommand(tokens[0] + " " + tokens[1]); c != nil {
			return c, tokens[2:], nil
		}
	}
	if c := findCommand(tokens[0]); c != nil {
		return c, tokens[1:], nil
	}
	if subs := subcommandsOf(tokens[0]); len(subs) > 0 {
		what := "nothing"
		if len(tokens) > 1 {
			what = fmt.Sprintf("%q", tokens[1])
		}
		return nil, nil, fmt.Errorf("%s takes one of: %s (got %s)%s", tokens[0], strings.Join(subs, ", "), what, didYouMean(tokens))
	}
	return nil, nil, fmt.Errorf("unknown command %q%s (help lists every command)", tokens[0], didYouMean(tokens))
}

// StarterScript is what a fresh lab runs so there is something to play with:
// the browser lab types it into the console, the live server runs it at start.
const StarterScript = "cluster brokers=3 controllers=3 seed=42\ntopic create orders partitions=3 rf=3"

// Close shuts the cluster down cleanly (flushing its logs), if there is one.
func (l *Lab) Close() error {
	if l.cluster == nil {
		return nil
	}
	return l.cluster.Close()
}

// drainEvents returns what happened in the cluster during a command (the
// controller's decisions, leadership and ISR changes, truncations,
// retention), indented under its output. The cluster command's own
// start-up chatter is left out by cluster.New, unless the start-up found
// damaged storage: then it is all told.
func (l *Lab) drainEvents(cmd *command) string {
	if l.cluster == nil {
		return ""
	}
	events := l.cluster.DrainEvents()
	if len(events) == 0 {
		return ""
	}
	return "\n  " + strings.Join(events, "\n  ")
}

// Cluster exposes the lab's cluster (nil before the cluster command) to
// drivers and tests that need more than the transcript.
func (l *Lab) Cluster() *cluster.Cluster { return l.cluster }

// newViolations runs the invariant checker after each command and reports
// what it newly found, so a lost acknowledged record is flagged where it
// happens rather than when someone thinks to ask.
func (l *Lab) newViolations() string {
	if l.cluster == nil {
		return ""
	}
	var b strings.Builder
	for _, v := range l.cluster.Checker().Check() {
		b.WriteString("\n  ! invariant violated: " + v.String())
	}
	return b.String()
}
