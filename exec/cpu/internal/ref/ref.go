// Package ref is a naive float64 implementation of the ir core op set, the
// oracle the CPU kernels are tested against. It favours obviousness over
// speed: every output element is computed from its multi-index by the op's
// definition, with no strides, chunking or shared code with exec/cpu.
package ref

import (
	"fmt"
	"math"

	"github.com/memplan/memplan/ir"
)

// Tensor is a dense row-major float64 tensor (integers and booleans are
// stored as exact float64 values).
type Tensor struct {
	Shape []int64
	Data  []float64
	// Int marks integer data: Div then truncates toward zero.
	Int bool
}

func size(s []int64) int64 {
	n := int64(1)
	for _, d := range s {
		n *= d
	}
	return n
}

// unravel turns a flat row-major index into a multi-index.
func unravel(k int64, s []int64) []int64 {
	idx := make([]int64, len(s))
	for a := len(s) - 1; a >= 0; a-- {
		idx[a] = k % s[a]
		k /= s[a]
	}
	return idx
}

// ravel turns a multi-index into a flat row-major index.
func ravel(idx, s []int64) int64 {
	k := int64(0)
	for a := range s {
		k = k*s[a] + idx[a]
	}
	return k
}

// at reads t at a multi-index of a broadcast shape (numpy rules).
func (t Tensor) at(idx []int64) float64 {
	off := len(idx) - len(t.Shape)
	k := int64(0)
	for a := range t.Shape {
		i := idx[off+a]
		if t.Shape[a] == 1 {
			i = 0
		}
		k = k*t.Shape[a] + i
	}
	return t.Data[k]
}

func newT(s []int64) Tensor {
	return Tensor{Shape: append([]int64{}, s...), Data: make([]float64, size(s))}
}

// Run computes op on ins with attributes a. outs are the output shapes
// (from ir's shape rules); the result has one tensor per output.
func Run(op string, ins []Tensor, a ir.Attrs, outs [][]int64) ([]Tensor, error) {
	if f, ok := unary[op]; ok {
		y := newT(outs[0])
		for k := range y.Data {
			y.Data[k] = f(ins[0].Data[k], a)
		}
		return []Tensor{y}, nil
	}
	if f, ok := binary[op]; ok {
		y := newT(outs[0])
		for k := range y.Data {
			idx := unravel(int64(k), y.Shape)
			y.Data[k] = f(ins[0].at(idx), ins[1].at(idx))
			if op == "Div" && ins[0].Int && ins[1].Int {
				y.Data[k] = math.Trunc(y.Data[k])
			}
		}
		return []Tensor{y}, nil
	}
	switch op {
	case "Where":
		y := newT(outs[0])
		for k := range y.Data {
			idx := unravel(int64(k), y.Shape)
			if ins[0].at(idx) != 0 {
				y.Data[k] = ins[1].at(idx)
			} else {
				y.Data[k] = ins[2].at(idx)
			}
		}
		return []Tensor{y}, nil
	case "MatMul":
		return []Tensor{matmul(ins[0], ins[1], outs[0])}, nil
	case "Gemm":
		return []Tensor{gemm(ins, a, outs[0])}, nil
	case "Conv":
		return []Tensor{conv(ins, a, outs[0])}, nil
	case "ConvTranspose":
		return []Tensor{convT(ins, a, outs[0])}, nil
	case "MaxPool", "AveragePool":
		return []Tensor{pool(op, ins[0], a, outs[0])}, nil
	case "GlobalAveragePool":
		x := ins[0]
		y := newT(outs[0])
		hw := size(x.Shape[2:])
		for p := range y.Data {
			for j := int64(0); j < hw; j++ {
				y.Data[p] += x.Data[int64(p)*hw+j]
			}
			y.Data[p] /= float64(hw)
		}
		return []Tensor{y}, nil
	case "BatchNorm", "LayerNorm", "RMSNorm", "Softmax", "LogSoftmax":
		return []Tensor{norm(op, ins, a, outs[0])}, nil
	case "ReduceMean", "ReduceSum", "ReduceMax":
		return []Tensor{reduce(op, ins[0], a, outs[0])}, nil
	}
	return data(op, ins, a, outs)
}

