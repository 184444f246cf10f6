package cluster

import (
	"runtime"
	"testing"
)

// nativeOnly skips a test under WASM (node): one whose engine logic the
// native run proves, and which simulates so much that it took tens of
// seconds of make test under node. What WASM must prove is that the
// engine behaves the same there: the lab's and the lessons' transcripts
// and the VOPR's determinism run under node for that.
func nativeOnly(t *testing.T, why string) {
	t.Helper()
	if runtime.GOOS == "js" {
		t.Skip("native only: " + why)
	}
}
