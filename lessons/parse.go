package lessons

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ParseError names the file and line a trainer must fix.
type ParseError struct {
	File   string
	Line   int
	Reason string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason) }

// liveCommandPrefix starts a native lesson's live command (Command.Live).
const liveCommandPrefix = ">~ "

// keywords a lesson line may start with; any other "word:" line outside a
// command's output is a typo the trainer must hear about, not prose lost.
var frontKeys = map[string]bool{"id": true, "order": true, "level": true, "minutes": true, "title.en": true, "title.zh": true, "goal.en": true, "goal.zh": true, "mode": true, "module": true, "after": true}
var stepKeys = map[string]bool{"say.en": true, "say.zh": true, "focus": true, "hint.en": true, "hint.zh": true, "predict": true, "question.en": true, "question.zh": true, "choice": true, "goal-check": true, "solution": true, "aside": true}

type parser struct {
	file  string
	lines []string
	l     *Lesson
	step  *Step
	cmd   *Command // the command whose output lines are being read
	// the English half of a pair waiting for its Chinese, per keyword
	pending map[string]pendingText
}

type pendingText struct {
	line int
	en   string
}

// Parse reads one lesson. Every error is a *ParseError naming the line.
func Parse(file, src string) (*Lesson, error) {
	p := &parser{file: file, lines: strings.Split(src, "\n"), l: &Lesson{File: file, Order: orderFromName(file)}, pending: map[string]pendingText{}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.l, nil
}

func (p *parser) errf(line int, format string, a ...any) error {
	return &ParseError{File: p.file, Line: line, Reason: fmt.Sprintf(format, a...)}
}

func (p *parser) parse() error {
	for i, raw := range p.lines {
		n := i + 1
		line := strings.TrimRight(raw, " \t\r")
		if p.cmd != nil && (!p.endsOutput(line) || p.blankInsideOutput(i)) {
			p.cmd.Want += line + "\n"
			p.cmd.OutTo = i + 1
			continue
		}
		p.cmd = nil
		var err error
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			// blank lines and trainer notes
		case strings.HasPrefix(line, "== "):
			err = p.header(n, line)
		case strings.HasPrefix(line, "> ") || strings.HasPrefix(line, liveCommandPrefix):
			err = p.command(n, i, line)
		default:
			err = p.keyword(n, line)
		}
		if err != nil {
			return err
		}
	}
	return p.finish(len(p.lines))
}

// endsOutput: a command's output runs until a blank line (unless more
// output follows it: blankInsideOutput), the next command, a step header or
// a lesson keyword, as in engine/lab/testdata transcripts.
func (p *parser) endsOutput(line string) bool {
	if line == "" || strings.HasPrefix(line, "> ") || strings.HasPrefix(line, liveCommandPrefix) || strings.HasPrefix(line, "== ") {
		return true
	}
	key, _, ok := strings.Cut(line, ":")
	return ok && stepKeys[key]
}

// blankInsideOutput: a blank line at i belongs to the command's output
// when more output follows it, i.e. the next line that is not blank is
// not one that ends an output (`show group` prints kafka-consumer-groups.sh's
// three tables separated by blank lines). A trainer note after a blank
// line still ends the output.
func (p *parser) blankInsideOutput(i int) bool {
	if strings.TrimRight(p.lines[i], " \t\r") != "" {
		return false
	}
	for _, raw := range p.lines[i+1:] {
		next := strings.TrimRight(raw, " \t\r")
		if next == "" {
			continue
		}
		return !p.endsOutput(next) && !strings.HasPrefix(next, "#")
	}
	return false
}

func (p *parser) header(n int, line string) error {
	if err := p.closeStep(); err != nil {
		return err
	}
	kind, name, ok := strings.Cut(strings.TrimPrefix(line, "== "), ":")
	name = strings.TrimSpace(name)
	if !ok || (kind != "step" && kind != "goal") || name == "" {
		return p.errf(n, "a step header is `== step: NAME` or `== goal: NAME`, not %q", line)
	}
	if p.l.ID == "" {
		return p.errf(n, "the lesson needs an `id:` before its first step")
	}
	p.l.Steps = append(p.l.Steps, Step{Line: n, Name: name, Goal: kind == "goal"})
	p.step = &p.l.Steps[len(p.l.Steps)-1]
	return nil
}