var unary = map[string]func(x float64, a ir.Attrs) float64{
	"Relu":    func(x float64, _ ir.Attrs) float64 { return max(x, 0) },
	"Sigmoid": func(x float64, _ ir.Attrs) float64 { return 1 / (1 + math.Exp(-x)) },
	"Tanh":    func(x float64, _ ir.Attrs) float64 { return math.Tanh(x) },
	"Gelu": func(x float64, a ir.Attrs) float64 {
		if a.GetStr("approximate", "none") == "tanh" {
			return x / 2 * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*math.Pow(x, 3))))
		}
		return x / 2 * (1 + math.Erf(x/math.Sqrt(2)))
	},
	"Silu":       func(x float64, _ ir.Attrs) float64 { return x / (1 + math.Exp(-x)) },
	"Erf":        func(x float64, _ ir.Attrs) float64 { return math.Erf(x) },
	"Sqrt":       func(x float64, _ ir.Attrs) float64 { return math.Sqrt(x) },
	"Neg":        func(x float64, _ ir.Attrs) float64 { return -x },
	"Exp":        func(x float64, _ ir.Attrs) float64 { return math.Exp(x) },
	"Log":        func(x float64, _ ir.Attrs) float64 { return math.Log(x) },
	"Abs":        func(x float64, _ ir.Attrs) float64 { return math.Abs(x) },
	"Sin":        func(x float64, _ ir.Attrs) float64 { return math.Sin(x) },
	"Cos":        func(x float64, _ ir.Attrs) float64 { return math.Cos(x) },
	"Reciprocal": func(x float64, _ ir.Attrs) float64 { return 1 / x },
	"HardSwish":  func(x float64, _ ir.Attrs) float64 { return x * min(max(x+3, 0), 6) / 6 },
	"HardSigmoid": func(x float64, a ir.Attrs) float64 {
		return min(max(a.GetFloat("alpha", 0.2)*x+a.GetFloat("beta", 0.5), 0), 1)
	},
	"Clip": func(x float64, a ir.Attrs) float64 {
		lo, hi := a.GetFloat("min", math.Inf(-1)), a.GetFloat("max", math.Inf(1))
		if x < lo {
			x = lo
		}
		if x > hi {
			x = hi
		}
		return x
	},
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

var binary = map[string]func(a, b float64) float64{
	"Add":     func(a, b float64) float64 { return a + b },
	"Sub":     func(a, b float64) float64 { return a - b },
	"Mul":     func(a, b float64) float64 { return a * b },
	"Div":     func(a, b float64) float64 { return a / b },
	"Pow":     math.Pow,
	"Max":     func(a, b float64) float64 { return max(a, b) },
	"Min":     func(a, b float64) float64 { return min(a, b) },
	"Equal":   func(a, b float64) float64 { return b2f(a == b) },
	"Less":    func(a, b float64) float64 { return b2f(a < b) },
	"Greater": func(a, b float64) float64 { return b2f(a > b) },
}

func matmul(a, b Tensor, out []int64) Tensor {
	as, bs := a.Shape, b.Shape
	if len(as) == 1 {
		as = []int64{1, as[0]}
	}
	if len(bs) == 1 {
		bs = []int64{bs[0], 1}
	}
	A, B := Tensor{Shape: as, Data: a.Data}, Tensor{Shape: bs, Data: b.Data}
	m, k, n := as[len(as)-2], as[len(as)-1], bs[len(bs)-1]
	rb := max(len(as), len(bs)) - 2
	batch := make([]int64, rb)
	for i := range batch {
		ai, bi := i-(rb-(len(as)-2)), i-(rb-(len(bs)-2))
		batch[i] = 1
		if ai >= 0 {
			batch[i] = max(batch[i], as[ai])
		}
		if bi >= 0 {
			batch[i] = max(batch[i], bs[bi])
		}
	}
	full := append(append([]int64{}, batch...), m, n)
	y := newT(out)
	for kk := range y.Data {
		idx := unravel(int64(kk), full)
		s := 0.0
		for t := int64(0); t < k; t++ {
			ia := append(append([]int64{}, idx[:rb]...), idx[rb], t)
			ib := append(append([]int64{}, idx[:rb]...), t, idx[rb+1])
			s += A.at(ia) * B.at(ib)
		}
		y.Data[kk] = s
	}
	return y
}

