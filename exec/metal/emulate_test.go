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

	"github.com/memplan/memplan/exec/launch"
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
func off32(t *launch.Tensor, i int32) int32 {
	off := int32(0)
	for k := t.Rank - 1; k >= 0; k-- {
		d := t.Shape[k]
		off += (i % d) * t.Strides[k]
		i /= d
	}
	return off
}

// kernelParams maps a kernel to the Go type of its argument struct.
func kernelParams(kernel string) (reflect.Type, bool) {
	base := kernel
	if i := strings.LastIndex(kernel, "_b"); i > 0 && strings.Count(kernel[i:], "_") == 1 && len(kernel)-i == 3 {
		base = kernel[:i]
	}
	m := map[string]any{
		"unary_f32": launch.UnaryParams{}, "binary_f32": launch.BinaryParams{}, "binary_i64": launch.BinaryParams{}, "compare_f32": launch.BinaryParams{},
		"where": launch.WhereParams{}, "batchnorm_f32": launch.BatchNormParams{}, "matmul_f32": launch.MatMulParams{},
		"conv2d_f32": launch.ConvParams{}, "convtranspose2d_f32": launch.ConvParams{}, "pool2d_f32": launch.PoolParams{},
		"rows_f32": launch.RowParams{}, "copy": launch.CopyParams{}, "cast_any": launch.CastParams{}, "gather": launch.GatherParams{},
		"pad_f32": launch.PadParams{},
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
	case *launch.UnaryParams:
		x, y := buf(1, 4), buf(2, 4)
		for i := int32(0); i < n && i < p.N; i++ {
			y.setF32(off32(&p.Out, i), unaryOp(p.Op, x.f32(off32(&p.In, i)), p.Alpha, p.Beta))
		}
	case *launch.BinaryParams:
		if kernel == "binary_i64" {
			a, b, y := buf(1, 8), buf(2, 8), buf(3, 8)
			for i := int32(0); i < n && i < p.N; i++ {
				u := int64(binary.LittleEndian.Uint64(a.raw(off32(&p.A, i))))
				v := int64(binary.LittleEndian.Uint64(b.raw(off32(&p.B, i))))
				binary.LittleEndian.PutUint64(y.raw(off32(&p.Out, i)), uint64(binaryI64(p.Op, u, v)))
			}
			break
		}
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
			r := p.Op == launch.BinaryEqual && u == v || p.Op == launch.BinaryLess && u < v || p.Op == launch.BinaryGreater && u > v
			y.raw(off32(&p.Out, i))[0] = b2u(r)
		}
	case *launch.WhereParams:
		c, x, yv, out := buf(1, 1), buf(2, size), buf(3, size), buf(4, size)
		for i := int32(0); i < n && i < p.N; i++ {
			src := yv.raw(off32(&p.Y, i))
			if c.raw(off32(&p.Cond, i))[0] != 0 {
				src = x.raw(off32(&p.X, i))
			}
			copy(out.raw(off32(&p.Out, i)), src)
		}
	case *launch.BatchNormParams:
		x, sc, bi, mean, vr, y := buf(1, 4), buf(2, 4), buf(3, 4), buf(4, 4), buf(5, 4), buf(6, 4)
		for i := int32(0); i < n && i < p.N; i++ {
			v := x.f32(off32(&p.X, i))
			m := mean.f32(off32(&p.Mean, i))
			s := vr.f32(off32(&p.Var, i))
			y.setF32(off32(&p.Out, i), (v-m)/float32(math.Sqrt(float64(s+p.Eps)))*sc.f32(off32(&p.Scale, i))+bi.f32(off32(&p.Bias, i)))
		}
	case *launch.MatMulParams:
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
	case *launch.ConvParams:
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
	case *launch.PoolParams:
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
			if p.Mode == launch.PoolMax {
				acc = float32(math.Inf(-1))
			}
			count := 0
			for kh := int32(0); kh < p.KH; kh++ {
				ih := oh*p.SH - p.PT + kh*p.DH
				for kw := int32(0); kw < p.KW; kw++ {
					iw := ow*p.SW - p.PL + kw*p.DW
					if ih >= 0 && ih < p.H && iw >= 0 && iw < p.W {
						v := x.f32(xc + ih*p.X.Strides[2] + iw*p.X.Strides[3])
						if p.Mode == launch.PoolMax {
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
			if p.Mode != launch.PoolMax {
				if count > 0 {
					acc /= float32(count)
				} else {
					acc = 0
				}
			}
			y.setF32(off32(&p.Out, i), acc)
		}
	case *launch.RowParams:
		x, sc, bi, y := buf(1, 4), buf(2, 4), buf(3, 4), buf(4, 4)
		for r := int32(0); r < n && r < p.Rows; r++ {
			emulateRow(p, r, x, sc, bi, y)
		}
	case *launch.CopyParams:
		x, y := buf(1, size), buf(2, size)
		for i := int32(0); i < n && i < p.N; i++ {
			copy(y.raw(p.OutBase+off32(&p.Out, i)), x.raw(p.InBase+off32(&p.In, i)))
		}
	case *launch.CastParams:
		inSz, outSz := castSize(p.From), castSize(p.To)
		x, y := buf(1, inSz), buf(2, outSz)
		for i := int32(0); i < n && i < p.N; i++ {
			castOne(p.From, p.To, x.raw(off32(&p.In, i)), y.raw(off32(&p.Out, i)))
		}
	case *launch.GatherParams:
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
	case *launch.PadParams:
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
