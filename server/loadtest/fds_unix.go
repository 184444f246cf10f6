//go:build unix

package loadtest

import "syscall"

// descriptorLimit is the process's soft RLIMIT_NOFILE, 0 when unknown.
func descriptorLimit() uint64 {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil {
		return 0
	}
	return uint64(l.Cur)
}
