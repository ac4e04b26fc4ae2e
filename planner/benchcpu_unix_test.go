//go:build unix

package planner

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system, all threads) the process
// has used: on a shared machine it measures the work, where wall time
// measures the neighbours.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
