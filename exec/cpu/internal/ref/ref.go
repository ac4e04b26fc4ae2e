// Package ref is a naive float64 implementation of the ir core op set, the
// oracle the CPU kernels are tested against. It favours obviousness over
// speed: every output element is computed from its multi-index by the op's
// definition, with no strides, chunking or shared code with exec/cpu.
package ref

import (
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
