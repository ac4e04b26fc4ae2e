package onnx

import (
	"math"
	"testing"

	"github.com/memplan/memplan/ir"
)

func ik(shape ir.Shape, v ...int64) *konst   { return &konst{dt: ir.I64, shape: shape, ints: v} }
func fk(shape ir.Shape, v ...float64) *konst { return &konst{dt: ir.F32, shape: shape, floats: v} }

func TestEvalOp(t *testing.T) {
	cases := []struct {
		name string
		op   string
		a    ir.Attrs
		in   []*konst
		want *konst
	}{
		{"gather negative index on axis 1", "Gather", ir.Attrs{"axis": ir.Int(1)},
			[]*konst{ik(ir.Shape{2, 3}, 1, 2, 3, 4, 5, 6), &konst{dt: ir.I64, shape: ir.Shape{2}, ints: []int64{-1, 0}}},
			ik(ir.Shape{2, 2}, 3, 1, 6, 4)},
		{"slice with a negative step", "Slice", ir.Attrs{"starts": ir.Ints(-1), "ends": ir.Ints(math.MinInt64), "steps": ir.Ints(-2)},
			[]*konst{ik(ir.Shape{5}, 0, 1, 2, 3, 4)}, ik(ir.Shape{3}, 4, 2, 0)},
		{"slice clamps INT64_MAX ends", "Slice", ir.Attrs{"starts": ir.Ints(1), "ends": ir.Ints(math.MaxInt64)},
			[]*konst{ik(ir.Shape{3}, 7, 8, 9)}, ik(ir.Shape{2}, 8, 9)},
		{"transpose", "Transpose", ir.Attrs{"perm": ir.Ints(1, 0)},
			[]*konst{ik(ir.Shape{2, 3}, 1, 2, 3, 4, 5, 6)}, ik(ir.Shape{3, 2}, 1, 4, 2, 5, 3, 6)},
		{"concat on axis 1", "Concat", ir.Attrs{"axis": ir.Int(1)},
			[]*konst{ik(ir.Shape{2, 1}, 1, 2), ik(ir.Shape{2, 2}, 3, 4, 5, 6)}, ik(ir.Shape{2, 3}, 1, 3, 4, 2, 5, 6)},
		{"broadcast add", "Add", nil,
			[]*konst{ik(ir.Shape{2, 1}, 10, 20), ik(ir.Shape{3}, 1, 2, 3)}, ik(ir.Shape{2, 3}, 11, 12, 13, 21, 22, 23)},
		{"integer division truncates", "Div", nil, []*konst{ik(ir.Shape{2}, 7, -7), ik(ir.Shape{}, 2)}, ik(ir.Shape{2}, 3, -3)},
		{"float ops round to f32", "Div", nil, []*konst{fk(ir.Shape{}, 1), fk(ir.Shape{}, 3)}, fk(ir.Shape{}, float64(float32(1.0/3)))},
		{"float comparison gives bools", "Less", nil, []*konst{fk(ir.Shape{3}, 1, 2, 3), fk(ir.Shape{}, 2)},
			&konst{dt: ir.Bool, shape: ir.Shape{3}, ints: []int64{1, 0, 0}}},
		{"where broadcasts all three", "Where", nil,
			[]*konst{{dt: ir.Bool, shape: ir.Shape{2, 1}, ints: []int64{1, 0}}, ik(ir.Shape{2}, 1, 2), ik(ir.Shape{}, 9)},
			ik(ir.Shape{2, 2}, 1, 2, 9, 9)},
		{"pad with a value", "Pad", ir.Attrs{"pads": ir.Ints(1, 0), "value": ir.Float(-1)},
			[]*konst{fk(ir.Shape{2}, 5, 6)}, fk(ir.Shape{3}, -1, 5, 6)},
		{"cast float to int truncates", "Cast", ir.Attrs{"to": ir.Str("i64")},
			[]*konst{fk(ir.Shape{2}, 2.7, -2.7)}, ik(ir.Shape{2}, 2, -2)},
		{"expand", "Expand", ir.Attrs{"shape": ir.Ints(2, 2)}, []*konst{ik(ir.Shape{2}, 1, 2)}, ik(ir.Shape{2, 2}, 1, 2, 1, 2)},
		{"clip", "Clip", ir.Attrs{"min": ir.Float(0), "max": ir.Float(6)}, []*konst{fk(ir.Shape{3}, -1, 3, 9)}, fk(ir.Shape{3}, 0, 3, 6)},
		{"integer neg", "Neg", nil, []*konst{ik(ir.Shape{2}, 1, -2)}, ik(ir.Shape{2}, -1, 2)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info, ok := ir.LookupOp(tc.op)
			check(t, ok, tc.op)
			types := make([]ir.TensorType, len(tc.in))
			for i, k := range tc.in {
				types[i] = k.typ()
			}
			out, err := info.Infer(types, tc.a)
			must(t, err)
			got, err := evalOp(tc.op, tc.a, tc.in, out)
			must(t, err)
			eq(t, got[0], tc.want)
		})
	}
}

func TestEvalOpErrors(t *testing.T) {
	out := []ir.TensorType{{DType: ir.I64, Shape: ir.Shape{1}}}
	_, err := evalOp("Div", nil, []*konst{ik(ir.Shape{1}, 1), ik(ir.Shape{1}, 0)}, out)
	errIs(t, err, ErrFold, "division by zero")
	_, err = evalOp("Gather", ir.Attrs{}, []*konst{ik(ir.Shape{2}, 1, 2), ik(ir.Shape{1}, 5)}, out)
	errIs(t, err, ErrFold, "out of range")
	_, err = evalOp("MatMul", nil, []*konst{ik(ir.Shape{1}, 1), ik(ir.Shape{1}, 1)}, out)
	errIs(t, err, ErrFold, "MatMul")
}

func TestShapeKonst(t *testing.T) {
	typ := ir.TensorType{DType: ir.F32, Shape: ir.Shape{2, 3, 4}}
	eq(t, shapeKonst(typ, 0, math.MaxInt64).ints, []int64{2, 3, 4})
	eq(t, shapeKonst(typ, -2, math.MaxInt64).ints, []int64{3, 4})
	eq(t, shapeKonst(typ, 2, 1).ints, []int64{})
}

func TestKonstBytesRoundTrip(t *testing.T) {
	for _, k := range []*konst{
		fk(ir.Shape{3}, 1.5, -2, float64(float32(math.Pi))),
		ik(ir.Shape{2}, math.MinInt64, 7),
		{dt: ir.I32, shape: ir.Shape{2}, ints: []int64{-5, 1 << 30}},
		{dt: ir.I8, shape: ir.Shape{2}, ints: []int64{-128, 127}},
		{dt: ir.U8, shape: ir.Shape{1}, ints: []int64{255}},
		{dt: ir.Bool, shape: ir.Shape{2}, ints: []int64{1, 0}},
		{dt: ir.F64, shape: ir.Shape{1}, floats: []float64{math.Pi}},
	} {
		back, err := konstFromBytes(k.dt, k.shape, k.bytes())
		must(t, err)
		eq(t, back, k)
	}
}
