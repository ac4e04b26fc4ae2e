package ir_test

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ty parses "f32[2,3]" ("f32[]" is a scalar) for the tables below.
func ty(s string) ir.TensorType {
	dt, dims, _ := strings.Cut(strings.TrimSuffix(s, "]"), "[")
	d, err := ir.ParseDType(dt)
	if err != nil {
		panic(err)
	}
	sh := ir.Shape{}
	for _, f := range strings.Split(dims, ",") {
		if f = strings.TrimSpace(f); f != "" {
			n, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				panic(err)
			}
			sh = append(sh, n)
		}
	}
	return ir.TensorType{DType: d, Shape: sh}
}

func tys(ss ...string) []ir.TensorType {
	out := make([]ir.TensorType, len(ss))
	for i, s := range ss {
		out[i] = ty(s)
	}
	return out
}

type shapeCase struct {
	op    string
	in    []string
	attrs ir.Attrs
	want  []string // output types, or nil when err is set
	err   error    // the class of the expected error
}

var unaryOps = []string{"Relu", "Sigmoid", "Tanh", "Gelu", "Silu", "Erf", "Sqrt", "Neg", "Exp", "Log", "Abs", "Sin", "Cos", "Reciprocal", "Clip", "HardSigmoid", "HardSwish", "Identity"}

