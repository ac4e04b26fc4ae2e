package onnx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx/onnxpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type importCase struct {
	name  string
	def   gdef
	opts  Options
	check func(t *testing.T, g *ir.Graph)
	err   error  // expected sentinel, nil for success
	msg   string // substring the error must contain (the node's name)
}

func runImportCases(t *testing.T, cases []importCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Import(tc.def.bytes(t), tc.opts)
			if tc.err != nil {
				errIs(t, err, tc.err, tc.msg)
				return
			}
			must(t, err)
			must(t, g.Validate())
			tc.check(t, g)
		})
	}
}

func TestImportViews(t *testing.T) {
	x := []*onnxpb_VI{vi("x", tF32, 2, 3, 4)}
	isView := func(name string, want bool, off int64) func(*testing.T, *ir.Graph) {
		return func(t *testing.T, g *ir.Graph) {
			v := byName(g, name)
			notNil(t, v)
			eq(t, want, v.IsView(), "view")
			if want {
				eq(t, off, v.View.OffsetBytes)
				check(t, g.IsViewNode(g.Node(v.Producer)))
			}
			eq(t, "x", g.Values[0].Name)
		}
	}
	runImportCases(t, []importCase{
		{name: "reshape with a constant shape", def: gdef{inputs: x, outputs: []*onnxpb_VI{vi("y", tF32, 6, 4)},
			nodes: []*onnxpb_Node{constNode("s", i64s("s", []int64{2}, -1, 4)), node("Reshape", []string{"x", "s"}, []string{"y"})}},
			check: func(t *testing.T, g *ir.Graph) {
				isView("y", true, 0)(t, g)
				eq(t, []int64{-1, 4}, g.Nodes[0].Attrs.GetInts("shape", nil))
				check(t, byName(g, "s") == nil, "a shape folded into an attribute is not a value")
			}},
		{name: "flatten", def: gdef{inputs: x, outputs: []*onnxpb_VI{vi("y", tF32, 2, 12)},
			nodes: []*onnxpb_Node{node("Flatten", []string{"x"}, []string{"y"})}}, check: isView("y", true, 0)},
		{name: "unsqueeze axes input (opset 13)", def: gdef{inputs: x, outputs: []*onnxpb_VI{vi("y", tF32, 2, 1, 3, 4)},
			nodes: []*onnxpb_Node{constNode("a", i64s("a", []int64{1}, 1)), node("Unsqueeze", []string{"x", "a"}, []string{"y"})}},
			check: isView("y", true, 0)},
		{name: "squeeze axes attribute (opset 11)", def: gdef{opset: 11, inputs: []*onnxpb_VI{vi("x", tF32, 2, 1, 4)}, outputs: []*onnxpb_VI{vi("y", tF32, 2, 4)},
			nodes: []*onnxpb_Node{node("Squeeze", []string{"x"}, []string{"y"}, aInts("axes", 1))}},
			check: isView("y", true, 0)},
		{name: "identity of an input", def: gdef{inputs: x, outputs: []*onnxpb_VI{vi("y", tF32, 2, 3, 4)},
			nodes: []*onnxpb_Node{node("Identity", []string{"x"}, []string{"y"})}}, check: isView("y", true, 0)},
		{name: "same-type cast", def: gdef{inputs: x, outputs: []*onnxpb_VI{vi("y", tF32, 2, 3, 4)},
			nodes: []*onnxpb_Node{node("Cast", []string{"x"}, []string{"y"}, aInt("to", int64(tF32)))}}, check: isView("y", true, 0)},
		{name: "cast to another type copies", def: gdef{inputs: x, outputs: []*onnxpb_VI{vi("y", tI64, 2, 3, 4)},
			nodes: []*onnxpb_Node{node("Cast", []string{"x"}, []string{"y"}, aInt("to", int64(tI64)))}}, check: isView("y", false, 0)},
		{name: "contiguous slice is a view at its offset", def: gdef{inputs: x, outputs: []*onnxpb_VI{vi("y", tF32, 1, 3, 4)},
			nodes: []*onnxpb_Node{
				constNode("st", i64s("st", []int64{1}, 1)), constNode("en", i64s("en", []int64{1}, 2)), constNode("ax", i64s("ax", []int64{1}, 0)),
				node("Slice", []string{"x", "st", "en", "ax"}, []string{"y"})}},
			check: isView("y", true, 48)},
		{name: "strided slice copies", def: gdef{inputs: x, outputs: []*onnxpb_VI{vi("y", tF32, 2, 3, 2)},
			nodes: []*onnxpb_Node{
				constNode("st", i64s("st", []int64{1}, 0)), constNode("en", i64s("en", []int64{1}, 2)), constNode("ax", i64s("ax", []int64{1}, -1)),
				node("Slice", []string{"x", "st", "en", "ax"}, []string{"y"})}},
			check: isView("y", false, 0)},
	})
}

