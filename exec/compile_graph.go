package exec

import (
	"context"
	"fmt"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
)

// CompileOptions configure Compile.
type CompileOptions struct {
	// Mode chooses the barriers (Serial by default).
	Mode Mode
	// Order is the schedule to plan for; nil means g.Schedule().
	Order []ir.NodeID
	// Planner configures the memory plan (alignment, strategy, in place,
	// objective).
	Planner planner.Options
}

// Compile schedules g, plans its memory with the planner, and builds the
// program in opts.Mode: the whole pipeline in one call.
func Compile(ctx context.Context, g *ir.Graph, opts CompileOptions) (*Program, error) {
	if g == nil {
		return nil, fmt.Errorf("exec: nil graph: %w", ErrProgram)
	}
	order := opts.Order
	if order == nil {
		var err error
		if order, err = g.Schedule(); err != nil {
			return nil, err
		}
	}
	plan, err := planner.PlanGraph(ctx, g, order, opts.Planner)
	if err != nil {
		return nil, err
	}
	// A grouped plan (any objective but memory) sorts the order by group.
	return CompilePlan(g, plan.Order, plan, opts.Mode)
}
