package ir_test

// Tests of the op property table (OpInfo) and of the view rules it states.

import (
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
)

func TestOpTable(t *testing.T) {
	tests := []struct {
		op      string
		kind    ir.Kind
		inPlace int
		view    bool
	}{
		{"Relu", ir.KindElementwise, 0, false},
		{"Add", ir.KindElementwise, 0, false},
		{"Equal", ir.KindElementwise, -1, false},
		{"MatMul", ir.KindMatMul, -1, false},
		{"Conv", ir.KindConv, -1, false},
		{"Softmax", ir.KindSoftmax, 0, false},
		{"LayerNorm", ir.KindNorm, 0, false},
		{"Reshape", ir.KindView, -1, true},
		{"Flatten", ir.KindView, -1, true},
		{"Squeeze", ir.KindView, -1, true},
		{"Unsqueeze", ir.KindView, -1, true},
		{"Identity", ir.KindView, -1, true},
		{"Slice", ir.KindData, -1, true},
		{"Cast", ir.KindData, -1, true},
		{"Transpose", ir.KindData, -1, false},
	}
	for _, tc := range tests {
		info, ok := ir.LookupOp(tc.op)
		assert.Falsef(t, !ok || info.Name != tc.op || info.Kind != tc.kind || info.InPlace != tc.inPlace || (info.View != nil) != tc.view, "%s: %+v", tc.op, info)
	}
	_, ok := ir.LookupOp("Frobnicate")
	assert.Falsef(t, ok, "unknown op found")
	names := ir.OpNames()
	for i := 1; i < len(names); i++ {
		assert.Lessf(t, names[i-1], names[i], "OpNames not sorted at %d: %v", i, names)
	}
	assert.Falsef(t, ir.KindConv.String() != "conv" || ir.Kind(200).String() == "", "Kind.String")
}

func TestViewRules(t *testing.T) {
	slice := func(starts, ends, axes []int64) ir.Attrs {
		return ir.Attrs{"starts": ir.Ints(starts...), "ends": ir.Ints(ends...), "axes": ir.Ints(axes...)}
	}
	tests := []struct {
		name   string
		op     string
		in     string
		attrs  ir.Attrs
		ok     bool
		offset int64
	}{
		{"rows of a matrix", "Slice", "f32[8,16]", slice([]int64{2}, []int64{6}, []int64{0}), true, 128},
		{"one row's middle", "Slice", "f32[8,16]", slice([]int64{3, 4}, []int64{4, 8}, []int64{0, 1}), true, 3*64 + 16},
		{"columns", "Slice", "f32[8,16]", slice([]int64{0}, []int64{4}, []int64{1}), false, 0},
		{"rows of a 3-D tensor", "Slice", "f16[4,3,2]", slice([]int64{1}, []int64{3}, []int64{0}), true, 12},
		{"strided", "Slice", "f32[8]", ir.Attrs{"starts": ir.Ints(0), "ends": ir.Ints(8), "steps": ir.Ints(2)}, false, 0},
		{"whole", "Slice", "f32[8]", slice([]int64{0}, []int64{100}, []int64{0}), true, 0},
		{"same-dtype cast", "Cast", "f32[8]", ir.Attrs{"to": ir.Str("f32")}, true, 0},
		{"converting cast", "Cast", "f32[8]", ir.Attrs{"to": ir.Str("f16")}, false, 0},
		{"reshape", "Reshape", "f32[8]", ir.Attrs{"shape": ir.Ints(2, 4)}, true, 0},
		{"identity", "Identity", "f32[8]", nil, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info, _ := ir.LookupOp(tc.op)
			off, ok := info.View(tys(tc.in), tc.attrs)
			assert.Falsef(t, ok != tc.ok || (ok && off != tc.offset), "View = %d, %v; want %d, %v", off, ok, tc.offset, tc.ok)
		})
	}
}
