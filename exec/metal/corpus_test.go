package metal

// The graphs the Linux tests run: every testdata/*.json graph of the
// repository, plus small op-coverage graphs built here that reach every
// kernel, every broadcast and layout path (views at offsets, transposed
// and sliced operands, 1-D matmuls, grouped and 1-D convolutions).

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/launch"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/require"
)

type corpusGraph struct {
	name string
	g    *ir.Graph
}

var (
	af = ir.Float
	ai = ir.Int
	an = ir.Ints
)

// opGraphs builds the op-coverage graphs.
func opGraphs(t *testing.T) []corpusGraph {
	t.Helper()
	var out []corpusGraph
	add := func(name string, build func(b *ir.Builder)) {
		b := ir.NewBuilder(name)
		build(b)
		g, err := b.Build()
		require.NoErrorf(t, err, "graph %s: %v", name, err)
		out = append(out, corpusGraph{name, g})
	}
	add("unary", func(b *ir.Builder) {
		x := b.Input("x", ir.F32, 2, 3, 4)
		ax := b.Op("Abs", nil, x)
		var outs []ir.ValueID
		for _, op := range []string{"Relu", "Sigmoid", "Tanh", "Gelu", "Silu", "Erf", "Neg", "Exp", "Sin", "Cos", "HardSigmoid", "HardSwish"} {
			outs = append(outs, b.Op(op, nil, x))
		}
		outs = append(outs,
			b.Op("Gelu", ir.Attrs{"approximate": ir.Str("tanh")}, x),
			b.Op("Clip", ir.Attrs{"min": af(-0.25), "max": af(0.5)}, x),
			b.Op("Sqrt", nil, ax), b.Op("Log", nil, ax), b.Op("Reciprocal", nil, ax))
		b.Output(outs...)
	})
	add("binary", func(b *ir.Builder) {
		a := b.Input("a", ir.F32, 2, 3, 4)
		c := b.Input("c", ir.F32, 3, 1)
		d := b.Weight("d", ir.F32, 4)
		pos := b.Op("Exp", nil, c)
		outs := []ir.ValueID{
			b.Op("Add", nil, a, c), b.Op("Sub", nil, a, d), b.Op("Mul", nil, d, a),
			b.Op("Div", nil, a, pos), b.Op("Pow", nil, b.Op("Sigmoid", nil, a), d),
			b.Op("Max", nil, a, c), b.Op("Min", nil, c, a),
			b.Op("Equal", nil, a, a), b.Op("Greater", nil, a, d),
		}
		lt := b.Op("Less", nil, a, c)
		outs = append(outs, lt, b.Op("Where", nil, lt, a, b.Op("Neg", nil, d)))
		// An elementwise op over a view at a non-zero offset.
		s := b.Op("Slice", ir.Attrs{"starts": an(1), "ends": an(2), "axes": an(0)}, a)
		outs = append(outs, b.Op("Mul", nil, s, s))
		b.Output(outs...)
	})
	add("matmul", func(b *ir.Builder) {
		x := b.Input("x", ir.F32, 2, 3, 5)
		w := b.Weight("w", ir.F32, 5, 4)
		y := b.Input("y", ir.F32, 2, 1, 3, 5)
		z := b.Weight("z", ir.F32, 4, 5, 2)
		v := b.Input("v", ir.F32, 5)
		m := b.Input("m", ir.F32, 3, 5)
		c := b.Weight("c", ir.F32, 4)
		wt := b.Weight("wt", ir.F32, 4, 5)
		mt := b.Input("mt", ir.F32, 5, 3)
		b.Output(
			b.Op("MatMul", nil, x, w), b.Op("MatMul", nil, y, z),
			b.Op("MatMul", nil, v, w), b.Op("MatMul", nil, m, v),
			b.Op("Gemm", ir.Attrs{"transB": ai(1), "alpha": af(0.5), "beta": af(2)}, m, wt, c),
			b.Op("Gemm", ir.Attrs{"transA": ai(1)}, mt, w),
			// A transposed operand reaches MatMul through a Transpose dispatch.
			b.Op("MatMul", nil, b.Op("Transpose", ir.Attrs{"perm": an(1, 0)}, mt), w))
	})
	add("conv", func(b *ir.Builder) {
		x := b.Input("x", ir.F32, 1, 4, 7, 7)
		w := b.Weight("w", ir.F32, 6, 2, 3, 3)
		bias := b.Weight("bias", ir.F32, 6)
		w2 := b.Weight("w2", ir.F32, 3, 4, 3, 3)
		tw := b.Weight("tw", ir.F32, 4, 3, 3, 3)
		tg := b.Weight("tg", ir.F32, 4, 1, 2, 2)
		b.Output(
			b.Op("Conv", ir.Attrs{"group": ai(2), "strides": an(2, 2), "pads": an(1, 1, 1, 1)}, x, w, bias),
			b.Op("Conv", ir.Attrs{"dilations": an(2, 2), "pads": an(0, 1, 2, 1)}, x, w2),
			b.Op("ConvTranspose", ir.Attrs{"strides": an(2, 2), "pads": an(1, 1, 1, 1), "output_padding": an(1, 1)}, x, tw),
			b.Op("ConvTranspose", ir.Attrs{"group": ai(2), "strides": an(2, 2)}, x, tg))
	})
	add("pool", func(b *ir.Builder) {
		x := b.Input("x", ir.F32, 2, 3, 7, 6)
		b.Output(
			b.Op("MaxPool", ir.Attrs{"kernel_shape": an(3, 3), "strides": an(2, 2), "pads": an(1, 1, 1, 1)}, x),
			b.Op("AveragePool", ir.Attrs{"kernel_shape": an(3, 2), "strides": an(2, 2), "pads": an(1, 0, 1, 1)}, x),
			b.Op("AveragePool", ir.Attrs{"kernel_shape": an(3, 3), "strides": an(2, 2), "pads": an(1, 1, 1, 1), "count_include_pad": ai(1)}, x),
			b.Op("MaxPool", ir.Attrs{"kernel_shape": an(2, 2), "strides": an(2, 2), "ceil_mode": ai(1)}, x),
			b.Op("GlobalAveragePool", nil, x))
	})
	add("rows", func(b *ir.Builder) {
		x := b.Input("x", ir.F32, 2, 3, 4)
		sc := b.Weight("scale", ir.F32, 4)
		bi := b.Weight("bias", ir.F32, 4)
		sc2 := b.Weight("scale2", ir.F32, 3, 4)
		img := b.Input("img", ir.F32, 2, 3, 2, 2)
		cs := []ir.ValueID{b.Weight("s", ir.F32, 3), b.Weight("b", ir.F32, 3), b.Weight("mean", ir.F32, 3)}
		vr := b.Op("Exp", nil, b.Weight("logvar", ir.F32, 3))
		b.Output(
			b.Op("Softmax", ir.Attrs{"axis": ai(1)}, x), b.Op("LogSoftmax", nil, x),
			b.Op("LayerNorm", nil, x, sc, bi), b.Op("LayerNorm", ir.Attrs{"axis": ai(1)}, x, sc2),
			b.Op("RMSNorm", nil, x, sc),
			b.Op("BatchNorm", nil, img, cs[0], cs[1], cs[2], vr),
			b.Op("ReduceMean", ir.Attrs{"axes": an(1)}, x),
			b.Op("ReduceSum", ir.Attrs{"axes": an(0, 2), "keepdims": ai(0)}, x),
			b.Op("ReduceMax", nil, x))
	})
	add("data", func(b *ir.Builder) {
		x := b.Input("x", ir.F32, 2, 3, 4)
		y := b.Input("y", ir.F32, 2, 1, 4)
		idx := make([]byte, 16)
		binary.LittleEndian.PutUint64(idx[0:], 2)
		binary.LittleEndian.PutUint64(idx[8:], uint64(math.MaxUint64)) // -1
		gi := b.Constant("gi", ir.I64, idx, 2)
		idx32 := make([]byte, 12)
		binary.LittleEndian.PutUint32(idx32[0:], 1)
		binary.LittleEndian.PutUint32(idx32[4:], 0)
		binary.LittleEndian.PutUint32(idx32[8:], 3)
		gi32 := b.Constant("gi32", ir.I32, idx32, 3, 1)
		parts := b.OpN("Split", ir.Attrs{"axis": ai(2), "split": an(1, 3)}, x)
		xi := b.Op("Cast", ir.Attrs{"to": ir.Str("i32")}, b.Op("Mul", nil, x, x))
		b.Output(
			b.Op("Transpose", ir.Attrs{"perm": an(2, 0, 1)}, x),
			b.Op("Concat", ir.Attrs{"axis": ai(1)}, x, y, x),
			parts[0], parts[1],
			b.Op("Expand", ir.Attrs{"shape": an(3, 2, 5, 4)}, y),
			b.Op("Gather", ir.Attrs{"axis": ai(1)}, x, gi),
			b.Op("Gather", ir.Attrs{"axis": ai(2)}, x, gi32),
			b.Op("Pad", ir.Attrs{"pads": an(0, 1, 2, 0, 0, 1), "value": af(0.5)}, x),
			b.Op("Cast", ir.Attrs{"to": ir.Str("f32")}, xi),
			b.Op("Cast", ir.Attrs{"to": ir.Str("bool")}, b.Op("Relu", nil, x)),
			b.Op("Slice", ir.Attrs{"starts": an(0, 3), "ends": an(3, 0), "axes": an(1, 2), "steps": an(2, -2)}, x))
	})
	add("dtypes", func(b *ir.Builder) {
		x := b.Input("x", ir.F32, 2, 3)
		k := b.Input("k", ir.I64, 2, 3)
		j := b.Input("j", ir.I32, 3, 2)
		k1 := b.Input("k1", ir.I64, 2, 1)
		k2 := b.Input("k2", ir.I64, 2, 2)
		mask := b.Op("Greater", nil, x, b.Op("Neg", nil, x))
		b.Output(
			b.Op("Where", nil, mask, k, b.Op("Concat", ir.Attrs{"axis": ai(1)}, k1, k2)),
			b.Op("Sub", nil, b.Op("Mul", nil, k, k), b.Op("Max", nil, k, k1)),
			b.Op("Transpose", nil, mask),
			b.Op("Gather", ir.Attrs{"axis": ai(1)}, mask, b.Op("Cast", ir.Attrs{"to": ir.Str("i64")}, b.Op("Relu", nil, x))),
			b.Op("Concat", ir.Attrs{"axis": ai(1)}, j, j),
			b.Op("Cast", ir.Attrs{"to": ir.Str("u8")}, k),
			b.Op("Cast", ir.Attrs{"to": ir.Str("i8")}, j),
			b.Op("Cast", ir.Attrs{"to": ir.Str("f32")}, b.Op("Cast", ir.Attrs{"to": ir.Str("i8")}, j)))
	})
	// f16 has a kernel path (cast) that the CPU backend may lack; kept apart
	// so that the rest of "data" is still compared.
	add("cast_f16", func(b *ir.Builder) {
		x := b.Input("x", ir.F32, 3, 5)
		b.Output(b.Op("Cast", ir.Attrs{"to": ir.Str("f32")}, b.Op("Cast", ir.Attrs{"to": ir.Str("f16")}, x)))
	})
	return out
}

