package main

// Large DSA inputs: a tighter garbage-collection target.
//
// A million-buffer plan keeps about 250 bytes a buffer live while it places
// (the buffers, the offsets, the placer's time index); under Go's default
// target (collect when the heap doubles) the process would peak near
// twice that. Above largeInputBuffers buffers the command asks the
// runtime to collect when the heap has grown by a tenth instead, and sets
// a soft memory limit of 250 bytes a buffer, for the rest of the run, and
// collects at once twice: after reading (the reader's chunks are dead)
// and after planning (the placer's index is dead, and the verifier is
// about to allocate 80 bytes a buffer). A few more collections, for about
// 255 instead of about 500 bytes a buffer at the peak (docs/BENCHMARKS.md).

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
		large := false
		return hooks{BeforePlan: func(s *session) error {
			if s.Input == nil || len(s.Input.Buffers) <= largeInputBuffers {
				return nil
			}
			n := len(s.Input.Buffers)
			large = true
			debug.SetGCPercent(largeInputGCPercent)
			debug.SetMemoryLimit(int64(n) * largeInputLimitPerBuffer)
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
