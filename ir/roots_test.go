package ir_test

import (
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/require"
)

// TestRootsMatchesRoot: Roots agrees with Root on every value of a graph
// with a 1000-deep view chain; a cycle and a dangling base fail.
func TestRootsMatchesRoot(t *testing.T) {
	b := ir.NewBuilder("chain")
	x := b.Input("x", ir.F32, 4, 8)
	h := b.Op("Relu", nil, x)
	v := h
	for i := 0; i < 1000; i++ {
		v = b.View("", v, 0, ir.F32, ir.Shape{4, 8}, nil)
	}
	w := b.View("w", v, 32, ir.F32, ir.Shape{2, 8}, nil)
	w2 := b.View("w2", w, 4, ir.F32, ir.Shape{2, 4}, []int64{32, 4})
	b.Output(b.Op("Neg", nil, w2))
	g, err := b.Build()
	require.NoErrorf(t, err, "%v", err)
	roots, offs, err := g.Roots()
	require.NoErrorf(t, err, "%v", err)
	for _, val := range g.Values {
		r, off, err := g.Root(val.ID)
		if err != nil || roots[val.ID] != r || offs[val.ID] != off {
			t.Fatalf("value %d: Roots (%d, %d), Root (%d, %d, %v)", val.ID, roots[val.ID], offs[val.ID], r, off, err)
		}
	}
	if roots[w2] != h || offs[w2] != 36 {
		t.Fatalf("w2: root %d off %d, want %d 36", roots[w2], offs[w2], h)
	}
	g.Values[h].View = &ir.View{Base: w2}
	_, _, err = g.Roots()
	require.ErrorIsf(t, err, ir.ErrCycle, "cycle: %v", err)
	g.Values[h].View = &ir.View{Base: 99999}
	_, _, err = g.Roots()
	require.ErrorIsf(t, err, ir.ErrUndefined, "dangling: %v", err)
}

// TestRootsWorkedExample is the example of viewChains (roots.go): w views
// v at +4, v views r at +8, so w sits at 12 in r; with r made a view of
// w, all three fail as one cycle, named at r (the first value).
func TestRootsWorkedExample(t *testing.T) {
	g := &ir.Graph{Values: []*ir.Value{
		{ID: 0, Name: "r", DType: ir.F32, Shape: ir.Shape{8}},
		{ID: 1, Name: "x", DType: ir.F32, Shape: ir.Shape{8}},
		{ID: 2, Name: "v", DType: ir.F32, Shape: ir.Shape{4}, View: &ir.View{Base: 0, OffsetBytes: 8}},
		{ID: 3, Name: "w", DType: ir.F32, Shape: ir.Shape{2}, View: &ir.View{Base: 2, OffsetBytes: 4}},
	}}
	roots, offs, err := g.Roots()
	require.NoError(t, err)
	require.Equal(t, []ir.ValueID{0, 1, 0, 0}, roots)
	require.Equal(t, []int64{0, 0, 8, 12}, offs)
	g.Values[0].View = &ir.View{Base: 3}
	_, _, err = g.Roots()
	var ve *ir.ValueError
	require.ErrorAs(t, err, &ve)
	require.ErrorIs(t, err, ir.ErrCycle)
	require.Equal(t, "r", ve.Name)
}
