//go:build !unix

package server

import "time"

// processCPU: no getrusage here; `bench fetch` prints throughput only.
func processCPU() (time.Duration, bool) { return 0, false }
