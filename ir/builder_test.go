package ir_test

import (
	"errors"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuilderErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *ir.Builder)
		class error
	}{
		{"unknown op", func(b *ir.Builder) { b.Op("Frob", nil, b.Input("x", ir.F32, 2)) }, ir.ErrUnknownOp},
		{"arity", func(b *ir.Builder) { b.Op("Relu", nil) }, ir.ErrArity},
		{"shape rule", func(b *ir.Builder) { b.Op("MatMul", nil, b.Input("x", ir.F32, 2, 3), b.Input("y", ir.F32, 4, 5)) }, ir.ErrShape},
		{"undefined input", func(b *ir.Builder) { b.Op("Relu", nil, 7) }, ir.ErrUndefined},
		{"failed op's output used", func(b *ir.Builder) { b.Op("Relu", nil, b.Op("Frob", nil)) }, ir.ErrUndefined},
		{"opaque of undefined", func(b *ir.Builder) { b.Opaque("K", []ir.TensorType{{DType: ir.F32, Shape: ir.Shape{1}}}, -2) }, ir.ErrUndefined},
		{"view of undefined", func(b *ir.Builder) { b.View("v", 3, 0, ir.F32, ir.Shape{1}, nil) }, ir.ErrUndefined},
		{"view out of bounds", func(b *ir.Builder) { b.View("v", b.Input("x", ir.F32, 2), 4, ir.F32, ir.Shape{2}, nil) }, ir.ErrViewBounds},
		{"data length", func(b *ir.Builder) { b.WeightData("w", ir.F32, []byte{1, 2, 3}, 1) }, ir.ErrShape},
		{"constant data length", func(b *ir.Builder) { b.Constant("c", ir.I64, []byte{1}, 1) }, ir.ErrShape},
		{"keep-alive anchor is an input", func(b *ir.Builder) { x := b.Input("x", ir.F32, 1); b.KeepAlive(x, x) }, ir.ErrUndefined},
		{"keep-alive of undefined", func(b *ir.Builder) { b.KeepAlive(b.Op("Relu", nil, b.Input("x", ir.F32, 1)), 9) }, ir.ErrUndefined},
		{"output undefined", func(b *ir.Builder) { b.Output(5) }, ir.ErrUndefined},
		{"pin undefined", func(b *ir.Builder) { b.Pin(5, "why") }, ir.ErrUndefined},
		{"pin without reason", func(b *ir.Builder) { b.Pin(b.Op("Relu", nil, b.Input("x", ir.F32, 1)), "") }, ir.ErrFlags},
		{"bad order", func(b *ir.Builder) { b.Op("Relu", nil, b.Input("x", ir.F32, 1)); b.SetOrder([]ir.NodeID{0, 0}) }, ir.ErrSchedule},
		{"overflowing input", func(b *ir.Builder) { b.Input("x", ir.F32, 1<<40, 1<<40) }, ir.ErrOverflow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := ir.NewBuilder("t")
			tc.build(b)
			g, err := b.Build()
			require.Falsef(t, g != nil || !errors.Is(err, tc.class), "Build = %v, %v; want an error matching %v", g, err, tc.class)
		})
	}
}

func TestBuilder(t *testing.T) {
	b := ir.NewBuilder("b")
	x := b.Input("x", ir.F32, 8, 16)
	c := b.Constant("c", ir.F32, make([]byte, 64), 16)
	w := b.WeightData("w", ir.F32, make([]byte, 16*4*4), 16, 4)
	rows := b.Op("Slice", ir.Attrs{"starts": ir.Ints(2), "ends": ir.Ints(4), "axes": ir.Ints(0)}, x)
	cols := b.Op("Slice", ir.Attrs{"starts": ir.Ints(2), "ends": ir.Ints(4), "axes": ir.Ints(1)}, x)
	same := b.Op("Cast", ir.Attrs{"to": ir.Str("f32")}, x)
	conv := b.Op("Cast", ir.Attrs{"to": ir.Str("f16")}, x)
	parts := b.OpN("Split", ir.Attrs{"axis": ir.Int(1), "num_outputs": ir.Int(2)}, b.Op("Add", nil, rows, c))
	y := b.Name(b.Op("MatMul", nil, parts[0], b.Op("Slice", ir.Attrs{"starts": ir.Ints(0), "ends": ir.Ints(8), "axes": ir.Ints(0)}, w)), "y")
	o := b.Opaque("Kernel", []ir.TensorType{{DType: ir.F32, Shape: ir.Shape{3}}, {DType: ir.I64, Shape: ir.Shape{}}}, y, cols)
	b.KeepAlive(y, same, conv)
	b.Pin(y, "host")
	b.Output(o...)
	g, err := b.Build()
	require.NoErrorf(t, err, "%v", err)
	v := func(id ir.ValueID) *ir.Value { return g.Values[id] }
	r := v(rows).View
	assert.Falsef(t, r == nil || r.Base != x || r.OffsetBytes != 128, "row slice view %+v", r)
	assert.Falsef(t, v(cols).View != nil || v(conv).View != nil, "a column slice or a converting cast became a view")
	s := v(same).View
	assert.Falsef(t, s == nil || s.Base != x || s.OffsetBytes != 0, "same-dtype cast view %+v", s)
	assert.Falsef(t, len(parts) != 2 || !v(parts[1]).Shape.Equal(ir.Shape{2, 8}) || v(parts[0]).Producer != v(parts[1]).Producer, "split outputs %v", parts)
	n := g.Nodes[v(y).Producer]
	assert.Falsef(t, n.Name != "y" || len(n.KeepAlive) != 2 || !v(y).Flags.Has(ir.FlagPinned), "y's node %+v", n)
	n = g.Nodes[v(o[0]).Producer]
	assert.Falsef(t, !n.Opaque || n.Op != "Kernel" || len(n.Outputs) != 2 || v(o[1]).DType != ir.I64, "opaque node %+v", n)
	assert.Falsef(t, v(c).Data == nil || !v(c).Flags.Has(ir.FlagConstant) || !v(w).Flags.Has(ir.FlagWeight), "constant / weight")
}
