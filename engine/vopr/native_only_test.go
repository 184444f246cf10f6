package vopr

import (
	"runtime"
	"testing"
)

// nativeOnly skips a test under WASM (node): the checker's and the
// workload's logic, proven by the native run, which took tens of seconds
// of make test under node. Under node the VOPR proves what only node can:
// that the engine is deterministic there (TestVOPRDeterminism, a few
// TestVOPR seeds, a replay through the lab).
func nativeOnly(t *testing.T, why string) {
	t.Helper()
	if runtime.GOOS == "js" {
		t.Skip("native only: " + why)
	}
}
