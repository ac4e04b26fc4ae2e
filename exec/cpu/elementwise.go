package cpu

// Elementwise kernels: unary, binary with numpy broadcasting, comparisons
// and Where.
//
// Every operand is viewed with the output's shape (broadcast dimensions get
// stride 0), the output's row-major element range is cut into one chunk
// per kernel thread, and each chunk loads its slice of every operand,
// computes in float64 (or int64 for integer dtypes), and stores. When an
// operand overlaps the output with a different layout (an in-place dispatch
// over a strided view), the whole input is loaded before anything is
// stored, in one chunk.
//
// Example: Add(a f32[2 1], b f32[3]) -> y f32[2 3]: a is viewed as [2 3]
// with strides [4 0], b as [2 3] with strides [0 4]; y[1,2] = a[1,0] + b[2].

import (
	"math"

	"github.com/memplan/memplan/ir"
)

type unaryF func(x float64, a ir.Attrs) float64

var unaryOps = map[string]unaryF{
	"Relu":       func(x float64, _ ir.Attrs) float64 { return math.Max(x, 0) },
	"Sigmoid":    func(x float64, _ ir.Attrs) float64 { return sigmoid(x) },
	"Tanh":       func(x float64, _ ir.Attrs) float64 { return math.Tanh(x) },
	"Silu":       func(x float64, _ ir.Attrs) float64 { return x * sigmoid(x) },
	"Erf":        func(x float64, _ ir.Attrs) float64 { return math.Erf(x) },
	"Sqrt":       func(x float64, _ ir.Attrs) float64 { return math.Sqrt(x) },
	"Neg":        func(x float64, _ ir.Attrs) float64 { return -x },
	"Exp":        func(x float64, _ ir.Attrs) float64 { return math.Exp(x) },
	"Log":        func(x float64, _ ir.Attrs) float64 { return math.Log(x) },
	"Abs":        func(x float64, _ ir.Attrs) float64 { return math.Abs(x) },
	"Sin":        func(x float64, _ ir.Attrs) float64 { return math.Sin(x) },
	"Cos":        func(x float64, _ ir.Attrs) float64 { return math.Cos(x) },
	"Reciprocal": func(x float64, _ ir.Attrs) float64 { return 1 / x },
	"Gelu": func(x float64, a ir.Attrs) float64 {
		if a.GetStr("approximate", "none") == "tanh" {
			return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
		}
		return 0.5 * x * (1 + math.Erf(x/math.Sqrt2))
	},
	"Clip": func(x float64, a ir.Attrs) float64 {
		return math.Min(math.Max(x, a.GetFloat("min", math.Inf(-1))), a.GetFloat("max", math.Inf(1)))
	},
	"HardSigmoid": func(x float64, a ir.Attrs) float64 {
		return math.Max(0, math.Min(1, a.GetFloat("alpha", 0.2)*x+a.GetFloat("beta", 0.5)))
	},
	"HardSwish": func(x float64, _ ir.Attrs) float64 { return x * math.Max(0, math.Min(1, x/6+0.5)) },
}

