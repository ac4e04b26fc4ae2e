package main

// planreport frontier FILE: the plans from the concurrency optimum to the
// memory optimum (memranges.BuildFrontier), each verified, as a table or
// JSON:
//
//	planreport frontier testdata/models/llama_tiny.onnx
//	planreport frontier -format json -strategy portfolio graph.json
//
// JSON: {"points":[{"objective":..,"groups":..,"barriers":..,"critical_path":..,
// "arena_bytes":..,"lower_bound_bytes":..}, ...], "data_chain":..}, ordered by
// barriers; the arena never increases as the barriers do.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/memplan/memplan/memranges"
	"github.com/memplan/memplan/planner"
)

func init() {
	subcommands["frontier"] = runFrontier
}

func runFrontier(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("planreport frontier", flag.ContinueOnError)
	fset.SetOutput(stderr)
	format := fset.String("format", "text", "text or json")
	strategy := graphPlanFlags(fset)
	align := fset.Int64("align", planner.DefaultAlign, "buffer alignment in bytes")
	if err := fset.Parse(args); err != nil {
		return 2
	}
	if fset.NArg() != 1 || (*format != "text" && *format != "json") {
		fmt.Fprintln(stderr, "usage: planreport frontier [-format text|json] [-strategy NAME] [-align BYTES] FILE (a graph: .json or .onnx)")
		return 2
	}
	f, code := frontierOf(fset.Arg(0), planner.Options{Strategy: *strategy, Align: *align}, stderr)
	if f == nil {
		return code
	}
	var err error
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(f)
	} else {
		err = f.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "planreport: frontier: %v\n", err)
		return 1
	}
	return 0
}

// graphPlanFlags registers the planning flags that the graph subcommands
// (frontier, objectives) share, -strategy and -onnx-dims, and returns the
// strategy's value.
func graphPlanFlags(fset *flag.FlagSet) *string {
	strategy := fset.String("strategy", "", "placement strategy (default: the planner's)")
	onnxDims = nil
	fset.Func("onnx-dims", "bind symbolic ONNX dimensions: `NAME=SIZE[,NAME=SIZE...]`", func(v string) error {
		dims, err := parseDims(v)
		onnxDims = dims
		return err
	})
	return strategy
}

// frontierOf loads a graph file and builds its checked frontier; on
// failure it reports to stderr and returns nil and the exit status.
func frontierOf(path string, opts planner.Options, stderr io.Writer) (*memranges.Frontier, int) {
	in, err := load([]string{path})
	if err != nil {
		fmt.Fprintf(stderr, "planreport: frontier: %v\n", err)
		return nil, 1
	}
	if in.Graph == nil {
		fmt.Fprintf(stderr, "planreport: frontier: %s: needs a graph, not a DSA instance\n", path)
		return nil, 2
	}
	f, err := memranges.BuildFrontier(context.Background(), in.Graph, in.Order, opts)
	if err == nil {
		err = memranges.CheckFrontier(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "planreport: frontier: %s: %v\n", path, err)
		return nil, 1
	}
	return f, 0
}
