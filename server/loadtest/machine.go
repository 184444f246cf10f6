package loadtest

import (
	"os"
	"strings"
)

// loadAverage is the machine's 1-minute load average as the kernel reports
// it ("" where there is no /proc/loadavg): a run's latencies mean little
// without knowing what else the machine was doing.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return ""
}
