package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu/internal/ref"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tolerances, as relative error |got-want| / max(|want|, 1e-6) against the
// float64 reference (inputs are the same f32-rounded values on both sides;
// the floor only keeps an exact zero from dividing by zero):
const (
	tolElementwise = 1e-5 // elementwise f32 ops, data movement (exact)
	tolReduce      = 1e-4 // reductions, norms, softmax, matmul, conv, pools
)

// gen says how to fill an operand: never zeros.
type gen uint8

const (
	genSigned gen = iota // uniform in ±[0.1, 2)
	genPos               // uniform in [0.1, 2)
	genInt               // integers in ±[1, 5]
	genBool              // 0 or 1
	genIndex             // integers in [-d, d) for a Gather axis of extent d (d in operand.aux)
)

type operand struct {
	dt    ir.DType
	shape []int64
	gen   gen
	aux   int64
}

func f32(shape ...int64) operand   { return operand{dt: ir.F32, shape: shape} }
func pos32(shape ...int64) operand { return operand{dt: ir.F32, shape: shape, gen: genPos} }
func i64(shape ...int64) operand   { return operand{dt: ir.I64, shape: shape, gen: genInt} }
func boolT(shape ...int64) operand { return operand{dt: ir.Bool, shape: shape, gen: genBool} }
func index(d int64, s ...int64) operand {
	return operand{dt: ir.I64, shape: s, gen: genIndex, aux: d}
}

type kcase struct {
	name  string
	op    string
	attrs ir.Attrs
	ins   []operand
	tol   float64
}

