package loadtest

import (
	"os"
	"testing"
)

// TestMain lets the crash phase start this test binary as its server
// process (RunCrashChildIfAsked returns at once otherwise).
func TestMain(m *testing.M) {
	RunCrashChildIfAsked()
	os.Exit(m.Run())
}