func TestImportFolding(t *testing.T) {
	x := []*onnxpb_VI{vi("x", tF32, 1, 16, 64)}
	runImportCases(t, []importCase{
		{name: "traced view: Shape, Gather, Unsqueeze, Concat fold into Reshape's shape",
			def: gdef{inputs: x, outputs: []*onnxpb_VI{vi("y", tF32, 1, 16, 4, 16)}, nodes: []*onnxpb_Node{
				node("Shape", []string{"x"}, []string{"s"}),
				constNode("i0", i64s("i0", nil, 0)), constNode("i1", i64s("i1", nil, 1)), constNode("ax", i64s("ax", []int64{1}, 0)),
				node("Gather", []string{"s", "i0"}, []string{"b"}, aInt("axis", 0)),
				node("Gather", []string{"s", "i1"}, []string{"t"}, aInt("axis", 0)),
				node("Unsqueeze", []string{"b", "ax"}, []string{"b1"}),
				node("Unsqueeze", []string{"t", "ax"}, []string{"t1"}),
				constNode("hd", i64s("hd", []int64{2}, 4, 16)),
				node("Concat", []string{"b1", "t1", "hd"}, []string{"sh"}, aInt("axis", 0)),
				node("Reshape", []string{"x", "sh"}, []string{"y"})}},
			check: func(t *testing.T, g *ir.Graph) {
				eq(t, []string{"Reshape"}, ops(g))
				eq(t, []int64{1, 16, 4, 16}, g.Nodes[0].Attrs.GetInts("shape", nil))
				eq(t, len(g.Values), 2, "only x and y remain")
			}},
		{name: "mask: ConstantOfShape, Equal, Where fold into one constant operand",
			def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 2, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 2, 2)}, nodes: []*onnxpb_Node{
				constNode("shape", i64s("shape", []int64{2}, 2, 2)),
				node("ConstantOfShape", []string{"shape"}, []string{"zeros"}, aTensor("value", i64s("", []int64{1}, 0))),
				constNode("eye", i64s("eye", []int64{2, 2}, 1, 0, 0, 1)),
				node("Equal", []string{"zeros", "eye"}, []string{"off"}),
				constNode("ninf", f32s("ninf", nil, -100)), constNode("zero", f32s("zero", nil, 0)),
				node("Where", []string{"off", "ninf", "zero"}, []string{"mask"}),
				node("Add", []string{"x", "mask"}, []string{"y"})}},
			check: func(t *testing.T, g *ir.Graph) {
				eq(t, []string{"Add"}, ops(g))
				m := byName(g, "mask")
				notNil(t, m)
				check(t, m.Flags.Has(ir.FlagConstant))
				eq(t, []float32{0, -100, -100, 0}, f32Values(m.Data))
			}},
		{name: "Range and Expand of a folded shape",
			def: gdef{inputs: []*onnxpb_VI{vi("x", tI64, 1, 4)}, outputs: []*onnxpb_VI{vi("y", tI64, 1, 4)}, nodes: []*onnxpb_Node{
				constNode("a", i64s("a", nil, 0)), constNode("b", i64s("b", nil, 4)), constNode("d", i64s("d", nil, 1)),
				node("Range", []string{"a", "b", "d"}, []string{"r"}),
				node("Shape", []string{"x"}, []string{"s"}),
				node("Expand", []string{"r", "s"}, []string{"re"}),
				node("Mul", []string{"x", "re"}, []string{"y"})}},
			check: func(t *testing.T, g *ir.Graph) {
				eq(t, []string{"Mul"}, ops(g))
				eq(t, []int64{0, 1, 2, 3}, i64Values(byName(g, "re").Data))
			}},
		{name: "ConstantOfShape above the fold limit is an Expand node",
			opts: Options{FoldLimit: 8},
			def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 4, 4)}, outputs: []*onnxpb_VI{vi("y", tF32, 4, 4)}, nodes: []*onnxpb_Node{
				constNode("shape", i64s("shape", []int64{2}, 4, 4)),
				node("ConstantOfShape", []string{"shape"}, []string{"ones"}, aTensor("value", f32s("", []int64{1}, 1))),
				node("Add", []string{"x", "ones"}, []string{"y"})}},
			check: func(t *testing.T, g *ir.Graph) {
				eq(t, []string{"Expand", "Add"}, ops(g))
				eq(t, []float32{1}, f32Values(g.Values[g.Nodes[0].Inputs[0]].Data))
			}},
		{name: "Clip bounds from constant inputs",
			def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 4)}, outputs: []*onnxpb_VI{vi("y", tF32, 4)}, nodes: []*onnxpb_Node{
				constNode("lo", f32s("lo", nil, 0)), constNode("hi", f32s("hi", nil, 6)),
				node("Clip", []string{"x", "lo", "hi"}, []string{"y"})}},
			check: func(t *testing.T, g *ir.Graph) {
				a := g.Nodes[0].Attrs
				eq(t, []any{0.0, 6.0}, []any{a.GetFloat("min", -1), a.GetFloat("max", -1)})
			}},
		{name: "Pad pads and value from inputs",
			def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 1, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 1, 5)}, nodes: []*onnxpb_Node{
				constNode("p", i64s("p", []int64{4}, 0, 1, 0, 2)), constNode("v", f32s("v", nil, 3)),
				node("Pad", []string{"x", "p", "v"}, []string{"y"})}},
			check: func(t *testing.T, g *ir.Graph) {
				a := g.Nodes[0].Attrs
				eq(t, []int64{0, 1, 0, 2}, a.GetInts("pads", nil))
				eq(t, 3.0, a.GetFloat("value", 0))
			}},
	})
}

