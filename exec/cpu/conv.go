package cpu

// Convolution, transposed convolution and pooling over NCHW tensors.
//
// Window geometry follows ONNX: output row oh reads input rows
// oh*stride - padTop + kh*dilation for kh in [0, kH), and rows outside
// [0, H) read as zero (Conv) or are skipped (pools). Work is split across
// kernel threads by (image, output channel) plane; each output element is
// summed in a fixed order (input channel, kh, kw), so results do not depend
// on the split.
//
// Example: Conv with X[1 4 5 5], W[6 2 3 3], group 2, pads 1: output
// channels 0..2 read input channels 0..1, channels 3..5 read 2..3; each
// output is 5x5.
//
// ConvTranspose scatters instead: input (ih, iw) adds into output row
// ih*stride - padTop + kh*dilation. One thread owns one output plane, so the
// scatter never races.
//
// Pools with ceil_mode may have a last window that runs past the padded
// input; AveragePool divides by the window's extent clipped to the padded
// input when count_include_pad is set, else by the number of real input
// elements in the window (as PyTorch and ONNX Runtime do).

import (
	"math"
)

func init() {
	register(kConv, "Conv")
	register(kConvTranspose, "ConvTranspose")
	register(kMaxPool, "MaxPool")
	register(kAveragePool, "AveragePool")
	register(kGlobalAveragePool, "GlobalAveragePool")
}

// window2 holds 2-D window attributes.
type window2 struct {
	kh, kw                 int64
	sh, sw                 int64
	pt, pl, pb, pr         int64
	dh, dw                 int64
	ceil, countIncludePads bool
}

func windowAttrs(c *call, kh, kw int64) (window2, error) {
	a := c.attrs()
	w := window2{kh: kh, kw: kw, sh: 1, sw: 1, dh: 1, dw: 1}
	if s := a.GetInts("strides", nil); s != nil {
		if len(s) != 2 || s[0] < 1 || s[1] < 1 {
			return w, kernelErr(c, "strides %v", s)
		}
		w.sh, w.sw = s[0], s[1]
	}
	if p := a.GetInts("pads", nil); p != nil {
		if len(p) != 4 {
			return w, kernelErr(c, "pads %v", p)
		}
		w.pt, w.pl, w.pb, w.pr = p[0], p[1], p[2], p[3]
	}
	if d := a.GetInts("dilations", nil); d != nil {
		if len(d) != 2 || d[0] < 1 || d[1] < 1 {
			return w, kernelErr(c, "dilations %v", d)
		}
		w.dh, w.dw = d[0], d[1]
	}
	w.ceil = a.GetInt("ceil_mode", 0) != 0
	w.countIncludePads = a.GetInt("count_include_pad", 0) != 0
	return w, nil
}

func kConv(c *call) error {
	x, wt, y := c.in(0), c.in(1), c.out(0)
	if x.rank() != 4 || wt.rank() != 4 || y.rank() != 4 {
		return kernelErr(c, "needs 4-D tensors")
	}
	N, C, H, W := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	M, Cg, KH, KW := wt.shape[0], wt.shape[1], wt.shape[2], wt.shape[3]
	OH, OW := y.shape[2], y.shape[3]
	g := c.attrs().GetInt("group", 1)
	if g < 1 || C != Cg*g || M%g != 0 || y.shape[0] != N || y.shape[1] != M {
		return kernelErr(c, "group %d with X%v W%v Y%v", g, x.shape, wt.shape, y.shape)
	}
	win, err := windowAttrs(c, KH, KW)
	if err != nil {
		return err
	}
	xv, wv := loadFPar(x, c.threads), loadFPar(wt, c.threads)
	var bv []float64
	if c.nin() == 3 {
		bv = loadF(c.in(2))
	}
	out := make([]float64, N*M*OH*OW)
	Mg := M / g
	threads := c.threads
	if N*M*OH*OW*Cg*KH*KW < 1<<14 {
		threads = 1
	}
	if K, P := Cg*KH*KW, OH*OW; K*P <= maxIm2col {
		convIm2col(threads, xv, wv, bv, out, N, C, H, W, M, g, KH, KW, OH, OW, win)
		storeFPar(y, out, threads)
		return nil
	}
	parallelFor(threads, N*M, func(lo, hi int64) {
		for p := lo; p < hi; p++ {
			n, m := p/M, p%M
			c0 := (m / Mg) * Cg
			plane := out[p*OH*OW : (p+1)*OH*OW]
			if bv != nil {
				for i := range plane {
					plane[i] = bv[m]
				}
			}
			// Accumulate tap by tap: for a fixed (ci, kh, kw) the valid
			// output columns form one range, so the inner loop has no
			// branches. Every element still sums in (ci, kh, kw) order.
			for ci := int64(0); ci < Cg; ci++ {
				xp := xv[(n*C+c0+ci)*H*W : (n*C+c0+ci+1)*H*W]
				wp := wv[(m*Cg+ci)*KH*KW : (m*Cg+ci+1)*KH*KW]
				for kh := int64(0); kh < KH; kh++ {
					for kw := int64(0); kw < KW; kw++ {
						wval := wp[kh*KW+kw]
						shift := kw*win.dw - win.pl // iw = ow*sw + shift
						owLo, owHi := validRange(shift, win.sw, W, OW)
						for oh := int64(0); oh < OH; oh++ {
							ih := oh*win.sh - win.pt + kh*win.dh
							if ih < 0 || ih >= H {
								continue
							}
							xrow := xp[ih*W : (ih+1)*W]
							orow := plane[oh*OW : (oh+1)*OW]
							if win.sw == 1 {
								xs := xrow[owLo+shift : owHi+shift]
								os := orow[owLo:owHi]
								for i, xval := range xs {
									os[i] += wval * xval
								}
								continue
							}
							for ow := owLo; ow < owHi; ow++ {
								orow[ow] += wval * xrow[ow*win.sw+shift]
							}
						}
					}
				}
			}
		}
	})
	storeF(y, out)
	return nil
}

