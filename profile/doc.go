// Package profile records where the time of a run goes: per-dispatch
// entries (one per kernel launch), per-group spans (a command buffer or a
// set of concurrent dispatches) and per-label accumulators (count, total,
// min, max, mean), and turns them into tables and into files that standard
// tools read: a pprof profile for `go tool pprof` and a Chrome trace-event
// JSON for Perfetto or chrome://tracing.
//
// The package imports nothing of the pipeline: op kinds, labels and byte
// counts arrive as plain strings and integers, so any driver can feed it.
// There is no global state. A *Profiler is a value handed to a driver
// through its options; a nil *Profiler is valid and every method on it
// returns at once, so a driver that was given none pays one branch per
// call (BenchmarkDisabled measures it). A Profiler is safe for concurrent
// use by several workers.
//
// Time attribution. Dispatches of one group may run at the same time on
// several lanes, so the sum of dispatch durations can exceed the wall time.
// KindStats therefore splits wall time, instant by instant, evenly among
// the dispatches running at that instant and charges the instants when
// none runs to an idle/driver row: its rows add up to the wall time of the
// recorded runs exactly. See kinds.go.
//
// Calls in order:
//
//	p := profile.New()                         // or nil to disable
//	p.SetGraph("resnet50")
//	start := now()
//	p.RecordDispatch(profile.Dispatch{Label: "conv1", Kind: "conv", ...})
//	p.RecordGroup("group 0", g0, g1)           // a concurrent group's span
//	p.Add("encode", durNs)                     // any labelled duration
//	p.RecordBarrier(profile.Barrier{Before: 7, AtNs: t})
//	p.RecordRun(start, now())
//	p.WriteTable(os.Stdout, 10)                // top labels by total time
//	p.WriteKindTable(os.Stdout)                // per op kind, sums to wall
//	p.WritePprof(f)                            // go tool pprof -top f
//	p.WriteTrace(f)                            // open in ui.perfetto.dev
//
// Device timestamps are converted to host nanoseconds with a [GPUClock]
// calibrated from (cpu ns, gpu ticks) snapshot pairs.
package profile