func TestImportOps(t *testing.T) {
	runImportCases(t, []importCase{
		{name: "Conv auto_pad SAME_UPPER becomes explicit pads",
			def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 1, 1, 5, 5)}, outputs: []*onnxpb_VI{vi("y", tF32, 1, 2, 3, 3)},
				inits: []*onnxpb_TP{shapeOnly("w", 2, 1, 4, 4)},
				nodes: []*onnxpb_Node{node("Conv", []string{"x", "w"}, []string{"y"}, aStr("auto_pad", "SAME_UPPER"), aInts("strides", 2, 2))}},
			check: func(t *testing.T, g *ir.Graph) {
				// out 3 = ceil(5/2); total pad (3-1)*2+4-5 = 3: 1 before, 2 after.
				eq(t, []int64{1, 1, 2, 2}, g.Nodes[0].Attrs.GetInts("pads", nil))
			}},
		{name: "Conv auto_pad SAME_LOWER puts the odd pad first",
			def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 1, 1, 5, 5)}, outputs: []*onnxpb_VI{vi("y", tF32, 1, 2, 3, 3)},
				inits: []*onnxpb_TP{shapeOnly("w", 2, 1, 4, 4)},
				nodes: []*onnxpb_Node{node("Conv", []string{"x", "w"}, []string{"y"}, aStr("auto_pad", "SAME_LOWER"), aInts("strides", 2, 2))}},
			check: func(t *testing.T, g *ir.Graph) {
				eq(t, []int64{2, 2, 1, 1}, g.Nodes[0].Attrs.GetInts("pads", nil))
			}},
		{name: "BatchNormalization maps to BatchNorm",
			def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 1, 3, 2, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 1, 3, 2, 2)},
				inits: []*onnxpb_TP{shapeOnly("s", 3), shapeOnly("b", 3), shapeOnly("m", 3), shapeOnly("v", 3)},
				nodes: []*onnxpb_Node{node("BatchNormalization", []string{"x", "s", "b", "m", "v"}, []string{"y"}, aFloat("epsilon", 1e-3))}},
			check: func(t *testing.T, g *ir.Graph) {
				eq(t, []string{"BatchNorm"}, ops(g))
				near(t, 1e-3, g.Nodes[0].Attrs.GetFloat("epsilon", 0), 1e-9)
			}},
		{name: "variadic Max is a chain of binary nodes",
			def: gdef{inputs: []*onnxpb_VI{vi("a", tF32, 2), vi("b", tF32, 2), vi("c", tF32, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 2)},
				nodes: []*onnxpb_Node{node("Max", []string{"a", "b", "c"}, []string{"y"})}},
			check: func(t *testing.T, g *ir.Graph) {
				eq(t, []string{"Max", "Max"}, ops(g))
				eq(t, "Max_y", g.Nodes[1].Name, "every link keeps the ONNX node's name")
			}},
		{name: "Pow with an integer exponent casts it",
			def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 2)},
				nodes: []*onnxpb_Node{constNode("e", i64s("e", nil, 2)), node("Pow", []string{"x", "e"}, []string{"y"})}},
			check: func(t *testing.T, g *ir.Graph) {
				e := g.Values[g.Nodes[0].Inputs[1]]
				eq(t, ir.F32, e.DType)
				eq(t, []float32{2}, f32Values(e.Data))
			}},
		{name: "Split with sizes from an input names every output",
			def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 6)}, outputs: []*onnxpb_VI{vi("p", tF32, 2), vi("q", tF32, 4)},
				nodes: []*onnxpb_Node{constNode("sp", i64s("sp", []int64{2}, 2, 4)), node("Split", []string{"x", "sp"}, []string{"p", "q"})}},
			check: func(t *testing.T, g *ir.Graph) {
				eq(t, []int64{2, 4}, g.Nodes[0].Attrs.GetInts("split", nil))
				eq(t, "Split_p", g.Nodes[0].Name)
				check(t, byName(g, "q") != nil)
			}},
		{name: "unread optional outputs are dropped",
			def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 1, 3, 2, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 1, 3, 2, 2)},
				inits: []*onnxpb_TP{shapeOnly("s", 3), shapeOnly("b", 3), shapeOnly("m", 3), shapeOnly("v", 3)},
				nodes: []*onnxpb_Node{node("BatchNormalization", []string{"x", "s", "b", "m", "v"}, []string{"y", "rm", "rv"})}},
			check: func(t *testing.T, g *ir.Graph) {
				eq(t, ops(g), []string{"BatchNorm"})
				check(t, byName(g, "rm") == nil)
			}},
		{name: "Dropout is the identity",
			def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 2)},
				nodes: []*onnxpb_Node{node("Dropout", []string{"x"}, []string{"y"})}},
			check: func(t *testing.T, g *ir.Graph) { eq(t, []string{"Identity"}, ops(g)) }},
	})
}

