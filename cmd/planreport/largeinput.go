package main

// Large DSA inputs: a tighter garbage-collection target.
//
// A million-buffer plan keeps about 230 bytes a buffer live while it places
// (the buffers, the offsets, the placer's time index); under Go's default
// target (collect when the heap doubles) the process would peak near
// twice that. Above largeInputBuffers buffers the command asks the
// runtime to collect when the heap has grown by a tenth instead, for the
// rest of the run, and collects at once twice: after reading (the
// reader's chunks are dead) and after planning (the placer's index is
// dead, and the verifier is about to allocate 80 bytes a buffer). A few
// more collections, for about 230 instead of about 500 bytes a buffer at
// the peak (docs/BENCHMARKS.md).
//
// Once the plan is made it also sets a soft memory limit of 250 bytes a
// buffer (or a quarter above what is live then, if more), which keeps the
// report's allocations down: without it the text report of the synthetic
// million peaks near 290 MB instead of 233. Not before: while the placer
// works, inputs whose index is larger than the limit, such as the random
// rows of internal/hostile (about 380 MB), kept the collector running
// without pause under it (10.2 s wall with a limit from the start, 9.1 s
// without).

import (
	"flag"
	"runtime"
	"runtime/debug"
)

// largeInputBuffers is the size from which the tighter target applies.
const largeInputBuffers = 100_000

// largeInputGCPercent is that target (GOGC).
const largeInputGCPercent = 10

// largeInputLimitPerBuffer is the soft memory limit per buffer set after
// planning (at least 5/4 of the live heap then).
const largeInputLimitPerBuffer = 250

func init() {
	register(extension{Name: "largeinput", Flags: func(*flag.FlagSet) hooks {
		large := false
		return hooks{BeforePlan: func(s *session) error {
			if s.Input == nil || len(s.Input.Buffers) <= largeInputBuffers {
				return nil
			}
			large = true
			debug.SetGCPercent(largeInputGCPercent)
			// The reader's chunks are dead: collect them now, not while
			// the placer builds its index over them.
			runtime.GC()
			return nil
		}, AfterPlace: func(s *session) {
			if !large {
				return
			}
			// The placer's index is dead: collect it before the
			// verifier allocates its sweep (80 bytes a buffer).
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			limit := max(int64(len(s.Input.Buffers))*largeInputLimitPerBuffer, int64(ms.HeapAlloc)*5/4)
			debug.SetMemoryLimit(limit)
		}}
	}})
}
