package loadtest

import (
	"bytes"
	"runtime/pprof"
	"strconv"
)

// drainFunc is the quorum's goroutine that answers stray raft RPCs to a
// controller that stopped (engine/kraft/quorum's drain): it ends on its own
// after twenty RPC timeouts (10 s), by design, so a removed cluster leaves
// three of them for a while. The removal check leaves them out, and the
// check after the server closed waits for them to end. Were it renamed,
// the removal check would only wait longer.
const drainFunc = "github.com/loglab/loglab/engine/kraft/quorum.drain"

// drainingGoroutines counts the goroutines running drainFunc.
func drainingGoroutines() int {
	var b bytes.Buffer
	// debug=1 groups the goroutines by stack: "N @ pc…" then one
	// "#\tpc\tfunction+off\tfile:line" line per frame.
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		return 0
	}
	return countRunning(b.Bytes(), drainFunc)
}

// countRunning counts, in a debug=1 goroutine profile, the goroutines
// with function fn on their stacks.
func countRunning(profile []byte, fn string) int {
	n, group, counted := 0, 0, false
	for _, line := range bytes.Split(profile, []byte("\n")) {
		if head, _, ok := bytes.Cut(line, []byte(" @ ")); ok {
			group, counted = 0, false
			if k, err := strconv.Atoi(string(head)); err == nil {
				group = k
			}
			continue
		}
		if !counted && bytes.HasPrefix(line, []byte("#\t")) && bytes.Contains(line, []byte("\t"+fn+"+")) {
			n += group
			counted = true
		}
	}
	return n
}