func TestImportOpaque(t *testing.T) {
	leaky := gdef{inputs: []*onnxpb_VI{vi("x", tF32, 2, 3)}, outputs: []*onnxpb_VI{vi("z", tF32, 2, 3)},
		infos: []*onnxpb_VI{vi("y", tF32, 2, 3)},
		nodes: []*onnxpb_Node{
			node("LeakyRelu", []string{"x"}, []string{"y"}, aFloat("alpha", 0.5)),
			node("LeakyRelu", []string{"y"}, []string{"z"})}}
	runImportCases(t, []importCase{
		{name: "unknown op typed from value_info", def: leaky, check: func(t *testing.T, g *ir.Graph) {
			eq(t, len(g.Nodes), 2)
			check(t, g.Nodes[0].Opaque)
			eq(t, ir.Shape{2, 3}, byName(g, "y").Shape)
			near(t, 0.5, g.Nodes[0].Attrs.GetFloat("alpha", 0), 1e-9, "attributes are kept")
			eq(t, map[string]int{"LeakyRelu": 2}, Unsupported(g))
			err := CheckRunnable(g)
			errIs(t, err, ErrUnsupported, "LeakyRelu x2")
		}},
		{name: "op of another domain", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 2)},
			nodes: []*onnxpb_Node{func() *onnxpb_Node {
				n := node("FusedGemm", []string{"x"}, []string{"y"})
				n.Domain = protoString("com.microsoft")
				return n
			}()}},
			check: func(t *testing.T, g *ir.Graph) {
				eq(t, map[string]int{"com.microsoft.FusedGemm": 1}, Unsupported(g))
			}},
		{name: "core op with unsupported attributes says why", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 1, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 1, 4)},
			nodes: []*onnxpb_Node{constNode("p", i64s("p", []int64{4}, 0, 1, 0, 1)), node("Pad", []string{"x", "p"}, []string{"y"}, aStr("mode", "reflect"))}},
			check: func(t *testing.T, g *ir.Graph) {
				n := g.Nodes[len(g.Nodes)-1]
				check(t, n.Opaque)
				eq(t, "Pad mode reflect", n.Attrs.GetStr("memplan_reason", ""))
				check(t, CheckRunnable(g) != nil)
			}},
		{name: "core graph is runnable", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 2)},
			nodes: []*onnxpb_Node{node("Relu", []string{"x"}, []string{"y"})}},
			check: func(t *testing.T, g *ir.Graph) {
				eq(t, len(Unsupported(g)), 0)
				must(t, CheckRunnable(g))
			}},
		{name: "control flow reads outer values through its subgraphs", def: gdef{
			inputs: []*onnxpb_VI{vi("c", tBool), vi("x", tF32, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 2)},
			nodes: []*onnxpb_Node{
				node("Relu", []string{"x"}, []string{"a"}),
				node("Neg", []string{"x"}, []string{"b"}),
				node("If", []string{"c"}, []string{"y"},
					&onnxpb.AttributeProto{Name: protoString("then_branch"), Type: onnxpb.AttributeProto_GRAPH.Enum(), G: &onnxpb.GraphProto{
						Node:   []*onnxpb_Node{node("Add", []string{"a", "a"}, []string{"t"})},
						Output: []*onnxpb_VI{vi("t", tF32, 2)}}},
					&onnxpb.AttributeProto{Name: protoString("else_branch"), Type: onnxpb.AttributeProto_GRAPH.Enum(), G: &onnxpb.GraphProto{
						Output: []*onnxpb_VI{vi("b", tF32, 2)}}}),
			}},
			check: func(t *testing.T, g *ir.Graph) {
				n := g.Nodes[2]
				check(t, n.Opaque)
				var names []string
				for _, id := range n.Inputs {
					names = append(names, g.Values[id].Name)
				}
				eq(t, names, []string{"c", "a", "b"})
			}},
		{name: "unknown op without a shape fails naming the node", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 2)}, outputs: []*onnxpb_VI{vi("z", tF32, 2)},
			nodes: []*onnxpb_Node{node("Mystery", []string{"x"}, []string{"y"}), node("Relu", []string{"y"}, []string{"z"})}},
			err: ErrNoShape, msg: `"Mystery_y"`},
	})
}

