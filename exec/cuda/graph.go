package cuda

// Building the CUDA graph of a run, as plain data first (planGraph) so the
// structure is tested without a GPU, then onto the driver (graphCache.build).
//
// A run records steps: dispatches (each one or more launches) and
// barriers. Barrier mode turns the groups between barriers into levels:
//
//	group 0: d0 d1        d0   d1          (roots)
//	barrier                 \ /
//	group 1: d2          join0             (empty node, when a group has
//	barrier                 |               more than one exit)
//	group 2: d3 d4          d2
//	                       /  \
//	                     d3    d4
//
// so every node of a group depends on the previous group's join (or its one
// node): n dispatches need O(n) edges, not a product per barrier. A serial
// program (a barrier before every dispatch) becomes a chain. Edge mode
// ignores the barriers: dispatch To depends on every launch node of each
// From with an edge From -> To (Program.Edges, the transitive reduction of
// the conflict DAG), and dispatches without an in-edge are roots. A
// dispatch with several launches (Concat, Split: one copy per piece) gives
// one node per launch, all with the dispatch's dependencies, since launch
// planning makes the pieces of one dispatch disjoint; a dispatch whose
// launches are all empty gives one empty node, so the order passes through.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/memplan/memplan/memranges"
)

// step is one recorded encoder call: a dispatch with its prepared kernel,
// or a barrier (k == nil).
type step struct {
	k *prepared
}

// gnode is one node of a planned graph: launch l of the dispatch with
// index disp, or an empty node (l < 0) that joins deps.
type gnode struct {
	disp int
	l    int
	deps []int // indices of earlier nodes
}

// planGraph lays out the graph of a run's steps: by barrier groups, or by
// edges when useEdges is set.
func planGraph(steps []step, edges []memranges.Edge, useEdges bool) ([]gnode, error) {
	var nodes []gnode
	add := func(disp, l int, deps []int) int {
		nodes = append(nodes, gnode{disp: disp, l: l, deps: slices.Clone(deps)})
		return len(nodes) - 1
	}
	// addDispatch adds a dispatch's launch nodes, all after deps, and
	// returns them (its exits).
	addDispatch := func(k *prepared, deps []int) []int {
		var exits []int
		for i, g := range k.geo {
			if g.blocks > 0 {
				exits = append(exits, add(k.index, i, deps))
			}
		}
		if len(exits) == 0 {
			exits = append(exits, add(k.index, -1, deps))
		}
		return exits
	}
	if useEdges {
		from := map[int][]int{}
		for _, e := range edges {
			from[e.To] = append(from[e.To], e.From)
		}
		exits := map[int][]int{}
		var errs []error
		for _, s := range steps {
			if s.k == nil {
				continue
			}
			var deps []int
			for _, f := range from[s.k.index] {
				ex, ok := exits[f]
				if !ok {
					errs = append(errs, fmt.Errorf("%w: edge %d -> %d: dispatch %d not encoded before %d", ErrEdges, f, s.k.index, f, s.k.index))
					continue
				}
				deps = append(deps, ex...)
			}
			exits[s.k.index] = addDispatch(s.k, deps)
		}
		if len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
		return nodes, nil
	}
	var prev, cur []int
	for _, s := range steps {
		if s.k != nil {
			cur = append(cur, addDispatch(s.k, prev)...)
			continue
		}
		switch len(cur) {
		case 0: // an empty group: nothing to join
		case 1:
			prev = cur
		default:
			prev = []int{add(-1, -1, cur)}
		}
		cur = nil
	}
	return nodes, nil
}

// graphCache is the instantiated graph of one program's runs, rebuilt only
// when a run records different steps or edges.
type graphCache struct {
	steps    []step
	edges    []memranges.Edge
	useEdges bool
	nodes    []gnode
	g, x     handle
}

// matches reports whether the cache was built for these steps and edges.
func (c *graphCache) matches(steps []step, edges []memranges.Edge, useEdges bool) bool {
	return c != nil && c.useEdges == useEdges && slices.Equal(c.steps, steps) && slices.Equal(c.edges, edges)
}

// buildGraph creates, fills and instantiates the graph of a run on mem.
func buildGraph(drv driver, m *memory, steps []step, edges []memranges.Edge, useEdges bool) (*graphCache, error) {
	nodes, err := planGraph(steps, edges, useEdges)
	if err != nil {
		return nil, err
	}
	c := &graphCache{steps: slices.Clone(steps), edges: slices.Clone(edges), useEdges: useEdges, nodes: nodes}
	if c.g, err = drv.graphCreate(); err != nil {
		return nil, err
	}
	kernels := map[int]*prepared{}
	for _, s := range steps {
		if s.k != nil {
			kernels[s.k.index] = s.k
		}
	}
	hs := make([]handle, len(nodes))
	for i, n := range nodes {
		deps := make([]handle, len(n.deps))
		for j, d := range n.deps {
			deps[j] = hs[d]
		}
		if n.l < 0 {
			hs[i], err = drv.graphAddEmpty(c.g, deps)
		} else {
			var l *kernelLaunch
			if l, err = m.kernelLaunch(kernels[n.disp], n.l); err == nil {
				hs[i], err = drv.graphAddKernel(c.g, deps, l)
			}
		}
		if err != nil {
			return nil, errors.Join(err, c.destroy(drv))
		}
	}
	if c.x, err = drv.graphInstantiate(c.g); err != nil {
		return nil, errors.Join(err, c.destroy(drv))
	}
	return c, nil
}

// destroy frees the executable graph and the graph.
func (c *graphCache) destroy(drv driver) error {
	var errs []error
	if c.x != 0 {
		errs = append(errs, drv.graphExecDestroy(c.x))
		c.x = 0
	}
	if c.g != 0 {
		errs = append(errs, drv.graphDestroy(c.g))
		c.g = 0
	}
	return errors.Join(errs...)
}

// kernelLaunch binds launch i of k to mem: each operand's device address
// is its buffer's base plus the binding's byte offset.
func (m *memory) kernelLaunch(k *prepared, i int) (*kernelLaunch, error) {
	if k == nil || i < 0 || i >= len(k.launches) {
		return nil, fmt.Errorf("%w: no launch %d", ErrBadHandle, i)
	}
	l := &k.launches[i]
	kl := &kernelLaunch{fn: k.fns[i], blocks: k.geo[i].blocks, threads: k.geo[i].threads, params: l.Params, ptrs: make([]devPtr, len(l.Buffers))}
	for j, bd := range l.Buffers {
		if bd.Buffer < 0 || bd.Buffer >= len(m.base) {
			return nil, fmt.Errorf("%w: dispatch %d binds buffer %d of %d", ErrRange, k.index, bd.Buffer, len(m.base))
		}
		kl.ptrs[j] = m.base[bd.Buffer] + devPtr(bd.OffsetBytes)
	}
	return kl, nil
}