func kConvTranspose(c *call) error {
	x, wt, y := c.in(0), c.in(1), c.out(0)
	if x.rank() != 4 || wt.rank() != 4 || y.rank() != 4 {
		return kernelErr(c, "needs 4-D tensors")
	}
	N, C, H, W := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	Mg, KH, KW := wt.shape[1], wt.shape[2], wt.shape[3]
	OH, OW := y.shape[2], y.shape[3]
	g := c.attrs().GetInt("group", 1)
	if g < 1 || wt.shape[0] != C || C%g != 0 || y.shape[0] != N || y.shape[1] != Mg*g {
		return kernelErr(c, "group %d with X%v W%v Y%v", g, x.shape, wt.shape, y.shape)
	}
	win, err := windowAttrs(c, KH, KW)
	if err != nil {
		return err
	}
	M, Cg := Mg*g, C/g
	xv, wv := loadF(x), loadF(wt)
	var bv []float64
	if c.nin() == 3 {
		bv = loadF(c.in(2))
	}
	out := make([]float64, N*M*OH*OW)
	threads := c.threads
	if N*M*H*W*Cg*KH*KW < 1<<14 {
		threads = 1
	}
	parallelFor(threads, N*M, func(lo, hi int64) {
		for p := lo; p < hi; p++ {
			n, m := p/M, p%M
			grp, mi := m/Mg, m%Mg
			plane := out[p*OH*OW : (p+1)*OH*OW]
			if bv != nil {
				for i := range plane {
					plane[i] = bv[m]
				}
			}
			for ci := int64(0); ci < Cg; ci++ {
				cin := grp*Cg + ci
				xp := xv[(n*C+cin)*H*W:]
				wp := wv[(cin*Mg+mi)*KH*KW:]
				for ih := int64(0); ih < H; ih++ {
					for iw := int64(0); iw < W; iw++ {
						xval := xp[ih*W+iw]
						for kh := int64(0); kh < KH; kh++ {
							oh := ih*win.sh - win.pt + kh*win.dh
							if oh < 0 || oh >= OH {
								continue
							}
							for kw := int64(0); kw < KW; kw++ {
								ow := iw*win.sw - win.pl + kw*win.dw
								if ow < 0 || ow >= OW {
									continue
								}
								plane[oh*OW+ow] += xval * wp[kh*KW+kw]
							}
						}
					}
				}
			}
		}
	})
	storeF(y, out)
	return nil
}

// pool runs a window reduction over every (image, channel) plane.
func pool(c *call, reduce func(x []float64, H, W int64, win window2, oh, ow int64) float64) error {
	x, y := c.in(0), c.out(0)
	if x.rank() != 4 || y.rank() != 4 {
		return kernelErr(c, "needs 4-D tensors")
	}
	ks := c.attrs().GetInts("kernel_shape", nil)
	if len(ks) != 2 || ks[0] < 1 || ks[1] < 1 {
		return kernelErr(c, "kernel_shape %v", ks)
	}
	win, err := windowAttrs(c, ks[0], ks[1])
	if err != nil {
		return err
	}
	N, C, H, W := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	OH, OW := y.shape[2], y.shape[3]
	if y.shape[0] != N || y.shape[1] != C {
		return kernelErr(c, "X%v Y%v", x.shape, y.shape)
	}
	xv := loadF(x)
	out := make([]float64, N*C*OH*OW)
	threads := c.threads
	if N*C*OH*OW*ks[0]*ks[1] < 1<<14 {
		threads = 1
	}
	parallelFor(threads, N*C, func(lo, hi int64) {
		for p := lo; p < hi; p++ {
			xp := xv[p*H*W : (p+1)*H*W]
			for oh := int64(0); oh < OH; oh++ {
				for ow := int64(0); ow < OW; ow++ {
					out[(p*OH+oh)*OW+ow] = reduce(xp, H, W, win, oh, ow)
				}
			}
		}
	})
	storeF(y, out)
	return nil
}

