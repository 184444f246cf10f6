package vopr

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/lab"
)

// TestVOPRRegressionScripts replays scripts of seeds the checker once
// failed with the transactional workload (issue 13), cut at the step that
// reported the violation: replayed on today's engine and checker, none
// may break an invariant.
func TestVOPRRegressionScripts(t *testing.T) {
	for _, c := range []struct{ file, why string }{
		// The cleaner removed a compacted topic's aborted transaction
		// (LogCleaner discards aborted transactions' records, KIP-98), and
		// the checker called its acknowledged records lost.
		{"seed62-aborted-txn-compacted-away.lab", "acknowledged records of an aborted transaction compacted away"},
	} {
		script, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		l := lab.New()
		var out strings.Builder
		if _, err := l.RunScript(strings.NewReader(string(script)), &out); err != nil {
			t.Fatal(err)
		}
		for _, v := range (Options{Acks: "all"}).bugs(l.Cluster().Checker().Violations()) {
			t.Errorf("%s (%s): %s", c.file, c.why, v)
		}
		l.Close()
	}
}