func kernelCases() []kcase {
	var cs []kcase
	for _, op := range []string{"Relu", "Sigmoid", "Tanh", "Gelu", "Silu", "Erf", "Neg", "Exp", "Abs", "Sin", "Cos", "Reciprocal", "HardSigmoid", "HardSwish"} {
		cs = append(cs, kcase{op, op, nil, []operand{f32(3, 5, 7)}, tolElementwise})
	}
	cs = append(cs,
		kcase{"Sqrt", "Sqrt", nil, []operand{pos32(4, 9)}, tolElementwise},
		kcase{"Log", "Log", nil, []operand{pos32(4, 9)}, tolElementwise},
		kcase{"Gelu/tanh", "Gelu", ir.Attrs{"approximate": ir.Str("tanh")}, []operand{f32(6, 7)}, tolElementwise},
		kcase{"Clip", "Clip", ir.Attrs{"min": ir.Float(-0.5), "max": ir.Float(0.7)}, []operand{f32(6, 7)}, tolElementwise},
		kcase{"HardSigmoid/attrs", "HardSigmoid", ir.Attrs{"alpha": ir.Float(0.3), "beta": ir.Float(0.4)}, []operand{f32(6, 7)}, tolElementwise},
		kcase{"Neg/i64", "Neg", nil, []operand{i64(5, 3)}, 0},
		kcase{"Abs/i64", "Abs", nil, []operand{i64(5, 3)}, 0},
	)
	for _, op := range []string{"Add", "Sub", "Mul", "Div", "Max", "Min"} {
		cs = append(cs,
			kcase{op, op, nil, []operand{f32(4, 6), f32(4, 6)}, tolElementwise},
			kcase{op + "/broadcast", op, nil, []operand{f32(2, 1, 6), f32(3, 1)}, tolElementwise},
			kcase{op + "/scalar", op, nil, []operand{f32(), f32(3, 4)}, tolElementwise},
		)
	}
	for _, op := range []string{"Add", "Sub", "Mul", "Div", "Max", "Min"} {
		cs = append(cs, kcase{op + "/i64", op, nil, []operand{i64(3, 4), i64(1, 4)}, 0})
	}
	cs = append(cs,
		kcase{"Pow", "Pow", nil, []operand{pos32(3, 5), f32(3, 5)}, tolElementwise},
		kcase{"Equal", "Equal", nil, []operand{i64(4, 5), i64(4, 1)}, 0},
		kcase{"Equal/f32", "Equal", nil, []operand{f32(4, 5), f32(4, 5)}, 0},
		kcase{"Less", "Less", nil, []operand{f32(4, 5), f32(5)}, 0},
		kcase{"Greater", "Greater", nil, []operand{f32(4, 5), f32(4, 1)}, 0},
		kcase{"Where", "Where", nil, []operand{boolT(3, 1, 5), f32(4, 5), f32(3, 4, 1)}, 0},
		kcase{"Where/i64", "Where", nil, []operand{boolT(4, 5), i64(4, 5), i64(5)}, 0},

		kcase{"MatMul", "MatMul", nil, []operand{f32(5, 7), f32(7, 3)}, tolReduce},
		kcase{"MatMul/big", "MatMul", nil, []operand{f32(64, 48), f32(48, 40)}, tolReduce},
		kcase{"MatMul/batch-broadcast", "MatMul", nil, []operand{f32(2, 1, 4, 6), f32(3, 6, 5)}, tolReduce},
		kcase{"MatMul/vec-mat", "MatMul", nil, []operand{f32(6), f32(2, 6, 3)}, tolReduce},
		kcase{"MatMul/mat-vec", "MatMul", nil, []operand{f32(2, 4, 6), f32(6)}, tolReduce},
		kcase{"Gemm", "Gemm", nil, []operand{f32(4, 6), f32(6, 5)}, tolReduce},
		kcase{"Gemm/trans-bias", "Gemm", ir.Attrs{"transA": ir.Int(1), "transB": ir.Int(1), "alpha": ir.Float(0.5), "beta": ir.Float(2)}, []operand{f32(6, 4), f32(5, 6), f32(5)}, tolReduce},
		kcase{"Gemm/bias-col", "Gemm", nil, []operand{f32(4, 6), f32(6, 5), f32(4, 1)}, tolReduce},

		kcase{"Conv", "Conv", nil, []operand{f32(1, 3, 6, 6), f32(4, 3, 3, 3)}, tolReduce},
		kcase{"Conv/stride-pad-bias", "Conv", ir.Attrs{"strides": ir.Ints(2, 2), "pads": ir.Ints(1, 2, 1, 0)}, []operand{f32(2, 3, 7, 8), f32(4, 3, 3, 3), f32(4)}, tolReduce},
		kcase{"Conv/groups-dilations", "Conv", ir.Attrs{"group": ir.Int(2), "dilations": ir.Ints(2, 1), "pads": ir.Ints(2, 1, 2, 1)}, []operand{f32(1, 4, 7, 6), f32(6, 2, 3, 3)}, tolReduce},
		kcase{"Conv/depthwise-big", "Conv", ir.Attrs{"group": ir.Int(8), "pads": ir.Ints(1, 1, 1, 1)}, []operand{f32(1, 8, 16, 16), f32(8, 1, 3, 3), f32(8)}, tolReduce},
		kcase{"ConvTranspose", "ConvTranspose", nil, []operand{f32(1, 3, 4, 4), f32(3, 2, 3, 3)}, tolReduce},
		kcase{"ConvTranspose/stride-pad-group", "ConvTranspose", ir.Attrs{"strides": ir.Ints(2, 2), "pads": ir.Ints(1, 0, 1, 1), "group": ir.Int(2), "output_padding": ir.Ints(1, 0)}, []operand{f32(2, 4, 3, 4), f32(4, 3, 3, 2), f32(6)}, tolReduce},
		kcase{"ConvTranspose/dilations", "ConvTranspose", ir.Attrs{"dilations": ir.Ints(2, 2)}, []operand{f32(1, 2, 3, 3), f32(2, 2, 2, 2)}, tolReduce},

		kcase{"MaxPool", "MaxPool", ir.Attrs{"kernel_shape": ir.Ints(2, 2), "strides": ir.Ints(2, 2)}, []operand{f32(1, 2, 6, 6)}, tolReduce},
		kcase{"MaxPool/ceil-pad-dil", "MaxPool", ir.Attrs{"kernel_shape": ir.Ints(3, 2), "strides": ir.Ints(2, 2), "pads": ir.Ints(1, 0, 1, 1), "dilations": ir.Ints(1, 2), "ceil_mode": ir.Int(1)}, []operand{f32(2, 2, 7, 8)}, tolReduce},
		kcase{"AveragePool", "AveragePool", ir.Attrs{"kernel_shape": ir.Ints(3, 3), "strides": ir.Ints(2, 2), "pads": ir.Ints(1, 1, 1, 1)}, []operand{f32(1, 2, 7, 7)}, tolReduce},
		kcase{"AveragePool/ceil-include-pad", "AveragePool", ir.Attrs{"kernel_shape": ir.Ints(3, 3), "strides": ir.Ints(2, 2), "pads": ir.Ints(1, 1, 1, 1), "ceil_mode": ir.Int(1), "count_include_pad": ir.Int(1)}, []operand{f32(1, 2, 8, 8)}, tolReduce},
		kcase{"AveragePool/ceil-exclude-pad", "AveragePool", ir.Attrs{"kernel_shape": ir.Ints(2, 2), "strides": ir.Ints(2, 2), "ceil_mode": ir.Int(1)}, []operand{f32(1, 2, 7, 5)}, tolReduce},
		kcase{"GlobalAveragePool", "GlobalAveragePool", nil, []operand{f32(2, 3, 5, 4)}, tolReduce},

		kcase{"BatchNorm", "BatchNorm", ir.Attrs{"epsilon": ir.Float(1e-3)}, []operand{f32(2, 3, 4, 5), f32(3), f32(3), f32(3), pos32(3)}, tolReduce},
		kcase{"LayerNorm", "LayerNorm", nil, []operand{f32(3, 4, 8), f32(8), f32(8)}, tolReduce},
		kcase{"LayerNorm/axis1", "LayerNorm", ir.Attrs{"axis": ir.Int(1)}, []operand{f32(3, 4, 5), f32(4, 5)}, tolReduce},
		kcase{"RMSNorm", "RMSNorm", nil, []operand{f32(3, 4, 8), f32(8)}, tolReduce},
		kcase{"Softmax", "Softmax", nil, []operand{f32(3, 4, 7)}, tolReduce},
		kcase{"Softmax/axis1", "Softmax", ir.Attrs{"axis": ir.Int(1)}, []operand{f32(3, 4, 7)}, tolReduce},
		kcase{"LogSoftmax", "LogSoftmax", nil, []operand{f32(3, 9)}, tolReduce},
		kcase{"ReduceMean", "ReduceMean", ir.Attrs{"axes": ir.Ints(1)}, []operand{f32(3, 4, 5)}, tolReduce},
		kcase{"ReduceSum/multi-nokeep", "ReduceSum", ir.Attrs{"axes": ir.Ints(0, -1), "keepdims": ir.Int(0)}, []operand{f32(3, 4, 5)}, tolReduce},
		kcase{"ReduceMax/all", "ReduceMax", nil, []operand{f32(3, 4, 5)}, tolReduce},

		kcase{"Reshape", "Reshape", ir.Attrs{"shape": ir.Ints(4, -1)}, []operand{f32(2, 3, 4)}, 0},
		kcase{"Flatten", "Flatten", nil, []operand{f32(2, 3, 4)}, 0},
		kcase{"Squeeze", "Squeeze", ir.Attrs{"axes": ir.Ints(1)}, []operand{f32(2, 1, 4)}, 0},
		kcase{"Unsqueeze", "Unsqueeze", ir.Attrs{"axes": ir.Ints(0)}, []operand{f32(2, 4)}, 0},
		kcase{"Identity", "Identity", nil, []operand{i64(2, 4)}, 0},
		kcase{"Cast/f32-i64", "Cast", ir.Attrs{"to": ir.Str("i64")}, []operand{f32(3, 4)}, 0},
		kcase{"Cast/i64-f32", "Cast", ir.Attrs{"to": ir.Str("f32")}, []operand{i64(3, 4)}, 0},
		kcase{"Cast/f32-bool", "Cast", ir.Attrs{"to": ir.Str("bool")}, []operand{f32(3, 4)}, 0},
		kcase{"Cast/bool-i64", "Cast", ir.Attrs{"to": ir.Str("i64")}, []operand{boolT(3, 4)}, 0},
		kcase{"Cast/f32-f64", "Cast", ir.Attrs{"to": ir.Str("f64")}, []operand{f32(3, 4)}, 0},
		kcase{"Slice", "Slice", ir.Attrs{"starts": ir.Ints(1, 0), "ends": ir.Ints(3, 5), "axes": ir.Ints(0, 1), "steps": ir.Ints(1, 2)}, []operand{f32(4, 6)}, 0},
		kcase{"Slice/negative-step", "Slice", ir.Attrs{"starts": ir.Ints(-1), "ends": ir.Ints(-100), "axes": ir.Ints(1), "steps": ir.Ints(-2)}, []operand{f32(3, 7)}, 0},
		kcase{"Transpose", "Transpose", ir.Attrs{"perm": ir.Ints(2, 0, 1)}, []operand{f32(2, 3, 4)}, 0},
		kcase{"Transpose/default", "Transpose", nil, []operand{i64(3, 5)}, 0},
		kcase{"Concat", "Concat", ir.Attrs{"axis": ir.Int(1)}, []operand{f32(2, 3, 2), f32(2, 1, 2), f32(2, 4, 2)}, 0},
		kcase{"Split", "Split", ir.Attrs{"axis": ir.Int(1), "split": ir.Ints(1, 3, 2)}, []operand{f32(2, 6, 3)}, 0},
		kcase{"Split/num_outputs", "Split", ir.Attrs{"num_outputs": ir.Int(3)}, []operand{i64(7, 2)}, 0},
		kcase{"Gather", "Gather", nil, []operand{f32(5, 3), index(5, 2, 4)}, 0},
		kcase{"Gather/axis1-i64data", "Gather", ir.Attrs{"axis": ir.Int(1)}, []operand{i64(2, 6, 3), index(6, 4)}, 0},
		kcase{"Gather/scalar-index", "Gather", ir.Attrs{"axis": ir.Int(1)}, []operand{f32(2, 6, 3), index(6)}, 0},
		kcase{"Expand", "Expand", ir.Attrs{"shape": ir.Ints(2, 3, 4)}, []operand{f32(3, 1)}, 0},
		kcase{"Pad", "Pad", ir.Attrs{"pads": ir.Ints(1, 0, 2, 3), "value": ir.Float(1.5)}, []operand{f32(3, 4)}, 0},
		kcase{"Pad/negative", "Pad", ir.Attrs{"pads": ir.Ints(-1, 2, 0, -1)}, []operand{f32(3, 4)}, 0},
	)
	return cs
}

