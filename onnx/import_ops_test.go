package onnx

import (
	"math"
	"testing"

	"github.com/memplan/memplan/ir"
)

// TestImportOpAttributes covers the mapping of each op family's attributes
// and opset-dependent forms.
func TestImportOpAttributes(t *testing.T) {
	x4 := []*onnxpb_VI{vi("x", tF32, 1, 2, 4, 4)}
	attrs := func(want ir.Attrs) func(*testing.T, *ir.Graph) {
		return func(t *testing.T, g *ir.Graph) {
			n := g.Nodes[len(g.Nodes)-1]
			check(t, !n.Opaque, "node is opaque:", n.Attrs)
			for k, v := range want {
				eq(t, n.Attrs[k], v, k)
			}
		}
	}
	opaque := func(reason string) func(*testing.T, *ir.Graph) {
		return func(t *testing.T, g *ir.Graph) {
			n := g.Nodes[len(g.Nodes)-1]
			check(t, n.Opaque, "want opaque")
			eq(t, n.Attrs.GetStr("memplan_reason", ""), reason)
		}
	}
	runImportCases(t, []importCase{
		{name: "LayerNormalization (opset 17)", def: gdef{opset: 17, inputs: []*onnxpb_VI{vi("x", tF32, 2, 8)}, outputs: []*onnxpb_VI{vi("y", tF32, 2, 8)},
			inits: []*onnxpb_TP{shapeOnly("s", 8), shapeOnly("b", 8)},
			nodes: []*onnxpb_Node{node("LayerNormalization", []string{"x", "s", "b"}, []string{"y"}, aInt("axis", -1), aFloat("epsilon", 1e-6))}},
			check: func(t *testing.T, g *ir.Graph) {
				eq(t, ops(g), []string{"LayerNorm"})
				near(t, g.Nodes[0].Attrs.GetFloat("epsilon", 0), 1e-6, 1e-12)
			}},
		{name: "Gemm", def: gdef{inputs: []*onnxpb_VI{vi("a", tF32, 3, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 2, 5)},
			inits: []*onnxpb_TP{shapeOnly("b", 5, 3), shapeOnly("c", 5)},
			nodes: []*onnxpb_Node{node("Gemm", []string{"a", "b", "c"}, []string{"y"}, aInt("transA", 1), aInt("transB", 1), aFloat("alpha", 0.5))}},
			check: attrs(ir.Attrs{"transA": ir.Int(1), "transB": ir.Int(1), "alpha": ir.Float(0.5), "beta": ir.Float(1)})},
		{name: "Softmax before opset 13 on the last axis", def: gdef{opset: 11, inputs: []*onnxpb_VI{vi("x", tF32, 2, 3)}, outputs: []*onnxpb_VI{vi("y", tF32, 2, 3)},
			nodes: []*onnxpb_Node{node("Softmax", []string{"x"}, []string{"y"})}},
			check: attrs(ir.Attrs{"axis": ir.Int(1)})},
		{name: "Softmax before opset 13 on an inner axis is opaque", def: gdef{opset: 11, inputs: []*onnxpb_VI{vi("x", tF32, 2, 3, 4)}, outputs: []*onnxpb_VI{vi("y", tF32, 2, 3, 4)},
			nodes: []*onnxpb_Node{node("Softmax", []string{"x"}, []string{"y"})}},
			check: opaque("Softmax before opset 13 on axis 1 of rank 3 (coerced to 2-D)")},
		{name: "ReduceMean axes input (opset 18)", def: gdef{opset: 18, inputs: x4, outputs: []*onnxpb_VI{vi("y", tF32, 1, 2)},
			nodes: []*onnxpb_Node{constNode("a", i64s("a", []int64{2}, 2, 3)), node("ReduceMean", []string{"x", "a"}, []string{"y"}, aInt("keepdims", 0))}},
			check: attrs(ir.Attrs{"axes": ir.Ints(2, 3), "keepdims": ir.Int(0)})},
		{name: "ReduceSum with no axes and noop_with_empty_axes is the identity", def: gdef{inputs: x4, outputs: []*onnxpb_VI{vi("y", tF32, 1, 2, 4, 4)},
			nodes: []*onnxpb_Node{node("ReduceSum", []string{"x"}, []string{"y"}, aInt("noop_with_empty_axes", 1))}},
			check: func(t *testing.T, g *ir.Graph) { eq(t, ops(g), []string{"Identity"}) }},
		{name: "AveragePool", def: gdef{inputs: x4, outputs: []*onnxpb_VI{vi("y", tF32, 1, 2, 2, 2)},
			nodes: []*onnxpb_Node{node("AveragePool", []string{"x"}, []string{"y"}, aInts("kernel_shape", 3, 3), aInts("strides", 2, 2), aInts("pads", 1, 1, 0, 0), aInt("count_include_pad", 1))}},
			check: attrs(ir.Attrs{"kernel_shape": ir.Ints(3, 3), "strides": ir.Ints(2, 2), "pads": ir.Ints(1, 1, 0, 0), "count_include_pad": ir.Int(1), "ceil_mode": ir.Int(0)})},
		{name: "MaxPool whose indices are used is opaque", def: gdef{inputs: x4, outputs: []*onnxpb_VI{vi("y", tF32, 1, 2, 2, 2), vi("i", tI64, 1, 2, 2, 2)},
			nodes: []*onnxpb_Node{node("MaxPool", []string{"x"}, []string{"y", "i"}, aInts("kernel_shape", 2, 2), aInts("strides", 2, 2))}},
			check: opaque("MaxPool indices output")},
		{name: "ConvTranspose with output_padding", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 1, 2, 3, 3)}, outputs: []*onnxpb_VI{vi("y", tF32, 1, 4, 6, 6)},
			inits: []*onnxpb_TP{shapeOnly("w", 2, 4, 3, 3)},
			nodes: []*onnxpb_Node{node("ConvTranspose", []string{"x", "w"}, []string{"y"}, aInts("strides", 2, 2), aInts("pads", 1, 1, 1, 1), aInts("output_padding", 1, 1))}},
			check: attrs(ir.Attrs{"output_padding": ir.Ints(1, 1), "pads": ir.Ints(1, 1, 1, 1)})},
		{name: "ConvTranspose with output_shape is opaque", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 1, 2, 3, 3)}, outputs: []*onnxpb_VI{vi("y", tF32, 1, 4, 8, 8)},
			inits: []*onnxpb_TP{shapeOnly("w", 2, 4, 3, 3)},
			nodes: []*onnxpb_Node{node("ConvTranspose", []string{"x", "w"}, []string{"y"}, aInts("strides", 2, 2), aInts("output_shape", 8, 8))}},
			check: opaque("ConvTranspose with output_shape")},
		{name: "1-D Conv is opaque", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 1, 2, 8)}, outputs: []*onnxpb_VI{vi("y", tF32, 1, 4, 6)},
			inits: []*onnxpb_TP{shapeOnly("w", 4, 2, 3)},
			nodes: []*onnxpb_Node{node("Conv", []string{"x", "w"}, []string{"y"})}},
			check: opaque("only 2-D convolutions are supported (weight [4 2 3])")},
		{name: "Gelu (opset 20)", def: gdef{opset: 20, inputs: []*onnxpb_VI{vi("x", tF32, 4)}, outputs: []*onnxpb_VI{vi("y", tF32, 4)},
			nodes: []*onnxpb_Node{node("Gelu", []string{"x"}, []string{"y"}, aStr("approximate", "tanh"))}},
			check: attrs(ir.Attrs{"approximate": ir.Str("tanh")})},
		{name: "HardSigmoid defaults", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 4)}, outputs: []*onnxpb_VI{vi("y", tF32, 4)},
			nodes: []*onnxpb_Node{node("HardSigmoid", []string{"x"}, []string{"y"})}},
			check: attrs(ir.Attrs{"alpha": ir.Float(0.2), "beta": ir.Float(0.5)})},
		{name: "Split into equal parts from the output count", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 6, 2)}, outputs: []*onnxpb_VI{vi("p", tF32, 2, 2), vi("q", tF32, 2, 2), vi("r", tF32, 2, 2)},
			nodes: []*onnxpb_Node{node("Split", []string{"x"}, []string{"p", "q", "r"})}},
			check: attrs(ir.Attrs{"num_outputs": ir.Int(3), "axis": ir.Int(0)})},
		{name: "Slice to INT64_MAX", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 4, 3)}, outputs: []*onnxpb_VI{vi("y", tF32, 3, 3)},
			nodes: []*onnxpb_Node{constNode("s", i64s("s", []int64{1}, 1)), constNode("e", i64s("e", []int64{1}, math.MaxInt64)),
				node("Slice", []string{"x", "s", "e"}, []string{"y"})}},
			check: func(t *testing.T, g *ir.Graph) {
				v := byName(g, "y")
				check(t, v.IsView() && v.View.OffsetBytes == 12, "row slice is a view at +12")
			}},
		{name: "Squeeze without axes drops every 1", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 1, 3, 1)}, outputs: []*onnxpb_VI{vi("y", tF32, 3)},
			nodes: []*onnxpb_Node{node("Squeeze", []string{"x"}, []string{"y"})}},
			check: func(t *testing.T, g *ir.Graph) { eq(t, byName(g, "y").Shape, ir.Shape{3}) }},
		{name: "Pad with axes (opset 18)", def: gdef{opset: 18, inputs: []*onnxpb_VI{vi("x", tF32, 2, 3)}, outputs: []*onnxpb_VI{vi("y", tF32, 2, 6)},
			nodes: []*onnxpb_Node{constNode("p", i64s("p", []int64{2}, 1, 2)), constNode("ax", i64s("ax", []int64{1}, -1)),
				node("Pad", []string{"x", "p", "", "ax"}, []string{"y"})}},
			check: attrs(ir.Attrs{"pads": ir.Ints(0, 1, 0, 2)})},
		{name: "Reshape with allowzero and a zero is opaque", def: gdef{opset: 14, inputs: []*onnxpb_VI{vi("x", tF32, 0, 3)}, outputs: []*onnxpb_VI{vi("y", tF32, 3, 0)},
			nodes: []*onnxpb_Node{constNode("s", i64s("s", []int64{2}, 3, 0)), node("Reshape", []string{"x", "s"}, []string{"y"}, aInt("allowzero", 1))}},
			check: opaque("Reshape with allowzero and a zero dimension")},
		{name: "Slice bounds computed at run time", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 4), vi("s", tI64, 1)}, outputs: []*onnxpb_VI{vi("y", tF32, 3)},
			nodes: []*onnxpb_Node{constNode("e", i64s("e", []int64{1}, 4)), node("Slice", []string{"x", "s", "e"}, []string{"y"})}},
			err: ErrNotConstant, msg: `Slice starts (input 1 "s")`},
		{name: "Concat without axis", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 4)}, outputs: []*onnxpb_VI{vi("y", tF32, 8)},
			nodes: []*onnxpb_Node{node("Concat", []string{"x", "x"}, []string{"y"})}},
			err: ErrAttr, msg: `"Concat_y"`},
		{name: "Cast to a string tensor", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 4)}, outputs: []*onnxpb_VI{vi("y", tF32, 4)},
			nodes: []*onnxpb_Node{node("Cast", []string{"x"}, []string{"y"}, aInt("to", 8))}},
			err: ErrDType, msg: `"Cast_y"`},
		{name: "attribute of the wrong type", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 4)}, outputs: []*onnxpb_VI{vi("y", tF32, 4)},
			nodes: []*onnxpb_Node{node("Softmax", []string{"x"}, []string{"y"}, aStr("axis", "last"))}},
			err: ErrAttr, msg: `"axis" is STRING`},
	})
}
