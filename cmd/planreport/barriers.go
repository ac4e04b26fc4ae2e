package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/memplan/memplan/memranges"
)

// -barriers adds memranges' barrier analysis of the plan to the report:
// dispatch and barrier counts, the group-size histogram, the critical path,
// what the ggml-compatible mode would emit, and one cause per barrier.
// -reorder (which implies -barriers) reorders the dispatches for the fewest
// barriers first, within -reorder-window positions when that is set. The
// plan's offsets stay as planned: the reorder respects every conflict they
// imply.
func init() {
	register(extension{Name: "barriers", Flags: func(fs *flag.FlagSet) hooks {
		on := fs.Bool("barriers", false, "add the barriers between dispatches, with their causes (graph inputs; -format text|json)")
		reorder := fs.Bool("reorder", false, "reorder the dispatches for the fewest barriers before placing them (implies -barriers)")
		window := fs.Int("reorder-window", 0, "with -reorder: move no dispatch more than `N` positions (0: unbounded)")
		return hooks{AfterPlan: func(s *session) error {
			if !*on && !*reorder {
				return nil
			}
			return renderBarriers(s, memranges.AnalyzeOptions{Reorder: *reorder, Window: *window})
		}}
	}})
}

// barrierJSON is the JSON report with the barrier summary keys beside the
// plan's.
type barrierJSON struct {
	summary
	memranges.Summary
	Causes []memranges.CauseRecord `json:"barrier_causes"`
}

func renderBarriers(s *session, opts memranges.AnalyzeOptions) error {
	g := s.Input.Graph
	if g == nil {
		return fmt.Errorf("-barriers needs a graph, not a DSA instance")
	}
	if s.Format != "text" && s.Format != "json" {
		return fmt.Errorf("-barriers works with -format text or json, not %q", s.Format)
	}
	a, err := memranges.Analyze(g, s.Plan.Order, s.Plan, opts)
	if err != nil {
		return err
	}
	s.SkipReport = true
	if s.Format == "json" {
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(barrierJSON{summary: makeSummary(s), Summary: a.Summary, Causes: a.Causes()})
	}
	if err := renderText(s.Out, s); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(s.Out); err != nil {
		return err
	}
	return a.WriteText(s.Out)
}