// TestKernelsCoverCoreOps proves the table and the registry cover ir's core set.
func TestKernelsCoverCoreOps(t *testing.T) {
	tested := map[string]bool{}
	for _, c := range kernelCases() {
		tested[c.op] = true
	}
	for _, op := range ir.OpNames() {
		_, ok := kernels[op]
		assert.Truef(t, ok, "op %s has no CPU kernel", op)
		assert.Truef(t, tested[op], "op %s has no kernel test case", op)
	}
}

// TestKernels runs every case against the float64 reference, with inputs and
// the output laid out contiguous and strided (permuted axes, gaps, offsets),
// the output poisoned before each run, and with 1 and 3 kernel threads
// (which must agree bit for bit).
func TestKernels(t *testing.T) {
	for _, kc := range kernelCases() {
		t.Run(kc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(kc.name))))
			for _, strided := range []bool{false, true} {
				checkKernel(t, rng, kc, strided)
			}
		})
	}
}

func fill(rng *rand.Rand, o operand) []float64 {
	v := make([]float64, numel(o.shape))
	for i := range v {
		switch o.gen {
		case genSigned, genPos:
			x := 0.1 + 1.9*rng.Float64()
			if o.gen == genSigned && rng.IntN(2) == 0 {
				x = -x
			}
			if o.dt == ir.F32 {
				x = float64(float32(x))
			}
			v[i] = x
		case genInt:
			v[i] = float64(1 + rng.IntN(5))
			if rng.IntN(2) == 0 {
				v[i] = -v[i]
			}
		case genBool:
			v[i] = float64(rng.IntN(2))
		case genIndex:
			v[i] = float64(rng.Int64N(2*o.aux) - o.aux)
		}
	}
	return v
}

