package lessons

import (
	"fmt"
	"strings"

	"github.com/loglab/loglab/engine/lab"
)

// Player runs a lesson's commands on one lab, remembering the last error
// for the last-error check. The browser player and the tests share it.
type Player struct {
	Lab     *lab.Lab
	lastErr error
}

// NewPlayer starts a fresh lab: every play of a lesson starts from nothing,
// which is what makes it deterministic.
func NewPlayer() *Player { return &Player{Lab: lab.New()} }

// Close releases the lab.
func (p *Player) Close() error { return p.Lab.Close() }

// Run runs one command and returns what a transcript shows after it: the
// output, or "error: ..." like lab.RunScript prints, each line ending in \n.
func (p *Player) Run(cmd string) string {
	out, err := p.Lab.Run(cmd)
	p.lastErr = err
	if err != nil {
		out = "error: " + err.Error()
	}
	if out == "" || strings.HasSuffix(out, "\n") {
		return out
	}
	return out + "\n"
}

// RunStep runs a step's commands (not a goal's solution: that is the
// learner's to find) and returns each one's output. A live command (`>~`)
// is the workshop server's, not the lab's: it is skipped, with an empty
// output, and leaves the cluster as it was (Command.Live).
func (p *Player) RunStep(s Step) []string {
	var outs []string
	for _, c := range s.Commands {
		if c.Live {
			outs = append(outs, "")
			continue
		}
		outs = append(outs, p.Run(c.Text))
	}
	return outs
}

// PlayTo returns a fresh player that has run steps [0, step) of a lesson,
// solving their goals with the lesson's solutions: how "back" and a link to
// a step rebuild the lab, since the engine is deterministic.
func PlayTo(l *Lesson, step int) *Player {
	p := NewPlayer()
	for _, s := range l.Steps[:min(step, len(l.Steps))] {
		p.RunStep(s)
		for _, cmd := range s.Solution {
			p.Run(cmd)
		}
	}
	return p
}

// Evaluate runs a named check on the lab as it is now.
func (p *Player) Evaluate(check string, args []string) (string, error) {
	return Evaluate(check, State{Lab: p.Lab, LastErr: p.lastErr}, args)
}

// Playthrough is what playing a whole lesson printed and computed.
type Playthrough struct {
	Outputs     [][]string     // per step, per command
	Predictions map[int]string // step index -> the check's value
	GoalBefore  map[int]string // step index -> value before the solution
	GoalAfter   map[int]string // step index -> value after it
	// Values: step index -> what the checks of its narration's engine
	// values gave (Step.Values, in order), after its commands ran.
	Values map[int][]string
}

// Play runs a lesson from a fresh lab to its end: each step's commands,
// its predict check, and a goal step's solution.
func Play(l *Lesson) (*Playthrough, error) {
	p := NewPlayer()
	defer p.Close()
	pt := &Playthrough{Predictions: map[int]string{}, GoalBefore: map[int]string{}, GoalAfter: map[int]string{}, Values: map[int][]string{}}
	for i, s := range l.Steps {
		pt.Outputs = append(pt.Outputs, p.RunStep(s))
		for _, v := range s.Values {
			got, err := p.Evaluate(v.Check, v.Args)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %v", l.File, v.Line, v.Text, err)
			}
			pt.Values[i] = append(pt.Values[i], got)
		}
		if pr := s.Predict; pr != nil {
			v, err := p.Evaluate(pr.Check, pr.Args)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: predict %s: %v", l.File, pr.Line, pr.Check, err)
			}
			pt.Predictions[i] = v
		}
		if g := s.Check; g != nil {
			before, err := p.Evaluate(g.Check, g.Args)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: goal-check %s: %v", l.File, g.Line, g.Check, err)
			}
			for _, cmd := range s.Solution {
				p.Run(cmd)
			}
			after, err := p.Evaluate(g.Check, g.Args)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: goal-check %s: %v", l.File, g.Line, g.Check, err)
			}
			pt.GoalBefore[i], pt.GoalAfter[i] = before, after
		}
	}
	return pt, nil
}
