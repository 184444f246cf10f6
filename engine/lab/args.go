package lab

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
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

// millis reads a Kafka "*.ms" option: a whole number of milliseconds.
func (a *args) millis(name string, def time.Duration) time.Duration {
	if !a.has(name) {
		return def
	}
	n, err := strconv.ParseInt(a.options[name], 10, 64)
	if err != nil || n < 1 {
		a.fail("%s=%s must be a positive whole number of milliseconds", name, a.options[name])
		return def
	}
	return time.Duration(n) * time.Millisecond
}

// millisOrZero is millis that also accepts 0 (linger.ms=0 is Kafka's old
// default).
func (a *args) millisOrZero(name string, def time.Duration) time.Duration {
	if a.has(name) && a.options[name] == "0" {
		return 0
	}
	return a.millis(name, def)
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

// parseDuration accepts Go durations ("100ms", "1.5s", "2m") and, as Kafka's
// configs are in milliseconds, a bare number meaning milliseconds.
func parseDuration(s string) (time.Duration, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Duration(ms) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (try 100ms, 1.5s, 2m)", s)
	}
	return d, nil
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