func gemm(ins []Tensor, a ir.Attrs, out []int64) Tensor {
	A, B := ins[0], ins[1]
	ta, tb := a.GetInt("transA", 0) != 0, a.GetInt("transB", 0) != 0
	get := func(t Tensor, tr bool, i, j int64) float64 {
		if tr {
			i, j = j, i
		}
		return t.Data[i*t.Shape[1]+j]
	}
	k := A.Shape[1]
	if ta {
		k = A.Shape[0]
	}
	y := newT(out)
	for i := int64(0); i < out[0]; i++ {
		for j := int64(0); j < out[1]; j++ {
			s := 0.0
			for t := int64(0); t < k; t++ {
				s += get(A, ta, i, t) * get(B, tb, t, j)
			}
			s *= a.GetFloat("alpha", 1)
			if len(ins) == 3 {
				s += a.GetFloat("beta", 1) * ins[2].at([]int64{i, j})
			}
			y.Data[i*out[1]+j] = s
		}
	}
	return y
}

type geo struct{ s, p, d [2]int64 }

func geometry(a ir.Attrs) geo {
	g := geo{s: [2]int64{1, 1}, d: [2]int64{1, 1}}
	if v := a.GetInts("strides", nil); v != nil {
		g.s = [2]int64{v[0], v[1]}
	}
	if v := a.GetInts("pads", nil); v != nil {
		g.p = [2]int64{v[0], v[1]}
	}
	if v := a.GetInts("dilations", nil); v != nil {
		g.d = [2]int64{v[0], v[1]}
	}
	return g
}

func conv(ins []Tensor, a ir.Attrs, out []int64) Tensor {
	x, w := ins[0], ins[1]
	g := geometry(a)
	grp := a.GetInt("group", 1)
	cg, kh, kw := w.Shape[1], w.Shape[2], w.Shape[3]
	mg := w.Shape[0] / grp
	y := newT(out)
	for k := range y.Data {
		idx := unravel(int64(k), out) // n m oh ow
		s := 0.0
		if len(ins) == 3 {
			s = ins[2].Data[idx[1]]
		}
		for c := int64(0); c < cg; c++ {
			ci := (idx[1]/mg)*cg + c
			for i := int64(0); i < kh; i++ {
				for j := int64(0); j < kw; j++ {
					h := idx[2]*g.s[0] - g.p[0] + i*g.d[0]
					v := idx[3]*g.s[1] - g.p[1] + j*g.d[1]
					if h < 0 || v < 0 || h >= x.Shape[2] || v >= x.Shape[3] {
						continue
					}
					s += x.Data[ravel([]int64{idx[0], ci, h, v}, x.Shape)] * w.Data[ravel([]int64{idx[1], c, i, j}, w.Shape)]
				}
			}
		}
		y.Data[k] = s
	}
	return y
}

// convT computes each output element by its definition as a sum over the
// input positions that reach it (the gather form of the scatter).
func convT(ins []Tensor, a ir.Attrs, out []int64) Tensor {
	x, w := ins[0], ins[1]
	g := geometry(a)
	grp := a.GetInt("group", 1)
	C := x.Shape[1]
	cg, mg, kh, kw := C/grp, w.Shape[1], w.Shape[2], w.Shape[3]
	y := newT(out)
	for k := range y.Data {
		idx := unravel(int64(k), out) // n m oh ow
		grpi, mi := idx[1]/mg, idx[1]%mg
		s := 0.0
		if len(ins) == 3 {
			s = ins[2].Data[idx[1]]
		}
		for c := int64(0); c < cg; c++ {
			ci := grpi*cg + c
			for ih := int64(0); ih < x.Shape[2]; ih++ {
				for i := int64(0); i < kh; i++ {
					if ih*g.s[0]-g.p[0]+i*g.d[0] != idx[2] {
						continue
					}
					for iw := int64(0); iw < x.Shape[3]; iw++ {
						for j := int64(0); j < kw; j++ {
							if iw*g.s[1]-g.p[1]+j*g.d[1] != idx[3] {
								continue
							}
							s += x.Data[ravel([]int64{idx[0], ci, ih, iw}, x.Shape)] * w.Data[ravel([]int64{ci, mi, i, j}, w.Shape)]
						}
					}
				}
			}
		}
		y.Data[k] = s
	}
	return y
}

