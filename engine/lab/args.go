package lab

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/sim"
)

// tokenize splits a command line on spaces. Double quotes group words, so
// `value="hello world"` is one token; inside quotes \" and \\ escape.
func tokenize(line string) ([]string, error) {
	var (
		tokens  []string
		cur     strings.Builder
		inToken bool
		quoted  bool
	)
	runes := []rune(line)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case quoted && r == '\\' && i+1 < len(runes) && (runes[i+1] == '"' || runes[i+1] == '\\'):
			i++
			cur.WriteRune(runes[i])
		case r == '"':
			quoted = !quoted
			inToken = true
		case !quoted && (r == ' ' || r == '\t'):
			if inToken {
				tokens = append(tokens, cur.String())
				cur.Reset()
				inToken = false
			}
		default:
			cur.WriteRune(r)
			inToken = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated quote in %q", line)
	}
	if inToken {
		tokens = append(tokens, cur.String())
	}
	return tokens, nil
}

// args are a command's words after its name: positional words, then
// name=value options. Getters record the first problem instead of returning
// it, so a command reads all its options and then checks a.err once.
type args struct {
	positional []string
	options    map[string]string // lookup only; never ranged over for output
	order      []string          // option names as typed, for messages
	used       map[string]bool
	err        error
}

func parseArgs(tokens []string) (*args, error) {
	a := &args{options: map[string]string{}, used: map[string]bool{}}
	for _, tok := range tokens {
		name, value, isOption := strings.Cut(tok, "=")
		if !isOption {
			if len(a.order) > 0 {
				return nil, fmt.Errorf("%q must come before the name=value options", tok)
			}
			a.positional = append(a.positional, tok)
			continue
		}
		if name == "" {
			return nil, fmt.Errorf("%q has no option name before '='", tok)
		}
		if _, dup := a.options[name]; dup {
			return nil, fmt.Errorf("option %s is given twice", name)
		}
		a.options[name] = value
		a.order = append(a.order, name)
	}
	return a, nil
}

func (a *args) fail(format string, v ...any) {
	if a.err == nil {
		a.err = fmt.Errorf(format, v...)
	}
}

// has reports whether an option was given (and marks it as understood).
func (a *args) has(name string) bool {
	_, ok := a.options[name]
	a.used[name] = true
	return ok
}

func (a *args) str(name, def string) string {
	if !a.has(name) {
		return def
	}
	return a.options[name]
}

// integer reads a whole number option within [lo, hi].
func (a *args) integer(name string, def, lo, hi int) int {
	if !a.has(name) {
		return def
	}
	n, err := strconv.Atoi(a.options[name])
	if errors.Is(err, strconv.ErrRange) {
		a.fail("%s=%s is out of range: it must be between %d and %d", name, a.options[name], lo, hi)
		return def
	}
	if err != nil {
		a.fail("%s=%s is not a whole number", name, a.options[name])
		return def
	}
	if n < lo || n > hi {
		a.fail("%s=%d is out of range: it must be between %d and %d", name, n, lo, hi)
		return def
	}
	return n
}

func (a *args) uint64(name string, def uint64) uint64 {
	if !a.has(name) {
		return def
	}
	n, err := strconv.ParseUint(a.options[name], 10, 64)
	if err != nil {
		a.fail("%s=%s is not a non-negative whole number", name, a.options[name])
		return def
	}
	return n
}

func (a *args) boolean(name string, def bool) bool {
	if !a.has(name) {
		return def
	}
	b, err := strconv.ParseBool(a.options[name])
	if err != nil {
		a.fail("%s=%s must be true or false", name, a.options[name])
		return def
	}
	return b
}

// enum reads an option with a fixed set of values (exact, as Kafka's
// ValidString is). A value outside it is refused with the whole set, since
// a silently accepted typo (type=Fetchh) would make a rule that never fires.
func (a *args) enum(name, def string, valid ...string) string {
	if !a.has(name) {
		return def
	}
	v := a.options[name]
	if !slices.Contains(valid, v) {
		a.fail("%s=%s is not one of: %s", name, v, strings.Join(valid, ", "))
		return def
	}
	return v
}

// millis reads a Kafka "*.ms" option: a whole number of milliseconds, at
// least 1 and at most the virtual clock's maximum (a larger one, such as
// Long.MAX_VALUE, would overflow a time.Duration and wrap negative).
func (a *args) millis(name string, def time.Duration) time.Duration {
	return a.millisFrom(name, def, 1, "a positive whole number of milliseconds")
}

// millisOrZero is millis that also accepts 0 (linger.ms=0 is Kafka's old
// default).
func (a *args) millisOrZero(name string, def time.Duration) time.Duration {
	return a.millisFrom(name, def, 0, "a whole number of milliseconds, 0 or more")
}

