package server

import (
	"sort"
	"strings"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/engine/view"
)

// nativeCommand is a console command only the native server has: the
// engine compiles to WASM and has neither a wall clock nor sockets, so a
// command that drives time from the wall clock (`realtime`) or measures the
// machine (`bench fetch`) belongs to the server that runs the cluster, not
// to the lab language. The session runs one before the lab sees the line,
// with the session's mutex held, so it is serialised with the cluster's
// other commands and its result is published like theirs.
type nativeCommand struct {
	name    string
	usage   string
	summary string
	// run gets the words after the command's name. The session's mutex is
	// held: a slow command holds this cluster (and only this cluster) up.
	run func(s *liveSession, args []string) (string, error)
}

// nativeCommands are the server's own commands, by name; each file that
// defines one registers it from an init function. Only looked up, never
// ranged over for output: nativeCommandNames gives the order for help.
var nativeCommands = map[string]*nativeCommand{}

func registerNativeCommand(c *nativeCommand) {
	if _, dup := nativeCommands[c.name]; dup {
		panic("server: native command " + c.name + " registered twice")
	}
	nativeCommands[c.name] = c
}

// nativeCommandFor returns the native command a line starts with, and the
// words after its name.
func nativeCommandFor(line string) (*nativeCommand, []string) {
	words := strings.Fields(line)
	if len(words) == 0 {
		return nil, nil
	}
	c := nativeCommands[words[0]]
	if c == nil {
		return nil, nil
	}
	return c, words[1:]
}

// nativeHelp is what `help` adds on the server: the server's own commands,
// by name, in the lab's help format.
func nativeHelp() string {
	names := make([]string, 0, len(nativeCommands))
	for name := range nativeCommands {
		names = append(names, name)
	}
	sort.Strings(names) // a map's order is random; help's is not
	var b strings.Builder
	b.WriteString("\n\non this server (not in the browser lab):")
	for _, name := range names {
		c := nativeCommands[name]
		b.WriteString("\n" + c.usage + "\n    " + c.summary)
	}
	return b.String()
}

// consoleCommands is what a live page's console completes and explains:
// the lab's commands, then the server's own in help's order (by name).
func consoleCommands() []view.CommandHelp {
	names := make([]string, 0, len(nativeCommands))
	for name := range nativeCommands {
		names = append(names, name)
	}
	sort.Strings(names) // a map's order is random; the console's is not
	out := lab.Commands()
	for _, name := range names {
		c := nativeCommands[name]
		out = append(out, lab.HelpFor(c.name, c.usage, c.summary))
	}
	return out
}
