package planner

import (
	"cmp"
	"context"
	"slices"

	"github.com/memplan/memplan/ir"
)

// From concurrency toward memory
//
// The concurrency grouping has the fewest groups; the serial schedule the
// least peak. frontierGroupings gives the groupings between them: the
// concurrency grouping first, then list-scheduled groupings (listsched.go)
// with the serial schedule or the ALAP group as priority (the latter
// delays what has slack, the former follows the memory plan's order),
// under byte limits swept evenly
// from the unlimited estimate down to 0 (frontierSteps limits; the
// estimate ignores in-place sharing, so the interesting limits often lie
// below the serial schedule's estimate, and limit 0 is one dispatch per
// group in the serial priority). A lower limit closes groups sooner: more groups (at most one
// more barrier each) and fewer bytes live per group. Groupings are kept
// only when their exact grouped peak is below every one with fewer
// groups, fewest groups first.
//
//	limit   groups  peak
//	none    81      37120 B   (the concurrency grouping; llama_tiny)
//	30000   89      30208 B   (ALAP priority; serial priority: 91 groups)
//	0       109     30208 B   (one dispatch per group)
//
// FrontierPlans places them with the memory plan last;
// memranges.BuildFrontier measures their barriers after reordering and
// keeps the points where arena falls as barriers rise.

// frontierSteps is the number of byte limits the sweep tries.
const frontierSteps = 32

// grouping is one grouped schedule: order sorted by group, groups aligned.
type grouping struct {
	order      []ir.NodeID
	groups     []int
	lowerBound int64
}

// frontierGroupings returns the concurrency grouping followed by the
// sweep's groupings whose peak falls, fewest groups first. order is a
// checked schedule.
func frontierGroupings(g *ir.Graph, order []ir.NodeID, opts Options) ([]grouping, error) {
	sorted, groups, err := concurrencyGrouping(g, order, opts)
	if err != nil {
		return nil, err
	}
	dg, err := newDepGraph(g)
	if err != nil {
		return nil, err
	}
	li, err := newListInfo(g, dg, order, opts)
	if err != nil {
		return nil, err
	}
	serial := make([]int, len(g.Nodes))
	for k, n := range order {
		serial[n] = k
	}
	_, depth := dg.asap(order)
	alap := dg.alap(order, depth)
	conc := grouping{order: sorted, groups: groups}
	lvc, err := computeLiveness(g, sorted, groups, opts)
	if err != nil {
		return nil, err
	}
	conc.lowerBound = LowerBound(lvc.bufs)
	var cands []grouping
	for _, prio := range [][]int{serial, alap} {
		_, _, top := li.listGroups(dg, order, prio, -1)
		for k := 1; k <= frontierSteps; k++ {
			limit := top - top*int64(k)/frontierSteps
			grp, _, _ := li.listGroups(dg, order, prio, limit)
			s, err := scoreGrouping(g, order, grp, opts)
			if err != nil {
				return nil, err
			}
			o, gs := sortByGroup(order, grp)
			cands = append(cands, grouping{order: o, groups: gs, lowerBound: s.peak})
		}
	}
	slices.SortStableFunc(cands, func(a, b grouping) int {
		if c := numGroups(a.groups) - numGroups(b.groups); c != 0 {
			return c
		}
		return cmp.Compare(a.lowerBound, b.lowerBound)
	})
	out := []grouping{conc}
	for _, c := range cands {
		if c.lowerBound < out[len(out)-1].lowerBound {
			out = append(out, c)
		}
	}
	return out, nil
}

// numGroups returns the number of groups of a checked grouping.
func numGroups(groups []int) int {
	if len(groups) == 0 {
		return 0
	}
	return groups[len(groups)-1] + 1
}

// FrontierPlans returns plans from the concurrency optimum toward the
// memory optimum, all placed with opts' strategy: the concurrency plan
// first, then the groupings of the sweep whose lower bound falls, and the
// memory plan last. order nil means g.Schedule(). Barriers are for the
// caller to measure (memranges.BuildFrontier).
func FrontierPlans(ctx context.Context, g *ir.Graph, order []ir.NodeID, opts Options) ([]*Plan, error) {
	order, err := checkedOrder(g, order)
	if err != nil {
		return nil, err
	}
	seq, err := frontierGroupings(g, order, opts)
	if err != nil {
		return nil, err
	}
	var out []*Plan
	for i, s := range seq {
		p, err := planWithGroups(ctx, g, s.order, s.groups, opts)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			p.Objective = ObjectiveConcurrency
		}
		out = append(out, p)
	}
	mem, err := planWithGroups(ctx, g, order, nil, opts)
	if err != nil {
		return nil, err
	}
	mem.Objective = ObjectiveMemory
	return append(out, mem), nil
}
