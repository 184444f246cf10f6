package loadtest

import "github.com/loglab/loglab/server/fdcount"

// openDescriptors counts the process's open descriptors, -1 where it
// cannot. The server runs in this process with its clients, so a
// loopback connection counts twice: its server end and its client end.
func openDescriptors() int {
	if n, ok := fdcount.Open(); ok {
		return n
	}
	return -1
}