func (p *parser) command(n, i int, line string) error {
	if p.step == nil {
		return p.errf(n, "a command outside a step: put it after a `== step: NAME` line")
	}
	if p.step.Goal {
		return p.errf(n, "a goal step's commands are the learner's: write them as `solution: > COMMAND`")
	}
	c := Command{Line: n, Text: strings.TrimPrefix(line, "> "), OutFrom: i + 1, OutTo: i + 1}
	if text, live := strings.CutPrefix(line, liveCommandPrefix); live {
		if !p.l.Native {
			return p.errf(n, "a `>~` command runs on the workshop server only: it belongs in a lesson with `mode: native`")
		}
		c.Text, c.Live = text, true
	}
	p.step.Commands = append(p.step.Commands, c)
	p.cmd = &p.step.Commands[len(p.step.Commands)-1]
	return nil
}

func (p *parser) keyword(n int, line string) error {
	key, value, ok := strings.Cut(line, ":")
	value = strings.TrimSpace(value)
	if !ok || (!frontKeys[key] && !stepKeys[key]) {
		return p.errf(n, "unknown line %q: expected a keyword (id:, say.en:, ...), `> COMMAND` or `== step: NAME`", line)
	}
	if value == "" {
		return p.errf(n, "%s: is empty", key)
	}
	if frontKeys[key] {
		if p.step != nil {
			return p.errf(n, "%s: belongs before the first step", key)
		}
		return p.front(n, key, value)
	}
	if p.step == nil {
		return p.errf(n, "%s: belongs inside a step", key)
	}
	return p.stepLine(n, key, value)
}

func (p *parser) front(n int, key, value string) error {
	l := p.l
	switch key {
	case "id":
		l.ID = value
	case "level":
		if value != "beginner" && value != "intermediate" && value != "advanced" {
			return p.errf(n, "level: is beginner, intermediate or advanced, not %q", value)
		}
		l.Level = value
	case "mode":
		if value != "native" {
			return p.errf(n, "mode: is native (a lesson that needs the workshop server), not %q; leave it out for a lesson the browser lab plays", value)
		}
		l.Native = true
	case "module":
		if _, ok := ModuleByID(value); !ok {
			return p.errf(n, "module: is one of %s, not %q", moduleIDs(), value)
		}
		if l.Module != "" {
			return p.errf(n, "a second module:")
		}
		l.Module = value
	case "after":
		// The lessons this one builds on, by id, separated by blanks or
		// commas; whether each exists and comes earlier is the
		// catalogue's to tell (checkCatalogue), once every lesson is read.
		if l.AfterLine != 0 {
			return p.errf(n, "one after: line (the one on line %d): list every prerequisite on it", l.AfterLine)
		}
		for _, id := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			if slices.Contains(l.After, id) {
				return p.errf(n, "after: names %q twice", id)
			}
			l.After = append(l.After, id)
		}
		l.AfterLine = n
	case "order", "minutes":
		v, err := strconv.Atoi(value)
		if err != nil || v < 0 {
			return p.errf(n, "%s: wants a whole number, not %q", key, value)
		}
		if key == "order" {
			l.Order = v
		} else {
			l.Minutes = v
		}
	default:
		return p.pair(n, key, value, func(_ int, t Text) error {
			if err := p.noValues(n, key, t); err != nil {
				return err
			}
			if strings.HasPrefix(key, "title.") {
				if l.Title.En != "" {
					return p.errf(n, "a second title")
				}
				l.Title = t
			} else {
				l.Goals = append(l.Goals, t)
			}
			return nil
		})
	}
	return nil
}

// pair joins a KEY.en line with the KEY.zh line that must follow it
// (other lines may come between, never another KEY.en).
func (p *parser) pair(n int, key, value string, done func(enLine int, t Text) error) error {
	base, lang, _ := strings.Cut(key, ".")
	waiting, has := p.pending[base]
	switch {
	case lang == "en" && has:
		return p.errf(waiting.line, "%s.en has no %s.zh translation before the next %s.en", base, base, base)
	case lang == "en":
		p.pending[base] = pendingText{line: n, en: value}
		return nil
	case !has:
		return p.errf(n, "%s.zh without a %s.en before it", base, base)
	}
	delete(p.pending, base)
	return done(waiting.line, Text{En: waiting.en, Zh: value})
}

