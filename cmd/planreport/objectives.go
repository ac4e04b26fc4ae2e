package main

// planreport objectives FILE...: for each graph, the plan of every
// objective measured as a reordered run would use it, beside the data
// chain, the arena without sharing and what ggml-metal's own reorder pass
// reaches on the memory plan; the table of docs/MODELS.md:
//
//	planreport objectives -format markdown testdata/models/*.onnx
//
// Every plan is verified (planner and memranges) and the frontier of each
// graph checked (memranges.CheckFrontier).

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/memplan/memplan/memranges"
	"github.com/memplan/memplan/planner"
)

func init() {
	subcommands["objectives"] = runObjectives
}

// objectivePlan is one objective's plan of a graph.
type objectivePlan struct {
	Objective       string `json:"objective"`
	Groups          int64  `json:"groups"`
	ArenaBytes      int64  `json:"arena_bytes"`
	LowerBoundBytes int64  `json:"lower_bound_bytes"`
	CriticalPath    int    `json:"critical_path"`
	BarriersGGML    int    `json:"barriers_ggml_window"`
}

// objectiveRow is one graph's line of the table.
type objectiveRow struct {
	Model          string          `json:"model"`
	Dispatches     int             `json:"dispatches"`
	DataChain      int             `json:"data_chain"`
	UnsharedBytes  int64           `json:"unshared_bytes"`
	Plans          []objectivePlan `json:"plans"`
	FrontierPoints int             `json:"frontier_points"`
	// ConcurrencyForFree: the concurrency plan's arena equals the memory
	// plan's (or is smaller).
	ConcurrencyForFree bool `json:"concurrency_for_free"`
	// BoundsEqual: the concurrency grouping's lower bound equals the serial
	// plan's.
	BoundsEqual bool `json:"grouped_bound_equals_serial"`
}

func runObjectives(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("planreport objectives", flag.ContinueOnError)
	fset.SetOutput(stderr)
	format := fset.String("format", "text", "text, markdown or json")
	strategy := graphPlanFlags(fset)
	if err := fset.Parse(args); err != nil {
		return 2
	}
	if fset.NArg() == 0 || (*format != "text" && *format != "json" && *format != "markdown") {
		fmt.Fprintln(stderr, "usage: planreport objectives [-format text|markdown|json] [-strategy NAME] FILE...")
		return 2
	}
	var rows []objectiveRow
	for _, path := range fset.Args() {
		row, err := objectivesOf(path, planner.Options{Strategy: *strategy})
		if err != nil {
			fmt.Fprintf(stderr, "planreport: objectives: %s: %v\n", path, err)
			return 1
		}
		rows = append(rows, row)
	}
	var err error
	switch *format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rows)
	default:
		err = writeObjectives(stdout, rows, *format == "markdown")
	}
	if err != nil {
		fmt.Fprintf(stderr, "planreport: objectives: %v\n", err)
		return 1
	}
	return 0
}

func objectivesOf(path string, opts planner.Options) (objectiveRow, error) {
	in, err := load([]string{path})
	if err != nil {
		return objectiveRow{}, err
	}
	g := in.Graph
	if g == nil {
		return objectiveRow{}, fmt.Errorf("needs a graph, not a DSA instance")
	}
	row := objectiveRow{Model: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
	for _, obj := range planner.Objectives() {
		o := opts
		o.Objective = obj
		p, err := planner.PlanGraph(context.Background(), g, in.Order, o)
		if err != nil {
			return row, err
		}
		if err := p.Verify(g); err != nil {
			return row, fmt.Errorf("%s plan does not verify: %w", obj, err)
		}
		a, err := memranges.Analyze(g, p.Order, p, memranges.AnalyzeOptions{Reorder: true})
		if err != nil {
			return row, err
		}
		row.Dispatches, row.DataChain = a.Summary.Dispatches, a.Summary.DataChain
		if obj == planner.ObjectiveMemory {
			row.UnsharedBytes = p.UnsharedBytes // the memory plan's buffers, unshared
		}
		row.Plans = append(row.Plans, objectivePlan{Objective: obj, Groups: p.Steps, ArenaBytes: p.ArenaBytes,
			LowerBoundBytes: p.LowerBoundBytes, CriticalPath: a.Summary.CriticalPath, BarriersGGML: a.Summary.BarriersGGMLWindow})
	}
	mem, conc := row.Plans[0], row.Plans[1]
	row.ConcurrencyForFree = conc.ArenaBytes <= mem.ArenaBytes
	row.BoundsEqual = conc.LowerBoundBytes == mem.LowerBoundBytes
	f, err := memranges.BuildFrontier(context.Background(), g, in.Order, opts)
	if err == nil {
		err = memranges.CheckFrontier(f)
	}
	if err != nil {
		return row, err
	}
	row.FrontierPoints = len(f.Points)
	return row, nil
}

// writeObjectives prints the rows as an aligned text table or a Markdown
// one: per objective "arena / critical path", the concurrency plan's
// grouped lower bound, and ggml's windowed barriers on the memory and the
// concurrency plans.
func writeObjectives(w io.Writer, rows []objectiveRow, markdown bool) error {
	head := []string{"model", "dispatches", "data chain", "memory: arena / cp", "concurrency: arena / cp", "grouped LB", "balanced: arena / cp", "no sharing", "ggml window: memory / concurrency plan", "frontier points", "concurrency for free"}
	var b strings.Builder
	line := func(cells []string) {
		if markdown {
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
			return
		}
		b.WriteString(strings.Join(cells, "\t") + "\n")
	}
	line(head)
	if markdown {
		sep := make([]string, len(head))
		for i := range sep {
			sep[i] = "---:"
		}
		sep[0] = "---"
		line(sep)
	}
	for _, r := range rows {
		cell := func(p objectivePlan) string { return fmt.Sprintf("%d / %d", p.ArenaBytes, p.CriticalPath) }
		free := "yes"
		if !r.ConcurrencyForFree {
			free = fmt.Sprintf("no: +%.1f%%", 100*float64(r.Plans[1].ArenaBytes-r.Plans[0].ArenaBytes)/float64(max(r.Plans[0].ArenaBytes, 1)))
		}
		line([]string{r.Model, fmt.Sprint(r.Dispatches), fmt.Sprint(r.DataChain), cell(r.Plans[0]), cell(r.Plans[1]),
			fmt.Sprint(r.Plans[1].LowerBoundBytes), cell(r.Plans[2]), fmt.Sprint(r.UnsharedBytes),
			fmt.Sprintf("%d / %d barriers", r.Plans[0].BarriersGGML, r.Plans[1].BarriersGGML), fmt.Sprint(r.FrontierPoints), free})
	}
	_, err := io.WriteString(w, b.String())
	return err
}