// unaryInts are the unary ops with an exact integer form.
var unaryInts = map[string]func(int64) int64{
	"Neg":  func(x int64) int64 { return -x },
	"Abs":  func(x int64) int64 { return max(x, -x) },
	"Relu": func(x int64) int64 { return max(x, 0) },
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

type binaryF func(a, b float64) float64

var binaryOps = map[string]binaryF{
	"Add": func(a, b float64) float64 { return a + b },
	"Sub": func(a, b float64) float64 { return a - b },
	"Mul": func(a, b float64) float64 { return a * b },
	"Div": func(a, b float64) float64 { return a / b },
	"Pow": math.Pow,
	"Max": math.Max,
	"Min": math.Min,
}

type binaryI func(a, b int64) (int64, bool)

var binaryInts = map[string]binaryI{
	"Add": func(a, b int64) (int64, bool) { return a + b, true },
	"Sub": func(a, b int64) (int64, bool) { return a - b, true },
	"Mul": func(a, b int64) (int64, bool) { return a * b, true },
	"Div": func(a, b int64) (int64, bool) {
		if b == 0 {
			return 0, false
		}
		return a / b, true
	},
	"Max": func(a, b int64) (int64, bool) { return max(a, b), true },
	"Min": func(a, b int64) (int64, bool) { return min(a, b), true },
	"Pow": func(a, b int64) (int64, bool) {
		if b < 0 {
			return 0, false
		}
		r := int64(1)
		for ; b > 0; b-- {
			r *= a
		}
		return r, true
	},
}

var compareF = map[string]func(a, b float64) bool{
	"Equal":   func(a, b float64) bool { return a == b },
	"Less":    func(a, b float64) bool { return a < b },
	"Greater": func(a, b float64) bool { return a > b },
}

var compareI = map[string]func(a, b int64) bool{
	"Equal":   func(a, b int64) bool { return a == b },
	"Less":    func(a, b int64) bool { return a < b },
	"Greater": func(a, b int64) bool { return a > b },
}

func init() {
	for n := range unaryOps {
		register(kUnary, n)
	}
	for n := range binaryOps {
		register(kBinary, n)
	}
	for n := range compareF {
		register(kCompare, n)
	}
	register(kWhere, "Where")
}

// chunks runs fn over the output's elements in per-thread chunks, or in a
// single chunk when an input overlaps the output unsafely.
func chunks(c *call, out tensor, ins []tensor, fn func(lo, hi int64) error) error {
	n := out.numel()
	threads := c.threads
	for _, in := range ins {
		if overlapsUnsafely(out, in) {
			threads = 1
		}
	}
	if n < 4096 {
		threads = 1
	}
	if threads <= 1 {
		return fn(0, n)
	}
	errs := make([]error, threads)
	chunk := (n + int64(threads) - 1) / int64(threads)
	parallelFor(threads, int64(threads), func(lo, hi int64) {
		for t := lo; t < hi; t++ {
			errs[t] = fn(t*chunk, min((t+1)*chunk, n))
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func isInt(d ir.DType) bool { return !d.IsFloat() }

func kUnary(c *call) error {
	x, y := c.in(0), c.out(0)
	if isInt(x.dt) {
		f, ok := unaryInts[c.d.Op]
		if !ok {
			return kernelErr(c, "no integer form for %v", x.dt)
		}
		return chunks(c, y, []tensor{x}, func(lo, hi int64) error {
			v := loadIRange(x, lo, hi)
			for i := range v {
				v[i] = f(v[i])
			}
			storeIRange(y, lo, v)
			return nil
		})
	}
	f, a := unaryOps[c.d.Op], c.attrs()
	return chunks(c, y, []tensor{x}, func(lo, hi int64) error {
		v := loadFRange(x, lo, hi)
		for i := range v {
			v[i] = f(v[i], a)
		}
		storeFRange(y, lo, v)
		return nil
	})
}

func kBinary(c *call) error {
	y := c.out(0)
	a, b := c.in(0).broadcastTo(y.shape), c.in(1).broadcastTo(y.shape)
	if isInt(a.dt) && isInt(b.dt) {
		f, ok := binaryInts[c.d.Op]
		if !ok {
			return kernelErr(c, "no integer form")
		}
		return chunks(c, y, []tensor{a, b}, func(lo, hi int64) error {
			va, vb := loadIRange(a, lo, hi), loadIRange(b, lo, hi)
			for i := range va {
				r, ok := f(va[i], vb[i])
				if !ok {
					return kernelErr(c, "integer %s(%d, %d) undefined", c.d.Op, va[i], vb[i])
				}
				va[i] = r
			}
			storeIRange(y, lo, va)
			return nil
		})
	}
	f := binaryOps[c.d.Op]
	return chunks(c, y, []tensor{a, b}, func(lo, hi int64) error {
		va, vb := loadFRange(a, lo, hi), loadFRange(b, lo, hi)
		for i := range va {
			va[i] = f(va[i], vb[i])
		}
		storeFRange(y, lo, va)
		return nil
	})
}

func kCompare(c *call) error {
	y := c.out(0)
	a, b := c.in(0).broadcastTo(y.shape), c.in(1).broadcastTo(y.shape)
	ints := isInt(a.dt) && isInt(b.dt)
	fi, ff := compareI[c.d.Op], compareF[c.d.Op]
	return chunks(c, y, []tensor{a, b}, func(lo, hi int64) error {
		r := make([]int64, hi-lo)
		if ints {
			va, vb := loadIRange(a, lo, hi), loadIRange(b, lo, hi)
			for i := range r {
				if fi(va[i], vb[i]) {
					r[i] = 1
				}
			}
		} else {
			va, vb := loadFRange(a, lo, hi), loadFRange(b, lo, hi)
			for i := range r {
				if ff(va[i], vb[i]) {
					r[i] = 1
				}
			}
		}
		storeIRange(y, lo, r)
		return nil
	})
}

// kWhere picks element bytes from x or y by cond, whatever the dtype.
func kWhere(c *call) error {
	out := c.out(0)
	cond, x, y := c.in(0).broadcastTo(out.shape), c.in(1).broadcastTo(out.shape), c.in(2).broadcastTo(out.shape)
	if x.dt != out.dt || y.dt != out.dt {
		return kernelErr(c, "x %v, y %v, output %v differ", x.dt, y.dt, out.dt)
	}
	e := out.dt.Size()
	return chunks(c, out, []tensor{cond, x, y}, func(lo, hi int64) error {
		cv := loadIRange(cond, lo, hi)
		tmp := make([]byte, (hi-lo)*e)
		x.forRange(lo, hi, func(k, p int64) {
			if cv[k-lo] != 0 {
				copy(tmp[(k-lo)*e:], x.buf[p:p+e])
			}
		})
		y.forRange(lo, hi, func(k, p int64) {
			if cv[k-lo] == 0 {
				copy(tmp[(k-lo)*e:], y.buf[p:p+e])
			}
		})
		out.forRange(lo, hi, func(k, p int64) { copy(out.buf[p:p+e], tmp[(k-lo)*e:(k-lo+1)*e]) })
		return nil
	})
}
