package main

// Large DSA inputs: garbage collection by a memory limit while placing,
// a tight target after.
//
// A million-buffer plan keeps about 250 bytes a buffer live by the end of
// its placement (the buffers, the offsets, the pieces' time indexes);
// under Go's default target (collect when the heap doubles) the process
// would peak near twice that. Above largeInputBuffers buffers the command
// collects once after reading (the reader's chunks are dead) and then,
// while the plan is made, collects only as the heap nears a soft limit of
// largeInputPlanLimit bytes a buffer (no percentage target): each cycle
// scans the buffer records (72 bytes a buffer, with a pointer each), and
// the tenth-of-the-heap target used before ran about 40 cycles in a
// million-buffer placement, 1.1 CPU-seconds of 9 (commit f08f030). This
// holds for the default strategy above planner.AutoSplitAbove buffers
// (first-fit in pieces of time); other plans of large inputs keep the
// tenth-of-the-heap target from the start.
//
// Once the plan is made it collects at once (the placer's index is dead,
// and the verifier is about to allocate 88 bytes a buffer) and sets a
// soft limit of 250 bytes a buffer (or a quarter above what is live then,
// if more), which keeps the report's allocations down: without it the
// text report of the synthetic million peaked near 290 MB instead of 233.
// After a split placement the collector stays off under that limit (the
// verifier and the report then need one cycle or none: the text report
// took 5.3 s instead of 6.2 in one run at 2f62627); after any other it
// collects at every tenth of growth.
//
// Inputs whose index passes the plan limit, such as the random rows of
// internal/hostile (about 390 bytes a buffer live), would keep the
// collector running without pause under it (at most half the processor,
// by the runtime's rule: rows_1m took 16-18 s wall and 30-32 s user
// against 14.7 s and 25 s at b2292f4). A watch (limitWatch) reads the live
// heap every 20 ms and, once it passes 95% of the limit, puts back the
// tenth-of-the-heap target and lifts the limit until the plan is made:
// rows_1m 15.8 s wall, 25 s user (one run at c9b6770, with the watch at
// nine tenths). The synthetic million's live heap peaks at 242 MB of its
// 280 (86%, gctrace at 190a4a1; 96% with the 2 MiB span chunks before,
// which tripped it), so it runs without the watch's help.

import (
	"flag"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/memplan/memplan/planner"
)

// largeInputBuffers is the size from which the tighter target applies.
const largeInputBuffers = 100_000

// largeInputGCPercent is that target (GOGC).
const largeInputGCPercent = 10

// largeInputLimitPerBuffer is the soft memory limit per buffer set after
// planning (at least 5/4 of the live heap then).
const largeInputLimitPerBuffer = 250

// largeInputPlanLimit is the soft memory limit per buffer while the plan
// is made.
const largeInputPlanLimit = 280

func init() {
	register(extension{Name: "largeinput", Flags: func(*flag.FlagSet) hooks {
		large, split := false, false
		var watch *limitWatch
		return hooks{BeforePlan: func(s *session) error {
			if s.Input == nil || len(s.Input.Buffers) <= largeInputBuffers {
				return nil
			}
			large = true
			// The reader's chunks are dead: collect them now, not while
			// the placer builds its index over them.
			runtime.GC()
			if s.Opts.Strategy != "auto" || len(s.Input.Buffers) <= planner.AutoSplitAbove {
				// Other placers keep more than the limit live.
				debug.SetGCPercent(largeInputGCPercent)
				return nil
			}
			split = true
			debug.SetGCPercent(-1)
			limit := int64(len(s.Input.Buffers)) * largeInputPlanLimit
			debug.SetMemoryLimit(limit)
			watch = watchLimit(limit)
			return nil
		}, AfterPlace: func(s *session) {
			if !large {
				return
			}
			if watch != nil {
				watch.stop()
			}
			// The placer's index is dead: collect it before the
			// verifier allocates its sweep (88 bytes a buffer: the spans, the
			// sorted starts and ends, the gathered bytes).
			if !split {
				debug.SetGCPercent(largeInputGCPercent)
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			limit := max(int64(len(s.Input.Buffers))*largeInputLimitPerBuffer, int64(ms.HeapAlloc)*5/4)
			debug.SetMemoryLimit(limit)
		}}
	}})
}

// limitWatch guards the plan limit: an index larger than the limit (the
// random rows of internal/hostile keep about 390 bytes a buffer live)
// would keep the collector running without pause under it, so once the
// live heap passes 95% of the limit the watch puts back the
// tenth-of-the-heap target and lifts the limit, for the rest of the plan
// (the synthetic million peaks at 86%).
type limitWatch struct {
	done     chan struct{}
	finished chan bool // whether the watch fell back
}

// watchLimitEvery is how often the watch reads the live heap.
const watchLimitEvery = 20 * time.Millisecond

func watchLimit(limit int64) *limitWatch {
	w := &limitWatch{done: make(chan struct{}), finished: make(chan bool, 1)}
	go func() {
		tick := time.NewTicker(watchLimitEvery)
		defer tick.Stop()
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			select {
			case <-w.done:
				w.finished <- false
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && int64(sample[0].Value.Uint64()) > limit/20*19 {
				debug.SetGCPercent(largeInputGCPercent)
				debug.SetMemoryLimit(math.MaxInt64)
				<-w.done
				w.finished <- true
				return
			}
		}
	}()
	return w
}

// stop ends the watch and reports whether it fell back.
func (w *limitWatch) stop() bool {
	close(w.done)
	return <-w.finished
}