func TestImportFlags(t *testing.T) {
	def := gdef{
		inputs:  []*onnxpb_VI{vi("x", tF32, 2, 3), vi("w", tF32, 3, 2)},
		outputs: []*onnxpb_VI{vi("y", tF32, 2, 2)},
		inits: []*onnxpb_TP{
			f32s("w", []int64{3, 2}, 1, 2, 3, 4, 5, 6), // also listed as an input: a weight
			shapeOnly("b", 2),                          // dims, no data
			shapeOnly("unused", 1000),
		},
		nodes: []*onnxpb_Node{
			node("MatMul", []string{"x", "w"}, []string{"h"}),
			node("Add", []string{"h", "b"}, []string{"hb"}),
			constNode("k", f32s("k", nil, 2)),
			node("Mul", []string{"hb", "k"}, []string{"y"}),
		},
	}
	runImportCases(t, []importCase{{name: "inputs, weights, shape-only weights, constants, outputs", def: def,
		check: func(t *testing.T, g *ir.Graph) {
			flags := map[string]ir.Flags{}
			for _, v := range g.Values {
				flags[v.Name] = v.Flags
			}
			eq(t, map[string]ir.Flags{"x": ir.FlagInput, "w": ir.FlagWeight, "h": 0, "b": ir.FlagWeight, "hb": 0, "k": ir.FlagConstant, "y": ir.FlagOutput}, flags)
			eq(t, []float32{1, 2, 3, 4, 5, 6}, f32Values(byName(g, "w").Data))
			check(t, byName(g, "b").Data == nil, "shape-only weight")
			check(t, byName(g, "unused") == nil, "unused initializers stay out")
		}}})
}

