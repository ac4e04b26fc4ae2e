package ir_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/memplan/memplan/internal/irtest"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func producers(g *ir.Graph, id map[string]ir.ValueID, names ...string) []ir.NodeID {
	var out []ir.NodeID
	for _, n := range names {
		out = append(out, g.Values[id[n]].Producer)
	}
	return out
}

func TestTopoOrderTiesBySmallestID(t *testing.T) {
	// Node IDs follow the lines: a=0 b=1 c=2 d=3 e=4. d depends on nothing
	// but comes after c in ID order; e needs a and d.
	g, id := irtest.MustBuild(t, `
x = input f32[4]
a = Relu x
b = Neg a
c = Exp b
d = Sigmoid x
e = Add a d
`)
	order, err := g.TopoOrder()
	require.NoErrorf(t, err, "%v", err)
	if want := producers(g, id, "a", "b", "c", "d", "e"); !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	s, err := g.Schedule()
	assert.Falsef(t, err != nil || !slices.Equal(s, order), "Schedule = %v, %v; want the topological order", s, err)
}

func TestTopoOrderFollowsViewsAndKeepAlive(t *testing.T) {
	// n0 writes h; v is a view of h that no node produces; n1 (declared
	// first, so smaller ID) reads v: it must still run after n0. n2 keeps
	// the value of n3 alive, so n3 runs first despite its larger ID.
	g := &ir.Graph{
		Values: []*ir.Value{
			{ID: 0, Name: "x", DType: ir.F32, Shape: ir.Shape{4}, Flags: ir.FlagInput, Producer: ir.NoNode},
			{ID: 1, Name: "r", DType: ir.F32, Shape: ir.Shape{2}, Producer: 0},
			{ID: 2, Name: "h", DType: ir.F32, Shape: ir.Shape{4}, Producer: 1},
			{ID: 3, Name: "v", DType: ir.F32, Shape: ir.Shape{2}, View: &ir.View{Base: 2, OffsetBytes: 8}, Producer: ir.NoNode},
			{ID: 4, Name: "k", DType: ir.F32, Shape: ir.Shape{4}, Producer: 2},
			{ID: 5, Name: "late", DType: ir.F32, Shape: ir.Shape{4}, Producer: 3},
		},
		Nodes: []*ir.Node{
			{ID: 0, Name: "r", Op: "Relu", Inputs: []ir.ValueID{3}, Outputs: []ir.ValueID{1}},
			{ID: 1, Name: "h", Op: "Neg", Inputs: []ir.ValueID{0}, Outputs: []ir.ValueID{2}},
			{ID: 2, Name: "k", Op: "Exp", Inputs: []ir.ValueID{0}, Outputs: []ir.ValueID{4}, KeepAlive: []ir.ValueID{5}},
			{ID: 3, Name: "late", Op: "Abs", Inputs: []ir.ValueID{0}, Outputs: []ir.ValueID{5}},
		},
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	order, err := g.TopoOrder()
	require.NoErrorf(t, err, "%v", err)
	if want := []ir.NodeID{1, 0, 3, 2}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	deps, err := g.Deps()
	assert.Falsef(t, err != nil || !slices.Equal(deps[0], []ir.NodeID{1}) || !slices.Equal(deps[2], []ir.NodeID{3}), "Deps = %v, %v", deps, err)
}

func TestExplicitSchedule(t *testing.T) {
	g, id := irtest.MustBuild(t, `
x = input f32[4]
a = Relu x
b = Neg x
c = Add a b
order b a c
`)
	s, err := g.Schedule()
	require.NoErrorf(t, err, "%v", err)
	if want := producers(g, id, "b", "a", "c"); !slices.Equal(s, want) {
		t.Errorf("Schedule = %v, want the explicit %v", s, want)
	}
	s[0] = 99 // the result is a copy
	assert.NotEqualf(t, ir.NodeID(99), g.Order[0], "Schedule returned g.Order itself")

	bad := producers(g, id, "c", "a", "b")
	g.Order = bad
	_, err = g.Schedule()
	var ne *ir.NodeError
	assert.Falsef(t, !errors.Is(err, ir.ErrSchedule) || !errors.As(err, &ne) || ne.Name != "c", "Schedule with c first: %v, want a schedule error naming c", err)
	err = g.Validate()
	assert.ErrorIsf(t, err, ir.ErrSchedule, "Validate with a bad order: %v", err)
}

func TestTopoOrderCycle(t *testing.T) {
	g, id := irtest.MustBuild(t, "x = input f32[2]\na = Relu x\nb = Neg a\nc = Exp b")
	g.Nodes[g.Values[id["a"]].Producer].Inputs[0] = id["b"]
	if _, err := g.TopoOrder(); !errors.Is(err, ir.ErrCycle) {
		t.Errorf("TopoOrder of a cycle: %v", err)
	}
	err := g.Validate()
	var ne *ir.NodeError
	assert.Falsef(t, !errors.As(err, &ne) || !errors.Is(err, ir.ErrCycle) || ne.Name != "a", "Validate: %v, want a cycle named at its smallest node a", err)
}

// randomDAG draws a graph of unary and binary elementwise nodes, each
// reading earlier values only, with node IDs shuffled against the data flow
// so that ID order is not already a topological order.
func randomDAG(t *rapid.T) *ir.Graph {
	n := rapid.IntRange(1, 25).Draw(t, "nodes")
	perm := rapid.Permutation(func() []int {
		p := make([]int, n)
		for i := range p {
			p[i] = i
		}
		return p
	}()).Draw(t, "perm")
	g := &ir.Graph{Nodes: make([]*ir.Node, n)}
	g.Values = append(g.Values, &ir.Value{ID: 0, Name: "x", DType: ir.F32, Shape: ir.Shape{2}, Flags: ir.FlagInput, Producer: ir.NoNode})
	for step := range n {
		id := ir.NodeID(perm[step])
		a := ir.ValueID(rapid.IntRange(0, len(g.Values)-1).Draw(t, "a"))
		node := &ir.Node{ID: id, Name: fmt.Sprint("n", id), Op: "Relu", Inputs: []ir.ValueID{a}}
		if rapid.Bool().Draw(t, "binary") {
			node.Op = "Add"
			node.Inputs = append(node.Inputs, ir.ValueID(rapid.IntRange(0, len(g.Values)-1).Draw(t, "b")))
		}
		out := ir.ValueID(len(g.Values))
		g.Values = append(g.Values, &ir.Value{ID: out, DType: ir.F32, Shape: ir.Shape{2}, Producer: id})
		node.Outputs = []ir.ValueID{out}
		g.Nodes[id] = node
	}
	return g
}

// oracleOrder is the specification, brute force: repeatedly run the
// smallest-ID node whose inputs' producers have all run.
func oracleOrder(g *ir.Graph) []ir.NodeID {
	done := make([]bool, len(g.Nodes))
	var order []ir.NodeID
	for len(order) < len(g.Nodes) {
		for _, n := range g.Nodes {
			if done[n.ID] {
				continue
			}
			ready := true
			for _, v := range n.Inputs {
				if p := g.Values[v].Producer; p != ir.NoNode && !done[p] {
					ready = false
				}
			}
			if ready {
				done[n.ID] = true
				order = append(order, n.ID)
				break
			}
		}
	}
	return order
}

func TestTopoOrderMatchesOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := randomDAG(t)
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		order, err := g.TopoOrder()
		require.NoErrorf(t, err, "%v", err)
		if want := oracleOrder(g); !slices.Equal(order, want) {
			t.Fatalf("TopoOrder %v, oracle %v", order, want)
		}
		if err := g.CheckSchedule(order); err != nil {
			t.Fatalf("CheckSchedule rejects the topological order: %v", err)
		}
		// Corrupt it: move a node before one of its dependencies.
		deps, _ := g.Deps()
		for i, n := range order {
			if len(deps[n]) == 0 {
				continue
			}
			bad := slices.Clone(order)
			j := slices.Index(bad, deps[n][0])
			bad[i], bad[j] = bad[j], bad[i]
			if err := g.CheckSchedule(bad); !errors.Is(err, ir.ErrSchedule) {
				t.Fatalf("CheckSchedule accepts %v (node %d before its dependency %d)", bad, n, deps[n][0])
			}
			break
		}
	})
}