func pool(op string, x Tensor, a ir.Attrs, out []int64) Tensor {
	g := geometry(a)
	ks := a.GetInts("kernel_shape", nil)
	pads := a.GetInts("pads", []int64{0, 0, 0, 0})
	incl := a.GetInt("count_include_pad", 0) != 0
	H, W := x.Shape[2], x.Shape[3]
	y := newT(out)
	for k := range y.Data {
		idx := unravel(int64(k), out)
		best, sum, real, padded := math.Inf(-1), 0.0, 0, 0
		for i := int64(0); i < ks[0]; i++ {
			h := idx[2]*g.s[0] - g.p[0] + i*g.d[0]
			for j := int64(0); j < ks[1]; j++ {
				v := idx[3]*g.s[1] - g.p[1] + j*g.d[1]
				if h < H+pads[2] && v < W+pads[3] {
					padded++ // inside the padded input
				}
				if h < 0 || v < 0 || h >= H || v >= W {
					continue
				}
				e := x.Data[ravel([]int64{idx[0], idx[1], h, v}, x.Shape)]
				best = max(best, e)
				sum += e
				real++
			}
		}
		switch {
		case op == "MaxPool":
			y.Data[k] = best
		case incl:
			y.Data[k] = sum / float64(padded)
		default:
			y.Data[k] = sum / float64(real)
		}
	}
	return y
}

func axisOf(a ir.Attrs, def int64, rank int) int {
	ax := a.GetInt("axis", def)
	if ax < 0 {
		ax += int64(rank)
	}
	return int(ax)
}

func norm(op string, ins []Tensor, a ir.Attrs, out []int64) Tensor {
	x := ins[0]
	y := newT(out)
	r := len(x.Shape)
	switch op {
	case "BatchNorm":
		eps := a.GetFloat("epsilon", 1e-5)
		for k := range y.Data {
			c := unravel(int64(k), x.Shape)[1]
			y.Data[k] = ins[1].Data[c]*(x.Data[k]-ins[3].Data[c])/math.Sqrt(ins[4].Data[c]+eps) + ins[2].Data[c]
		}
	case "LayerNorm", "RMSNorm":
		ax := axisOf(a, -1, r)
		inner := size(x.Shape[ax:])
		eps := a.GetFloat("epsilon", map[bool]float64{true: 1e-6, false: 1e-5}[op == "RMSNorm"])
		for o := int64(0); o < size(x.Shape[:ax]); o++ {
			row := x.Data[o*inner : (o+1)*inner]
			mean, vr := 0.0, 0.0
			if op == "LayerNorm" {
				for _, e := range row {
					mean += e / float64(inner)
				}
			}
			for _, e := range row {
				vr += (e - mean) * (e - mean) / float64(inner)
			}
			for i, e := range row {
				v := (e - mean) / math.Sqrt(vr+eps) * ins[1].Data[i]
				if len(ins) == 3 {
					v += ins[2].Data[i]
				}
				y.Data[o*inner+int64(i)] = v
			}
		}
	case "Softmax", "LogSoftmax":
		ax := axisOf(a, -1, r)
		for k := range y.Data {
			idx := unravel(int64(k), x.Shape)
			den := 0.0
			for j := int64(0); j < x.Shape[ax]; j++ {
				o := append([]int64{}, idx...)
				o[ax] = j
				den += math.Exp(x.Data[ravel(o, x.Shape)])
			}
			if op == "Softmax" {
				y.Data[k] = math.Exp(x.Data[k]) / den
			} else {
				y.Data[k] = x.Data[k] - math.Log(den)
			}
		}
	}
	return y
}

func reduce(op string, x Tensor, a ir.Attrs, out []int64) Tensor {
	red, _ := ir.ReduceAxes(len(x.Shape), a)
	keep := make([]int64, len(x.Shape))
	for i, d := range x.Shape {
		keep[i] = d
		if red[i] {
			keep[i] = 1
		}
	}
	y := newT(out)
	cnt := make([]float64, len(y.Data))
	for i := range y.Data {
		if op == "ReduceMax" {
			y.Data[i] = math.Inf(-1)
		}
	}
	for k, e := range x.Data {
		idx := unravel(int64(k), x.Shape)
		for i := range idx {
			if red[i] {
				idx[i] = 0
			}
		}
		o := ravel(idx, keep)
		cnt[o]++
		if op == "ReduceMax" {
			y.Data[o] = max(y.Data[o], e)
		} else {
			y.Data[o] += e
		}
	}
	if op == "ReduceMean" {
		for i := range y.Data {
			y.Data[i] /= cnt[i]
		}
	}
	return y
}

