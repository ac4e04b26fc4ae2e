package ir

import (
	"container/heap"
	"errors"
	"fmt"
	"slices"
)

// Schedule returns the order in which nodes run: g.Order when set (checked
// against the dependencies), else the deterministic topological order of
// [Graph.TopoOrder].
func (g *Graph) Schedule() ([]NodeID, error) {
	if g == nil {
		return nil, fmt.Errorf("ir: schedule: nil graph: %w", ErrUndefined)
	}
	if g.Order != nil {
		if err := g.CheckSchedule(g.Order); err != nil {
			return nil, err
		}
		return append([]NodeID{}, g.Order...), nil
	}
	return g.TopoOrder()
}

// Deps returns, for each node, the nodes it must run after, ascending and
// without repeats: the producers of its inputs and KeepAlive values, followed
// through view chains (a view depends on its own producer and on its base's).
// The walk along a chain stops at a producer that itself reads the view's
// base: that producer depends on the rest of the chain, so listing it again
// would change no order (a transitive reduction) and would make a chain of
// k view nodes cost k^2.
func (g *Graph) Deps() ([][]NodeID, error) {
	deps := make([][]NodeID, len(g.Nodes))
	var errs []error
	for i, n := range g.Nodes {
		// Index by position, not n.ID: Validate reports a wrong ID, and
		// this must not panic on one.
		if n == nil {
			continue
		}
		seen := map[NodeID]bool{}
		for _, lists := range [2][]ValueID{n.Inputs, n.KeepAlive} {
			for _, v := range lists {
				if err := g.producersOf(v, seen); err != nil {
					errs = append(errs, &NodeError{Node: NodeID(i), Name: n.Name, Op: n.Op, Err: err})
				}
			}
		}
		delete(seen, NodeID(i))
		for p := range seen {
			deps[i] = append(deps[i], p)
		}
		slices.Sort(deps[i])
	}
	return deps, errors.Join(errs...)
}

// producersOf adds to seen the producers along id's view chain. A producer
// outside g.Nodes is skipped (Validate reports it).
func (g *Graph) producersOf(id ValueID, seen map[NodeID]bool) error {
	for steps := 0; ; steps++ {
		v := g.Value(id)
		if v == nil {
			return fmt.Errorf("value %d: %w", id, ErrUndefined)
		}
		p := g.Node(v.Producer)
		if p != nil {
			seen[v.Producer] = true
		}
		if v.View == nil || (p != nil && p.reads(v.View.Base)) {
			return nil
		}
		if steps > len(g.Values) {
			return fmt.Errorf("value %d %q: view chain: %w", id, v.Name, ErrCycle)
		}
		id = v.View.Base
	}
}

// reads reports whether n lists id among its inputs or keep-alive values.
func (n *Node) reads(id ValueID) bool {
	return slices.Contains(n.Inputs, id) || slices.Contains(n.KeepAlive, id)
}

// TopoOrder returns a topological order of the nodes, breaking ties by the
// smallest NodeID (Kahn's algorithm with a min-heap), so the same graph
// always gets the same schedule. A cycle is an error naming a node on it.
func (g *Graph) TopoOrder() ([]NodeID, error) {
	if g == nil {
		return nil, fmt.Errorf("ir: schedule: nil graph: %w", ErrUndefined)
	}
	for i, n := range g.Nodes {
		if n == nil {
			return nil, &NodeError{Node: NodeID(i), Err: fmt.Errorf("schedule: nil node: %w", ErrUndefined)}
		}
	}
	deps, err := g.Deps()
	if err != nil {
		return nil, fmt.Errorf("ir: schedule: %w", err)
	}
	indeg := make([]int, len(g.Nodes))
	users := make([][]NodeID, len(g.Nodes))
	for n, ds := range deps {
		indeg[n] = len(ds)
		for _, d := range ds {
			users[d] = append(users[d], NodeID(n))
		}
	}
	// ready holds the nodes whose dependencies have all run, smallest ID
	// on top. It stays a hand-written container/heap: gods' binary heap,
	// measured in its place, took 13-60% more allocations (its array list
	// shrinks as it pops and grows again; inplace.json 28 -> 41) and
	// 22-58% more time on 5 of the 6 testdata graphs (BenchmarkTopoOrder,
	// median of 5, interleaved, load 8-11; docs/BENCHMARKS.md), past the
	// 5% that CONTRIBUTING.md allows.
	//
	//	scripts/benchab.sh 6484e31 351dcaf ./ir TopoOrder 5 1s
	ready := &idHeap{}
	for n, d := range indeg {
		if d == 0 && g.Nodes[n] != nil {
			*ready = append(*ready, NodeID(n))
		}
	}
	heap.Init(ready)
	order := make([]NodeID, 0, len(g.Nodes))
	for ready.Len() > 0 {
		n := heap.Pop(ready).(NodeID)
		order = append(order, n)
		for _, u := range users[n] {
			if indeg[u]--; indeg[u] == 0 {
				heap.Push(ready, u)
			}
		}
	}
	if len(order) != len(g.Nodes) {
		for n, d := range indeg {
			if nd := g.Nodes[n]; d > 0 && nd != nil {
				return nil, &NodeError{Node: NodeID(n), Name: nd.Name, Op: nd.Op, Err: fmt.Errorf("schedule: on or after a cycle: %w", ErrCycle)}
			}
		}
	}
	return order, nil
}

// CheckSchedule reports every way order fails to be a schedule of g: a node
// missing or repeated, an ID out of range, or a node placed before a node it
// depends on.
func (g *Graph) CheckSchedule(order []NodeID) error {
	if g == nil {
		return fmt.Errorf("ir: schedule: nil graph: %w", ErrUndefined)
	}
	deps, err := g.Deps()
	if err != nil {
		return fmt.Errorf("ir: schedule: %w", err)
	}
	step := make([]int, len(g.Nodes))
	for i := range step {
		step[i] = -1
	}
	var errs []error
	for i, n := range order {
		switch {
		case n < 0 || int(n) >= len(g.Nodes):
			errs = append(errs, &NodeError{Node: n, Err: fmt.Errorf("schedule step %d: node id out of range [0, %d): %w", i, len(g.Nodes), ErrSchedule)})
		case step[n] >= 0:
			nd := g.Nodes[n]
			e := &NodeError{Node: n, Err: fmt.Errorf("schedule step %d: already at step %d: %w", i, step[n], ErrSchedule)}
			if nd != nil {
				e.Name, e.Op = nd.Name, nd.Op
			}
			errs = append(errs, e)
		default:
			step[n] = i
		}
	}
	for n, s := range step {
		nd := g.Nodes[n]
		if nd == nil {
			continue
		}
		if s < 0 {
			errs = append(errs, &NodeError{Node: NodeID(n), Name: nd.Name, Op: nd.Op, Err: fmt.Errorf("not scheduled: %w", ErrSchedule)})
			continue
		}
		for _, d := range deps[n] {
			if step[d] > s {
				errs = append(errs, &NodeError{Node: NodeID(n), Name: nd.Name, Op: nd.Op,
					Err: fmt.Errorf("runs at step %d before its dependency node %d (step %d): %w", s, d, step[d], ErrSchedule)})
			}
		}
	}
	return errors.Join(errs...)
}

// idHeap is a min-heap of node IDs for container/heap.
type idHeap []NodeID

func (h idHeap) Len() int           { return len(h) }
func (h idHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h idHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *idHeap) Push(x any)        { *h = append(*h, x.(NodeID)) }
func (h *idHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
