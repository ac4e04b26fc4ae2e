package onnx

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/require"
)

// TestFoldingMatchesCPU checks the constant folder against an independent
// oracle, the CPU backend's kernels: a random chain of foldable ops applied
// to a constant must fold to exactly the bytes that the same chain computes
// when the constant is a graph input instead. Values are small integers and
// divisors powers of two, so both sides are exact and must agree bit for bit.
func TestFoldingMatchesCPU(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		shape := rapid.SliceOfN(rapid.Int64Range(1, 4), 1, 3).Draw(t, "shape")
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		vals := make([]float32, n)
		for i := range vals {
			vals[i] = float32(rapid.IntRange(-8, 8).Draw(t, "x"))
		}
		ch := &chain{cur: "x", shape: shape}
		steps := rapid.IntRange(1, 5).Draw(t, "steps")
		for i := range steps {
			ch.step(t, i)
		}
		out := []*onnxpb_VI{{Name: protoString(ch.cur)}}
		folded := gdef{outputs: out, nodes: append([]*onnxpb_Node{constNode("x", f32s("x", shape, vals...))}, ch.nodes...)}
		g, err := Import(folded.bytes(t), Options{})
		require.NoErrorf(t, err, "folded import: %v", err)
		if len(g.Nodes) != 0 {
			t.Fatalf("%d nodes left after folding: %v", len(g.Nodes), ops(g))
		}
		want := g.Values[OutputValues(g)[0]]

		live := gdef{inputs: []*onnxpb_VI{vi("x", tF32, shape...)}, outputs: out, nodes: ch.nodes}
		g, err = Import(live.bytes(t), Options{})
		require.NoErrorf(t, err, "live import: %v", err)
		order, err := g.Schedule()
		require.NoErrorf(t, err, "%v", err)
		plan, err := planner.PlanGraph(context.Background(), g, order, planner.Options{})
		require.NoErrorf(t, err, "%v", err)
		prog, err := exec.CompilePlan(g, order, plan, exec.Serial)
		require.NoErrorf(t, err, "%v", err)
		in := map[ir_ValueID][]byte{InputValues(g)[0]: f32s("", nil, vals...).RawData}
		res, err := exec.RunOnce(context.Background(), cpu.New(cpu.Options{Workers: 1}), prog, in, exec.RunOptions{})
		require.NoErrorf(t, err, "%v", err)
		got := res.Outputs[OutputValues(g)[0]]
		if !bytes.Equal(got, want.Data) {
			t.Fatalf("ops %v: CPU gives %v, folding gives %v%v", ops(g), f32Values(got), want.Shape, f32Values(want.Data))
		}
	})
}

// chain builds a random sequence of ONNX nodes over one f32 tensor.
type chain struct {
	cur   string
	shape []int64
	nodes []*onnxpb_Node
	k     int
}

func (c *chain) name(prefix string) string {
	c.k++
	return fmt.Sprintf("%s%d", prefix, c.k)
}

func (c *chain) konst(vals []int64) string {
	name := c.name("k")
	c.nodes = append(c.nodes, constNode(name, i64s(name, []int64{int64(len(vals))}, vals...)))
	return name
}

func (c *chain) f32konst(shape []int64, vals []float32) string {
	name := c.name("c")
	c.nodes = append(c.nodes, constNode(name, f32s(name, shape, vals...)))
	return name
}

func (c *chain) numel() int64 {
	n := int64(1)
	for _, d := range c.shape {
		n *= d
	}
	return n
}

func (c *chain) emit(op string, ins []string, shape []int64, attrs ...*onnxpb_Attr) {
	out := c.name("v")
	c.nodes = append(c.nodes, node(op, ins, []string{out}, attrs...))
	c.cur, c.shape = out, shape
}