func shapeCases() []shapeCase {
	var cs []shapeCase
	for _, op := range unaryOps {
		cs = append(cs,
			shapeCase{op: op, in: []string{"f32[2,3]"}, want: []string{"f32[2,3]"}},
			shapeCase{op: op, in: []string{"f16[]"}, want: []string{"f16[]"}},
			shapeCase{op: op, in: nil, err: ir.ErrArity})
	}
	for _, op := range []string{"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"} {
		cs = append(cs,
			shapeCase{op: op, in: []string{"f32[2,3]", "f32[3]"}, want: []string{"f32[2,3]"}},
			shapeCase{op: op, in: []string{"f32[2,1]", "f32[1,3]"}, want: []string{"f32[2,3]"}},
			shapeCase{op: op, in: []string{"f32[]", "f32[4,1,2]"}, want: []string{"f32[4,1,2]"}},
			shapeCase{op: op, in: []string{"f32[2,3]", "f32[4]"}, err: ir.ErrShape},
			shapeCase{op: op, in: []string{"f32[3]", "f16[3]"}, err: ir.ErrTypeMismatch},
			shapeCase{op: op, in: []string{"f32[3]"}, err: ir.ErrArity})
	}
	for _, op := range []string{"Equal", "Less", "Greater"} {
		cs = append(cs,
			shapeCase{op: op, in: []string{"i64[2,3]", "i64[3]"}, want: []string{"bool[2,3]"}},
			shapeCase{op: op, in: []string{"i64[2]", "i64[3]"}, err: ir.ErrShape},
			shapeCase{op: op, in: []string{"i64[2]", "i32[2]"}, err: ir.ErrTypeMismatch})
	}
	for _, op := range []string{"Softmax", "LogSoftmax"} {
		cs = append(cs,
			shapeCase{op: op, in: []string{"f32[2,8]"}, want: []string{"f32[2,8]"}},
			shapeCase{op: op, in: []string{"f32[2,8]"}, attrs: ir.Attrs{"axis": ir.Int(0)}, want: []string{"f32[2,8]"}},
			shapeCase{op: op, in: []string{"f32[2,8]"}, attrs: ir.Attrs{"axis": ir.Int(2)}, err: ir.ErrAttr},
			shapeCase{op: op, in: []string{"f32[]"}, err: ir.ErrAttr})
	}
	for _, op := range []string{"ReduceMean", "ReduceSum", "ReduceMax"} {
		cs = append(cs,
			shapeCase{op: op, in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"axes": ir.Ints(1)}, want: []string{"f32[2,1,4]"}},
			shapeCase{op: op, in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"axes": ir.Ints(-1, 0), "keepdims": ir.Int(0)}, want: []string{"f32[3]"}},
			shapeCase{op: op, in: []string{"f32[2,3,4]"}, want: []string{"f32[1,1,1]"}},
			shapeCase{op: op, in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"keepdims": ir.Int(0)}, want: []string{"f32[]"}},
			shapeCase{op: op, in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"axes": ir.Ints(3)}, err: ir.ErrAttr},
			shapeCase{op: op, in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"axes": ir.Ints(1, -2)}, err: ir.ErrAttr})
	}
	pool := func(op string) []shapeCase {
		k := func(extra ir.Attrs) ir.Attrs {
			a := ir.Attrs{"kernel_shape": ir.Ints(3, 3), "strides": ir.Ints(2, 2)}
			for n, v := range extra {
				a[n] = v
			}
			return a
		}
		return []shapeCase{
			{op: op, in: []string{"f32[1,3,32,32]"}, attrs: ir.Attrs{"kernel_shape": ir.Ints(2, 2), "strides": ir.Ints(2, 2)}, want: []string{"f32[1,3,16,16]"}},
			{op: op, in: []string{"f32[1,3,8,8]"}, attrs: k(nil), want: []string{"f32[1,3,3,3]"}},
			{op: op, in: []string{"f32[1,3,8,8]"}, attrs: k(ir.Attrs{"ceil_mode": ir.Int(1)}), want: []string{"f32[1,3,4,4]"}},
			{op: op, in: []string{"f32[1,3,8,8]"}, attrs: k(ir.Attrs{"pads": ir.Ints(1, 1, 1, 1)}), want: []string{"f32[1,3,4,4]"}},
			{op: op, in: []string{"f32[1,3,8,8]"}, err: ir.ErrAttr},
			{op: op, in: []string{"f32[1,3,8,8]"}, attrs: k(ir.Attrs{"strides": ir.Ints(0, 1)}), err: ir.ErrAttr},
			{op: op, in: []string{"f32[1,3,8,8]"}, attrs: k(ir.Attrs{"pads": ir.Ints(1, 1)}), err: ir.ErrAttr},
			{op: op, in: []string{"f32[1,3,2,2]"}, attrs: k(nil), err: ir.ErrShape},
			{op: op, in: []string{"f32[3,8,8]"}, attrs: k(nil), err: ir.ErrShape},
			{op: op, in: []string{"f32[1,3,8,8]"}, attrs: ir.Attrs{"kernel_shape": ir.Ints(1<<40, 1)}, err: ir.ErrShape},
		}
	}
	cs = append(cs, pool("MaxPool")...)
	cs = append(cs, pool("AveragePool")...)
	cs = append(cs, []shapeCase{
		{op: "Where", in: []string{"bool[2,1]", "f32[1,3]", "f32[3]"}, want: []string{"f32[2,3]"}},
		{op: "Where", in: []string{"f32[2]", "f32[2]", "f32[2]"}, err: ir.ErrTypeMismatch},
		{op: "Where", in: []string{"bool[2]", "f32[2]", "i64[2]"}, err: ir.ErrTypeMismatch},
		{op: "Where", in: []string{"bool[2]", "f32[3]", "f32[2]"}, err: ir.ErrShape},

		{op: "MatMul", in: []string{"f32[2,3]", "f32[3,4]"}, want: []string{"f32[2,4]"}},
		{op: "MatMul", in: []string{"f32[5,2,3]", "f32[3,4]"}, want: []string{"f32[5,2,4]"}},
		{op: "MatMul", in: []string{"f32[5,1,2,3]", "f32[4,3,2]"}, want: []string{"f32[5,4,2,2]"}},
		{op: "MatMul", in: []string{"f32[3]", "f32[3,4]"}, want: []string{"f32[4]"}},
		{op: "MatMul", in: []string{"f32[2,3]", "f32[3]"}, want: []string{"f32[2]"}},
		{op: "MatMul", in: []string{"f32[3]", "f32[3]"}, want: []string{"f32[]"}},
		{op: "MatMul", in: []string{"f32[2,3]", "f32[4,5]"}, err: ir.ErrShape},
		{op: "MatMul", in: []string{"f32[]", "f32[3]"}, err: ir.ErrShape},
		{op: "MatMul", in: []string{"f32[2,2,3]", "f32[3,3,4]"}, err: ir.ErrShape},
		{op: "MatMul", in: []string{"f32[2,3]", "f16[3,4]"}, err: ir.ErrTypeMismatch},

		{op: "Gemm", in: []string{"f32[2,3]", "f32[3,4]"}, want: []string{"f32[2,4]"}},
		{op: "Gemm", in: []string{"f32[3,2]", "f32[4,3]", "f32[4]"}, attrs: ir.Attrs{"transA": ir.Int(1), "transB": ir.Int(1)}, want: []string{"f32[2,4]"}},
		{op: "Gemm", in: []string{"f32[2,3]", "f32[3,4]", "f32[2,1]"}, want: []string{"f32[2,4]"}},
		{op: "Gemm", in: []string{"f32[2,3]", "f32[3,4]", "f32[3]"}, err: ir.ErrShape},
		{op: "Gemm", in: []string{"f32[2,3]", "f32[4,3]"}, err: ir.ErrShape},
		{op: "Gemm", in: []string{"f32[1,2,3]", "f32[3,4]"}, err: ir.ErrShape},

		{op: "Conv", in: []string{"f32[1,3,32,32]", "f32[8,3,3,3]"}, attrs: ir.Attrs{"pads": ir.Ints(1, 1, 1, 1)}, want: []string{"f32[1,8,32,32]"}},
		{op: "Conv", in: []string{"f32[1,3,32,32]", "f32[8,3,3,3]", "f32[8]"}, attrs: ir.Attrs{"pads": ir.Ints(1, 1, 1, 1), "strides": ir.Ints(2, 2)}, want: []string{"f32[1,8,16,16]"}},
		{op: "Conv", in: []string{"f32[1,3,32,32]", "f32[8,3,3,3]"}, attrs: ir.Attrs{"dilations": ir.Ints(2, 2)}, want: []string{"f32[1,8,28,28]"}},
		{op: "Conv", in: []string{"f32[2,6,10,12]", "f32[6,2,3,5]"}, attrs: ir.Attrs{"group": ir.Int(3)}, want: []string{"f32[2,6,8,8]"}},
		{op: "Conv", in: []string{"f32[1,3,32,32]", "f32[8,4,3,3]"}, err: ir.ErrShape},
		{op: "Conv", in: []string{"f32[1,3,32,32]", "f32[8,3,3,3]", "f32[3]"}, err: ir.ErrShape},
		{op: "Conv", in: []string{"f32[1,3,2,2]", "f32[8,3,3,3]"}, err: ir.ErrShape},
		{op: "Conv", in: []string{"f32[1,3,32,32]", "f32[8,3,3,3]"}, attrs: ir.Attrs{"strides": ir.Ints(0, 1)}, err: ir.ErrAttr},
		{op: "Conv", in: []string{"f32[1,3,32,32]", "f32[8,3,3,3]"}, attrs: ir.Attrs{"dilations": ir.Ints(math.MaxInt64, 1)}, err: ir.ErrAttr},
		{op: "Conv", in: []string{"f32[1,3,32,32]", "f32[8,3,3,3]"}, attrs: ir.Attrs{"group": ir.Int(0)}, err: ir.ErrShape},
		{op: "Conv", in: []string{"f32[3,32,32]", "f32[8,3,3,3]"}, err: ir.ErrShape},

		{op: "ConvTranspose", in: []string{"f32[1,8,16,16]", "f32[8,4,3,3]"}, attrs: ir.Attrs{"strides": ir.Ints(2, 2), "pads": ir.Ints(1, 1, 1, 1), "output_padding": ir.Ints(1, 1)}, want: []string{"f32[1,4,32,32]"}},
		{op: "ConvTranspose", in: []string{"f32[1,8,5,5]", "f32[8,2,3,3]", "f32[4]"}, attrs: ir.Attrs{"group": ir.Int(2)}, want: []string{"f32[1,4,7,7]"}},
		{op: "ConvTranspose", in: []string{"f32[1,8,5,5]", "f32[4,2,3,3]"}, err: ir.ErrShape},
		{op: "ConvTranspose", in: []string{"f32[1,8,5,5]", "f32[8,2,3,3]"}, attrs: ir.Attrs{"output_padding": ir.Ints(1, 1)}, err: ir.ErrShape},
		{op: "ConvTranspose", in: []string{"f32[1,8,5,5]", "f32[8,2,3,3]"}, attrs: ir.Attrs{"output_padding": ir.Ints(1)}, err: ir.ErrAttr},

		{op: "BatchNorm", in: []string{"f32[2,4,5,5]", "f32[4]", "f32[4]", "f32[4]", "f32[4]"}, want: []string{"f32[2,4,5,5]"}},
		{op: "BatchNorm", in: []string{"f32[2,4,5,5]", "f32[4]", "f32[5]", "f32[4]", "f32[4]"}, err: ir.ErrShape},
		{op: "BatchNorm", in: []string{"f32[4]", "f32[4]", "f32[4]", "f32[4]", "f32[4]"}, err: ir.ErrShape},

		{op: "LayerNorm", in: []string{"f32[2,8]", "f32[8]", "f32[8]"}, want: []string{"f32[2,8]"}},
		{op: "LayerNorm", in: []string{"f32[2,8]", "f32[2,8]"}, attrs: ir.Attrs{"axis": ir.Int(0)}, want: []string{"f32[2,8]"}},
		{op: "LayerNorm", in: []string{"f32[2,8]", "f32[4]"}, err: ir.ErrShape},
		{op: "LayerNorm", in: []string{"f32[2,8]", "f32[8]"}, attrs: ir.Attrs{"axis": ir.Int(2)}, err: ir.ErrAttr},
		{op: "RMSNorm", in: []string{"f32[2,8]", "f32[8]"}, want: []string{"f32[2,8]"}},
		{op: "RMSNorm", in: []string{"f32[2,8]", "f32[2]"}, err: ir.ErrShape},
		{op: "RMSNorm", in: []string{"f32[2,8]", "f16[8]"}, err: ir.ErrTypeMismatch},

		{op: "GlobalAveragePool", in: []string{"f32[1,8,7,7]"}, want: []string{"f32[1,8,1,1]"}},
		{op: "GlobalAveragePool", in: []string{"f32[8]"}, err: ir.ErrShape},

		{op: "Concat", in: []string{"f32[2,3]", "f32[2,5]"}, attrs: ir.Attrs{"axis": ir.Int(1)}, want: []string{"f32[2,8]"}},
		{op: "Concat", in: []string{"f32[2,3]", "f32[4,3]", "f32[1,3]"}, want: []string{"f32[7,3]"}},
		{op: "Concat", in: []string{"f32[2,3]", "f32[2,3,1]"}, err: ir.ErrShape},
		{op: "Concat", in: []string{"f32[2,3]", "f32[3,3]"}, attrs: ir.Attrs{"axis": ir.Int(1)}, err: ir.ErrShape},
		{op: "Concat", in: []string{"f32[2]", "f32[2]"}, attrs: ir.Attrs{"axis": ir.Int(1)}, err: ir.ErrAttr},
		{op: "Concat", in: []string{"u8[281474976710656]", "u8[281474976710656]"}, err: ir.ErrShape},

		{op: "Split", in: []string{"f32[2,8]"}, attrs: ir.Attrs{"axis": ir.Int(1), "split": ir.Ints(3, 5)}, want: []string{"f32[2,3]", "f32[2,5]"}},
		{op: "Split", in: []string{"f32[2,8]"}, attrs: ir.Attrs{"axis": ir.Int(-1), "num_outputs": ir.Int(3)}, want: []string{"f32[2,3]", "f32[2,3]", "f32[2,2]"}},
		{op: "Split", in: []string{"f32[2,8]"}, attrs: ir.Attrs{"axis": ir.Int(1), "split": ir.Ints(3, 4)}, err: ir.ErrAttr},
		{op: "Split", in: []string{"f32[2,8]"}, attrs: ir.Attrs{"axis": ir.Int(1), "split": ir.Ints(math.MaxInt64, math.MaxInt64, 10)}, err: ir.ErrAttr},
		{op: "Split", in: []string{"f32[2,8]"}, err: ir.ErrAttr},

		{op: "Transpose", in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"perm": ir.Ints(0, 2, 1)}, want: []string{"f32[2,4,3]"}},
		{op: "Transpose", in: []string{"f32[2,3,4]"}, want: []string{"f32[4,3,2]"}},
		{op: "Transpose", in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"perm": ir.Ints(0, 0, 1)}, err: ir.ErrAttr},
		{op: "Transpose", in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"perm": ir.Ints(0, 1)}, err: ir.ErrAttr},

		{op: "Gather", in: []string{"f32[10,4]", "i64[3,2]"}, want: []string{"f32[3,2,4]"}},
		{op: "Gather", in: []string{"f32[10,4]", "i32[3]"}, attrs: ir.Attrs{"axis": ir.Int(1)}, want: []string{"f32[10,3]"}},
		{op: "Gather", in: []string{"f32[10,4]", "i64[]"}, want: []string{"f32[4]"}},
		{op: "Gather", in: []string{"f32[10,4]", "f32[3]"}, err: ir.ErrShape},
		{op: "Gather", in: []string{"f32[10,4]", "i64[3]"}, attrs: ir.Attrs{"axis": ir.Int(2)}, err: ir.ErrAttr},

		{op: "Expand", in: []string{"f32[3,1]"}, attrs: ir.Attrs{"shape": ir.Ints(2, 3, 4)}, want: []string{"f32[2,3,4]"}},
		{op: "Expand", in: []string{"f32[3,2]"}, attrs: ir.Attrs{"shape": ir.Ints(4)}, err: ir.ErrShape},
		{op: "Expand", in: []string{"f32[3]"}, err: ir.ErrAttr},
		{op: "Expand", in: []string{"f32[3]"}, attrs: ir.Attrs{"shape": ir.Ints(1<<40, 1<<40, 3)}, err: ir.ErrOverflow},

		{op: "Pad", in: []string{"f32[2,3]"}, attrs: ir.Attrs{"pads": ir.Ints(1, 0, 1, 2)}, want: []string{"f32[4,5]"}},
		{op: "Pad", in: []string{"f32[2,3]"}, attrs: ir.Attrs{"pads": ir.Ints(0, -1, 0, -1)}, want: []string{"f32[2,1]"}},
		{op: "Pad", in: []string{"f32[2,3]"}, attrs: ir.Attrs{"pads": ir.Ints(1, 1)}, err: ir.ErrAttr},
		{op: "Pad", in: []string{"f32[2,3]"}, attrs: ir.Attrs{"pads": ir.Ints(0, -4, 0, 0)}, err: ir.ErrShape},
		{op: "Pad", in: []string{"f32[2,3]"}, attrs: ir.Attrs{"pads": ir.Ints(0, math.MaxInt64, 0, math.MaxInt64)}, err: ir.ErrAttr},
		{op: "Pad", in: []string{"f32[2,3]"}, attrs: ir.Attrs{"pads": ir.Ints(0, 0, 0, 0), "mode": ir.Str("reflect")}, err: ir.ErrAttr},

		{op: "Slice", in: []string{"f32[8,16]"}, attrs: ir.Attrs{"starts": ir.Ints(2), "ends": ir.Ints(6), "axes": ir.Ints(0)}, want: []string{"f32[4,16]"}},
		{op: "Slice", in: []string{"f32[8,16]"}, attrs: ir.Attrs{"starts": ir.Ints(-3), "ends": ir.Ints(100), "axes": ir.Ints(-1)}, want: []string{"f32[8,3]"}},
		{op: "Slice", in: []string{"f32[8]"}, attrs: ir.Attrs{"starts": ir.Ints(-1), "ends": ir.Ints(-9), "steps": ir.Ints(-2)}, want: []string{"f32[4]"}},
		{op: "Slice", in: []string{"f32[8]"}, attrs: ir.Attrs{"starts": ir.Ints(1), "ends": ir.Ints(8), "steps": ir.Ints(3)}, want: []string{"f32[3]"}},
		{op: "Slice", in: []string{"f32[8]"}, attrs: ir.Attrs{"starts": ir.Ints(0), "ends": ir.Ints(8), "steps": ir.Ints(math.MaxInt64)}, want: []string{"f32[1]"}},
		{op: "Slice", in: []string{"f32[8]"}, attrs: ir.Attrs{"starts": ir.Ints(7), "ends": ir.Ints(math.MinInt64), "steps": ir.Ints(math.MinInt64)}, want: []string{"f32[1]"}},
		{op: "Slice", in: []string{"f32[8]"}, attrs: ir.Attrs{"starts": ir.Ints(5), "ends": ir.Ints(2)}, want: []string{"f32[0]"}},
		{op: "Slice", in: []string{"f32[8]"}, attrs: ir.Attrs{"starts": ir.Ints(0), "ends": ir.Ints(4), "steps": ir.Ints(0)}, err: ir.ErrAttr},
		{op: "Slice", in: []string{"f32[8]"}, attrs: ir.Attrs{"starts": ir.Ints(0, 1), "ends": ir.Ints(4)}, err: ir.ErrAttr},
		{op: "Slice", in: []string{"f32[8,2]"}, attrs: ir.Attrs{"starts": ir.Ints(0, 0), "ends": ir.Ints(4, 1), "axes": ir.Ints(1, 1)}, err: ir.ErrAttr},

		{op: "Cast", in: []string{"f32[2]"}, attrs: ir.Attrs{"to": ir.Str("i64")}, want: []string{"i64[2]"}},
		{op: "Cast", in: []string{"f32[2]"}, attrs: ir.Attrs{"to": ir.Str("f32")}, want: []string{"f32[2]"}},
		{op: "Cast", in: []string{"f32[2]"}, attrs: ir.Attrs{"to": ir.Str("f128")}, err: ir.ErrAttr},
		{op: "Cast", in: []string{"f32[2]"}, err: ir.ErrAttr},

		{op: "Reshape", in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"shape": ir.Ints(6, -1)}, want: []string{"f32[6,4]"}},
		{op: "Reshape", in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"shape": ir.Ints(0, 12)}, want: []string{"f32[2,12]"}},
		{op: "Reshape", in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"shape": ir.Ints(24)}, want: []string{"f32[24]"}},
		{op: "Reshape", in: []string{"f32[1]"}, attrs: ir.Attrs{"shape": ir.Ints()}, want: []string{"f32[]"}},
		{op: "Reshape", in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"shape": ir.Ints(5, 5)}, err: ir.ErrShape},
		{op: "Reshape", in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"shape": ir.Ints(-1, -1)}, err: ir.ErrAttr},
		{op: "Reshape", in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"shape": ir.Ints(5, -1)}, err: ir.ErrShape},
		{op: "Reshape", in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"shape": ir.Ints(1<<40, 1<<40)}, err: ir.ErrShape},
		{op: "Reshape", in: []string{"f32[2,3,4]"}, err: ir.ErrAttr},

		{op: "Flatten", in: []string{"f32[2,3,4]"}, want: []string{"f32[2,12]"}},
		{op: "Flatten", in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"axis": ir.Int(0)}, want: []string{"f32[1,24]"}},
		{op: "Flatten", in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"axis": ir.Int(3)}, want: []string{"f32[24,1]"}},
		{op: "Flatten", in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"axis": ir.Int(-1)}, want: []string{"f32[6,4]"}},
		{op: "Flatten", in: []string{"f32[2,3,4]"}, attrs: ir.Attrs{"axis": ir.Int(5)}, err: ir.ErrAttr},

		{op: "Squeeze", in: []string{"f32[1,3,1]"}, attrs: ir.Attrs{"axes": ir.Ints(0)}, want: []string{"f32[3,1]"}},
		{op: "Squeeze", in: []string{"f32[1,3,1]"}, want: []string{"f32[3]"}},
		{op: "Squeeze", in: []string{"f32[1,3,1]"}, attrs: ir.Attrs{"axes": ir.Ints(1)}, err: ir.ErrShape},
		{op: "Squeeze", in: []string{"f32[1,3,1]"}, attrs: ir.Attrs{"axes": ir.Ints(3)}, err: ir.ErrAttr},

		{op: "Unsqueeze", in: []string{"f32[3]"}, attrs: ir.Attrs{"axes": ir.Ints(0, 2)}, want: []string{"f32[1,3,1]"}},
		{op: "Unsqueeze", in: []string{"f32[3]"}, attrs: ir.Attrs{"axes": ir.Ints(-1)}, want: []string{"f32[3,1]"}},
		{op: "Unsqueeze", in: []string{"f32[3]"}, err: ir.ErrAttr},
		{op: "Unsqueeze", in: []string{"f32[3]"}, attrs: ir.Attrs{"axes": ir.Ints(0, 0)}, err: ir.ErrAttr},
	}...)
	return cs
}

