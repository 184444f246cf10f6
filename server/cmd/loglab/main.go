// Command loglab runs the lab: `serve` starts the web server (browser lab and
// live cluster), `script` runs a lab script headless and prints its
// transcript, `loadtest` measures a workshop's load, `version` says which
// build this is.
package main

import (
	"fmt"
	"github.com/loglab/loglab/server/loadtest"
	"io"
	"os"
)

const usage = `usage: loglab <command> [flags]

commands:
  serve [-addr :8080] [-static DIR] [-data-dir DIR] [-participant-idle 2h]
                                      serve the browser lab (/lab), the instructor's cluster (/live)
                                      and the participants' clusters; prints the instructor's URL
  script [-data-dir DIR] FILE         run a lab script and print its transcript ('-' reads stdin);
                                      with -data-dir, write its topics as Kafka segment files under DIR
  dump-log [-print-data-log] FILE...  print segment files (.log .index .timeindex .snapshot .txnindex) as kafka-dump-log does
  controller -id N -voters 1=HOST:PORT,... -data-dir DIR [-api ADDR]
                                      run one KRaft controller of a quorum of processes (docs/kraft-processes.md)
  loadtest [-clients 200 -participants 20 -duration 60s]
                                      the workshop load check: an in-process server on loopback, pages
                                      watching it, drivers typing; prints latency, bytes, memory, goroutines
  chaos [-flood-addresses 40 -flood-per-address 80 -fillers 4 ...]
                                      the hostile-room check: floods, slow readers, ?since=0 loops and full
                                      budgets against an in-process server while the instructor types
  version                             print the version
  help                                print this message
`

func main() {
	// `loglab chaos` starts this binary again as the server its crash
	// phase kills with SIGKILL.
	loadtest.RunCrashChildIfAsked()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status, 2 for usage
// errors as is customary, so that tests can drive every path.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stderr)
	case "script":
		return script(args[1:], stdin, stdout, stderr)
	case "dump-log":
		return dumpLog(args[1:], stdout, stderr)
	case "controller":
		return controller(args[1:], stdout, stderr)
	case "loadtest":
		return loadTest(args[1:], stdout, stderr)
	case "chaos":
		return chaos(args[1:], stdout, stderr)
	case "version":
		return version(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "loglab: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}