func data(op string, ins []Tensor, a ir.Attrs, outs [][]int64) ([]Tensor, error) {
	x := ins[0]
	switch op {
	case "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity":
		return []Tensor{{Shape: outs[0], Data: append([]float64{}, x.Data...)}}, nil
	case "Cast":
		to, _ := ir.ParseDType(a.GetStr("to", ""))
		y := Tensor{Shape: outs[0], Data: make([]float64, len(x.Data))}
		for i, e := range x.Data {
			switch {
			case to == ir.Bool:
				y.Data[i] = b2f(e != 0)
			case to.IsFloat():
				y.Data[i] = e
			default:
				y.Data[i] = math.Trunc(e)
			}
		}
		return []Tensor{y}, nil
	case "Transpose":
		perm, _ := ir.Perm(len(x.Shape), a)
		y := newT(outs[0])
		for k := range y.Data {
			idx := unravel(int64(k), y.Shape)
			src := make([]int64, len(idx))
			for i, p := range perm {
				src[p] = idx[i]
			}
			y.Data[k] = x.Data[ravel(src, x.Shape)]
		}
		return []Tensor{y}, nil
	case "Slice":
		starts, _, steps, err := ir.SliceBounds(x.Shape, a)
		if err != nil {
			return nil, err
		}
		y := newT(outs[0])
		for k := range y.Data {
			idx := unravel(int64(k), y.Shape)
			for i := range idx {
				idx[i] = starts[i] + idx[i]*steps[i]
			}
			y.Data[k] = x.Data[ravel(idx, x.Shape)]
		}
		return []Tensor{y}, nil
	case "Concat":
		y := newT(outs[0])
		ax := axisOf(a, 0, len(y.Shape))
		for k := range y.Data {
			idx := unravel(int64(k), y.Shape)
			for _, t := range ins {
				if idx[ax] < t.Shape[ax] {
					y.Data[k] = t.Data[ravel(idx, t.Shape)]
					break
				}
				idx[ax] -= t.Shape[ax]
			}
		}
		return []Tensor{y}, nil
	case "Split":
		ax := axisOf(a, 0, len(x.Shape))
		var ys []Tensor
		at := int64(0)
		for _, s := range outs {
			y := newT(s)
			for k := range y.Data {
				idx := unravel(int64(k), s)
				idx[ax] += at
				y.Data[k] = x.Data[ravel(idx, x.Shape)]
			}
			at += s[ax]
			ys = append(ys, y)
		}
		return ys, nil
	case "Gather":
		ax := axisOf(a, 0, len(x.Shape))
		ind := ins[1]
		y := newT(outs[0])
		for k := range y.Data {
			idx := unravel(int64(k), y.Shape)
			ii := idx[ax : ax+len(ind.Shape)]
			i := int64(ind.Data[ravel(ii, ind.Shape)])
			if i < 0 {
				i += x.Shape[ax]
			}
			src := append(append(append([]int64{}, idx[:ax]...), i), idx[ax+len(ind.Shape):]...)
			y.Data[k] = x.Data[ravel(src, x.Shape)]
		}
		return []Tensor{y}, nil
	case "Expand":
		y := newT(outs[0])
		for k := range y.Data {
			y.Data[k] = x.at(unravel(int64(k), y.Shape))
		}
		return []Tensor{y}, nil
	case "Pad":
		pads := a.GetInts("pads", nil)
		y := newT(outs[0])
		for k := range y.Data {
			idx := unravel(int64(k), y.Shape)
			in := true
			for i := range idx {
				idx[i] -= pads[i]
				if idx[i] < 0 || idx[i] >= x.Shape[i] {
					in = false
				}
			}
			if in {
				y.Data[k] = x.Data[ravel(idx, x.Shape)]
			} else {
				y.Data[k] = a.GetFloat("value", 0)
			}
		}
		return []Tensor{y}, nil
	}
	return nil, fmt.Errorf("ref: no reference for op %q", op)
}
