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
// It set a soft memory limit of 250 bytes a buffer as well, until the
// placer's span sets stopped making garbage (planner/spanset.go): since
// then the limit no longer lowers the peak of the synthetic million (230
// MB either way), and on inputs whose live heap is above it, such as the
// random rows of internal/hostile (380 MB), it made the collector run
// without pause: 10.2 s wall with it, 9.1 s without.

import (
	"flag"
	"runtime"
	"runtime/debug"
)

// largeInputBuffers is the size from which the tighter target applies.
const largeInputBuffers = 100_000

// largeInputGCPercent is that target (GOGC).
const largeInputGCPercent = 10

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
		}, AfterPlace: func(*session) {
			if large {
				// The placer's index is dead: collect it before the
				// verifier allocates its sweep (80 bytes a buffer).
				runtime.GC()
			}
		}}
	}})
}