func caseName(c shapeCase) string {
	s := c.op + "(" + strings.Join(c.in, ",") + ")"
	for _, k := range c.attrs.Keys() {
		a := c.attrs[k]
		switch a.Kind {
		case ir.AttrInt:
			s += fmt.Sprintf(" %s=%d", k, a.Int)
		case ir.AttrInts:
			s += fmt.Sprintf(" %s=%v", k, a.Ints)
		default:
			s += fmt.Sprintf(" %s=%q", k, a.Str)
		}
	}
	return s
}

// TestShapeRules runs every case through the op's Infer and checks the
// result or the error class.
func TestShapeRules(t *testing.T) {
	for _, c := range shapeCases() {
		t.Run(caseName(c), func(t *testing.T) {
			info, ok := ir.LookupOp(c.op)
			require.Truef(t, ok, "op %s not in the table", c.op)
			out, err := info.Infer(tys(c.in...), c.attrs)
			if c.err != nil {
				require.ErrorIsf(t, err, c.err, "Infer = %v, %v; want an error matching %v", out, err, c.err)
				return
			}
			require.NoErrorf(t, err, "%v", err)
			want := tys(c.want...)
			require.Lenf(t, out, len(want), "%d outputs %v, want %v", len(out), out, want)
			for i := range want {
				if out[i].DType != want[i].DType || !out[i].Shape.Equal(want[i].Shape) {
					t.Errorf("output %d is %v, want %v", i, out[i], want[i])
				}
			}
		})
	}
}

