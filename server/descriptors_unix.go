//go:build unix

package server

import "syscall"

// RaiseDescriptorLimit raises the process's soft RLIMIT_NOFILE to its
// hard limit and reports both as they are after it. Go's runtime does
// the same at start on Linux and the BSDs (and puts the soft limit back
// for the processes it starts); doing it here too means the server's
// budget is taken from the limit it really runs with, wherever it runs.
func RaiseDescriptorLimit() (soft, hard uint64, err error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0, err
	}
	if lim.Cur < lim.Max {
		raised := lim
		raised.Cur = raised.Max
		// macOS refuses a soft limit above OPEN_MAX when the hard limit
		// is unlimited: then the soft limit stays where it was.
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			lim = raised
		}
	}
	return uint64(lim.Cur), uint64(lim.Max), nil
}
