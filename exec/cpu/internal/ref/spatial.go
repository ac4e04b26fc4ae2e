package ref

// Convolutions and pools, by definition: each output element sums or
// maximises over the input positions its window covers.

import (
	"math"

	"github.com/memplan/memplan/ir"
)

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
