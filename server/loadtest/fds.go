package loadtest

import "os"

// openDescriptors counts the process's open descriptors in /proc/self/fd,
// -1 where there is none. The server runs in this process with its
// clients, so a loopback connection counts twice: its server end and its
// client end.
func openDescriptors() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries) - 1 // ReadDir's own descriptor on the directory
}
