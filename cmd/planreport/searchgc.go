package main

// Garbage collection while the search strategy plans a small input.
//
// The search runs for its whole budget, and the more it does in that time
// the better its plan. Below searchGCBuffers buffers its live heap is a
// few tens of MB at most, and under Go's default target (collect when the
// heap doubles) the collector runs many times a second; each cycle slows
// the search's goroutines while it marks. While the search plans such an
// input the command sets the target to searchGCPercent: a fifth of the
// cycles on packable p5000, for a peak about twice as high
// (docs/BENCHMARKS.md, issue 18, the thirtieth session, has the counts,
// the resident sizes and the arenas). The target goes back once the plan
// is made. GOGC in the environment wins: when it is set the command
// leaves the target alone.

import (
	"flag"
	"os"
	"runtime/debug"
)

// searchGCBuffers is the most buffers (values, for a graph) of an input
// whose search runs under searchGCPercent.
const searchGCBuffers = 20_000

// searchGCPercent is the collector's target while the search plans.
const searchGCPercent = 400

// lookupEnv reads the environment (a variable, for the tests).
var lookupEnv = os.LookupEnv

func init() {
	register(extension{Name: "searchgc", Flags: func(*flag.FlagSet) hooks {
		prev, set := 0, false
		return hooks{BeforePlan: func(s *session) error {
			if s.Opts.Strategy != "search" || s.Input == nil || inputSize(s.Input) > searchGCBuffers {
				return nil
			}
			if _, ok := lookupEnv("GOGC"); ok {
				return nil
			}
			prev, set = debug.SetGCPercent(searchGCPercent), true
			return nil
		}, AfterPlace: func(*session) {
			if set {
				debug.SetGCPercent(prev)
			}
		}}
	}})
}

// inputSize is the number of buffers of a DSA input, or of values of a
// graph.
func inputSize(in *input) int {
	if in.Graph != nil {
		return len(in.Graph.Values)
	}
	return len(in.Buffers)
}