// TestShapeRulesCoverEveryOp: every op in the table has at least one valid
// and one error case above, and every input count in range is accepted by
// the arity bounds of at least one valid case.
func TestShapeRulesCoverEveryOp(t *testing.T) {
	valid, invalid := map[string]bool{}, map[string]bool{}
	for _, c := range shapeCases() {
		if c.err == nil {
			valid[c.op] = true
			info, _ := ir.LookupOp(c.op)
			if len(c.in) < info.MinInputs || len(c.in) > info.MaxInputs {
				t.Errorf("%s: valid case with %d inputs outside [%d, %d]", c.op, len(c.in), info.MinInputs, info.MaxInputs)
			}
		} else {
			invalid[c.op] = true
		}
	}
	for _, op := range ir.OpNames() {
		assert.Falsef(t, !valid[op] || !invalid[op], "op %s: valid cases %v, error cases %v", op, valid[op], invalid[op])
	}
}

// TestShapeRulesThroughValidate: the same valid cases, built as one-node
// graphs, validate; a wrong stored output type is rejected.
func TestShapeRulesThroughValidate(t *testing.T) {
	for _, c := range shapeCases() {
		if c.err != nil {
			continue
		}
		g := &ir.Graph{}
		n := &ir.Node{ID: 0, Name: "n", Op: c.op, Attrs: c.attrs}
		for _, in := range tys(c.in...) {
			id := ir.ValueID(len(g.Values))
			g.Values = append(g.Values, &ir.Value{ID: id, DType: in.DType, Shape: in.Shape, Flags: ir.FlagInput, Producer: ir.NoNode})
			n.Inputs = append(n.Inputs, id)
		}
		for _, out := range tys(c.want...) {
			id := ir.ValueID(len(g.Values))
			g.Values = append(g.Values, &ir.Value{ID: id, DType: out.DType, Shape: out.Shape, Producer: 0})
			n.Outputs = append(n.Outputs, id)
		}
		g.Nodes = []*ir.Node{n}
		if err := g.Validate(); err != nil {
			t.Errorf("%s: %v", caseName(c), err)
			continue
		}
		last := g.Values[len(g.Values)-1]
		last.Shape = append(last.Shape.Clone(), 2)
		if err := g.Validate(); !errors.Is(err, ir.ErrTypeMismatch) {
			t.Errorf("%s with output %v: %v, want a type mismatch", caseName(c), last.Shape, err)
		}
	}
}

