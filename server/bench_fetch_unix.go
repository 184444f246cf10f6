//go:build unix

package server

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) every thread of this
// process has used so far, with getrusage's microsecond resolution: the
// clock-tick counters of /proc/PID/stat (10 ms) are too coarse for a
// fetch of a few milliseconds.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