func (p *parser) stepLine(n int, key, value string) error {
	s := p.step
	switch key {
	case "focus":
		if s.Focus != "" {
			return p.errf(n, "one focus: per step (the one on line %d)", s.FocusLine)
		}
		f, err := ParseFocus(value)
		if err != nil {
			return p.errf(n, "%v", err)
		}
		s.Focus, s.FocusState, s.FocusLine = f.Form, f.State, n
	case "predict":
		if s.Predict != nil {
			return p.errf(n, "one predict: per step")
		}
		name, args := splitCheck(value)
		if _, ok := checks[name]; !ok {
			return p.errf(n, "predict: no check named %q (known: %s)", name, strings.Join(CheckNames(), ", "))
		}
		s.Predict = &Predict{Line: n, Check: name, Args: args}
	case "choice":
		if s.Predict == nil {
			return p.errf(n, "choice: needs a predict: line before it")
		}
		c, err := p.choice(n, value)
		if err != nil {
			return err
		}
		s.Predict.Choices = append(s.Predict.Choices, c)
	case "goal-check":
		if !s.Goal {
			return p.errf(n, "goal-check: belongs in a `== goal: NAME` step")
		}
		check, want, ok := strings.Cut(value, " = ")
		name, args := splitCheck(check)
		if !ok || strings.TrimSpace(want) == "" {
			return p.errf(n, "goal-check: is `CHECK ARGS = VALUE`, not %q", value)
		}
		if _, known := checks[name]; !known {
			return p.errf(n, "goal-check: no check named %q (known: %s)", name, strings.Join(CheckNames(), ", "))
		}
		s.Check = &GoalCheck{Line: n, Check: name, Args: args, Want: strings.TrimSpace(want)}
	case "aside":
		for _, kv := range strings.Fields(value) {
			name, v, ok := strings.Cut(kv, "=")
			if !ok || name == "" || v == "" {
				return p.errf(n, "aside: lists settings as NAME=VALUE separated by blanks, not %q", kv)
			}
			s.Asides = append(s.Asides, kv)
		}
		if s.AsideLine == 0 {
			s.AsideLine = n
		}
	case "solution":
		if !s.Goal {
			return p.errf(n, "solution: belongs in a `== goal: NAME` step")
		}
		cmd, ok := strings.CutPrefix(value, "> ")
		if !ok {
			return p.errf(n, "solution: is `solution: > COMMAND`")
		}
		s.Solution = append(s.Solution, cmd)
	default:
		return p.pair(n, key, value, func(enLine int, t Text) error {
			switch {
			case strings.HasPrefix(key, "say."):
				s.Say = append(s.Say, t)
			case strings.HasPrefix(key, "hint."):
				s.Hints = append(s.Hints, t)
			case s.Predict == nil:
				return p.errf(n, "question.zh: needs a predict: line before it")
			default:
				s.Predict.Question = t
				return p.noValues(n, key, t)
			}
			return p.stepValues(enLine, n, key, t)
		})
	}
	return nil
}

// stepValues reads the engine values a step's narration states
// (values.go): the English and Chinese must state the same ones.
func (p *parser) stepValues(enLine, zhLine int, key string, t Text) error {
	en, err := values(enLine, t.En)
	if err != nil {
		return p.errf(enLine, "%v", err)
	}
	zh, err := values(zhLine, t.Zh)
	if err != nil {
		return p.errf(zhLine, "%v", err)
	}
	if !sameValues(en, zh) {
		return p.errf(zhLine, "%s: the English and the Chinese state different engine values ({CHECK ARGS = VALUE}): each must state the same ones", key)
	}
	p.step.Values = append(append(p.step.Values, en...), zh...)
	return nil
}

// noValues refuses engine values where no step has run yet to give them:
// titles and goals, and a question or a choice's text, which the learner
// reads before the step's commands run (a value there would answer it).
func (p *parser) noValues(n int, key string, t Text) error {
	for _, s := range []string{t.En, t.Zh} {
		vs, err := values(n, s)
		if err != nil {
			return p.errf(n, "%v", err)
		}
		if len(vs) > 0 {
			return p.errf(n, "%s: states an engine value (%s) where it would show before the step ran: put it in say, hint or a choice's why", key, vs[0].Text)
		}
	}
	return nil
}