func TestBroadcast(t *testing.T) {
	got, err := ir.Broadcast(ir.Shape{2, 1, 3}, ir.Shape{4, 1}, ir.Shape{})
	assert.Falsef(t, err != nil || !got.Equal(ir.Shape{2, 4, 3}), "Broadcast = %v, %v", got, err)
	_, err = ir.Broadcast(ir.Shape{2}, ir.Shape{3})
	assert.ErrorIsf(t, err, ir.ErrShape, "Broadcast of [2] and [3]: %v", err)
}

func TestByteSizeOverflow(t *testing.T) {
	tests := []struct {
		dt    ir.DType
		shape ir.Shape
		want  int64
		err   error
	}{
		{ir.F32, ir.Shape{2, 3}, 24, nil},
		{ir.Bool, ir.Shape{}, 1, nil},
		{ir.F64, ir.Shape{0, 1 << 62}, 0, ir.ErrOverflow},
		{ir.F32, ir.Shape{1 << 40, 1 << 40}, 0, ir.ErrOverflow},
		{ir.U8, ir.Shape{1 << 48}, 1 << 48, nil},
		{ir.U8, ir.Shape{1<<48 + 1}, 0, ir.ErrOverflow},
		{ir.F32, ir.Shape{1 << 47}, 0, ir.ErrOverflow},
		{ir.F32, ir.Shape{math.MaxInt64, math.MaxInt64}, 0, ir.ErrOverflow},
		{ir.F32, ir.Shape{2, -1}, 0, ir.ErrShape},
		{ir.InvalidDType, ir.Shape{2}, 0, ir.ErrDType},
	}
	for _, tc := range tests {
		got, err := ir.ByteSize(tc.dt, tc.shape)
		if tc.err != nil {
			assert.ErrorIsf(t, err, tc.err, "ByteSize(%v, %v) = %d, %v; want %v", tc.dt, tc.shape, got, err, tc.err)
			continue
		}
		assert.Falsef(t, err != nil || got != tc.want, "ByteSize(%v, %v) = %d, %v; want %d", tc.dt, tc.shape, got, err, tc.want)
	}
}

func TestMaxRank(t *testing.T) {
	_, err := make(ir.Shape, ir.MaxRank).NumElements()
	assert.NoErrorf(t, err, "rank MaxRank: %v", err)
	_, err = make(ir.Shape, ir.MaxRank+1).NumElements()
	assert.ErrorIsf(t, err, ir.ErrShape, "rank MaxRank+1: %v", err)
}
