package ir_test

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/require"
)

// fullDeps is Deps' specification before the reduction: every producer
// along every view chain of every input and keep-alive value.
func fullDeps(g *ir.Graph) [][]ir.NodeID {
	out := make([][]ir.NodeID, len(g.Nodes))
	for i, n := range g.Nodes {
		seen := map[ir.NodeID]bool{}
		for _, v := range append(slices.Clone(n.Inputs), n.KeepAlive...) {
			for id := v; ; {
				val := g.Values[id]
				if val.Producer != ir.NoNode {
					seen[val.Producer] = true
				}
				if val.View == nil {
					break
				}
				id = val.View.Base
			}
		}
		delete(seen, ir.NodeID(i))
		for p := range seen {
			out[i] = append(out[i], p)
		}
	}
	return out
}

// closure returns reach[a][b]: b must run before a, directly or not.
func closure(deps [][]ir.NodeID) [][]bool {
	n := len(deps)
	reach := make([][]bool, n)
	var visit func(a int)
	done := make([]bool, n)
	visit = func(a int) {
		if done[a] {
			return
		}
		done[a] = true
		reach[a] = make([]bool, n)
		for _, d := range deps[a] {
			visit(int(d))
			reach[a][d] = true
			for b, ok := range reach[d] {
				reach[a][b] = reach[a][b] || ok
			}
		}
	}
	for a := range n {
		visit(a)
	}
	return reach
}

// viewDAG draws a graph whose values are often views: Reshape nodes that
// view their input, and now and then a node whose output views a value it
// does not read (so the chain must be followed past it).
func viewDAG(t *rapid.T) *ir.Graph {
	n := rapid.IntRange(1, 30).Draw(t, "nodes")
	g := &ir.Graph{}
	g.Values = append(g.Values, &ir.Value{ID: 0, Name: "x", DType: ir.F32, Shape: ir.Shape{4}, Flags: ir.FlagInput, Producer: ir.NoNode})
	for id := range n {
		a := ir.ValueID(rapid.IntRange(0, len(g.Values)-1).Draw(t, "a"))
		out := &ir.Value{ID: ir.ValueID(len(g.Values)), DType: ir.F32, Shape: ir.Shape{4}, Producer: ir.NodeID(id)}
		node := &ir.Node{ID: ir.NodeID(id), Name: fmt.Sprint("n", id), Op: "Relu", Inputs: []ir.ValueID{a}, Outputs: []ir.ValueID{out.ID}}
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0, 1: // a view of what it reads
			node.Op = "Reshape"
			node.Attrs = ir.Attrs{"shape": ir.Ints(4)}
			out.View = &ir.View{Base: a}
		case 2: // a view of another value, which it does not read
			out.View = &ir.View{Base: ir.ValueID(rapid.IntRange(0, len(g.Values)-1).Draw(t, "base"))}
		}
		if rapid.Bool().Draw(t, "keep") {
			node.KeepAlive = []ir.ValueID{ir.ValueID(rapid.IntRange(0, len(g.Values)-1).Draw(t, "k"))}
		}
		g.Values = append(g.Values, out)
		g.Nodes = append(g.Nodes, node)
	}
	return g
}

// TestDepsKeepsTheOrder: Deps' reduced lists allow exactly the orders the
// full walk of every view chain allows (the same transitive closure).
func TestDepsKeepsTheOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := viewDAG(t)
		deps, err := g.Deps()
		require.NoError(t, err)
		got, want := closure(deps), closure(fullDeps(g))
		require.Equal(t, want, got)
		// The comparison is not vacuous: without its first non-empty
		// list, some node loses an order the full walk has.
		for a := range deps {
			if len(deps[a]) > 0 {
				cut := slices.Clone(deps)
				cut[a] = nil
				require.NotEqual(t, want, closure(cut), "node %d's dependencies dropped", a)
				break
			}
		}
	})
}

// TestDepsLongViewChain: a chain of 4,000 Reshape nodes each viewing the
// previous one gives every node one dependency (a full walk lists k for the
// k-th) and schedules in chain order.
func TestDepsLongViewChain(t *testing.T) {
	const n = 4000
	g := &ir.Graph{}
	g.Values = append(g.Values, &ir.Value{ID: 0, Name: "x", DType: ir.F32, Shape: ir.Shape{4}, Flags: ir.FlagInput, Producer: ir.NoNode})
	for id := range n {
		out := &ir.Value{ID: ir.ValueID(id + 1), DType: ir.F32, Shape: ir.Shape{4}, Producer: ir.NodeID(id)}
		node := &ir.Node{ID: ir.NodeID(id), Name: fmt.Sprint("r", id), Op: "Reshape", Attrs: ir.Attrs{"shape": ir.Ints(4)},
			Inputs: []ir.ValueID{ir.ValueID(id)}, Outputs: []ir.ValueID{out.ID}}
		if id > 0 {
			out.View = &ir.View{Base: ir.ValueID(id)}
		}
		g.Values = append(g.Values, out)
		g.Nodes = append(g.Nodes, node)
	}
	deps, err := g.Deps()
	require.NoError(t, err)
	for i := 1; i < n; i++ {
		require.Equalf(t, []ir.NodeID{ir.NodeID(i - 1)}, deps[i], "node %d", i)
	}
	order, err := g.TopoOrder()
	require.NoError(t, err)
	for i, id := range order {
		require.Equal(t, ir.NodeID(i), id)
	}
}
