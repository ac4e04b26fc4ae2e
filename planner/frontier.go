package planner

import (
	"cmp"
	"context"
	"slices"

	"github.com/memplan/memplan/ir"
)

// The split sequence: from concurrency toward memory
//
// The concurrency grouping has the fewest groups; the serial one has the
// least peak. Between them, splitting the group where the live bytes peak
// into two consecutive groups costs at most one barrier and can free bytes:
// values the first half reads for the last time die before the second
// half's outputs are born. A group holds no dependent dispatches, so any
// split is a valid grouping. Each step tries a few splits of the peak
// group (its dispatches ordered by the bytes they free, most first, cut
// at up to splitCuts places) and keeps the one with the least (peak,
// area); the sequence records every grouping whose peak is lower than all
// before it, and stops at the serial peak, when no split frees anything,
// or after the step cap.
//
//	groups  peak             group 3 = {a, b, c, d} holds the peak
//	5       900 B            split {a, b} | {c, d}: a and b free their
//	6       700 B            inputs before c and d allocate
//
// FrontierPlans places the concurrency plan, the recorded groupings and the
// memory plan; memranges.Frontier measures their barriers and keeps the
// points where arena falls as barriers rise.

// splitCuts bounds the cut positions tried per split.
const splitCuts = 6

// maxFrontierPlans bounds the intermediate plans FrontierPlans places.
const maxFrontierPlans = 14

// grouping is one grouped schedule of the split sequence.
type grouping struct {
	order      []ir.NodeID
	groups     []int
	lowerBound int64
}

// splitSequence returns the concurrency grouping (sorted, groups) followed
// by every split that lowers the peak below all before it. maxSteps caps
// the splits (0: the number of scheduled nodes).
func splitSequence(g *ir.Graph, sorted []ir.NodeID, groups []int, opts Options, maxSteps int) ([]grouping, error) {
	dg, err := newDepGraph(g)
	if err != nil {
		return nil, err
	}
	serial, err := computeLiveness(g, sorted, nil, opts)
	if err != nil {
		return nil, err
	}
	floor := LowerBound(serial.bufs)
	grp := make([]int, len(g.Nodes))
	for k, n := range sorted {
		grp[n] = groups[k]
	}
	score, err := scoreGrouping(g, sorted, grp, opts)
	if err != nil {
		return nil, err
	}
	out := []grouping{{order: sorted, groups: groups, lowerBound: score.peak}}
	if maxSteps <= 0 {
		maxSteps = len(sorted)
	}
	for step := 0; step < maxSteps && score.peak > floor; step++ {
		next, s, ok, err := dg.bestSplit(g, sorted, grp, opts)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		grp, score = next, s
		if s.peak < out[len(out)-1].lowerBound {
			o, gs := sortByGroup(sorted, grp)
			out = append(out, grouping{order: o, groups: gs, lowerBound: s.peak})
		}
	}
	return out, nil
}

// bestSplit splits the group holding the peak of grp (per node ID) in the
// way that scores best, or reports false when the peak group has a single
// dispatch.
func (dg *depGraph) bestSplit(g *ir.Graph, order []ir.NodeID, grp []int, opts Options) ([]int, groupScore, bool, error) {
	sorted, groups := sortByGroup(order, grp)
	lv, err := computeLiveness(g, sorted, groups, opts)
	if err != nil {
		return nil, groupScore{}, false, err
	}
	live := make([]int64, lv.steps+1)
	for _, b := range lv.bufs {
		live[b.Start] += b.Size
		live[b.End] -= b.Size
	}
	peakGroup, cur, best := 0, int64(0), int64(-1)
	for t := int64(0); t < lv.steps; t++ {
		cur += live[t]
		if cur > best {
			best, peakGroup = cur, int(t)
		}
	}
	// The peak group's dispatches, most freeing first: bytes of the roots
	// they touch last minus the bytes they produce.
	var members []ir.NodeID
	for _, n := range sorted {
		if grp[n] == peakGroup && !dg.isView[n] {
			members = append(members, n)
		}
	}
	if len(members) < 2 {
		return nil, groupScore{}, false, nil
	}
	freed := make(map[ir.NodeID]int64, len(members))
	for b, vs := range lv.members {
		if lv.bufs[b].End != int64(peakGroup)+1 {
			continue
		}
		for _, n := range members {
			if touchesAny(g, g.Nodes[n], vs, lv.root) {
				freed[n] += lv.bufs[b].Size
			}
		}
	}
	for _, n := range members {
		for _, o := range g.Nodes[n].Outputs {
			if b := lv.bufOf[lv.root[o]]; b >= 0 && lv.bufs[b].Start == int64(peakGroup) {
				freed[n] -= lv.bufs[b].Size
			}
		}
	}
	slices.SortStableFunc(members, func(a, b ir.NodeID) int { return cmp.Compare(freed[b], freed[a]) })
	var bestGrp []int
	var bestScore groupScore
	m := len(members)
	seen := map[int]bool{}
	for c := 1; c <= splitCuts; c++ {
		k := max(1, min(m-1, c*m/(splitCuts+1)))
		if seen[k] {
			continue
		}
		seen[k] = true
		cand := slices.Clone(grp)
		for n := range cand {
			if cand[n] > peakGroup {
				cand[n]++
			}
		}
		for _, n := range members[k:] {
			cand[n] = peakGroup + 1
		}
		dg.placeViews(order, cand)
		s, err := scoreGrouping(g, order, cand, opts)
		if err != nil {
			return nil, groupScore{}, false, err
		}
		if bestGrp == nil || s.less(bestScore) {
			bestGrp, bestScore = cand, s
		}
	}
	return bestGrp, bestScore, true, nil
}

// touchesAny reports whether node n reads, writes or keeps a value whose
// root is among roots.
func touchesAny(g *ir.Graph, n *ir.Node, roots []ir.ValueID, root []ir.ValueID) bool {
	for _, list := range [3][]ir.ValueID{n.Inputs, n.Outputs, n.KeepAlive} {
		for _, v := range list {
			if slices.Contains(roots, root[v]) {
				return true
			}
		}
	}
	return false
}

// FrontierPlans returns plans from the concurrency optimum toward the
// memory optimum, all placed with opts' strategy: the concurrency plan
// first, then up to maxFrontierPlans groupings of the split sequence whose
// lower bound falls, and the memory plan last. order nil means
// g.Schedule(). Barriers are for the caller to measure (memranges.Frontier).
func FrontierPlans(ctx context.Context, g *ir.Graph, order []ir.NodeID, opts Options) ([]*Plan, error) {
	order, err := checkedOrder(g, order)
	if err != nil {
		return nil, err
	}
	sorted, groups, err := ConcurrencyGrouping(g, order, opts)
	if err != nil {
		return nil, err
	}
	seq, err := splitSequence(g, sorted, groups, opts, 0)
	if err != nil {
		return nil, err
	}
	mid := seq[1:]
	if len(mid) > maxFrontierPlans {
		pick := make([]grouping, 0, maxFrontierPlans)
		for i := range maxFrontierPlans {
			pick = append(pick, mid[i*(len(mid)-1)/(maxFrontierPlans-1)])
		}
		mid = pick
	}
	var out []*Plan
	for i, s := range append(seq[:1:1], mid...) {
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
