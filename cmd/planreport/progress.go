package main

// -progress: one line on stderr per phase of a run, with its wall time
// (reading, placing, verifying, writing the report), auto's line as each
// of its stages ends, and the search's own progress lines. A run on a
// million buffers takes seconds and otherwise says nothing until it ends.
// One run of internal/hostile's random rows on the project's 2-core
// machine (2026-11-29 05:27 UTC, load 1.0, parent commit a08c027; above
// 200,000 buffers auto has one stage, and the lower bound is computed
// beside it, so its line names none):
//
//	$ planreport -progress -format csv -o plan.csv rows_1m.csv
//	planreport: read 1000000 buffers from rows_1m.csv in 0.41 s
//	auto: stage 1: best 21007104 (split/firstfit)  13.0s
//	planreport: placed by auto/split/firstfit in 13.09 s: arena 21007104 B, 6.29% over the lower bound 19763072 B
//	planreport: verified in 0.70 s
//	planreport: wrote the report in 0.13 s

import (
	"flag"
	"fmt"
	"time"
)

func init() {
	register(extension{Name: "progress", Flags: func(fs *flag.FlagSet) hooks {
		on := fs.Bool("progress", false, "print each phase's wall time (read, place, verify, write), auto's stages and the search's progress lines to stderr")
		last := time.Now()
		lap := func() float64 {
			now := time.Now()
			d := now.Sub(last).Seconds()
			last = now
			return d
		}
		return hooks{BeforePlan: func(s *session) error {
			if !*on {
				return nil
			}
			what := fmt.Sprintf("%d buffers", len(s.Input.Buffers))
			if g := s.Input.Graph; g != nil {
				what = fmt.Sprintf("%d values and %d nodes", len(g.Values), len(g.Nodes))
			}
			fmt.Fprintf(s.Stderr, "planreport: read %s from %s in %.2f s\n", what, displayName(s.Input), lap())
			if s.Opts.Progress == nil {
				s.Opts.Progress = s.Stderr
			}
			lap() // the other hooks' work before planning is not the placer's
			return nil
		}, AfterPlace: func(s *session) {
			if !*on {
				return
			}
			p := s.Plan
			over := 0.0
			if p.LowerBoundBytes > 0 {
				over = 100 * float64(p.ArenaBytes-p.LowerBoundBytes) / float64(p.LowerBoundBytes)
			}
			fmt.Fprintf(s.Stderr, "planreport: placed by %s in %.2f s: arena %d B, %.2f%% over the lower bound %d B\n", p.Strategy, lap(), p.ArenaBytes, over, p.LowerBoundBytes)
		}, AfterPlan: func(s *session) error {
			if *on {
				fmt.Fprintf(s.Stderr, "planreport: verified in %.2f s\n", lap())
			}
			return nil
		}, AfterReport: func(s *session) {
			if *on && !s.SkipReport {
				fmt.Fprintf(s.Stderr, "planreport: wrote the report in %.2f s\n", lap())
			}
		}}
	}})
}
