package main

// planreport gen: write a generated DSA instance (internal/dsagen) as CSV,
//
//	planreport gen -kind synthetic -n 1000000 -o synth1m.csv
//	planreport gen -kind packable -n 1000 -seed 1 -o p1000.csv
//	planreport gen -kind rows -n 100000 -seed 1 -o rows100k.csv
//
// "synthetic" is the size ladder of the planner's benchmarks (shaped like a
// model's trace); "packable" cuts a capacity x time rectangle into n
// blocks, so the optimum arena is -capacity; "rows" is uniformly random
// rows (the hostile corpus's million rows at -n 1000000 -seed 1). Rows
// carry no offsets.

import (
	"flag"
	"fmt"
	"io"

	"github.com/memplan/memplan/internal/dsagen"
	"github.com/memplan/memplan/planner"
)

func init() { subcommands["gen"] = runGen }

func runGen(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("planreport gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kind := fs.String("kind", "synthetic", "synthetic, packable or rows")
	n := fs.Int("n", 1000, "buffers")
	seed := fs.Uint64("seed", 1, "seed (packable, rows)")
	capacity := fs.Int64("capacity", 1<<20, "arena of the tiling in bytes (packable; a multiple of 64)")
	out := fs.String("o", "", "write to `FILE` instead of stdout")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 || *n < 1 || *n > planner.DefaultCSVLimits.MaxRows ||
		*capacity < dsagen.PackableGranule || *capacity%dsagen.PackableGranule != 0 {
		fmt.Fprintln(stderr, "usage: planreport gen [-kind synthetic|packable|rows] [-n N (1 to 16,777,216)] [-seed S] [-capacity BYTES (multiple of 64)] [-o FILE]")
		return 2
	}
	var bs []dsagen.Block
	switch *kind {
	case "synthetic":
		bs = dsagen.Synthetic(*n)
	case "packable":
		bs = dsagen.Packable(*n, *capacity, *seed)
	case "rows":
		bs = dsagen.Rows(*n, *seed)
	default:
		fmt.Fprintf(stderr, "planreport gen: unknown -kind %q (synthetic, packable, rows)\n", *kind)
		return 2
	}
	bufs := make([]planner.Buffer, len(bs))
	for i, b := range bs {
		bufs[i] = planner.Buffer{ID: int64(i), Start: b.Start, End: b.End, Size: b.Size}
	}
	var w io.Writer = stdout
	var f *atomicFile
	if *out != "" {
		var err error
		if f, err = createAtomic(*out); err != nil {
			fmt.Fprintf(stderr, "planreport gen: -o: %v\n", err)
			return 1
		}
		defer f.Abort()
		w = f
	}
	if err := planner.WriteCSV(w, bufs, nil); err != nil {
		fmt.Fprintf(stderr, "planreport gen: %v\n", err)
		return 1
	}
	if f != nil {
		if err := f.Commit(); err != nil {
			fmt.Fprintf(stderr, "planreport gen: %v\n", err)
			return 1
		}
	}
	return 0
}
