package planner

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/memplan/memplan/internal/irtest"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// moveRoot rewrites the plan as if root v had been placed in buffer b: its
// slot, its views' slots and the member lists all agree, and the buffers'
// lifespans are left alone, so only the graph's own lifespans can tell
// that the move is wrong.
func moveRoot(p *Plan, g *ir.Graph, v ir.ValueID, b int) {
	old := p.Slots[v].Buffer
	p.Values[old] = slices.DeleteFunc(p.Values[old], func(m ir.ValueID) bool { return m == v })
	p.Values[b] = append(p.Values[b], v)
	for id := range p.Slots {
		if s := &p.Slots[id]; s.Root == v && !s.External {
			s.Offset += p.Offsets[b] - p.Offsets[old]
			s.Buffer = b
		}
	}
	if p.Buffers[b].Size < p.Buffers[old].Size {
		p.Buffers[b].Size = p.Buffers[old].Size
	}
}

// TestVerifyRederivesLifespans: a root moved, consistently, into another
// buffer whose value is live at the same time is caught from the graph,
// though the buffers alone (VerifyPlacement) still look valid; in a
// grouped plan, values whose group ranges meet are caught the same way.
func TestVerifyRederivesLifespans(t *testing.T) {
	g, names := irtest.MustBuild(t, diamond)
	for _, grouped := range []bool{false, true} {
		var p *Plan
		var err error
		if grouped {
			p, err = PlanGraph(context.Background(), g, nil, Options{Objective: "concurrency"})
		} else {
			p, err = PlanGraph(context.Background(), g, nil, Options{DisableInPlace: true})
		}
		require.NoErrorf(t, err, "%v", err)
		err = p.Verify(g)
		require.NoErrorf(t, err, "grouped %v: fresh plan: %v", grouped, err)
		// a and b are live together (b is read by d, after a's reader c).
		a, b := names["a"], names["b"]
		moveRoot(p, g, b, p.Slots[a].Buffer)
		err = VerifyPlacement(p.Buffers, p.Offsets)
		require.NoErrorf(t, err, "grouped %v: the move should keep the buffers valid: %v", grouped, err)
		err = p.Verify(g)
		assert.ErrorIsf(t, err, ErrOverlap, "grouped %v: value moved into a live buffer: Verify = %v, want ErrOverlap", grouped, err)
	}
}

// TestVerifyInPlaceOnlyWhereAllowed: the in-place chain the planner makes
// verifies; the same sharing where the graph forbids it (the input is read
// again later) is an overlap.
func TestVerifyInPlaceOnlyWhereAllowed(t *testing.T) {
	g, names := irtest.MustBuild(t, `
x = input f32[4,8]
h = Exp x
a = Relu h
b = Relu a
y = Add b h
output y
`)
	p, err := PlanGraph(context.Background(), g, nil, Options{})
	require.NoErrorf(t, err, "%v", err)
	err = p.Verify(g)
	require.NoErrorf(t, err, "%v", err)
	if p.Slots[names["a"]].Buffer != p.Slots[names["b"]].Buffer {
		t.Fatalf("b should be computed in place over a: %+v", p.Values)
	}
	// h is read by y after a is made: a over h is forbidden.
	moveRoot(p, g, names["a"], p.Slots[names["h"]].Buffer)
	moveRoot(p, g, names["b"], p.Slots[names["h"]].Buffer)
	err = p.Verify(g)
	assert.ErrorIsf(t, err, ErrOverlap, "forbidden in-place: Verify = %v, want ErrOverlap", err)
}

// TestVerifyExtremeValues: slots, offsets and sizes at the ends of int64
// are errors, never a panic or a wrapped comparison that passes.
func TestVerifyExtremeValues(t *testing.T) {
	g, names := irtest.MustBuild(t, diamond)
	for _, ext := range []int64{math.MinInt64, -1, math.MaxInt64} {
		p, err := PlanGraph(context.Background(), g, nil, Options{})
		require.NoErrorf(t, err, "%v", err)
		a := names["a"]
		p.Slots[a].Offset, p.Slots[a].Low, p.Slots[a].Bytes = ext, -ext, ext
		p.Offsets[p.Slots[names["b"]].Buffer] = ext
		p.Buffers[0].Size = ext
		p.ArenaBytes = ext
		err = p.Verify(g)
		assert.Errorf(t, err, "extreme %d: Verify passed", ext)
	}
}