func kMaxPool(c *call) error {
	return pool(c, func(x []float64, H, W int64, win window2, oh, ow int64) float64 {
		m := math.Inf(-1)
		for kh := int64(0); kh < win.kh; kh++ {
			ih := oh*win.sh - win.pt + kh*win.dh
			if ih < 0 || ih >= H {
				continue
			}
			for kw := int64(0); kw < win.kw; kw++ {
				iw := ow*win.sw - win.pl + kw*win.dw
				if iw < 0 || iw >= W {
					continue
				}
				if v := x[ih*W+iw]; v > m || math.IsNaN(v) {
					m = v
				}
			}
		}
		return m
	})
}

func kAveragePool(c *call) error {
	if d := c.attrs().GetInts("dilations", nil); d != nil && (len(d) != 2 || d[0] != 1 || d[1] != 1) {
		return kernelErr(c, "AveragePool dilations %v: only 1 is supported", d)
	}
	return pool(c, func(x []float64, H, W int64, win window2, oh, ow int64) float64 {
		hs, ws := oh*win.sh-win.pt, ow*win.sw-win.pl
		he, we := min(hs+win.kh, H+win.pb), min(ws+win.kw, W+win.pr)
		count := (he - hs) * (we - ws)
		hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, H), min(we, W)
		if !win.countIncludePads {
			count = (he - hs) * (we - ws)
		}
		s := 0.0
		for ih := hs; ih < he; ih++ {
			for iw := ws; iw < we; iw++ {
				s += x[ih*W+iw]
			}
		}
		if count <= 0 {
			return math.NaN()
		}
		return s / float64(count)
	})
}

func kGlobalAveragePool(c *call) error {
	x, y := c.in(0), c.out(0)
	if x.rank() < 3 || y.numel() != x.shape[0]*x.shape[1] {
		return kernelErr(c, "X%v Y%v", x.shape, y.shape)
	}
	planes := x.shape[0] * x.shape[1]
	hw := numel(x.shape[2:])
	xv := loadF(x)
	out := make([]float64, planes)
	for p := range out {
		s := 0.0
		for _, v := range xv[int64(p)*hw : int64(p+1)*hw] {
			s += v
		}
		out[p] = s / float64(hw)
	}
	storeF(y, out)
	return nil
}

// validRange returns the output columns [lo, hi) whose input column
// ow*stride + shift lies in [0, w), clipped to [0, outW).
func validRange(shift, stride, w, outW int64) (lo, hi int64) {
	// ow*stride + shift >= 0  <=>  ow >= ceil(-shift / stride)
	lo = 0
	if shift < 0 {
		lo = (-shift + stride - 1) / stride
	}
	// ow*stride + shift <= w-1  <=>  ow <= floor((w-1-shift) / stride)
	if w-1-shift < 0 {
		return lo, lo
	}
	hi = min((w-1-shift)/stride+1, outW)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// maxIm2col bounds the im2col matrix (elements) of one (image, group).
var maxIm2col int64 = 1 << 22

// convIm2col computes Conv as one matrix product per (image, group):
// col[k][p] holds the input element that tap k = (ci, kh, kw) reads for
// output position p = (oh, ow), zero where the tap falls in the padding,
// and out[m][p] = sum_k W[m][k] * col[k][p] (matmulCore's fixed order),
// plus the bias. Work is split over (image, group) pairs when there are
// enough of them (depthwise convolutions), else inside the product.
func convIm2col(threads int, xv, wv, bv, out []float64, N, C, H, W, M, g, KH, KW, OH, OW int64, win window2) {
	Cg, Mg := C/g, M/g
	K, P := Cg*KH*KW, OH*OW
	jobs := N * g
	outer, inner := 1, threads
	if jobs >= int64(threads) {
		outer, inner = threads, 1
	}
	parallelFor(outer, jobs, func(lo, hi int64) {
		col := make([]float64, K*P)
		for job := lo; job < hi; job++ {
			n, grp := job/g, job%g
			clear(col)
			for ci := int64(0); ci < Cg; ci++ {
				xp := xv[(n*C+grp*Cg+ci)*H*W : (n*C+grp*Cg+ci+1)*H*W]
				for kh := int64(0); kh < KH; kh++ {
					for kw := int64(0); kw < KW; kw++ {
						row := col[((ci*KH+kh)*KW+kw)*P : ((ci*KH+kh)*KW+kw+1)*P]
						shift := kw*win.dw - win.pl
						owLo, owHi := validRange(shift, win.sw, W, OW)
						for oh := int64(0); oh < OH; oh++ {
							ih := oh*win.sh - win.pt + kh*win.dh
							if ih < 0 || ih >= H {
								continue
							}
							for ow := owLo; ow < owHi; ow++ {
								row[oh*OW+ow] = xp[ih*W+ow*win.sw+shift]
							}
						}
					}
				}
			}
			res := matmulCore(inner, 1, Mg, K, P, wv[grp*Mg*K:(grp+1)*Mg*K], col)
			for m := int64(0); m < Mg; m++ {
				dst := out[(n*M+grp*Mg+m)*P : (n*M+grp*Mg+m+1)*P]
				copy(dst, res[m*P:(m+1)*P])
				if bv != nil {
					for i := range dst {
						dst[i] += bv[grp*Mg+m]
					}
				}
			}
		}
	})
}
