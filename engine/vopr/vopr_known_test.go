package vopr

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/lab"
)

// TestVOPRKnownEngineBugs replays the scripts of engine bugs and checker
// gaps the KRaft workload found outside the VOPR's reach (each script's
// header says where and why): each must still report its violation, or,
// with no invariant named, its transcript must still show detail (a last
// stabilize out of events, which the VOPR reports as
// final-stabilize-budget, is no checker violation). One that no longer
// does was fixed: move its script to TestVOPRRegressionScripts and lift
// the workload's bound, if it has one.
func TestVOPRKnownEngineBugs(t *testing.T) {
	for _, c := range []struct{ file, invariant, detail string }{
		// None now: seeds 908 and 32 were fixed (TestVOPRRegressionScripts).
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
		vs := (Options{Acks: "all"}).bugs(l.Cluster().Checker().Violations())
		if c.invariant == "" {
			if !strings.Contains(out.String(), c.detail) {
				t.Errorf("%s no longer shows %q: fixed? Move it to TestVOPRRegressionScripts", c.file, c.detail)
			}
		} else if !slices.ContainsFunc(vs, func(v cluster.Violation) bool {
			return v.Invariant == c.invariant && strings.Contains(v.Detail, c.detail)
		}) {
			t.Errorf("%s no longer reports %s (%q): fixed? Move it to TestVOPRRegressionScripts and lift its bound; violations: %v", c.file, c.invariant, c.detail, vs)
		}
		l.Close()
	}
}
