//go:build !unix

package planner

import "time"

// processCPU is not measured off unix; benchmarks then report 0 cpu-s/op.
func processCPU() time.Duration { return 0 }
