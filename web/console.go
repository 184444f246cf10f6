package web

import "github.com/loglab/loglab/engine/lab"

// ConsoleCommands is what a console completes and explains: the lab's
// commands in help's order, then native, the server's own commands (none
// in the browser lab).
func ConsoleCommands(native []lab.CommandHelp) []lab.CommandHelp {
	return append(lab.Commands(), native...)
}