// layout returns byte strides and an offset for shape: contiguous, or with
// a random axis order, a gap after each axis and a random start.
func layout(rng *rand.Rand, shape []int64, elem int64, strided bool) (strides []int64, off, bytes int64) {
	if !strided {
		return ir.ContiguousStrides(shape, elem), 0, max(numel(shape), 1) * elem
	}
	order := rng.Perm(len(shape))
	strides = make([]int64, len(shape))
	acc := elem
	for i := len(order) - 1; i >= 0; i-- {
		a := order[i]
		strides[a] = acc
		acc *= shape[a] + int64(rng.IntN(2))
	}
	off = int64(rng.IntN(3)) * elem
	return strides, off, off + acc + elem
}

func bind(v int, buf int, dt ir.DType, shape []int64, strides []int64, off int64) exec.Binding {
	b := exec.Binding{Value: ir.ValueID(v), Buffer: buf, OffsetBytes: off, DType: dt, Shape: shape, StridesBytes: strides}
	b.LoBytes, b.HiBytes = span(tensor{off: off, dt: dt, shape: shape, strides: strides})
	return b
}

func checkKernel(t *testing.T, rng *rand.Rand, kc kcase, strided bool) {
	t.Helper()
	info, ok := ir.LookupOp(kc.op)
	require.Truef(t, ok, "unknown op %s", kc.op)
	var types []ir.TensorType
	var refIns []ref.Tensor
	d := &exec.Dispatch{Op: kc.op, Name: kc.name, Attrs: kc.attrs}
	mem := &memory{}
	for i, o := range kc.ins {
		types = append(types, ir.TensorType{DType: o.dt, Shape: o.shape})
		vals := fill(rng, o)
		refIns = append(refIns, ref.Tensor{Shape: o.shape, Data: vals, Int: !o.dt.IsFloat()})
		st, off, n := layout(rng, o.shape, o.dt.Size(), strided)
		buf := make([]byte, n)
		tt := tensor{buf: buf, off: off, dt: o.dt, shape: o.shape, strides: st}
		storeF(tt, vals)
		mem.bufs = append(mem.bufs, buf)
		d.Inputs = append(d.Inputs, bind(i, i, o.dt, o.shape, st, off))
	}
	outT, err := info.Infer(types, kc.attrs)
	require.NoErrorf(t, err, "infer: %v", err)
	var outShapes [][]int64
	for j, ot := range outT {
		outShapes = append(outShapes, ot.Shape)
		st, off, n := layout(rng, ot.Shape, ot.DType.Size(), strided)
		mem.bufs = append(mem.bufs, make([]byte, n))
		d.Outputs = append(d.Outputs, bind(len(kc.ins)+j, len(mem.bufs)-1, ot.DType, ot.Shape, st, off))
	}
	want, err := ref.Run(kc.op, refIns, kc.attrs, outShapes)
	require.NoErrorf(t, err, "ref: %v", err)
	fn, err := lookup(d)
	require.NoErrorf(t, err, "lookup: %v", err)
	var first [][]byte
	for _, threads := range []int{1, 3} {
		for j := range d.Outputs {
			poison(mem.bufs[d.Outputs[j].Buffer], d.Outputs[j].DType)
		}
		if err := safeRun(fn, &call{d: d, mem: mem, threads: threads}); err != nil {
			t.Fatalf("strided=%v threads=%d: %v", strided, threads, err)
		}
		var got [][]byte
		for j := range d.Outputs {
			ob := &d.Outputs[j]
			out := newTensor(mem.bufs[ob.Buffer], ob)
			got = append(got, dense(out))
			compare(t, fmt.Sprintf("strided=%v threads=%d output %d", strided, threads, j), out, want[j].Data, kc.tol)
		}
		if first == nil {
			first = got
		} else {
			for j := range got {
				assert.Truef(t, slices.Equal(first[j], got[j]), "strided=%v: output %d differs between 1 and 3 threads", strided, j)
			}
		}
	}
}

