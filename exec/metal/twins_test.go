package metal

// Scalar twins of the MSL kernels' arithmetic (unary and binary ops, the
// erf approximation, row kernels, dtype casts), used by emulate_test.go.

import (
	"encoding/binary"
	"math"

	"github.com/memplan/memplan/exec/launch"
)

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
	case launch.UnaryRelu:
		return max(v, 0)
	case launch.UnarySigmoid:
		return 1 / (1 + exp32(-v))
	case launch.UnaryTanh:
		return float32(math.Tanh(float64(v)))
	case launch.UnaryGeluErf:
		return 0.5 * v * (1 + erfApprox(v*float32(1/math.Sqrt2)))
	case launch.UnaryGeluTanh:
		return 0.5 * v * (1 + float32(math.Tanh(float64(0.7978845608*(v+0.044715*v*v*v)))))
	case launch.UnarySilu:
		return v / (1 + exp32(-v))
	case launch.UnaryErf:
		return erfApprox(v)
	case launch.UnarySqrt:
		return float32(math.Sqrt(float64(v)))
	case launch.UnaryNeg:
		return -v
	case launch.UnaryExp:
		return exp32(v)
	case launch.UnaryLog:
		return float32(math.Log(float64(v)))
	case launch.UnaryAbs:
		return float32(math.Abs(float64(v)))
	case launch.UnarySin:
		return float32(math.Sin(float64(v)))
	case launch.UnaryCos:
		return float32(math.Cos(float64(v)))
	case launch.UnaryReciprocal:
		return 1 / v
	case launch.UnaryClip:
		return min(max(v, alpha), beta)
	case launch.UnaryHardSigmoid:
		return max(0, min(1, alpha*v+beta))
	case launch.UnaryHardSwish:
		return v * max(0, min(1, v/6+0.5))
	}
	return v
}

func binaryOp(op int32, a, b float32) float32 {
	switch op {
	case launch.BinaryAdd:
		return a + b
	case launch.BinarySub:
		return a - b
	case launch.BinaryMul:
		return a * b
	case launch.BinaryDiv:
		return a / b
	case launch.BinaryPow:
		if a < 0 && float64(b) == math.RoundToEven(float64(b)) {
			m := float32(math.Pow(float64(-a), float64(b)))
			if math.Mod(math.Abs(float64(b)), 2) == 1 {
				return -m
			}
			return m
		}
		return float32(math.Pow(float64(a), float64(b)))
	case launch.BinaryMax:
		return max(a, b)
	case launch.BinaryMin:
		return min(a, b)
	}
	return 0
}

// binaryI64 is the twin of binary_i64 (elementwise.metal).
func binaryI64(op int32, a, b int64) int64 {
	switch op {
	case launch.BinaryAdd:
		return a + b
	case launch.BinarySub:
		return a - b
	case launch.BinaryMul:
		return a * b
	case launch.BinaryMax:
		return max(a, b)
	case launch.BinaryMin:
		return min(a, b)
	}
	return 0
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func emulateRow(p *launch.RowParams, r int32, x, sc, bi, y view) {
	base := r * p.Cols
	switch p.Op {
	case launch.RowSoftmax, launch.RowLogSoftmax:
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
			if p.Op == launch.RowSoftmax {
				y.setF32(off32(&p.Out, base+c), exp32(v)/s)
			} else {
				y.setF32(off32(&p.Out, base+c), v-ls)
			}
		}
	case launch.RowLayerNorm, launch.RowRMSNorm:
		var mean float32
		if p.Op == launch.RowLayerNorm {
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
		if p.Op == launch.RowReduceMax {
			acc = float32(math.Inf(-1))
		}
		for c := int32(0); c < p.Cols; c++ {
			v := x.f32(off32(&p.X, base+c))
			if p.Op == launch.RowReduceMax {
				acc = max(acc, v)
			} else {
				acc += v
			}
		}
		if p.Op == launch.RowReduceMean {
			acc /= float32(p.Cols)
		}
		y.setF32(off32(&p.Out, r), acc)
	}
}

func castSize(code int32) int64 {
	switch code {
	case launch.CastF32, launch.CastI32:
		return 4
	case launch.CastF16:
		return 2
	case launch.CastI64:
		return 8
	}
	return 1
}

func castOne(from, to int32, src, dst []byte) {
	isf := false
	var f float32
	var l int64
	switch from {
	case launch.CastF32:
		f, isf = math.Float32frombits(binary.LittleEndian.Uint32(src)), true
	case launch.CastF16:
		f, isf = halfToFloat(binary.LittleEndian.Uint16(src)), true
	case launch.CastI64:
		l = int64(binary.LittleEndian.Uint64(src))
	case launch.CastI32:
		l = int64(int32(binary.LittleEndian.Uint32(src)))
	case launch.CastI8:
		l = int64(int8(src[0]))
	case launch.CastU8:
		l = int64(src[0])
	case launch.CastBool:
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
	case launch.CastF32:
		binary.LittleEndian.PutUint32(dst, math.Float32bits(fv))
	case launch.CastF16:
		binary.LittleEndian.PutUint16(dst, floatToHalf(fv))
	case launch.CastI64:
		binary.LittleEndian.PutUint64(dst, uint64(lv))
	case launch.CastI32:
		binary.LittleEndian.PutUint32(dst, uint32(int32(lv)))
	case launch.CastI8, launch.CastU8:
		dst[0] = byte(lv)
	case launch.CastBool:
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
