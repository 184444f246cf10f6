package vopr

import (
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/lab"
)

// Result is what a run did and found.
type Result struct {
	Seed  uint64
	Steps int // workload steps run (a step is one action: one or a few command lines)
	// Script is every line the run typed, setup first: replaying it with
	// `loglab script` or lab.RunScript reproduces the run exactly.
	Script []string
	// Violations are the checker's findings; the run stops at the step
	// that produced the first one, so the script ends there.
	Violations []cluster.Violation
	// Lessons counts the acknowledged records lost to what a setting is
	// documented to risk (see Options.lesson): not violations.
	Lessons int
	Errors  int           // commands that failed (a produce timing out, a poll with no leader...): expected under faults
	Events  int           // simulation steps: events the scheduler ran (message deliveries, timers)
	Elapsed time.Duration // virtual time at the end
	// TranscriptHash is FNV-1a over the transcript, as lab.RunScript
	// would print it; Transcript is the text itself when asked for.
	TranscriptHash uint64
	Transcript     string
	// Err is set when the run could not start (a bad option).
	Err error
}

// OK reports whether the run found no violation.
func (r Result) OK() bool { return r.Err == nil && len(r.Violations) == 0 }

// ScriptText is the script as a file: one command per line.
func (r Result) ScriptText() string { return strings.Join(r.Script, "\n") + "\n" }

// Report describes a failed run: the seed, the violations and the script
// that replays it.
func (r Result) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "vopr seed=%d: ", r.Seed)
	if r.Err != nil {
		fmt.Fprintf(&b, "%v\n", r.Err)
		return b.String()
	}
	if len(r.Violations) == 0 {
		fmt.Fprintf(&b, "no violations in %d steps (%v of virtual time)\n", r.Steps, r.Elapsed)
		return b.String()
	}
	fmt.Fprintf(&b, "%d violation(s) after %d steps (%v of virtual time):\n", len(r.Violations), r.Steps, r.Elapsed)
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	fmt.Fprintf(&b, "replay: save the %d lines below to a file and run `loglab script FILE`\n", len(r.Script))
	b.WriteString(r.ScriptText())
	return b.String()
}

// Run runs one seed for steps workload steps and reports what the
// invariant checker found.
func Run(seed uint64, steps int, opts Options) Result {
	opts = opts.withDefaults()
	res := Result{Seed: seed}
	if opts.Acks != "all" && opts.Acks != "1" {
		res.Err = fmt.Errorf("acks=%s: the workload's producers use all or 1", opts.Acks)
		return res
	}
	w := newWorkload(seed, opts)
	l := lab.New()
	defer l.Close()
	if opts.Pace != nil {
		l.SetPace(opts.Pace)
	}
	h := fnv.New64a()
	var full strings.Builder
	out := io.Writer(h)
	if opts.Transcript {
		out = io.MultiWriter(h, &full)
	}
	// c is the lab's cluster, read again after every line: a command that
	// bursts past the events a command may run is undone by replay, which
	// builds a new cluster (the old one, left at the burst, would steer
	// the workload and answer for the checker from then on).
	var c *cluster.Cluster
	run := func(line string) {
		res.Script = append(res.Script, line)
		writeTranscript(out, l, line, &res.Errors)
		c = l.Cluster()
		if opts.afterLine != nil && c != nil {
			opts.afterLine(c)
		}
	}
	for _, line := range w.setup(seed) {
		run(line)
	}
	if c == nil {
		res.Err = fmt.Errorf("the workload's cluster did not start; script:\n%s", res.ScriptText())
		return res
	}
	failed := func() bool { return len(opts.bugs(c.Checker().Violations())) > 0 }
	for (res.Steps < steps || c.Checker().Steps() < opts.MinEvents) && !failed() {
		res.Steps++
		for _, line := range w.next(c) {
			run(line)
		}
	}
	if !failed() {
		// Liveness: with every fault healed and everything restarted, the
		// cluster must converge and then stay quiet (stabilize checks both).
		run("# end of the run: heal every fault, restart what is down, stabilize")
		for round := 0; round < maxHealRounds && !failed(); round++ {
			lines := w.heal(c, round)
			if len(lines) == 0 {
				break
			}
			for _, line := range lines {
				run(line)
			}
		}
		if !failed() {
			run("stabilize")
			res.Violations = append(res.Violations, finalStabilizeBudget(c)...)
		}
	}
	run("check invariants")
	for _, v := range c.Checker().Violations() {
		if opts.lesson(v) {
			res.Lessons++
		}
	}
	res.Violations = append(opts.bugs(c.Checker().Violations()), res.Violations...)
	res.Events = c.Checker().Steps()
	res.Elapsed = c.Elapsed()
	res.TranscriptHash = h.Sum64()
	res.Transcript = full.String()
	return res
}

// FinalStabilizeBudget is the invariant a run breaks when its last
// stabilize, every fault healed and everything restarted, runs out of the
// events a lab command may run (lab.MaxEventsPerCommand) before the
// cluster settles. Stabilize reports no liveness violation then (the
// cluster was not given its ten minutes), but a healthy cluster sends a
// few hundred messages a virtual second: one that burns two million
// events without settling is in a busy loop, and its lags are what the
// liveness properties would have reported.
const FinalStabilizeBudget = "final-stabilize-budget"

// finalStabilizeBudget reports the run's last stabilize, the command
// just run, when it ran out of the command's budget (weighted events:
// with the checker on every event, each costs more than one).
func finalStabilizeBudget(c *cluster.Cluster) []cluster.Violation {
	if c.Spent() < lab.MaxEventsPerCommand {
		return nil
	}
	var lags []string
	for _, l := range c.Lags() {
		if l.Blocked == "" && len(lags) < 5 {
			lags = append(lags, l.Property+": "+l.Detail)
		}
	}
	return []cluster.Violation{{At: c.Elapsed(), Step: c.Checker().Steps(), Invariant: FinalStabilizeBudget,
		Detail: fmt.Sprintf("the last stabilize ran out of the %d (weighted) events a command may run after %v without settling, every fault healed: %s",
			lab.MaxEventsPerCommand, c.CommandRan(), strings.Join(lags, "; "))}}
}

// maxHealRounds bounds the end-of-run recovery: a crashed broker waits
// for the controller to fence it (a session timeout, at most 6 s here)
// before it may restart, one second a round.
const maxHealRounds = 30

// lesson reports whether a finding is a documented cost of a setting the
// workload chose, not a bug: acknowledged records lost to an unclean
// election, and those of an acks=1 producer mixed into an acks=all run
// (with Acks "1" they are what the negative control looks for).
func (o Options) lesson(v cluster.Violation) bool {
	return v.Invariant == "unclean-election-loss" || (o.Acks == "all" && v.Invariant == "acks=1-loss")
}

// bugs drops the lessons.
func (o Options) bugs(vs []cluster.Violation) []cluster.Violation {
	var out []cluster.Violation
	for _, v := range vs {
		if !o.lesson(v) {
			out = append(out, v)
		}
	}
	return out
}

// writeTranscript runs one line and writes it as lab.RunScript does:
// comments copied, commands echoed after "> ", then output or "error: ...".
func writeTranscript(w io.Writer, l *lab.Lab, line string, errors *int) {
	if strings.HasPrefix(line, "#") {
		io.WriteString(w, line+"\n")
		return
	}
	text, err := l.Run(line)
	if err != nil {
		*errors++
		text = "error: " + err.Error()
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	io.WriteString(w, "> "+line+"\n"+text)
}