// poison fills a buffer with bytes no kernel writes by accident: NaN for
// floats, 0x5A (not a valid bool, an unlikely integer) otherwise.
func poison(b []byte, dt ir.DType) {
	p := byte(0x5A)
	if dt.IsFloat() {
		p = 0xFF
	}
	for i := range b {
		b[i] = p
	}
}

func compare(t *testing.T, what string, out tensor, want []float64, tol float64) {
	t.Helper()
	bad, msgs := mismatches(out, want, tol)
	for _, m := range msgs {
		t.Errorf("%s: %s", what, m)
	}
	assert.LessOrEqualf(t, bad, len(msgs), "%s: %d elements wrong in all", what, bad)
}

// mismatches counts the elements of out that differ from want by more than
// tol (relative, floor 1e-6) or are unwritten (poison), with up to 5 messages.
func mismatches(out tensor, want []float64, tol float64) (bad int, msgs []string) {
	out.forEach(func(k, p int64) {
		var g float64
		if out.dt == ir.Bool {
			if b := out.buf[p]; b > 1 {
				g = math.NaN() // unwritten or not a bool
			} else {
				g = float64(b)
			}
		} else {
			g = getF(out.buf[p:], out.dt)
		}
		w := want[k]
		e := math.Abs(g-w) / max(math.Abs(w), 1e-6)
		if !(e <= tol) || (math.IsNaN(g) != math.IsNaN(w)) {
			if bad < 5 {
				msgs = append(msgs, fmt.Sprintf("element %d = %v, want %v (rel err %.3g > %.0e)", k, g, w, e, tol))
			}
			bad++
		}
	})
	return bad, msgs
}

// TestComparisonCatchesPoison proves the kernel check fails on an output a
// kernel never wrote and on one element off by more than the tolerance.
func TestComparisonCatchesPoison(t *testing.T) {
	for _, dt := range []ir.DType{ir.F32, ir.I64, ir.Bool} {
		buf := make([]byte, 4*dt.Size())
		poison(buf, dt)
		out := tensor{buf: buf, dt: dt, shape: []int64{4}, strides: []int64{dt.Size()}}
		bad, _ := mismatches(out, []float64{0, 1, 1, 0}, tolReduce)
		assert.Equalf(t, 4, bad, "%v: poisoned output: %d mismatches, want 4", dt, bad)
	}
	buf := make([]byte, 8)
	out := tensor{buf: buf, dt: ir.F32, shape: []int64{2}, strides: []int64{4}}
	storeF(out, []float64{1, 2.001})
	bad, _ := mismatches(out, []float64{1, 2}, tolReduce)
	assert.Equalf(t, 1, bad, "off-by-5e-4 element: %d mismatches, want 1", bad)
}
