package onnx

// Constant folding.
//
// Exporters leave small integer computations in the graph: a traced
// x.view(b, t, h, d) becomes Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape, and a mask becomes ConstantOfShape -> Equal -> Where. memplan's
// ops take such tensors as attributes, so the importer evaluates every node
// whose inputs are all known (konst) and whose result is small, and never
// emits it. For example
//
//	s   = Shape(x)              x: f32[1 16 64]   ->  s   = [1 16 64]
//	b   = Gather(s, 0)                            ->  b   = 1
//	b1  = Unsqueeze(b, [0])                       ->  b1  = [1]
//	sh  = Concat(b1, [16 4 16])                   ->  sh  = [1 16 4 16]
//	y   = Reshape(x, sh)                          ->  y   = Reshape{shape: [1 16 4 16]}(x)
//
// Only y reaches the ir graph. A folded value that a real node reads as a
// tensor (a Where mask, a scalar exponent) becomes an ir constant with data.
//
// The evaluator works on ir op semantics (the importer first maps the ONNX
// node to an ir op and attributes), on integers and on floats rounded to the
// value's dtype after every operation.

import (
	"fmt"
	"math"
	"slices"

	"github.com/memplan/memplan/ir"
)

// foldOps lists the ir ops the evaluator implements.
var foldOps = map[string]bool{
	"Identity": true, "Reshape": true, "Flatten": true, "Squeeze": true, "Unsqueeze": true, "Cast": true,
	"Concat": true, "Gather": true, "Slice": true, "Expand": true, "Transpose": true, "Pad": true,
	"Add": true, "Sub": true, "Mul": true, "Div": true, "Pow": true, "Max": true, "Min": true,
	"Equal": true, "Less": true, "Greater": true, "Where": true,
	"Neg": true, "Abs": true, "Sqrt": true, "Exp": true, "Log": true, "Reciprocal": true,
	"Relu": true, "Sigmoid": true, "Tanh": true, "Erf": true, "Sin": true, "Cos": true, "Clip": true,
}

// evalOp computes an ir op on known inputs. out are the output types from the
// op's shape rule.
func evalOp(op string, a ir.Attrs, in []*konst, out []ir.TensorType) ([]*konst, error) {
	if len(out) != 1 {
		return nil, fmt.Errorf("%s: folding supports one output: %w", op, ErrFold)
	}
	r, err := newKonst(out[0].DType, out[0].Shape)
	if err != nil {
		return nil, err
	}
	switch op {
	case "Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Cast":
		for i := range r.len() {
			copyElem(r, i, in[0], i)
		}
	case "Concat":
		err = evalConcat(r, in, a)
	case "Gather":
		err = evalGather(r, in[0], in[1], a)
	case "Slice":
		err = evalSlice(r, in[0], a)
	case "Expand":
		evalBroadcast(r, in, func(x []float64, xi []int64) (float64, int64) { return x[0], xi[0] })
	case "Transpose":
		err = evalTranspose(r, in[0], a)
	case "Pad":
		err = evalPad(r, in[0], a)
	case "Where":
		evalBroadcast(r, in, func(x []float64, xi []int64) (float64, int64) {
			if xi[0] != 0 {
				return x[1], xi[1]
			}
			return x[2], xi[2]
		})
	default:
		if fn, ok := binaryFns[op]; ok {
			err = evalBinary(r, op, fn, in)
		} else if fn, ok := unaryFns[op]; ok {
			lo, hi := a.GetFloat("min", math.Inf(-1)), a.GetFloat("max", math.Inf(1))
			for i := range r.len() {
				switch {
				case op == "Clip":
					r.setF(i, math.Min(math.Max(in[0].f(i), lo), hi))
				case !r.dt.IsFloat() && (op == "Neg" || op == "Abs" || op == "Relu"):
					r.setI(i, intUnary(op, in[0].ints[i]))
				default:
					r.setF(i, fn(in[0].f(i)))
				}
			}
		} else {
			err = fmt.Errorf("%s cannot be folded: %w", op, ErrFold)
		}
	}
	if err != nil {
		return nil, err
	}
	return []*konst{r}, nil
}

