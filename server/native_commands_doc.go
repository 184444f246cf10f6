package server

import (
	"github.com/loglab/loglab/engine/view"
)

// NativeCommands is what the server adds to the lab language, in help's
// order: the commands `help` lists under "on this server (not in the
// browser lab)". docs/lab-language.md's reference is generated from it and
// from lab.Commands() (internal/labdoc).
func NativeCommands() []view.CommandHelp {
	all := consoleCommands()
	return all[len(all)-len(nativeCommands):]
}
