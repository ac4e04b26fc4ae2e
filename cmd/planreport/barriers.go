package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/memplan/memplan/memranges"
)

// -barriers adds the barriers between the plan's dispatches to the report,
// in every format (one rule): with -format text|json, memranges' barrier
// analysis (dispatch and barrier counts, the group-size histogram, the
// critical path, what the ggml-compatible mode would emit, one cause per
// barrier); with -format svg|html, barrier marks on the arena map. Without
// -barriers no format shows barriers.
//
// -reorder (implies -barriers) works on the plan as placed: after placement
// it reorders the dispatches for the fewest barriers, within -reorder-window
// positions when that is set, keeping every conflict the planned offsets
// imply (the offsets do not change). -edges (implies -barriers) adds the
// dependency edges with their hazards (edges.go). Both need -format
// text|json: the map's time axis is the schedule's steps.

// barriersOn is this run's -barriers, read by the map renderer (viz.go).
var barriersOn *bool

func init() {
	register(extension{Name: "barriers", Flags: func(fs *flag.FlagSet) hooks {
		on := fs.Bool("barriers", false, "add the barriers between dispatches to the report, in every format: text|json list them with their causes, svg|html mark them on the map (graph inputs)")
		reorder := fs.Bool("reorder", false, "after placement, reorder the dispatches for the fewest barriers, keeping every conflict the planned offsets imply (offsets unchanged; implies -barriers; -format text|json)")
		window := fs.Int("reorder-window", 0, "with -reorder: move no dispatch more than `N` positions (0: unbounded)")
		edges := fs.Bool("edges", false, "add the dependency edges (transitive reduction of the conflict DAG), each with the hazard that makes it necessary: kind, buffer, byte ranges (implies -barriers; -format text|json)")
		barriersOn = on
		return hooks{
			BeforePlan: func(s *session) error {
				if (*reorder || *edges) && s.Format != "text" && s.Format != "json" {
					return fmt.Errorf("-reorder and -edges work with -format text or json, not %q (the map's time axis is the schedule)", s.Format)
				}
				if *on || *reorder || *edges {
					if s.Input.Graph == nil {
						return fmt.Errorf("-barriers, -reorder and -edges need a graph, not a DSA instance")
					}
					if s.Format != "text" && s.Format != "json" && s.Format != "svg" && s.Format != "html" {
						return fmt.Errorf("-barriers works with -format text, json, svg or html, not %q", s.Format)
					}
				}
				if *window < 0 {
					return fmt.Errorf("-reorder-window %d: want 0 (unbounded) or more", *window)
				}
				*on = *on || *reorder || *edges
				return nil
			},
			AfterPlan: func(s *session) error {
				if !*on || s.Format == "svg" || s.Format == "html" {
					return nil // the map renderer marks the barriers
				}
				return renderBarriers(s, memranges.AnalyzeOptions{Reorder: *reorder, Window: *window}, *edges)
			},
		}
	}})
}

// barrierJSON is the JSON report with the barrier summary keys beside the
// plan's.
type barrierJSON struct {
	summary
	memranges.Summary
	Causes []memranges.CauseRecord `json:"barrier_causes"`
	Edges  *[]edgeRecord           `json:"dependency_edges,omitempty"` // set with -edges
}

func renderBarriers(s *session, opts memranges.AnalyzeOptions, withEdges bool) error {
	a, err := memranges.Analyze(s.Input.Graph, s.Plan.Order, s.Plan, opts)
	if err != nil {
		return err
	}
	var es []edgeRecord
	var esJSON *[]edgeRecord
	if withEdges {
		es = edgeRecords(a)
		esJSON = &es
	}
	s.SkipReport = true
	if s.Format == "json" {
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(barrierJSON{summary: makeSummary(s), Summary: a.Summary, Causes: a.Causes(), Edges: esJSON})
	}
	if err := renderText(s.Out, s); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(s.Out); err != nil {
		return err
	}
	if err := a.WriteText(s.Out); err != nil || !withEdges {
		return err
	}
	return writeEdgesText(s.Out, es)
}
