package main

// Large DSA inputs: a tighter garbage-collection target.
//
// A million-buffer plan keeps about 250 bytes a buffer live while it places
// (the buffers, the offsets, the placer's time index); under Go's default
// target (collect when the heap doubles) the process would peak near
// twice that. Above largeInputBuffers buffers the command asks the
// runtime to collect when the heap has grown by a tenth instead, and sets
// a soft memory limit of 250 bytes a buffer, for the rest of the run: a
// few more collections, on the second core, for under 300 instead of
// about 500 bytes a buffer at the peak (docs/BENCHMARKS.md).

import (
	"flag"
	"runtime"
	"runtime/debug"
)

// largeInputBuffers is the size from which the tighter target applies.
const largeInputBuffers = 100_000

// largeInputGCPercent is that target (GOGC).
const largeInputGCPercent = 10

// largeInputLimitPerBuffer sets the runtime's soft memory limit per buffer:
// near it the collector runs at once, so the placer's index, dead once the
// plan is made, is collected before the verifier allocates.
const largeInputLimitPerBuffer = 250

func init() {
	register(extension{Name: "largeinput", Flags: func(*flag.FlagSet) hooks {
		return hooks{BeforePlan: func(s *session) error {
			if n := len(s.Input.Buffers); s.Input != nil && n > largeInputBuffers {
				debug.SetGCPercent(largeInputGCPercent)
				debug.SetMemoryLimit(int64(n) * largeInputLimitPerBuffer)
				// The reader's chunks are dead: collect them now, not
				// while the placer builds its index over them.
				runtime.GC()
			}
			return nil
		}}
	}})
}
