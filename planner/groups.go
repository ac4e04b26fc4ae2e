package planner

import (
	"fmt"
	"slices"

	"github.com/memplan/memplan/ir"
)

// Grouped schedules
//
// A concurrent encoder runs the dispatches between two barriers (a group)
// in any interleaving. A grouped plan measures lifespans in groups instead
// of serial steps: a value produced in group s and last touched in group r
// lives [s, r+1), so two values share bytes only when one's last group
// comes before the other's first. Every hazard that sharing creates then
// runs from an earlier group to a later one, which the barriers between
// groups already order: sharing adds no barrier. One dispatch per group is
// the serial plan of today.
//
// A grouping is valid when no dispatch depends on a dispatch of its own
// group, directly or through pure view nodes (which launch nothing and may
// sit in the group of what they view). The fewest groups any valid
// grouping has is the data chain: the longest chain of data dependencies
// between dispatches, views followed to their producers. Minimum-depth
// groupings range from ASAP (every dispatch one group after its latest
// producer) to ALAP (one group before its earliest consumer); a dispatch
// may sit anywhere within that slack.
//
//	x = input           ASAP      ALAP
//	a = Exp x           0         0
//	b = Exp x           0         1      b has slack: [0, 1]
//	c = Exp a           1         1
//	d = Add c b         2         2      data chain 3
//
// The keep-alive entries of a node count as dependencies here, as the
// schedule honours them.

// depGraph is the dependency structure groupings need: per node its direct
// dependencies (ir.Graph.Deps) and whether it is a pure view node.
type depGraph struct {
	deps   [][]ir.NodeID
	succs  [][]ir.NodeID
	isView []bool
}

func newDepGraph(g *ir.Graph) (*depGraph, error) {
	deps, err := g.Deps()
	if err != nil {
		return nil, fmt.Errorf("planner: graph %q: dependencies: %w", g.Name, errorsJoinWrap(err, ErrGraph))
	}
	dg := &depGraph{deps: deps, succs: make([][]ir.NodeID, len(g.Nodes)), isView: make([]bool, len(g.Nodes))}
	for i, n := range g.Nodes {
		dg.isView[i] = g.IsViewNode(n)
		for _, d := range deps[i] {
			dg.succs[d] = append(dg.succs[d], ir.NodeID(i))
		}
	}
	return dg, nil
}

// asap returns the ASAP group of every node (indexed by node ID) for the
// topological order and the number of groups (the data chain). A pure view
// node sits in the latest group among its dependencies (0 without any).
func (dg *depGraph) asap(order []ir.NodeID) (grp []int, depth int) {
	grp = make([]int, len(dg.deps))
	reach := make([]int, len(dg.deps)) // latest dispatch group reached through views, -1 none
	for _, n := range order {
		r := -1
		for _, d := range dg.deps[n] {
			r = max(r, reach[d])
		}
		if dg.isView[n] {
			grp[n], reach[n] = max(r, 0), r
			continue
		}
		grp[n], reach[n] = r+1, r+1
		depth = max(depth, r+2)
	}
	return grp, depth
}

// alap returns the ALAP group of every dispatch for depth groups (view
// nodes get -1; placeViews assigns them).
func (dg *depGraph) alap(order []ir.NodeID, depth int) []int {
	grp := make([]int, len(dg.deps))
	reach := make([]int, len(dg.deps)) // earliest dispatch group reached through views
	for k := len(order) - 1; k >= 0; k-- {
		n := order[k]
		r := depth
		for _, s := range dg.succs[n] {
			r = min(r, reach[s])
		}
		if dg.isView[n] {
			grp[n], reach[n] = -1, r
			continue
		}
		grp[n], reach[n] = r-1, r-1
	}
	return grp
}

// placeViews puts every pure view node in the latest group of its
// dependencies (0 without any), given the dispatches' groups.
func (dg *depGraph) placeViews(order []ir.NodeID, grp []int) {
	for _, n := range order {
		if !dg.isView[n] {
			continue
		}
		g := 0
		for _, d := range dg.deps[n] {
			g = max(g, grp[d])
		}
		grp[n] = g
	}
}

// sortByGroup returns order stably sorted by group and the groups aligned
// with it.
func sortByGroup(order []ir.NodeID, grp []int) ([]ir.NodeID, []int) {
	out := slices.Clone(order)
	slices.SortStableFunc(out, func(a, b ir.NodeID) int { return grp[a] - grp[b] })
	groups := make([]int, len(out))
	for k, n := range out {
		groups[k] = grp[n]
	}
	return out, groups
}

// DataChain returns the number of dispatches on the longest chain of data
// dependencies of g (views followed to their producers, keep-alive entries
// included): the fewest groups, so the shortest critical path, any plan of
// g can have. Pure view nodes are not dispatches. An in-place pair (a
// node writing its output over an input's buffer) counts as the data
// dependency it is; the order in place adds between the input's other
// readers and the writer is a sharing hazard, which a grouping keeps
// forward (Plan.Groups). The graph must validate.
func DataChain(g *ir.Graph) (int, error) {
	order, err := checkedOrder(g, nil)
	if err != nil {
		return 0, err
	}
	dg, err := newDepGraph(g)
	if err != nil {
		return 0, err
	}
	_, depth := dg.asap(order)
	return depth, nil
}

// CheckGroups reports every way groups (index-aligned with order) fails to
// be a grouping of the schedule order: a length mismatch, a first group
// other than 0, a group number that decreases or skips one, and a
// dispatch that depends on a dispatch of its own group (directly or through
// pure view nodes). order itself must be a schedule of g.
func CheckGroups(g *ir.Graph, order []ir.NodeID, groups []int) error {
	if g == nil {
		return fmt.Errorf("planner: nil graph: %w", ErrGroups)
	}
	if len(groups) != len(order) {
		return fmt.Errorf("planner: %d groups for %d scheduled nodes: %w", len(groups), len(order), ErrGroups)
	}
	var errs []error
	for k, gr := range groups {
		prev := -1
		if k > 0 {
			prev = groups[k-1]
		}
		if gr != prev && gr != prev+1 {
			errs = append(errs, fmt.Errorf("planner: position %d (node %d) is in group %d after group %d: groups start at 0 and grow by at most 1: %w", k, order[k], gr, prev, ErrGroups))
		}
	}
	if len(errs) > 0 {
		return joinErrors(errs)
	}
	dg, err := newDepGraph(g)
	if err != nil {
		return err
	}
	grp := make([]int, len(g.Nodes))
	reach := make([]int, len(g.Nodes))
	for k, n := range order {
		if int(n) < 0 || int(n) >= len(g.Nodes) {
			return fmt.Errorf("planner: position %d: node %d out of range: %w", k, n, ErrGroups)
		}
		grp[n] = groups[k]
		r, by := -1, ir.NodeID(-1)
		for _, d := range dg.deps[n] {
			if reach[d] > r {
				r, by = reach[d], d
			}
		}
		if dg.isView[n] {
			reach[n] = r
			continue
		}
		reach[n] = grp[n]
		if r >= grp[n] {
			nd := g.Nodes[n]
			errs = append(errs, fmt.Errorf("planner: node %d %q in group %d depends on a dispatch in group %d (through node %d): %w", n, nd.Name, grp[n], r, by, ErrGroups))
		}
	}
	return joinErrors(errs)
}
