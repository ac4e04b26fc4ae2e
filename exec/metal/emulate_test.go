package metal

// Go twins of the MSL kernels, line for line, run by the fake device over
// host memory. They let the whole Metal path (plan, encode, bind, grid)
// run on Linux against the CPU backend; what they cannot check is the MSL
// compiler and the GPU itself.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// view is one bound buffer: element e of size sz is at off + e*sz.
type view struct {
	b   []byte
	off int64
	sz  int64
	err *error
}

func (v view) at(e int64) []byte {
	p := v.off + e*v.sz
	if p < 0 || p+v.sz > int64(len(v.b)) {
		if *v.err == nil {
			*v.err = fmt.Errorf("element %d (byte %d) outside a %d-byte buffer", e, p, len(v.b))
		}
		return make([]byte, v.sz)
	}
	return v.b[p : p+v.sz]
}

func (v view) f32(e int32) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(v.at(int64(e))))
}
func (v view) setF32(e int32, x float32) {
	binary.LittleEndian.PutUint32(v.at(int64(e)), math.Float32bits(x))
}
func (v view) raw(e int32) []byte { return v.at(int64(e)) }

// off32 is tensor_offset over int32, as MSL computes it.
func off32(t *tensorDesc, i int32) int32 {
	off := int32(0)
	for k := t.Rank - 1; k >= 0; k-- {
		d := t.Shape[k]
		off += (i % d) * t.Strides[k]
		i /= d
	}
	return off
}

func erfApprox(x float32) float32 {
	s := float32(1)
	if x < 0 {
		s = -1
	}
	a := float32(math.Abs(float64(x)))
	t := 1 / (1 + 0.3275911*a)
	y := 1 - (((((1.061405429*t-1.453152027)*t)+1.421413741)*t-0.284496736)*t+0.254829592)*t*float32(math.Exp(float64(-a*a)))
	return s * y
}

func exp32(x float32) float32 { return float32(math.Exp(float64(x))) }

func unaryOp(op int32, v, alpha, beta float32) float32 {
	switch op {
	case unaryRelu:
		return max(v, 0)
	case unarySigmoid:
		return 1 / (1 + exp32(-v))
	case unaryTanh:
		return float32(math.Tanh(float64(v)))
	case unaryGeluErf:
		return 0.5 * v * (1 + erfApprox(v*float32(1/math.Sqrt2)))
	case unaryGeluTanh:
		return 0.5 * v * (1 + float32(math.Tanh(float64(0.7978845608*(v+0.044715*v*v*v)))))
	case unarySilu:
		return v / (1 + exp32(-v))
	case unaryErf:
		return erfApprox(v)
	case unarySqrt:
		return float32(math.Sqrt(float64(v)))
	case unaryNeg:
		return -v
	case unaryExp:
		return exp32(v)
	case unaryLog:
		return float32(math.Log(float64(v)))
	case unaryAbs:
		return float32(math.Abs(float64(v)))
	case unarySin:
		return float32(math.Sin(float64(v)))
	case unaryCos:
		return float32(math.Cos(float64(v)))
	case unaryReciprocal:
		return 1 / v
	case unaryClip:
		return min(max(v, alpha), beta)
	case unaryHardSigmoid:
		return max(0, min(1, alpha*v+beta))
	case unaryHardSwish:
		return v * max(0, min(1, v/6+0.5))
	}
	return v
}

func binaryOp(op int32, a, b float32) float32 {
	switch op {
	case binaryAdd:
		return a + b
	case binarySub:
		return a - b
	case binaryMul:
		return a * b
	case binaryDiv:
		return a / b
	case binaryPow:
		if a < 0 && float64(b) == math.RoundToEven(float64(b)) {
			m := float32(math.Pow(float64(-a), float64(b)))
			if math.Mod(math.Abs(float64(b)), 2) == 1 {
				return -m
			}
			return m
		}
		return float32(math.Pow(float64(a), float64(b)))
	case binaryMax:
		return max(a, b)
	case binaryMin:
		return min(a, b)
	}
	return 0
}

