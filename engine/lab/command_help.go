package lab

import (
	"strings"

	"github.com/loglab/loglab/engine/view"
)

// Commands is the lab's vocabulary in `help`'s order. The console's
// completion and inline help read it from the page, so the browser never
// carries a second copy of the language that could drift from the engine.
func Commands() []view.CommandHelp {
	out := make([]view.CommandHelp, 0, len(commands))
	for _, c := range commands {
		out = append(out, HelpFor(c.name, c.usage, c.summary))
	}
	return out
}

// HelpFor describes a command from its name, usage and summary; the live
// server uses it for its own (native) commands too.
func HelpFor(name, usage, summary string) view.CommandHelp {
	return view.CommandHelp{Name: name, Usage: usage, Summary: summary, Options: usageOptions(usage)}
}

// usageOptions returns the option names a usage line spells out, in the
// order it spells them, each once: "key" from "[key=K]", "topics" and
// "assign" from "topics=T1,T2|assign=T/P", "--to-earliest" from
// "--to-earliest|--to-latest". A placeholder in capitals ("CONFIG=VALUE")
// stands for any name and is not one.
func usageOptions(usage string) []string {
	var opts []string
	seen := map[string]bool{}
	add := func(o string) {
		if o != "" && !seen[o] {
			seen[o] = true
			opts = append(opts, o)
		}
	}
	for _, word := range strings.Fields(usage) {
		for _, alt := range strings.Split(strings.Trim(word, "[]()."), "|") {
			alt = strings.Trim(alt, "[]()")
			if strings.HasPrefix(alt, "--") {
				add(alt)
				continue
			}
			name, _, isOption := strings.Cut(alt, "=")
			if isOption && name != strings.ToUpper(name) {
				add(name)
			}
		}
	}
	return opts
}