// choice parses `VALUE | en: ... | zh: ... | why.en: ... | why.zh: ...`.
func (p *parser) choice(n int, value string) (Choice, error) {
	parts := strings.Split(value, " | ")
	c := Choice{Line: n, Value: strings.TrimSpace(parts[0])}
	for _, part := range parts[1:] {
		k, v, _ := strings.Cut(part, ":")
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "en":
			c.Text.En = v
		case "zh":
			c.Text.Zh = v
		case "why.en":
			c.Why.En = v
		case "why.zh":
			c.Why.Zh = v
		default:
			return c, p.errf(n, "choice: unknown field %q (en, zh, why.en, why.zh)", k)
		}
	}
	if c.Value == "" || c.Text.En == "" || c.Text.Zh == "" || c.Why.En == "" || c.Why.Zh == "" {
		return c, p.errf(n, "choice: needs a value and en:, zh:, why.en:, why.zh:")
	}
	if err := p.noValues(n, "choice", c.Text); err != nil {
		return c, err
	}
	return c, p.stepValues(n, n, "choice why", c.Why)
}

// closeStep checks what a step must have once all its lines are read.
func (p *parser) closeStep() error {
	if err := p.untranslated(); err != nil {
		return err
	}
	s := p.step
	if s == nil {
		return nil
	}
	if len(s.Say) == 0 {
		return p.errf(s.Line, "step %q says nothing: add say.en: and say.zh:", s.Name)
	}
	for _, c := range s.Commands {
		if c.Live && c.Want != "" {
			return p.errf(c.Line, "a `>~` command's output varies from run to run and is not compared: write none after it (end it with a blank line)")
		}
	}
	if pr := s.Predict; pr != nil {
		if pr.Question.En == "" {
			return p.errf(pr.Line, "predict: needs question.en: and question.zh:")
		}
		if len(pr.Choices) < 2 {
			return p.errf(pr.Line, "predict: needs at least two choice: lines")
		}
		seen := map[string]int{}
		for _, c := range pr.Choices {
			if first, dup := seen[c.Value]; dup {
				return p.errf(c.Line, "choice: value %q is already the choice on line %d", c.Value, first)
			}
			seen[c.Value] = c.Line
		}
	}
	if s.Goal && s.Predict != nil {
		// A goal step's outcome is the learner's doing, not a step's
		// commands to predict; the player would never check the goal.
		return p.errf(s.Predict.Line, "predict: belongs in a `== step:`, not in goal step %q", s.Name)
	}
	if s.Goal && (s.Check == nil || len(s.Solution) == 0) {
		return p.errf(s.Line, "goal step %q needs a goal-check: and at least one solution:", s.Name)
	}
	return nil
}

func (p *parser) finish(n int) error {
	if err := p.closeStep(); err != nil {
		return err
	}
	l := p.l
	switch {
	case l.ID == "":
		return p.errf(1, "the lesson has no id:")
	case l.Title.En == "":
		return p.errf(1, "the lesson has no title.en: / title.zh:")
	case l.Level == "":
		return p.errf(1, "the lesson has no level:")
	case len(l.Goals) == 0:
		return p.errf(1, "the lesson has no goal.en: / goal.zh: (what the learner will be able to explain)")
	case len(l.Steps) == 0:
		return p.errf(n, "the lesson has no steps")
	}
	return nil
}

// untranslated reports the first (by line) English text still waiting for
// its Chinese; the map is never ranged for output, only for the minimum.
func (p *parser) untranslated() error {
	bases := make([]string, 0, len(p.pending))
	for base := range p.pending {
		bases = append(bases, base)
	}
	sort.Slice(bases, func(i, j int) bool { return p.pending[bases[i]].line < p.pending[bases[j]].line })
	if len(bases) == 0 {
		return nil
	}
	w := p.pending[bases[0]]
	return p.errf(w.line, "%s.en has no %s.zh translation", bases[0], bases[0])
}

func splitCheck(s string) (string, []string) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return "", nil
	}
	return f[0], f[1:]
}

// orderFromName reads the leading number of "04-acks1.lesson", so files
// sort by it when they set no order:.
func orderFromName(file string) int {
	digits := len(file) - len(strings.TrimLeft(file, "0123456789"))
	v, _ := strconv.Atoi(file[:digits])
	return v
}

// TrimLineEnds drops the blanks at the end of each line of a transcript:
// the parser reads lesson files without them, since editors strip them
// (Kafka's `topic describe` ends "Configs: " with one when a topic has no
// configs), so outputs are compared without them too.
func TrimLineEnds(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Join(lines, "\n")
}
