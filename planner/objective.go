package planner

import (
	"context"
	"fmt"

	"github.com/memplan/memplan/ir"
)

// Objectives
//
// PlanGraph trades memory against concurrency through the grouping its
// lifespans are measured in (groups.go):
//
//   - memory: the serial schedule, one node per group: today's plans,
//     usually the least arena. Sharing may add barriers (a reuse is a hazard between
//     nodes the data does not order).
//   - concurrency: a grouping of minimum depth, so the critical path after
//     reordering equals the data chain. The candidates are the ASAP and the
//     ALAP groupings and the list-scheduled groupings under the least byte
//     limit that keeps the depth (listsched.go; priority the ALAP group or
//     the schedule); the best is improved by
//     shifting dispatches one at a time within their slack while that
//     lowers (peak, area) of the grouped live bytes, and placed. The lower
//     bound of a grouping is the peak of the bytes live per group: never
//     below the serial plan of the same order (a refinement), but it can
//     be below the default schedule's, which is not the best order.
//   - balanced: the fewest groups whose arena is within BalancedFactor of
//     the memory plan's: the concurrency plan when it qualifies, else the
//     first grouping of the frontier sweep (frontier.go), fewest groups
//     first, that qualifies, else the memory plan.
//
// Example: a = Exp x; b = Exp x; c = Exp a; d = Add c b has data chain 3.
// ASAP puts b with a (group 0), ALAP with c (group 1); ALAP keeps b's bytes
// live one group less, so when b is large the concurrency objective picks
// ALAP.

// BalancedFactor is the arena the balanced objective accepts, as a
// multiple of the memory plan's arena.
const BalancedFactor = 1.05

// shiftWork bounds the slack shifting: it evaluates at most shiftWork
// divided by the number of nodes groupings (each costs one liveness pass),
// between 16 and 400, so the concurrency objective stays near-linear on
// large graphs.
const shiftWork = 1_000_000

func maxShiftEvals(nodes int) int { return min(400, max(16, shiftWork/max(nodes, 1))) }

// planObjective plans a checked order under opts.Objective.
func planObjective(ctx context.Context, g *ir.Graph, order []ir.NodeID, opts Options) (*Plan, error) {
	switch opts.Objective {
	case "", ObjectiveMemory:
		p, err := planWithGroups(ctx, g, order, nil, opts)
		if err != nil {
			return nil, err
		}
		p.Objective = ObjectiveMemory
		return p, nil
	case ObjectiveConcurrency:
		sorted, groups, err := concurrencyGrouping(g, order, opts)
		if err != nil {
			return nil, err
		}
		p, err := planWithGroups(ctx, g, sorted, groups, opts)
		if err != nil {
			return nil, err
		}
		p.Objective = ObjectiveConcurrency
		return p, nil
	case ObjectiveBalanced:
		return planBalanced(ctx, g, order, opts)
	}
	return nil, fmt.Errorf("planner: objective %q (want one of %v): %w", opts.Objective, Objectives(), ErrObjective)
}

// groupScore orders groupings: the peak of the grouped live bytes first,
// then their area (bytes x groups), then the number of groups.
type groupScore struct{ peak, area, groups int64 }

func (a groupScore) less(b groupScore) bool {
	if a.peak != b.peak {
		return a.peak < b.peak
	}
	if a.area != b.area {
		return a.area < b.area
	}
	return a.groups < b.groups
}

// scoreGrouping measures a grouping (per node ID) of a topological order.
func scoreGrouping(g *ir.Graph, order []ir.NodeID, grp []int, opts Options) (groupScore, error) {
	sorted, groups := sortByGroup(order, grp)
	lv, err := computeLiveness(g, sorted, groups, opts)
	if err != nil {
		return groupScore{}, err
	}
	s := groupScore{peak: LowerBound(lv.bufs), groups: lv.steps}
	for _, b := range lv.bufs {
		s.area = satAdd(s.area, satMul(b.Size, b.End-b.Start))
	}
	return s, nil
}

func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > (1<<63-1)/b {
		return 1<<63 - 1
	}
	return a * b
}

// ConcurrencyGrouping returns the grouping the concurrency objective plans
// over: the schedule order (nil: g.Schedule()) stably sorted by group, and
// the groups aligned with it. It has the data chain's number of groups.
// The graph must validate.
func ConcurrencyGrouping(g *ir.Graph, order []ir.NodeID, opts Options) ([]ir.NodeID, []int, error) {
	order, err := checkedOrder(g, order)
	if err != nil {
		return nil, nil, err
	}
	return concurrencyGrouping(g, order, opts)
}

