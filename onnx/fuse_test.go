package onnx

import (
	"math"
	"testing"

	"github.com/memplan/memplan/ir"
)

// layerNormChain is torch's opset-13 LayerNorm over x[2 8]; extra lets a
// case add graph outputs, gamma's dims are given.
func layerNormChain(gammaDims []int64, extraOutputs ...*onnxpb_VI) gdef {
	return gdef{
		inputs:  []*onnxpb_VI{vi("x", tF32, 2, 8)},
		outputs: append([]*onnxpb_VI{vi("z", tF32, 2, 8)}, extraOutputs...),
		inits:   []*onnxpb_TP{shapeOnly("gamma", gammaDims...), shapeOnly("beta", 8)},
		nodes: []*onnxpb_Node{
			node("ReduceMean", []string{"x"}, []string{"m"}, aInts("axes", -1)),
			node("Sub", []string{"x", "m"}, []string{"d"}),
			constNode("two", f32s("two", nil, 2)),
			node("Pow", []string{"d", "two"}, []string{"p"}),
			node("ReduceMean", []string{"p"}, []string{"v"}, aInts("axes", -1)),
			constNode("eps", f32s("eps", nil, 1e-5)),
			node("Add", []string{"eps", "v"}, []string{"a"}),
			node("Sqrt", []string{"a"}, []string{"s"}),
			node("Div", []string{"d", "s"}, []string{"n"}),
			node("Mul", []string{"gamma", "n"}, []string{"y"}),
			node("Add", []string{"y", "beta"}, []string{"z"}),
		},
	}
}

func geluChain(half float32) gdef {
	return gdef{
		inputs: []*onnxpb_VI{vi("x", tF32, 4)}, outputs: []*onnxpb_VI{vi("e", tF32, 4)},
		nodes: []*onnxpb_Node{
			constNode("r2", f32s("r2", nil, float32(math.Sqrt2))),
			node("Div", []string{"x", "r2"}, []string{"a"}),
			node("Erf", []string{"a"}, []string{"b"}),
			constNode("one", f32s("one", nil, 1)),
			node("Add", []string{"one", "b"}, []string{"c"}),
			node("Mul", []string{"c", "x"}, []string{"d"}),
			constNode("half", f32s("half", nil, half)),
			node("Mul", []string{"d", "half"}, []string{"e"}),
		},
	}
}

func rmsChain(reciprocal bool) gdef {
	rs := []*onnxpb_Node{constNode("one", f32s("one", nil, 1)), node("Div", []string{"one", "s"}, []string{"r"})}
	if reciprocal {
		rs = []*onnxpb_Node{node("Reciprocal", []string{"s"}, []string{"r"})}
	}
	nodes := []*onnxpb_Node{
		constNode("two", f32s("two", nil, 2)),
		node("Pow", []string{"x", "two"}, []string{"p"}),
		node("ReduceMean", []string{"p"}, []string{"m"}, aInts("axes", -1), aInt("keepdims", 1)),
		constNode("eps", f32s("eps", nil, 1e-6)),
		node("Add", []string{"m", "eps"}, []string{"a"}),
		node("Sqrt", []string{"a"}, []string{"s"}),
	}
	nodes = append(nodes, rs...)
	nodes = append(nodes, node("Mul", []string{"x", "r"}, []string{"y"}), node("Mul", []string{"y", "w"}, []string{"z"}))
	return gdef{inputs: []*onnxpb_VI{vi("x", tF32, 1, 3, 8)}, outputs: []*onnxpb_VI{vi("z", tF32, 1, 3, 8)},
		inits: []*onnxpb_TP{shapeOnly("w", 8)}, nodes: nodes}
}

func TestFuse(t *testing.T) {
	fused := func(op string, eps float64, inputs ...string) func(*testing.T, *ir.Graph) {
		return func(t *testing.T, g *ir.Graph) {
			eq(t, ops(g), []string{op})
			n := g.Nodes[0]
			var names []string
			for _, id := range n.Inputs {
				names = append(names, g.Values[id].Name)
			}
			eq(t, names, inputs)
			near(t, n.Attrs.GetFloat("epsilon", eps), eps, 1e-9)
			check(t, g.Values[n.Outputs[0]].Flags.Has(ir.FlagOutput), "the fused node writes the graph output")
			eq(t, len(g.Values), len(inputs)+1, "no constant of the chain reaches the graph")
		}
	}
	notFused := func(n int) func(*testing.T, *ir.Graph) {
		return func(t *testing.T, g *ir.Graph) { eq(t, len(g.Nodes), n) }
	}
	fuse := Options{Fuse: true}
	runImportCases(t, []importCase{
		{name: "LayerNorm chain", def: layerNormChain([]int64{8}), opts: fuse, check: fused("LayerNorm", 1e-5, "x", "gamma", "beta")},
		{name: "LayerNorm chain with an intermediate read outside", def: layerNormChain([]int64{8}, vi("d", tF32, 2, 8)), opts: fuse, check: notFused(9)},
		{name: "LayerNorm chain with a broadcast scale", def: layerNormChain([]int64{1, 8}), opts: fuse, check: notFused(9)},
		{name: "LayerNorm chain without Fuse", def: layerNormChain([]int64{8}), check: notFused(9)},
		{name: "GELU chain", def: geluChain(0.5), opts: fuse, check: fused("Gelu", 0, "x")},
		{name: "not GELU with another constant", def: geluChain(0.4), opts: fuse, check: notFused(5)},
		{name: "RMSNorm chain with Div(1, s)", def: rmsChain(false), opts: fuse, check: fused("RMSNorm", 1e-6, "x", "w")},
		{name: "RMSNorm chain with Reciprocal", def: rmsChain(true), opts: fuse, check: fused("RMSNorm", 1e-6, "x", "w")},
	})
}
