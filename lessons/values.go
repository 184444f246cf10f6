package lessons

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Value is a number (or any value) the narration states that the engine
// computes: written `{CHECK ARGS = VALUE}` in a say, hint or why line, it
// shows as VALUE, and `go test ./lessons` requires the named check to give
// VALUE once the step's commands ran (before a goal's solution), as a
// predict answer must. A re-recorded transcript therefore cannot leave the
// prose behind: the test fails, and `-rewrite` rewrites VALUE with the
// transcripts.
type Value struct {
	Line  int
	Check string
	Args  []string
	Want  string
	// Text is the placeholder as written, which -rewrite replaces.
	Text string
}

// placeholder finds `{NAME ARGS = VALUE}`; a brace group whose first word
// is not a check and that has no " = " (`value=cpu-{i}`) is plain text.
var placeholder = regexp.MustCompile(`\{([a-z][a-z0-9-]*)((?: [^{}= ]+)*)( = ([^{}]*))?\}`)

// values reads the placeholders of one piece of narration. A brace group
// naming a check must be complete; one with " = " must name a check, so a
// typo does not silently show braces to learners.
func values(line int, s string) ([]Value, error) {
	var out []Value
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		name, args, hasValue, want := m[1], strings.Fields(m[2]), m[3] != "", strings.TrimSpace(m[4])
		_, known := checks[name]
		switch {
		case !known && !hasValue:
			continue
		case !known:
			return nil, fmt.Errorf("%s: no check named %q (known: %s)", m[0], name, strings.Join(CheckNames(), ", "))
		case !hasValue || want == "":
			return nil, fmt.Errorf("%s: an engine value is written {%s ARGS = VALUE}: the value is missing (write any, then run `go test ./lessons -run TestLessonsPlay -rewrite`)", m[0], name)
		}
		out = append(out, Value{Line: line, Check: name, Args: args, Want: want, Text: m[0]})
	}
	return out, nil
}

// sameValues: a text's English and Chinese must state the same engine
// values, or one language could drift while the other is checked.
func sameValues(en, zh []Value) bool {
	key := func(vs []Value) string {
		var ks []string
		for _, v := range vs {
			ks = append(ks, v.Text)
		}
		sort.Strings(ks)
		return strings.Join(ks, "\n")
	}
	return key(en) == key(zh)
}

// Resolve replaces each `{CHECK ARGS = VALUE}` with its VALUE: what the
// learner reads.
func Resolve(s string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		sub := placeholder.FindStringSubmatch(m)
		if _, known := checks[sub[1]]; !known || sub[3] == "" {
			return m
		}
		return strings.TrimSpace(sub[4])
	})
}

func resolveText(t Text) Text { return Text{En: Resolve(t.En), Zh: Resolve(t.Zh)} }

// withValue writes a Value's placeholder with another value, for -rewrite.
func (v Value) withValue(want string) string {
	return "{" + strings.Join(append([]string{v.Check}, v.Args...), " ") + " = " + want + "}"
}