func (a *args) millisFrom(name string, def time.Duration, lo int64, what string) time.Duration {
	if !a.has(name) {
		return def
	}
	v := a.options[name]
	n, err := strconv.ParseInt(v, 10, 64)
	if (err == nil && n > maxMillis) || (errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(v, "-")) {
		a.fail("%s=%s is past the virtual clock's maximum of %s", name, v, sim.MaxElapsedText)
		return def
	}
	if err != nil || n < lo {
		a.fail("%s=%s must be %s", name, v, what)
		return def
	}
	return time.Duration(n) * time.Millisecond
}

// duration reads an option holding a duration (see parseDuration).
func (a *args) duration(name string, def time.Duration) time.Duration {
	if !a.has(name) {
		return def
	}
	d, err := parseDuration(a.options[name])
	if err != nil {
		a.fail("%s=%s: %v", name, a.options[name], err)
		return def
	}
	return d
}

// rest returns the options no getter has read yet, in the order typed, and
// marks them read: for commands that pass arbitrary Kafka configs on.
func (a *args) rest() [][2]string {
	var out [][2]string
	for _, name := range a.order {
		if !a.used[name] {
			a.used[name] = true
			out = append(out, [2]string{name, a.options[name]})
		}
	}
	return out
}

// finish reports the first problem: a bad value, or an option the command
// does not know (usually a typo, which silently ignoring would hide).
func (a *args) finish() error {
	if a.err != nil {
		return a.err
	}
	for _, name := range a.order {
		if !a.used[name] {
			return fmt.Errorf("unknown option %s", name)
		}
	}
	return nil
}

// maxMillis is sim.MaxElapsed in milliseconds.
const maxMillis = int64(sim.MaxElapsed / time.Millisecond)

// parseDuration is the lab's one reader of durations (tick, timeout=,
// latency=, interval=). It accepts Go durations ("100ms", "1.5s", "2m") and,
// as Kafka's configs are in milliseconds, a bare number meaning
// milliseconds. It refuses a negative duration (time only moves forward)
// and one past sim.MaxElapsed, naming the limit: Go's own parsing would
// wrap a bare number's milliseconds into the past and refuses an
// overflowing "3000000h" as if it were garbage.
func parseDuration(s string) (time.Duration, error) {
	negative := fmt.Errorf("duration %q is negative: time only moves forward", s)
	tooLong := fmt.Errorf("duration %q is past the virtual clock's maximum of %s", s, sim.MaxElapsedText)
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		switch {
		case strings.HasPrefix(s, "-") && (err != nil || ms < 0):
			return 0, negative
		case err != nil || ms > maxMillis:
			return 0, tooLong
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	seconds, ok := durationSeconds(s)
	switch {
	case !ok:
		return 0, fmt.Errorf("%q is not a duration (try 100ms, 1.5s, 2m; a bare number is milliseconds)", s)
	case seconds < 0:
		return 0, negative
	case seconds > sim.MaxElapsed.Seconds():
		return 0, tooLong
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a duration (try 100ms, 1.5s, 2m; a bare number is milliseconds)", s)
	case d > sim.MaxElapsed:
		return 0, tooLong // rounding at the very edge
	}
	return d, nil
}

// durationUnits are time.ParseDuration's units, in seconds.
var durationUnits = map[string]float64{"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}

// durationSeconds reads time.ParseDuration's syntax ([-+]?(number unit)+)
// into approximate seconds, without overflowing: so that a duration too
// large for a time.Duration is told apart from garbage.
func durationSeconds(s string) (float64, bool) {
	sign := 1.0
	switch {
	case strings.HasPrefix(s, "-"):
		sign, s = -1, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	total := 0.0
	for s != "" {
		i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
		if i <= 0 {
			return 0, false // no number, or a number without a unit
		}
		n, err := strconv.ParseFloat(s[:i], 64)
		if err != nil {
			return 0, false
		}
		s = s[i:]
		j := strings.IndexFunc(s, func(r rune) bool { return (r >= '0' && r <= '9') || r == '.' })
		if j < 0 {
			j = len(s)
		}
		unit, ok := durationUnits[s[:j]]
		if !ok {
			return 0, false
		}
		total += n * unit
		s = s[j:]
	}
	return sign * total, true
}

// parseTopicPartition reads the lab language's "topic/partition".
func parseTopicPartition(s string) (string, int, error) {
	topic, part, ok := strings.Cut(s, "/")
	if !ok || topic == "" {
		return "", 0, fmt.Errorf("%q is not TOPIC/PARTITION (for example orders/0)", s)
	}
	p, err := strconv.Atoi(part)
	if err != nil || p < 0 {
		return "", 0, fmt.Errorf("%q: partition %q is not a partition number", s, part)
	}
	return topic, p, nil
}