func copyElem(dst *konst, i int, src *konst, j int) {
	if src.dt.IsFloat() {
		dst.setF(i, src.floats[j])
	} else {
		dst.setI(i, src.ints[j])
	}
}

func intUnary(op string, x int64) int64 {
	switch op {
	case "Neg":
		return -x
	case "Abs":
		if x < 0 {
			return -x
		}
	case "Relu":
		return max(x, 0)
	}
	return x
}

var unaryFns = map[string]func(float64) float64{
	"Neg": func(x float64) float64 { return -x }, "Abs": math.Abs, "Sqrt": math.Sqrt, "Exp": math.Exp,
	"Log": math.Log, "Reciprocal": func(x float64) float64 { return 1 / x },
	"Relu": func(x float64) float64 { return math.Max(x, 0) }, "Sigmoid": func(x float64) float64 { return 1 / (1 + math.Exp(-x)) },
	"Tanh": math.Tanh, "Erf": math.Erf, "Sin": math.Sin, "Cos": math.Cos, "Clip": nil,
}

type binFn struct {
	f func(a, b float64) float64
	i func(a, b int64) (int64, error)
}

var binaryFns = map[string]binFn{
	"Add": {func(a, b float64) float64 { return a + b }, func(a, b int64) (int64, error) { return a + b, nil }},
	"Sub": {func(a, b float64) float64 { return a - b }, func(a, b int64) (int64, error) { return a - b, nil }},
	"Mul": {func(a, b float64) float64 { return a * b }, func(a, b int64) (int64, error) { return a * b, nil }},
	"Div": {func(a, b float64) float64 { return a / b }, func(a, b int64) (int64, error) {
		if b == 0 {
			return 0, fmt.Errorf("integer division by zero: %w", ErrFold)
		}
		return a / b, nil
	}},
	"Pow":     {math.Pow, func(a, b int64) (int64, error) { return truncInt(math.Pow(float64(a), float64(b))), nil }},
	"Max":     {math.Max, func(a, b int64) (int64, error) { return max(a, b), nil }},
	"Min":     {math.Min, func(a, b int64) (int64, error) { return min(a, b), nil }},
	"Equal":   {func(a, b float64) float64 { return float64(b2i(a == b)) }, func(a, b int64) (int64, error) { return b2i(a == b), nil }},
	"Less":    {func(a, b float64) float64 { return float64(b2i(a < b)) }, func(a, b int64) (int64, error) { return b2i(a < b), nil }},
	"Greater": {func(a, b float64) float64 { return float64(b2i(a > b)) }, func(a, b int64) (int64, error) { return b2i(a > b), nil }},
}

func evalBinary(r *konst, op string, fn binFn, in []*konst) error {
	var err error
	if in[0].dt.IsFloat() {
		// Comparisons give bool (0/1) results: hand back both forms.
		evalBroadcast(r, in, func(x []float64, _ []int64) (float64, int64) {
			v := fn.f(x[0], x[1])
			return v, truncInt(v)
		})
		return nil
	}
	evalBroadcast(r, in, func(_ []float64, xi []int64) (float64, int64) {
		v, e := fn.i(xi[0], xi[1])
		if e != nil {
			err = e
		}
		return float64(v), v
	})
	return err
}

// evalBroadcast walks r's elements; for each it hands fn the broadcast
// elements of the inputs (as float64 and as int64) and stores fn's result:
// the float one when r is floating, the integer one otherwise.
func evalBroadcast(r *konst, in []*konst, fn func(x []float64, xi []int64) (float64, int64)) {
	rank := len(r.shape)
	strides := make([][]int64, len(in))
	for k, t := range in {
		st := make([]int64, rank)
		acc := int64(1)
		for d := len(t.shape) - 1; d >= 0; d-- {
			if t.shape[d] != 1 {
				st[rank-len(t.shape)+d] = acc
			}
			acc *= t.shape[d]
		}
		strides[k] = st
	}
	idx := make([]int64, rank)
	x, xi := make([]float64, len(in)), make([]int64, len(in))
	for i := range r.len() {
		for k, t := range in {
			off := int64(0)
			for d := range rank {
				off += idx[d] * strides[k][d]
			}
			x[k], xi[k] = t.f(int(off)), t.i(int(off))
		}
		f, n := fn(x, xi)
		if r.dt.IsFloat() {
			r.setF(i, f)
		} else {
			r.setI(i, n)
		}
		for d := rank - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < r.shape[d] {
				break
			}
			idx[d] = 0
		}
	}
}