// concurrencyGrouping is ConcurrencyGrouping for a checked order.
func concurrencyGrouping(g *ir.Graph, order []ir.NodeID, opts Options) ([]ir.NodeID, []int, error) {
	dg, err := newDepGraph(g)
	if err != nil {
		return nil, nil, err
	}
	asap, depth := dg.asap(order)
	alap := dg.alap(order, depth)
	dg.placeViews(order, alap)
	best, bestScore := asap, groupScore{}
	if bestScore, err = scoreGrouping(g, order, asap, opts); err != nil {
		return nil, nil, err
	}
	if s, err := scoreGrouping(g, order, alap, opts); err != nil {
		return nil, nil, err
	} else if s.less(bestScore) {
		best, bestScore = alap, s
	}
	li, err := newListInfo(g, dg, order, opts)
	if err != nil {
		return nil, nil, err
	}
	serial := make([]int, len(g.Nodes))
	for k, n := range order {
		serial[n] = k
	}
	for _, prio := range [][]int{alap, serial} {
		if ll := li.leastLimitGrouping(dg, order, prio, depth); ll != nil {
			if s, err := scoreGrouping(g, order, ll, opts); err != nil {
				return nil, nil, err
			} else if s.less(bestScore) {
				best, bestScore = ll, s
			}
		}
	}
	best = append([]int(nil), best...)
	if err := dg.shift(g, order, best, &bestScore, asap, alap, opts); err != nil {
		return nil, nil, err
	}
	sorted, groups := sortByGroup(order, best)
	return sorted, groups, nil
}

// shift moves single dispatches within their slack (the groups their
// neighbours' current groups allow, inside [asap, alap]) while a move
// lowers the score, at most maxShiftEvals evaluations.
func (dg *depGraph) shift(g *ir.Graph, order []ir.NodeID, grp []int, score *groupScore, asap, alap []int, opts Options) error {
	evals, limit := 0, maxShiftEvals(len(order))
	for pass := 0; pass < 2 && evals < limit; pass++ {
		moved := false
		for _, n := range order {
			if dg.isView[n] || asap[n] == alap[n] {
				continue
			}
			lo, hi := dg.predGroup(n, grp)+1, dg.succGroup(n, grp)-1
			cur := grp[n]
			for to := max(lo, asap[n]); to <= min(hi, alap[n]) && evals < limit; to++ {
				if to == cur {
					continue
				}
				grp[n] = to
				dg.placeViews(order, grp)
				evals++
				s, err := scoreGrouping(g, order, grp, opts)
				if err != nil {
					return err
				}
				if s.less(*score) {
					*score, cur, moved = s, to, true
				}
			}
			grp[n] = cur
			dg.placeViews(order, grp)
		}
		if !moved {
			break
		}
	}
	return nil
}

// predGroup returns the latest group of a dispatch that n depends on
// (through pure view nodes), -1 for none.
func (dg *depGraph) predGroup(n ir.NodeID, grp []int) int {
	r := -1
	for _, d := range dg.deps[n] {
		if dg.isView[d] {
			r = max(r, dg.predGroup(d, grp))
		} else {
			r = max(r, grp[d])
		}
	}
	return r
}

// succGroup returns the earliest group of a dispatch that depends on n
// (through pure view nodes), or a large number for none.
func (dg *depGraph) succGroup(n ir.NodeID, grp []int) int {
	r := int(^uint(0) >> 1)
	for _, s := range dg.succs[n] {
		if dg.isView[s] {
			r = min(r, dg.succGroup(s, grp))
		} else {
			r = min(r, grp[s])
		}
	}
	return r
}

// planBalanced applies the balanced rule (see the top of this file).
func planBalanced(ctx context.Context, g *ir.Graph, order []ir.NodeID, opts Options) (*Plan, error) {
	mem, err := planWithGroups(ctx, g, order, nil, opts)
	if err != nil {
		return nil, err
	}
	limit := int64(BalancedFactor * float64(mem.ArenaBytes))
	seq, err := frontierGroupings(g, order, opts)
	if err != nil {
		return nil, err
	}
	for _, s := range seq {
		if s.lowerBound > limit || int64(numGroups(s.groups)) >= mem.Steps {
			continue
		}
		p, err := planWithGroups(ctx, g, s.order, s.groups, opts)
		if err != nil {
			return nil, err
		}
		if p.ArenaBytes <= limit {
			p.Objective = ObjectiveBalanced
			return p, nil
		}
	}
	mem.Objective = ObjectiveBalanced
	return mem, nil
}
