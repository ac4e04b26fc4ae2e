package memranges

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
)

// The memory/concurrency frontier
//
// planner.FrontierPlans gives plans from the concurrency optimum (a
// minimum-depth grouping) to the memory optimum (the serial plan), the
// ones between made by splitting the group where the live bytes peak.
// BuildFrontier verifies each plan (planner's Verify), measures it as a
// reordered run would use it (Analyze with Reorder: barriers =
// critical path - 1, checked by Verify and VerifyOrder), and keeps the
// points where the arena falls as the barriers rise: sorted by barriers,
// a point stays only when its arena is below every point with fewer
// barriers. The memory optimum stays as the last point also when its
// arena only equals the one before (concurrency for free, or a graph with
// nothing to run side by side), so both extremes are always shown.
//
//	barriers  arena
//	80        37120   concurrency (critical path = data chain 81)
//	88        33024   split at the peak
//	96        30208   memory (serial plan)

// FrontierPoint is one plan of the frontier; the JSON keys are the ones
// `planreport frontier -format json` prints.
type FrontierPoint struct {
	Objective       string `json:"objective,omitempty"` // "concurrency", "memory", or "" between
	Groups          int64  `json:"groups"`              // groups the plan's lifespans are measured in
	Barriers        int    `json:"barriers"`            // after Reorder: CriticalPath - 1
	CriticalPath    int    `json:"critical_path"`
	ArenaBytes      int64  `json:"arena_bytes"`
	LowerBoundBytes int64  `json:"lower_bound_bytes"`
	// Plan is the verified plan behind the point.
	Plan *planner.Plan `json:"-"`
}

// Frontier is the list of points, ordered by barriers, and the graph's
// data chain.
type Frontier struct {
	Points    []FrontierPoint `json:"points"`
	DataChain int             `json:"data_chain"`
}

// BuildFrontier plans g (order nil: g.Schedule()) along the frontier with
// opts' strategy and returns the verified, monotone points.
func BuildFrontier(ctx context.Context, g *ir.Graph, order []ir.NodeID, opts planner.Options) (*Frontier, error) {
	plans, err := planner.FrontierPlans(ctx, g, order, opts)
	if err != nil {
		return nil, err
	}
	chain, err := planner.DataChain(g)
	if err != nil {
		return nil, err
	}
	var pts []FrontierPoint
	for _, p := range plans {
		if err := p.Verify(g); err != nil {
			return nil, fmt.Errorf("memranges: frontier plan of %d groups does not verify: %w", p.Steps, err)
		}
		a, err := Analyze(g, p.Order, p, AnalyzeOptions{Reorder: true})
		if err != nil {
			return nil, err
		}
		pts = append(pts, FrontierPoint{Objective: p.Objective, Groups: p.Steps, Barriers: a.Summary.Barriers,
			CriticalPath: a.Summary.CriticalPath, ArenaBytes: p.ArenaBytes, LowerBoundBytes: p.LowerBoundBytes, Plan: p})
	}
	return &Frontier{Points: monotone(pts), DataChain: chain}, nil
}

// monotone sorts the points by barriers (then arena, then groups) and
// keeps those whose arena is below all kept before, and the memory point
// when its arena equals the last kept one (it sorts last among equals).
func monotone(pts []FrontierPoint) []FrontierPoint {
	sort.SliceStable(pts, func(i, j int) bool {
		a, b := pts[i], pts[j]
		if a.Barriers != b.Barriers {
			return a.Barriers < b.Barriers
		}
		if a.ArenaBytes != b.ArenaBytes {
			return a.ArenaBytes < b.ArenaBytes
		}
		return a.Groups < b.Groups
	})
	var out []FrontierPoint
	for _, p := range pts {
		switch {
		case len(out) == 0:
		case p.ArenaBytes < out[len(out)-1].ArenaBytes:
		case p.Objective == planner.ObjectiveMemory && p.ArenaBytes == out[len(out)-1].ArenaBytes:
		default:
			continue
		}
		out = append(out, p)
	}
	return out
}

// CheckFrontier reports every way f fails to be a frontier: points not in
// ascending barriers, an arena that grows with the barriers, a point whose
// arena is below its lower bound or whose critical path is not barriers + 1.
func CheckFrontier(f *Frontier) error {
	var errs []string
	for i, p := range f.Points {
		if p.ArenaBytes < p.LowerBoundBytes {
			errs = append(errs, fmt.Sprintf("point %d: arena %d below its lower bound %d", i, p.ArenaBytes, p.LowerBoundBytes))
		}
		if p.CriticalPath > 0 && p.Barriers != p.CriticalPath-1 {
			errs = append(errs, fmt.Sprintf("point %d: critical path %d, %d barriers, data chain %d", i, p.CriticalPath, p.Barriers, f.DataChain))
		}
		if i > 0 {
			q := f.Points[i-1]
			if p.Barriers < q.Barriers || p.ArenaBytes > q.ArenaBytes {
				errs = append(errs, fmt.Sprintf("point %d (%d barriers, %d bytes) after point %d (%d barriers, %d bytes): not monotone", i, p.Barriers, p.ArenaBytes, i-1, q.Barriers, q.ArenaBytes))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("memranges: frontier: %s: %w", strings.Join(errs, "; "), ErrPlan)
	}
	return nil
}

// WriteText prints the frontier as a table, one point per line.
func (f *Frontier) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "frontier: %d points, data chain %d\n", len(f.Points), f.DataChain)
	fmt.Fprintf(&b, "%-12s %7s %9s %14s %12s %12s\n", "objective", "groups", "barriers", "critical_path", "arena", "lower_bound")
	for _, p := range f.Points {
		obj := p.Objective
		if obj == "" {
			obj = "-"
		}
		fmt.Fprintf(&b, "%-12s %7d %9d %14d %12d %12d\n", obj, p.Groups, p.Barriers, p.CriticalPath, p.ArenaBytes, p.LowerBoundBytes)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