func TestImportErrors(t *testing.T) {
	ok := func() gdef {
		return gdef{inputs: []*onnxpb_VI{vi("x", tF32, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 2)},
			nodes: []*onnxpb_Node{node("Relu", []string{"x"}, []string{"y"})}}
	}
	with := func(f func(d *gdef)) gdef { d := ok(); f(&d); return d }
	runImportCases(t, []importCase{
		{name: "opset too old", def: with(func(d *gdef) { d.opset = 9 }), err: ErrOpset, msg: "opset 9"},
		{name: "dangling input", def: with(func(d *gdef) { d.nodes[0].Input = []string{"nope"} }), err: ErrUndefined, msg: `"Relu_y"`},
		{name: "undefined graph output", def: with(func(d *gdef) { d.outputs = []*onnxpb_VI{vi("ghost", tF32, 2)} }), err: ErrUndefined, msg: "ghost"},
		{name: "name defined twice", def: with(func(d *gdef) {
			d.nodes = append(d.nodes, node("Relu", []string{"x"}, []string{"y"}))
		}), err: ErrRedefined, msg: `"y"`},
		{name: "reshape shape computed at run time", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 4), vi("s", tI64, 1)}, outputs: []*onnxpb_VI{vi("y", tF32, 4)},
			nodes: []*onnxpb_Node{node("Reshape", []string{"x", "s"}, []string{"y"})}}, err: ErrNotConstant, msg: `"Reshape_y"`},
		{name: "value_info disagrees with the shape rules", def: with(func(d *gdef) { d.outputs = []*onnxpb_VI{vi("y", tF32, 3)} }),
			err: ErrShapeMismatch, msg: `"Relu_y"`},
		{name: "unbound symbolic input dimension", def: with(func(d *gdef) { d.inputs = []*onnxpb_VI{viSym("x", tF32, "batch")} }),
			err: ErrNoShape, msg: `"batch"`},
		{name: "raw data of the wrong length", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 2)},
			inits: []*onnxpb_TP{f32s("w", []int64{3}, 1, 2)}, nodes: []*onnxpb_Node{node("Add", []string{"x", "w"}, []string{"y"})}},
			err: ErrTensor, msg: `"w"`},
		{name: "constant folding failure names the node", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 2)}, outputs: []*onnxpb_VI{vi("y", tF32, 2)},
			nodes: []*onnxpb_Node{node("Shape", []string{"x"}, []string{"s"}), constNode("i", i64s("i", nil, 5)),
				node("Gather", []string{"s", "i"}, []string{"d"}), node("Relu", []string{"x"}, []string{"y"})}},
			err: ErrFold, msg: `"Gather_d"`},
		{name: "shape rule failure names the node", def: gdef{inputs: []*onnxpb_VI{vi("x", tF32, 2, 3), vi("w", tF32, 2, 3)}, outputs: []*onnxpb_VI{vi("y", tF32, 2, 3)},
			nodes: []*onnxpb_Node{node("MatMul", []string{"x", "w"}, []string{"y"})}}, err: ir.ErrShape, msg: `"MatMul_y"`},
	})
	t.Run("symbolic dimension bound by DimParams", func(t *testing.T) {
		d := with(func(d *gdef) {
			d.inputs = []*onnxpb_VI{viSym("x", tF32, "batch")}
			d.outputs = []*onnxpb_VI{viSym("y", tF32, "batch")}
		})
		g, err := Import(d.bytes(t), Options{DimParams: map[string]int64{"batch": 2}})
		must(t, err)
		eq(t, ir.Shape{2}, g.Values[0].Shape)
	})
	t.Run("DimParams naming a dimension the model lacks", func(t *testing.T) {
		d := with(func(d *gdef) {
			d.inputs = []*onnxpb_VI{viSym("x", tF32, "batch")}
			d.outputs = []*onnxpb_VI{viSym("y", tF32, "seq")}
		})
		_, err := Import(d.bytes(t), Options{DimParams: map[string]int64{"batch": 2, "bacth": 1, "zz": 3}})
		errIs(t, err, ErrDimParam, `binds "bacth", "zz", which the model does not have (its symbolic dimensions: batch, seq)`)
		_, err = Import(ok().bytes(t), Options{DimParams: map[string]int64{"batch": 2}})
		errIs(t, err, ErrDimParam, "(its symbolic dimensions: none)")
	})
	t.Run("truncated protobuf", func(t *testing.T) {
		b := ok().bytes(t)
		_, err := Import(b[:len(b)-3], Options{})
		errIs(t, err, ErrProto, "")
	})
	t.Run("every error names the package", func(t *testing.T) {
		_, err := Import([]byte{0xff}, Options{})
		check(t, err != nil, "want an error")
		check(t, strings.HasPrefix(err.Error(), "onnx: "), err.Error())
		check(t, !errors.Is(err, ErrOpset))
	})
}