// moduleRoot is the repository root, two levels above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoErrorf(t, err, "%v", err)
	return root
}

// testdataGraphs parses every testdata/*.json graph of the repository.
func testdataGraphs(t *testing.T) []corpusGraph {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(moduleRoot(t), "testdata", "*.json"))
	sort.Strings(paths)
	var out []corpusGraph
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoErrorf(t, err, "%v", err)
		g, err := ir.Parse(data)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		out = append(out, corpusGraph{filepath.Base(p), g})
	}
	return out
}

// randomInputs fills every value a run needs, deterministically.
func randomInputs(t *testing.T, g *ir.Graph, seed uint64) map[ir.ValueID][]byte {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	in := map[ir.ValueID][]byte{}
	for _, id := range exec.NeedsData(g) {
		v := g.Values[id]
		nb, err := v.Bytes()
		require.NoErrorf(t, err, "%v", err)
		buf := make([]byte, nb)
		sz := int64(v.DType.Size())
		// Weights are scaled by 1/sqrt(fan-in) (taken as the element count
		// over the largest dimension) so that deep random networks keep
		// activations of order one instead of overflowing float32.
		scale := 1.0
		if v.Flags&ir.FlagWeight != 0 && len(v.Shape) >= 2 {
			big := int64(1)
			for _, d := range v.Shape {
				big = max(big, d)
			}
			scale = 1 / math.Sqrt(float64(max(1, launch.Numel(v.Shape)/big)))
		}
		for e := int64(0); e+sz <= nb; e += sz {
			switch v.DType {
			case ir.F32:
				binary.LittleEndian.PutUint32(buf[e:], math.Float32bits(float32((r.Float64()*2-1)*scale)))
			case ir.I64:
				binary.LittleEndian.PutUint64(buf[e:], uint64(r.IntN(3)))
			case ir.I32:
				binary.LittleEndian.PutUint32(buf[e:], uint32(r.IntN(3)))
			case ir.Bool:
				buf[e] = byte(r.IntN(2))
			default:
				for k := int64(0); k < sz; k++ {
					buf[e+k] = byte(r.IntN(256))
				}
			}
		}
		in[id] = buf
	}
	return in
}