// norm returns axis normalised into [0, rank).
func norm(axis int64, rank int) int {
	if axis < 0 {
		axis += int64(rank)
	}
	return int(axis)
}

// outer and inner split a shape around axis: the element count before it and after it.
func outerInner(s ir.Shape, axis int) (outer, inner int64) {
	outer, inner = 1, 1
	for _, d := range s[:axis] {
		outer *= d
	}
	for _, d := range s[axis+1:] {
		inner *= d
	}
	return outer, inner
}

func evalConcat(r *konst, in []*konst, a ir.Attrs) error {
	ax := norm(a.GetInt("axis", 0), len(r.shape))
	outer, inner := outerInner(r.shape, ax)
	i := 0
	for o := range outer {
		for _, t := range in {
			n := t.shape[ax] * inner
			for j := range n {
				copyElem(r, i, t, int(o*n+j))
				i++
			}
		}
	}
	return nil
}

func evalGather(r, data, idx *konst, a ir.Attrs) error {
	ax := norm(a.GetInt("axis", 0), len(data.shape))
	outer, inner := outerInner(data.shape, ax)
	d := data.shape[ax]
	i := 0
	for o := range outer {
		for _, k := range idx.ints {
			if k < 0 {
				k += d
			}
			if k < 0 || k >= d {
				return fmt.Errorf("Gather index %d out of range [0, %d): %w", k, d, ErrFold)
			}
			for j := range inner {
				copyElem(r, i, data, int((o*d+k)*inner+j))
				i++
			}
		}
	}
	return nil
}

// gatherStrided fills r element by element from src at offset base + sum(idx*step).
func gatherStrided(r, src *konst, srcIndex func(idx []int64) (int64, bool)) {
	idx := make([]int64, len(r.shape))
	for i := range r.len() {
		if j, ok := srcIndex(idx); ok {
			copyElem(r, i, src, int(j))
		}
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < r.shape[d] {
				break
			}
			idx[d] = 0
		}
	}
}

func evalSlice(r, x *konst, a ir.Attrs) error {
	starts, _, steps, err := ir.SliceBounds(x.shape, a)
	if err != nil {
		return err
	}
	st := ir.ContiguousStrides(x.shape, 1)
	gatherStrided(r, x, func(idx []int64) (int64, bool) {
		off := int64(0)
		for d, i := range idx {
			off += (starts[d] + i*steps[d]) * st[d]
		}
		return off, true
	})
	return nil
}

func evalTranspose(r, x *konst, a ir.Attrs) error {
	perm, err := ir.Perm(len(x.shape), a)
	if err != nil {
		return err
	}
	st := ir.ContiguousStrides(x.shape, 1)
	gatherStrided(r, x, func(idx []int64) (int64, bool) {
		off := int64(0)
		for d, i := range idx {
			off += i * st[perm[d]]
		}
		return off, true
	})
	return nil
}

func evalPad(r, x *konst, a ir.Attrs) error {
	pads := a.GetInts("pads", nil)
	v := a.GetFloat("value", 0)
	for i := range r.len() {
		r.setF(i, v)
	}
	st := ir.ContiguousStrides(x.shape, 1)
	gatherStrided(r, x, func(idx []int64) (int64, bool) {
		off := int64(0)
		for d, i := range idx {
			j := i - pads[d]
			if j < 0 || j >= x.shape[d] {
				return 0, false
			}
			off += j * st[d]
		}
		return off, true
	})
	return nil
}

// shapeKonst is the folded result of ONNX Shape(x) with opset-15 start/end.
func shapeKonst(t ir.TensorType, start, end int64) *konst {
	rank := int64(len(t.Shape))
	clampAxis := func(v int64) int64 {
		if v < 0 {
			v += rank
		}
		return min(max(v, 0), rank)
	}
	s, e := clampAxis(start), clampAxis(end)
	dims := []int64{}
	if s < e {
		dims = slices.Clone(t.Shape[s:e])
	}
	return &konst{dt: ir.I64, shape: ir.Shape{int64(len(dims))}, ints: dims}
}
