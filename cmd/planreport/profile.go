package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/memplan/memplan/profile"
)

// -profile FILE, -trace FILE and -timings: with -run, time every dispatch
// of the timed runs (package profile), print the slowest dispatches and the
// per-op-kind table whose rows add up to the runs' wall time, and write a
// pprof profile and a Chrome/Perfetto trace.

// profOpts holds this run's profiling flags (set by the extension below).
var profOpts struct {
	pprofPath, tracePath string
	tables               bool
	top                  int
}

func init() {
	register(extension{Name: "profile", Flags: func(fs *flag.FlagSet) hooks {
		pprofPath := fs.String("profile", "", "with -run: write a pprof profile of the timed runs to `FILE` (go tool pprof -top FILE)")
		tracePath := fs.String("trace", "", "with -run: write a Chrome/Perfetto trace-event JSON of the timed runs to `FILE`")
		tables := fs.Bool("timings", false, "with -run: print the slowest dispatches and a per-op-kind time table (implied by -profile and -trace)")
		top := fs.Int("top", 10, "with -run and -timings: rows of the slowest-dispatch table")
		return hooks{BeforePlan: func(s *session) error {
			profOpts.pprofPath, profOpts.tracePath, profOpts.top = *pprofPath, *tracePath, *top
			profOpts.tables = *tables || *pprofPath != "" || *tracePath != ""
			runProfiler = nil
			if profOpts.tables {
				runProfiler = profile.New()
			}
			return nil
		}}
	}})
	afterRun = append(afterRun, writeProfile)
}

// writeProfile prints the tables and writes the files of the runs just
// timed; it does nothing unless a profiling flag was given.
func writeProfile(s *session) error {
	p := runProfiler
	if p == nil {
		return nil
	}
	runs := p.Runs()
	var wall int64
	for _, r := range runs {
		wall += r.EndNs - r.StartNs
	}
	fmt.Fprintf(s.Out, "\n# profile: %d timed runs, %d dispatches, measured wall %s (sum of the runs' Result.Wall)\n",
		len(runs), len(p.Dispatches()), profile.FormatNs(wall))
	fmt.Fprintf(s.Out, "\n## slowest dispatches (top %d by total time)\n", profOpts.top)
	if err := p.WriteDispatchTable(s.Out, profOpts.top); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "\n## time per op kind (wall: each instant split among the dispatches running then; %s: no dispatch running)\n", profile.IdleKind)
	if err := p.WriteKindTable(s.Out); err != nil {
		return err
	}
	write := func(path string, f func(*os.File) error) error {
		if path == "" {
			return nil
		}
		out, err := createAtomic(path)
		if err != nil {
			return err
		}
		defer out.Abort()
		if err := f(out.File); err != nil {
			return err
		}
		if err := out.Commit(); err != nil {
			return err
		}
		fmt.Fprintf(s.Stderr, "planreport: wrote %s\n", path)
		return nil
	}
	if err := write(profOpts.pprofPath, func(f *os.File) error { return p.WritePprof(f) }); err != nil {
		return err
	}
	return write(profOpts.tracePath, func(f *os.File) error { return p.WriteTrace(f) })
}
