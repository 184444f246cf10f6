package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"
)

// version prints the module version and, for builds from a checkout, the
// commit it was built from (Go records it in the binary).
func version(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if code, done := parseFlags(fs, args, false); done {
		return code
	}
	v, revision, modified := "(devel)", "", false
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Version != "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	line := "loglab " + v
	if revision != "" {
		line += " " + revision
		if modified {
			line += "+dirty"
		}
	}
	fmt.Fprintln(stdout, line)
	return 0
}
