package planner

import (
	"cmp"
	"slices"

	"github.com/memplan/memplan/ir"
)

// Memory-bounded list scheduling of groups
//
// Groupings between the concurrency and the memory optimum cannot come from
// splitting the groups of a minimum-depth grouping alone: where the peak is
// caused by which dispatches run early (two branches computed side by side
// and both kept), every refinement of the same grouping keeps the peak.
// listGroups builds a grouping group by group instead, as a list scheduler
// does: the ready dispatches (every dispatch they depend on, through pure
// view nodes, sits in an earlier group) join the open group in priority
// order while the estimated live bytes stay within a limit; a group always
// takes at least one dispatch, so it ends. The estimate is the sum of the
// arena roots produced so far that a dispatch not yet grouped still reads
// (or that are outputs), plus the group's own outputs; it ignores in-place
// sharing, which only lowers the real figure (liveness computes that).
//
//	limit 300 B, ready a (100 B), b (100 B), c (200 B) in that priority:
//	group 0 = {a, b} (c would reach 400 B), group 1 = {c, ...}
//
// With no limit and any priority it gives the ASAP grouping. The
// concurrency objective searches the least limit that keeps the data
// chain's depth (priority: least slack first); the frontier sweeps the
// limit from the concurrency peak down to the serial one (priority: the
// serial schedule), each limit a grouping with more groups and fewer bytes.

// listInfo is what list scheduling needs of a graph: per dispatch the
// dispatches it depends on (through views), the arena roots it reads and
// the bytes it produces.
type listInfo struct {
	dpreds  [][]ir.NodeID
	dsuccs  [][]ir.NodeID
	reads   [][]ir.ValueID
	prods   [][]ir.ValueID
	size    []int64 // per value: aligned bytes of an arena root, else 0
	output  []bool  // per value: the root is (or has a view that is) an output
	readers []int   // per value: dispatches reading the root
}

func newListInfo(g *ir.Graph, dg *depGraph, order []ir.NodeID, opts Options) (*listInfo, error) {
	roots, _, err := g.Roots()
	if err != nil {
		return nil, errorsJoinWrap(err, ErrGraph)
	}
	li := &listInfo{dpreds: make([][]ir.NodeID, len(g.Nodes)), dsuccs: make([][]ir.NodeID, len(g.Nodes)),
		reads: make([][]ir.ValueID, len(g.Nodes)), prods: make([][]ir.ValueID, len(g.Nodes)),
		size: make([]int64, len(g.Values)), output: make([]bool, len(g.Values)), readers: make([]int, len(g.Values))}
	align := opts.align()
	for _, v := range g.Values {
		r := roots[v.ID]
		li.output[r] = li.output[r] || v.Flags.Has(ir.FlagOutput)
		if v.View == nil && !v.IsExternal() {
			b, err := v.Bytes()
			if err != nil {
				return nil, errorsJoinWrap(err, ErrGraph)
			}
			li.size[v.ID] = alignUp(b, align)
		}
	}
	// viewPreds[v]: the dispatches a pure view node v depends on through
	// views, computed once per view node in schedule order (so a long
	// chain of views costs linear time).
	viewPreds := make(map[ir.NodeID][]ir.NodeID)
	dispatchPreds := func(n ir.NodeID) []ir.NodeID {
		var out []ir.NodeID
		for _, d := range dg.deps[n] {
			if dg.isView[d] {
				out = append(out, viewPreds[d]...)
			} else {
				out = append(out, d)
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for _, n := range order {
		if dg.isView[n] {
			viewPreds[n] = dispatchPreds(n)
		}
	}
	for i, n := range g.Nodes {
		if dg.isView[i] {
			continue
		}
		li.dpreds[i] = dispatchPreds(ir.NodeID(i))
		for _, d := range li.dpreds[i] {
			li.dsuccs[d] = append(li.dsuccs[d], ir.NodeID(i))
		}
		for _, list := range [2][]ir.ValueID{n.Inputs, n.KeepAlive} {
			for _, v := range list {
				if r := roots[v]; li.size[r] > 0 && !slices.Contains(li.reads[i], r) {
					li.reads[i] = append(li.reads[i], r)
					li.readers[r]++
				}
			}
		}
		for _, o := range n.Outputs {
			if roots[o] == o && li.size[o] > 0 {
				li.prods[i] = append(li.prods[i], o)
			}
		}
	}
	for d := range li.dsuccs {
		slices.Sort(li.dsuccs[d])
	}
	return li, nil
}

// listGroups returns a grouping (per node ID; view nodes placed by
// placeViews), its number of groups and the largest live-byte estimate
// of a group. prio ranks dispatches (lower first, ties by node ID);
// limit < 0 means no limit.
func (li *listInfo) listGroups(dg *depGraph, order []ir.NodeID, prio []int, limit int64) (grp []int, groups int, peak int64) {
	grp = make([]int, len(dg.deps))
	indeg := make([]int, len(dg.deps))
	remaining := slices.Clone(li.readers)
	var ready []ir.NodeID
	total := 0
	for _, n := range order {
		if dg.isView[n] {
			continue
		}
		total++
		indeg[n] = len(li.dpreds[n])
		if indeg[n] == 0 {
			ready = append(ready, n)
		}
	}
	byPrio := func(a, b ir.NodeID) int {
		if c := cmp.Compare(prio[a], prio[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
	var live int64
	done, group := 0, 0
	for done < total {
		slices.SortFunc(ready, byPrio)
		cur := live
		var members, rest []ir.NodeID
		for _, n := range ready {
			var add int64
			for _, o := range li.prods[n] {
				add += li.size[o]
			}
			if len(members) == 0 || limit < 0 || cur+add <= limit {
				members = append(members, n)
				cur += add
				grp[n] = group
			} else {
				rest = append(rest, n)
			}
		}
		live, peak = cur, max(peak, cur)
		ready = rest
		for _, n := range members {
			done++
			for _, r := range li.reads[n] {
				if remaining[r]--; remaining[r] == 0 && !li.output[r] {
					live -= li.size[r]
				}
			}
			for _, o := range li.prods[n] {
				if li.readers[o] == 0 && !li.output[o] {
					live -= li.size[o]
				}
			}
			for _, s := range li.dsuccs[n] {
				if indeg[s]--; indeg[s] == 0 {
					ready = append(ready, s)
				}
			}
		}
		group++
	}
	dg.placeViews(order, grp)
	return grp, group, peak
}

// leastLimitGrouping returns the list-scheduled grouping of depth groups
// under the least limit found by bisection (to 1/256) that keeps that depth (prio:
// the ALAP group, least slack first, or the schedule), or nil when none
// keeps it.
func (li *listInfo) leastLimitGrouping(dg *depGraph, order []ir.NodeID, alap []int, depth int) []int {
	best, _, hi := li.listGroups(dg, order, alap, -1)
	if _, d, _ := li.listGroups(dg, order, alap, hi); d != depth {
		return nil
	}
	lo := int64(0)                    // limit lo loses the depth or is untried
	for lo+1 < hi && hi-lo > hi/256 { // to within 0.4% of the limit
		mid := lo + (hi-lo)/2
		grp, d, _ := li.listGroups(dg, order, alap, mid)
		if d == depth {
			best, hi = grp, mid
		} else {
			lo = mid
		}
	}
	return best
}
