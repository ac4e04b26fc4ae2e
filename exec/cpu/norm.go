package cpu

// Normalisations, softmax and reductions.
//
// Each works on rows: the input, loaded dense in float64, is seen as
// [outer, inner] where inner is the product of the normalised (or reduced)
// axes, or as [outer, n, post] for a single axis in the middle (Softmax over
// axis 1 of [2 3 4]: outer 2, n 3, post 4; element (o, i, p) at
// (o*n+i)*post+p). Sums run in ascending index order in float64.

import (
	"math"

	"github.com/memplan/memplan/ir"
)

func init() {
	register(kBatchNorm, "BatchNorm")
	register(kLayerNorm, "LayerNorm")
	register(kRMSNorm, "RMSNorm")
	register(kSoftmax, "Softmax", "LogSoftmax")
	register(kReduce, "ReduceMean", "ReduceSum", "ReduceMax")
}

func normAxis(c *call, axis int64, rank int) (int, error) {
	if axis < 0 {
		axis += int64(rank)
	}
	if axis < 0 || axis >= int64(rank) {
		return 0, kernelErr(c, "axis %d out of range for rank %d", axis, rank)
	}
	return int(axis), nil
}

func kBatchNorm(c *call) error {
	x, y := c.in(0), c.out(0)
	if x.rank() < 2 {
		return kernelErr(c, "input %v has no channel axis", x.shape)
	}
	C := x.shape[1]
	var p [4][]float64
	for i := range p {
		t := c.in(i + 1)
		if t.numel() != C {
			return kernelErr(c, "parameter %d has %d elements, want %d", i+1, t.numel(), C)
		}
		p[i] = loadF(t)
	}
	scale, bias, mean, vr := p[0], p[1], p[2], p[3]
	eps := c.attrs().GetFloat("epsilon", 1e-5)
	post := numel(x.shape[2:])
	v := loadF(x)
	for i := range v {
		ch := (int64(i) / post) % C
		v[i] = (v[i]-mean[ch])/math.Sqrt(vr[ch]+eps)*scale[ch] + bias[ch]
	}
	storeF(y, v)
	return nil
}

func kLayerNorm(c *call) error { return rowNorm(c, false) }
func kRMSNorm(c *call) error   { return rowNorm(c, true) }

// rowNorm normalises over the axes from "axis" to the end.
func rowNorm(c *call, rms bool) error {
	x, y := c.in(0), c.out(0)
	ax, err := normAxis(c, c.attrs().GetInt("axis", -1), x.rank())
	if err != nil {
		return err
	}
	def := 1e-5
	if rms {
		def = 1e-6
	}
	eps := c.attrs().GetFloat("epsilon", def)
	inner := numel(x.shape[ax:])
	scale := loadF(c.in(1))
	var bias []float64
	if c.nin() == 3 {
		bias = loadF(c.in(2))
	}
	if int64(len(scale)) != inner || (bias != nil && int64(len(bias)) != inner) {
		return kernelErr(c, "parameters do not match the normalised extent %d", inner)
	}
	v := loadF(x)
	if inner == 0 {
		storeF(y, v)
		return nil
	}
	for o := int64(0); o < int64(len(v))/inner; o++ {
		row := v[o*inner : (o+1)*inner]
		mean := 0.0
		if !rms {
			for _, e := range row {
				mean += e
			}
			mean /= float64(inner)
		}
		ss := 0.0
		for _, e := range row {
			ss += (e - mean) * (e - mean)
		}
		inv := 1 / math.Sqrt(ss/float64(inner)+eps)
		for i := range row {
			row[i] = (row[i] - mean) * inv * scale[i]
			if bias != nil {
				row[i] += bias[i]
			}
		}
	}
	storeF(y, v)
	return nil
}

func kSoftmax(c *call) error {
	x, y := c.in(0), c.out(0)
	ax, err := normAxis(c, c.attrs().GetInt("axis", -1), x.rank())
	if err != nil {
		return err
	}
	n, post := x.shape[ax], numel(x.shape[ax+1:])
	outer := numel(x.shape[:ax])
	logs := c.d.Op == "LogSoftmax"
	v := loadF(x)
	for o := int64(0); o < outer; o++ {
		for p := int64(0); p < post; p++ {
			base := o*n*post + p
			m := math.Inf(-1)
			for i := int64(0); i < n; i++ {
				m = math.Max(m, v[base+i*post])
			}
			s := 0.0
			for i := int64(0); i < n; i++ {
				s += math.Exp(v[base+i*post] - m)
			}
			for i := int64(0); i < n; i++ {
				e := v[base+i*post] - m
				if logs {
					v[base+i*post] = e - math.Log(s)
				} else {
					v[base+i*post] = math.Exp(e) / s
				}
			}
		}
	}
	storeF(y, v)
	return nil
}

func kReduce(c *call) error {
	x, y := c.in(0), c.out(0)
	red, err := ir.ReduceAxes(x.rank(), c.attrs())
	if err != nil {
		return kernelErr(c, "%v", err)
	}
	// Output index of each input element: drop (or zero) the reduced axes.
	outShape := make([]int64, x.rank())
	for i, d := range x.shape {
		outShape[i] = d
		if red[i] {
			outShape[i] = 1
		}
	}
	nOut := numel(outShape)
	if nOut != y.numel() {
		return kernelErr(c, "output %v does not match reduction of %v", y.shape, x.shape)
	}
	v := loadF(x)
	acc := make([]float64, nOut)
	isMax := c.d.Op == "ReduceMax"
	if isMax {
		for i := range acc {
			acc[i] = math.Inf(-1)
		}
	}
	idx := make([]int64, x.rank())
	for k := range v {
		o := int64(0)
		for a := range idx {
			if !red[a] {
				o = o*outShape[a] + idx[a]
			}
		}
		if isMax {
			if v[k] > acc[o] || math.IsNaN(v[k]) {
				acc[o] = v[k]
			}
		} else {
			acc[o] += v[k]
		}
		for a := len(idx) - 1; a >= 0; a-- {
			idx[a]++
			if idx[a] < x.shape[a] {
				break
			}
			idx[a] = 0
		}
	}
	if c.d.Op == "ReduceMean" {
		cnt := float64(int64(len(v)) / max(nOut, 1))
		for i := range acc {
			acc[i] /= cnt
		}
	}
	storeF(y, acc)
	return nil
}
