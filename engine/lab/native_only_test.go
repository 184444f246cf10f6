package lab

import (
	"runtime"
	"testing"
)

// nativeOnly skips a test under WASM (node): logic the native run proves
// (the budgets count events, the same on every platform) that runs so many
// simulation events it took tens of seconds of make test under node. What
// the lab must prove under node, its transcripts, TestTranscripts does.
func nativeOnly(t *testing.T, why string) {
	t.Helper()
	if runtime.GOOS == "js" {
		t.Skip("native only: " + why)
	}
}
