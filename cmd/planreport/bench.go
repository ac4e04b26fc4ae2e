package main

// planreport bench DIR: plan every DSA CSV under DIR and tabulate the
// quality, e.g.
//
//	planreport bench -budget 10s ../shared/benchmarks/dsa
//	planreport bench -format json -strategy portfolio DIR
//
// Rows are sorted by path. The "search" strategy (the default) reports which
// of its methods found the plan (portfolio/<member>, search/exact,
// search/local, search/window); other strategies report their name. Every
// plan is verified; a plan that fails verification is an error.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memplan/memplan/planner"
)

func init() {
	subcommands["bench"] = runBench
	register(extension{Name: "budget", Flags: func(fs *flag.FlagSet) hooks {
		budget := fs.Duration("budget", 0, "time budget of searching strategies (e.g. 10s; 0: their default)")
		return hooks{BeforePlan: func(s *session) error {
			if *budget > 0 {
				s.Opts.TimeBudget = *budget
				s.Opts.Progress = s.Stderr
			}
			return nil
		}}
	}})
}

// benchRow is one instance's result.
type benchRow struct {
	Instance string  `json:"instance"`
	Buffers  int     `json:"buffers"`
	LB       int64   `json:"lower_bound"`
	Arena    int64   `json:"arena"`
	Ratio    float64 `json:"arena_over_lb"`
	Seconds  float64 `json:"seconds"`
	Method   string  `json:"method"`
}

func runBench(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("planreport bench", flag.ContinueOnError)
	fset.SetOutput(stderr)
	format := fset.String("format", "text", "text or json")
	budget := fset.Duration("budget", 10*time.Second, "time budget per instance")
	strategy := fset.String("strategy", "search", "placement strategy")
	progress := fset.Bool("progress", false, "print search progress to stderr")
	if err := fset.Parse(args); err != nil {
		return 2
	}
	if fset.NArg() != 1 || (*format != "text" && *format != "json") {
		fmt.Fprintln(stderr, "usage: planreport bench [-format text|json] [-budget 10s] [-strategy search] DIR")
		return 2
	}
	var files []string
	err := filepath.WalkDir(fset.Arg(0), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".csv") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		fmt.Fprintf(stderr, "planreport: bench: %v\n", err)
		return 1
	}
	slices.Sort(files)
	var prog io.Writer
	if *progress {
		prog = stderr
	}
	var rows []benchRow
	for _, f := range files {
		row, err := benchOne(f, fset.Arg(0), *strategy, *budget, prog)
		if err != nil {
			fmt.Fprintf(stderr, "planreport: bench: %s: %v\n", f, err)
			return 1
		}
		rows = append(rows, row)
		if *format == "text" && len(rows) == 1 {
			fmt.Fprintf(stdout, "%-28s %7s %16s %16s %9s %8s  %s\n", "instance", "buffers", "LB", "arena", "arena/LB", "seconds", "method")
		}
		if *format == "text" {
			fmt.Fprintf(stdout, "%-28s %7d %16d %16d %9.6f %8.2f  %s\n", row.Instance, row.Buffers, row.LB, row.Arena, row.Ratio, row.Seconds, row.Method)
		}
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if rows == nil {
			rows = []benchRow{}
		}
		if err := enc.Encode(rows); err != nil {
			fmt.Fprintf(stderr, "planreport: bench: %v\n", err)
			return 1
		}
	}
	return 0
}

// benchOne plans one CSV file.
func benchOne(path, root, strategy string, budget time.Duration, prog io.Writer) (benchRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return benchRow{}, err
	}
	bufs, err := planner.ReadCSV(f)
	f.Close()
	if err != nil {
		return benchRow{}, err
	}
	name, err := filepath.Rel(root, path)
	if err != nil {
		name = path
	}
	row := benchRow{Instance: filepath.ToSlash(name), Buffers: len(bufs), LB: planner.LowerBound(bufs)}
	start := time.Now()
	var off []int64
	if strategy == "search" {
		res, err := planner.Search(context.Background(), bufs, planner.SearchConfig{Budget: budget, Progress: prog})
		if err != nil {
			return row, err
		}
		off, row.Method = res.Offsets, res.Method
	} else {
		plan, err := planner.PlanBuffers(context.Background(), bufs, planner.Options{Strategy: strategy, TimeBudget: budget, Progress: prog})
		if err != nil {
			return row, err
		}
		off, row.Method, bufs = plan.Offsets, plan.Strategy, plan.Buffers
	}
	row.Seconds = time.Since(start).Seconds()
	if err := planner.VerifyPlacement(bufs, off); err != nil {
		return row, err
	}
	row.Arena = planner.ArenaSize(bufs, off)
	row.Ratio = float64(row.Arena) / float64(max(row.LB, 1))
	return row, nil
}