// kernelParams maps a kernel to the Go type of its argument struct.
func kernelParams(kernel string) (reflect.Type, bool) {
	base := kernel
	if i := strings.LastIndex(kernel, "_b"); i > 0 && strings.Count(kernel[i:], "_") == 1 && len(kernel)-i == 3 {
		base = kernel[:i]
	}
	m := map[string]any{
		"unary_f32": unaryParams{}, "binary_f32": binaryParams{}, "compare_f32": binaryParams{},
		"where": whereParams{}, "batchnorm_f32": batchnormParams{}, "matmul_f32": matmulParams{},
		"conv2d_f32": convParams{}, "convtranspose2d_f32": convParams{}, "pool2d_f32": poolParams{},
		"rows_f32": rowParams{}, "copy": copyParams{}, "cast_any": castParams{}, "gather": gatherParams{},
		"pad_f32": padParams{},
	}
	v, ok := m[base]
	if !ok {
		return nil, false
	}
	return reflect.TypeOf(v), true
}

// emulate runs one launch of kernel over threads threads.
func emulate(kernel string, params []byte, mem *hostMemory, binds map[int][2]int64, threads int) error {
	t, ok := kernelParams(kernel)
	if !ok {
		return fmt.Errorf("emulate: no twin for %q", kernel)
	}
	pv := reflect.New(t)
	if err := binary.Read(bytes.NewReader(params), binary.LittleEndian, pv.Interface()); err != nil {
		return fmt.Errorf("emulate %s: params: %w", kernel, err)
	}
	var err error
	buf := func(i int, sz int64) view {
		b, ok := binds[i]
		if !ok {
			if err == nil {
				err = fmt.Errorf("buffer index %d not bound", i)
			}
			return view{b: nil, err: &err, sz: sz}
		}
		return view{b: mem.bufs[b[0]], off: b[1], sz: sz, err: &err}
	}
	size := int64(4)
	if i := strings.LastIndex(kernel, "_b"); i > 0 && len(kernel)-i == 3 {
		size = int64(kernel[i+2] - '0')
	}
	n := int32(threads)
	switch p := pv.Interface().(type) {
	case *unaryParams:
		x, y := buf(1, 4), buf(2, 4)
		for i := int32(0); i < n && i < p.N; i++ {
			y.setF32(off32(&p.Out, i), unaryOp(p.Op, x.f32(off32(&p.In, i)), p.Alpha, p.Beta))
		}
	case *binaryParams:
		a, b := buf(1, 4), buf(2, 4)
		cmp := kernel == "compare_f32"
		y := buf(3, 4)
		if cmp {
			y = buf(3, 1)
		}
		for i := int32(0); i < n && i < p.N; i++ {
			u, v := a.f32(off32(&p.A, i)), b.f32(off32(&p.B, i))
			if !cmp {
				y.setF32(off32(&p.Out, i), binaryOp(p.Op, u, v))
				continue
			}
			r := p.Op == binaryEqual && u == v || p.Op == binaryLess && u < v || p.Op == binaryGreater && u > v
			y.raw(off32(&p.Out, i))[0] = b2u(r)
		}
	case *whereParams:
		c, x, yv, out := buf(1, 1), buf(2, size), buf(3, size), buf(4, size)
		for i := int32(0); i < n && i < p.N; i++ {
			src := yv.raw(off32(&p.Y, i))
			if c.raw(off32(&p.Cond, i))[0] != 0 {
				src = x.raw(off32(&p.X, i))
			}
			copy(out.raw(off32(&p.Out, i)), src)
		}
	case *batchnormParams:
		x, sc, bi, mean, vr, y := buf(1, 4), buf(2, 4), buf(3, 4), buf(4, 4), buf(5, 4), buf(6, 4)
		for i := int32(0); i < n && i < p.N; i++ {
			v := x.f32(off32(&p.X, i))
			m := mean.f32(off32(&p.Mean, i))
			s := vr.f32(off32(&p.Var, i))
			y.setF32(off32(&p.Out, i), (v-m)/float32(math.Sqrt(float64(s+p.Eps)))*sc.f32(off32(&p.Scale, i))+bi.f32(off32(&p.Bias, i)))
		}
	case *matmulParams:
		a, b, c, y := buf(1, 4), buf(2, 4), buf(3, 4), buf(4, 4)
		for i := int32(0); i < n && i < p.Total; i++ {
			r := p.Out.Rank
			rem := i
			nn := rem % p.N
			rem /= p.N
			m := rem % p.M
			rem /= p.M
			ao, bo := m*p.A.Strides[r-2], nn*p.B.Strides[r-1]
			for k := r - 3; k >= 0; k-- {
				d := p.Out.Shape[k]
				ck := rem % d
				rem /= d
				ao += ck * p.A.Strides[k]
				bo += ck * p.B.Strides[k]
			}
			var acc float32
			for k := int32(0); k < p.K; k++ {
				acc += a.f32(ao+k*p.A.Strides[r-1]) * b.f32(bo+k*p.B.Strides[r-2])
			}
			v := p.Alpha * acc
			if p.HasC != 0 {
				v += p.Beta * c.f32(off32(&p.C, i))
			}
			y.setF32(off32(&p.Out, i), v)
		}
	case *convParams:
		x, w, bias, y := buf(1, 4), buf(2, 4), buf(3, 4), buf(4, 4)
		for i := int32(0); i < n && i < p.Total; i++ {
			rem := i
			ow := rem % p.OW
			rem /= p.OW
			oh := rem % p.OH
			rem /= p.OH
			m := rem % p.M
			nb := rem / p.M
			cpg, mpg := p.C/p.Group, p.M/p.Group
			g := m / mpg
			var acc float32
			if p.HasBias != 0 {
				acc = bias.f32(m * p.Bias.Strides[0])
			}
			if kernel == "conv2d_f32" {
				for c := int32(0); c < cpg; c++ {
					xc := nb*p.X.Strides[0] + (g*cpg+c)*p.X.Strides[1]
					wc := m*p.Wt.Strides[0] + c*p.Wt.Strides[1]
					for kh := int32(0); kh < p.KH; kh++ {
						ih := oh*p.SH - p.PT + kh*p.DH
						if ih < 0 || ih >= p.H {
							continue
						}
						for kw := int32(0); kw < p.KW; kw++ {
							iw := ow*p.SW - p.PL + kw*p.DW
							if iw < 0 || iw >= p.W {
								continue
							}
							acc += x.f32(xc+ih*p.X.Strides[2]+iw*p.X.Strides[3]) * w.f32(wc+kh*p.Wt.Strides[2]+kw*p.Wt.Strides[3])
						}
					}
				}
			} else {
				for c := g * cpg; c < (g+1)*cpg; c++ {
					xc := nb*p.X.Strides[0] + c*p.X.Strides[1]
					wc := c*p.Wt.Strides[0] + (m-g*mpg)*p.Wt.Strides[1]
					for kh := int32(0); kh < p.KH; kh++ {
						th := oh + p.PT - kh*p.DH
						if th < 0 || th%p.SH != 0 || th/p.SH >= p.H {
							continue
						}
						for kw := int32(0); kw < p.KW; kw++ {
							tw := ow + p.PL - kw*p.DW
							if tw < 0 || tw%p.SW != 0 || tw/p.SW >= p.W {
								continue
							}
							acc += x.f32(xc+(th/p.SH)*p.X.Strides[2]+(tw/p.SW)*p.X.Strides[3]) * w.f32(wc+kh*p.Wt.Strides[2]+kw*p.Wt.Strides[3])
						}
					}
				}
			}
			y.setF32(off32(&p.Out, i), acc)
		}
	case *poolParams:
		x, y := buf(1, 4), buf(2, 4)
		for i := int32(0); i < n && i < p.Total; i++ {
			OW, OH, C := p.Out.Shape[3], p.Out.Shape[2], p.Out.Shape[1]
			rem := i
			ow := rem % OW
			rem /= OW
			oh := rem % OH
			rem /= OH
			c := rem % C
			nb := rem / C
			xc := nb*p.X.Strides[0] + c*p.X.Strides[1]
			acc := float32(0)
			if p.Mode == poolMax {
				acc = float32(math.Inf(-1))
			}
			count := 0
			for kh := int32(0); kh < p.KH; kh++ {
				ih := oh*p.SH - p.PT + kh*p.DH
				for kw := int32(0); kw < p.KW; kw++ {
					iw := ow*p.SW - p.PL + kw*p.DW
					if ih >= 0 && ih < p.H && iw >= 0 && iw < p.W {
						v := x.f32(xc + ih*p.X.Strides[2] + iw*p.X.Strides[3])
						if p.Mode == poolMax {
							acc = max(acc, v)
						} else {
							acc += v
						}
						count++
					} else if p.IncludePad != 0 && ih >= -p.PT && ih < p.H+p.PB && iw >= -p.PL && iw < p.W+p.PR {
						count++
					}
				}
			}
			if p.Mode != poolMax {
				if count > 0 {
					acc /= float32(count)
				} else {
					acc = 0
				}
			}
			y.setF32(off32(&p.Out, i), acc)
		}
	case *rowParams:
		x, sc, bi, y := buf(1, 4), buf(2, 4), buf(3, 4), buf(4, 4)
		for r := int32(0); r < n && r < p.Rows; r++ {
			emulateRow(p, r, x, sc, bi, y)
		}
	case *copyParams:
		x, y := buf(1, size), buf(2, size)
		for i := int32(0); i < n && i < p.N; i++ {
			copy(y.raw(p.OutBase+off32(&p.Out, i)), x.raw(p.InBase+off32(&p.In, i)))
		}
	case *castParams:
		inSz, outSz := castSize(p.From), castSize(p.To)
		x, y := buf(1, inSz), buf(2, outSz)
		for i := int32(0); i < n && i < p.N; i++ {
			castOne(p.From, p.To, x.raw(off32(&p.In, i)), y.raw(off32(&p.Out, i)))
		}
	case *gatherParams:
		x, idx, y := buf(1, size), buf(2, 8), buf(3, size)
		if p.IdxI64 == 0 {
			idx = buf(2, 4)
		}
		for i := int32(0); i < n && i < p.N; i++ {
			rem, xo, io := i, int32(0), int32(0)
			for k := p.Out.Rank - 1; k >= 0; k-- {
				d := p.Out.Shape[k]
				ck := rem % d
				rem /= d
				switch {
				case k < p.Axis:
					xo += ck * p.X.Strides[k]
				case k < p.Axis+p.IdxRank:
					io += ck * p.Idx.Strides[k-p.Axis]
				default:
					xo += ck * p.X.Strides[k-p.IdxRank+1]
				}
			}
			var j int64
			if p.IdxI64 != 0 {
				j = int64(binary.LittleEndian.Uint64(idx.raw(io)))
			} else {
				j = int64(int32(binary.LittleEndian.Uint32(idx.raw(io))))
			}
			if j < 0 {
				j += int64(p.AxisLen)
			}
			dst := y.raw(off32(&p.Out, i))
			if j >= 0 && j < int64(p.AxisLen) {
				copy(dst, x.raw(xo+int32(j)*p.X.Strides[p.Axis]))
			} else {
				clear(dst)
			}
		}
	case *padParams:
		x, y := buf(1, 4), buf(2, 4)
		for i := int32(0); i < n && i < p.N; i++ {
			rem, xo, inside := i, int32(0), true
			for k := p.Out.Rank - 1; k >= 0; k-- {
				d := p.Out.Shape[k]
				c := rem%d - p.Begin[k]
				rem /= d
				if c < 0 || c >= p.In.Shape[k] {
					inside = false
				} else {
					xo += c * p.In.Strides[k]
				}
			}
			v := p.Value
			if inside {
				v = x.f32(xo)
			}
			y.setF32(off32(&p.Out, i), v)
		}
	default:
		return fmt.Errorf("emulate: %s: no twin for %T", kernel, p)
	}
	if err != nil {
		return fmt.Errorf("emulate %s: %w", kernel, err)
	}
	return nil
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func emulateRow(p *rowParams, r int32, x, sc, bi, y view) {
	base := r * p.Cols
	switch p.Op {
	case rowSoftmax, rowLogSoftmax:
		m := float32(math.Inf(-1))
		for c := int32(0); c < p.Cols; c++ {
			m = max(m, x.f32(off32(&p.X, base+c)))
		}
		var s float32
		for c := int32(0); c < p.Cols; c++ {
			s += exp32(x.f32(off32(&p.X, base+c)) - m)
		}
		ls := float32(math.Log(float64(s)))
		for c := int32(0); c < p.Cols; c++ {
			v := x.f32(off32(&p.X, base+c)) - m
			if p.Op == rowSoftmax {
				y.setF32(off32(&p.Out, base+c), exp32(v)/s)
			} else {
				y.setF32(off32(&p.Out, base+c), v-ls)
			}
		}
	case rowLayerNorm, rowRMSNorm:
		var mean float32
		if p.Op == rowLayerNorm {
			for c := int32(0); c < p.Cols; c++ {
				mean += x.f32(off32(&p.X, base+c))
			}
			mean /= float32(p.Cols)
		}
		var ss float32
		for c := int32(0); c < p.Cols; c++ {
			d := x.f32(off32(&p.X, base+c)) - mean
			ss += d * d
		}
		inv := float32(1 / math.Sqrt(float64(ss/float32(p.Cols)+p.Eps)))
		for c := int32(0); c < p.Cols; c++ {
			e := base + c
			v := (x.f32(off32(&p.X, e)) - mean) * inv * sc.f32(off32(&p.Scale, e))
			if p.HasBias != 0 {
				v += bi.f32(off32(&p.Bias, e))
			}
			y.setF32(off32(&p.Out, e), v)
		}
	default:
		acc := float32(0)
		if p.Op == rowReduceMax {
			acc = float32(math.Inf(-1))
		}
		for c := int32(0); c < p.Cols; c++ {
			v := x.f32(off32(&p.X, base+c))
			if p.Op == rowReduceMax {
				acc = max(acc, v)
			} else {
				acc += v
			}
		}
		if p.Op == rowReduceMean {
			acc /= float32(p.Cols)
		}
		y.setF32(off32(&p.Out, r), acc)
	}
}

func castSize(code int32) int64 {
	switch code {
	case castF32, castI32:
		return 4
	case castF16:
		return 2
	case castI64:
		return 8
	}
	return 1
}

func castOne(from, to int32, src, dst []byte) {
	isf := false
	var f float32
	var l int64
	switch from {
	case castF32:
		f, isf = math.Float32frombits(binary.LittleEndian.Uint32(src)), true
	case castF16:
		f, isf = halfToFloat(binary.LittleEndian.Uint16(src)), true
	case castI64:
		l = int64(binary.LittleEndian.Uint64(src))
	case castI32:
		l = int64(int32(binary.LittleEndian.Uint32(src)))
	case castI8:
		l = int64(int8(src[0]))
	case castU8:
		l = int64(src[0])
	case castBool:
		l = int64(b2u(src[0] != 0))
	}
	fv := f
	if !isf {
		fv = float32(l)
	}
	lv := l
	if isf {
		lv = int64(f)
	}
	switch to {
	case castF32:
		binary.LittleEndian.PutUint32(dst, math.Float32bits(fv))
	case castF16:
		binary.LittleEndian.PutUint16(dst, floatToHalf(fv))
	case castI64:
		binary.LittleEndian.PutUint64(dst, uint64(lv))
	case castI32:
		binary.LittleEndian.PutUint32(dst, uint32(int32(lv)))
	case castI8, castU8:
		dst[0] = byte(lv)
	case castBool:
		dst[0] = b2u(isf && f != 0 || !isf && l != 0)
	}
}

// halfToFloat and floatToHalf convert IEEE binary16 (round to nearest even
// on the way down, as the GPU does).
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0:
		f := float32(man) / 1024 / 16384
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 31:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

func floatToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	a := math.Abs(float64(f))
	switch {
	case math.IsNaN(float64(f)):
		return sign | 0x7e00
	case a >= 65520:
		return sign | 0x7c00
	case a < 6.103515625e-05:
		return sign | uint16(math.RoundToEven(a*16777216))
	}
	exp := math.Floor(math.Log2(a))
	man := math.RoundToEven((a/math.Pow(2, exp) - 1) * 1024)
	if man == 1024 {
		man, exp = 0, exp+1
	}
	return sign | uint16(exp+15)<<10 | uint16(man)
}
