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
	run := func(line string) {
		res.Script = append(res.Script, line)
		writeTranscript(out, l, line, &res.Errors)
	}
	for _, line := range w.setup(seed) {
		run(line)
	}
	c := l.Cluster()
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
		}
	}
	run("check invariants")
	for _, v := range c.Checker().Violations() {
		if opts.lesson(v) {
			res.Lessons++
		}
	}
	res.Violations = opts.bugs(c.Checker().Violations())
	res.Events = c.Checker().Steps()
	res.Elapsed = c.Elapsed()
	res.TranscriptHash = h.Sum64()
	res.Transcript = full.String()
	return res
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
