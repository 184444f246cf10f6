package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/loglab/loglab/engine/lab"
)

// script runs a lab script and prints its transcript. It exits 1 when a
// command failed, so shell scripts and CI notice; the transcript still shows
// every command, the failed ones with their error.
func script(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("script", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if code, done := parseFlags(fs, args, true); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "loglab script: expected one FILE (or - for stdin), got %d arguments\n\n%s", fs.NArg(), usage)
		return 2
	}
	in := stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "loglab script: %v\n", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	failed, err := lab.New().RunScript(in, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "loglab script: %v\n", err)
		return 1
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "loglab script: %d command(s) failed\n", failed)
		return 1
	}
	return 0
}
