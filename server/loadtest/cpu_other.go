//go:build !unix

package loadtest

import "time"

// processCPU is not measured here: the report then shows no CPU time.
func processCPU() time.Duration { return 0 }