func TestImportNoOpsetImport(t *testing.T) {
	m := gdef{inputs: []*onnxpb_VI{vi("x", tF32, 2)}, outputs: []*onnxpb_VI{vi("x", tF32, 2)}}.model()
	m.OpsetImport = nil
	_, err := ImportModel(m, Options{})
	errIs(t, err, ErrOpset, "opset -1")
}

// TestUnsupportedHostileGraphs: a nil graph or nil nodes (which ir.Validate
// reports) are counted around, not dereferenced.
func TestUnsupportedHostileGraphs(t *testing.T) {
	eq(t, len(Unsupported(nil)), 0)
	g := &ir.Graph{Nodes: []*ir.Node{nil, {Op: "Mystery", Opaque: true}}}
	eq(t, map[string]int{"Mystery": 1}, Unsupported(g))
	errIs(t, CheckRunnable(g), ErrUnsupported, "Mystery x1")
}

// TestImportFileNamesFileOnce: a file that is no model is refused with
// ErrProto, and the message names the package and the file once each.
func TestImportFileNamesFileOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "garbage.onnx")
	require.NoError(t, os.WriteFile(path, []byte("not a model\xff\xff"), 0o644))
	_, err := ImportFile(path, Options{})
	require.ErrorIs(t, err, ErrProto)
	msg := err.Error()
	assert.Equal(t, 1, strings.Count(msg, path), msg)
	require.True(t, strings.HasPrefix(msg, "onnx: "+path+": "), msg)
	assert.False(t, strings.HasPrefix(strings.TrimPrefix(msg, "onnx: "+path+": "), "onnx: "), msg)
}