func (c *chain) step(t *rapid.T, i int) {
	r := len(c.shape)
	kinds := []string{"unary", "binary", "transpose", "slice", "reshape", "unsqueeze", "concat", "pad", "expand", "gather", "where", "clip", "sqrt", "cast"}
	switch kinds[rapid.IntRange(0, len(kinds)-1).Draw(t, "op")] {
	case "unary":
		op := rapid.SampledFrom([]string{"Neg", "Abs", "Relu"}).Draw(t, "unary")
		c.emit(op, []string{c.cur}, c.shape)
	case "binary":
		op := rapid.SampledFrom([]string{"Add", "Sub", "Mul", "Div", "Max", "Min"}).Draw(t, "binary")
		k := rapid.IntRange(0, r).Draw(t, "suffix")
		cs := append([]int64{}, c.shape[r-k:]...)
		for j := range cs {
			if rapid.Bool().Draw(t, "bcast") {
				cs[j] = 1
			}
		}
		n := int64(1)
		for _, d := range cs {
			n *= d
		}
		vals := make([]float32, n)
		for j := range vals {
			if op == "Div" {
				vals[j] = rapid.SampledFrom([]float32{1, 2, 4, -2}).Draw(t, "div")
			} else {
				vals[j] = float32(rapid.IntRange(-4, 4).Draw(t, "c"))
			}
		}
		out, _ := broadcastShape(c.shape, cs)
		c.emit(op, []string{c.cur, c.f32konst(cs, vals)}, out)
	case "transpose":
		perm := rapid.Permutation(seq(r)).Draw(t, "perm")
		sh := make([]int64, r)
		for j, p := range perm {
			sh[j] = c.shape[p]
		}
		c.emit("Transpose", []string{c.cur}, sh, aInts("perm", perm...))
	case "slice":
		ax := rapid.IntRange(0, r-1).Draw(t, "axis")
		d := c.shape[ax]
		step := rapid.SampledFrom([]int64{1, 2, -1}).Draw(t, "step")
		s := rapid.Int64Range(0, d-1).Draw(t, "start")
		var e, ext int64
		if step > 0 {
			e = rapid.Int64Range(s+1, d).Draw(t, "end")
			ext = (e - s + step - 1) / step
		} else {
			e = rapid.Int64Range(-1, s-1).Draw(t, "end")
			ext = s - e
			if e == -1 {
				e = math.MinInt64
			}
		}
		sh := append([]int64{}, c.shape...)
		sh[ax] = ext
		c.emit("Slice", []string{c.cur, c.konst([]int64{s}), c.konst([]int64{e}), c.konst([]int64{int64(ax)}), c.konst([]int64{step})}, sh)
	case "reshape":
		c.emit("Reshape", []string{c.cur, c.konst([]int64{-1})}, []int64{c.numel()})
	case "unsqueeze":
		if r >= 4 {
			return
		}
		ax := rapid.IntRange(0, r).Draw(t, "axis")
		sh := append(append(append([]int64{}, c.shape[:ax]...), 1), c.shape[ax:]...)
		c.emit("Unsqueeze", []string{c.cur, c.konst([]int64{int64(ax)})}, sh)
	case "concat":
		if c.numel() > 64 {
			return
		}
		ax := rapid.IntRange(0, r-1).Draw(t, "axis")
		sh := append([]int64{}, c.shape...)
		sh[ax] *= 2
		c.emit("Concat", []string{c.cur, c.cur}, sh, aInt("axis", int64(ax)))
	case "pad":
		if c.numel() > 64 {
			return
		}
		pads := make([]int64, 2*r)
		sh := append([]int64{}, c.shape...)
		for j := range pads {
			pads[j] = rapid.Int64Range(0, 1).Draw(t, "pad")
			sh[j%r] += pads[j]
		}
		v := float32(rapid.IntRange(-2, 2).Draw(t, "value"))
		c.emit("Pad", []string{c.cur, c.konst(pads), c.f32konst(nil, []float32{v})}, sh)
	case "expand":
		if r >= 4 || c.numel() > 64 {
			return
		}
		sh := append([]int64{2}, c.shape...)
		c.emit("Expand", []string{c.cur, c.konst(sh)}, sh)
	case "gather":
		ax := rapid.IntRange(0, r-1).Draw(t, "axis")
		d := c.shape[ax]
		idx := rapid.SliceOfN(rapid.Int64Range(-d, d-1), 1, 3).Draw(t, "indices")
		sh := append(append(append([]int64{}, c.shape[:ax]...), int64(len(idx))), c.shape[ax+1:]...)
		c.emit("Gather", []string{c.cur, c.konst(idx)}, sh, aInt("axis", int64(ax)))
	case "where":
		n := c.numel()
		cond := make([]int32, n)
		for j := range cond {
			cond[j] = int32(rapid.IntRange(0, 1).Draw(t, "cond"))
		}
		cn := c.name("cond")
		c.nodes = append(c.nodes, constNode(cn, &onnxpb_TP{Name: protoString(cn), DataType: protoInt32(tBool), Dims: c.shape, Int32Data: cond}))
		c.emit("Where", []string{cn, c.cur, c.f32konst(nil, []float32{7})}, c.shape)
	case "sqrt": // correctly rounded on both sides
		c.emit("Abs", []string{c.cur}, c.shape)
		c.emit("Sqrt", []string{c.cur}, c.shape)
	case "cast": // to i64 (truncating) and back
		c.emit("Cast", []string{c.cur}, c.shape, aInt("to", int64(tI64)))
		c.emit("Cast", []string{c.cur}, c.shape, aInt("to", int64(tF32)))
	case "clip":
		c.emit("Clip", []string{c.cur, c.f32konst(nil, []float32{-3}), c.f32konst(nil, []float32{5})}, c.shape)
	}
	_ = i
}

func seq(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}

func broadcastShape(a, b []int64) ([]int64, bool) {
	out := append([]int64{}, a...)
	for i := range b {
		j := len(a) - len(b) + i
		if b[i] != 1 && out[j] != b[i] {
			return nil, false
		}
	}
	return out, true
}
